package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.data.DataCluster;
import io.seglog.replication.zk.TopicConfigZnode;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin APIs on the wire, at every version each serves, against two real Seglog brokers over a real ZooKeeper:
 * requests built with kafka-clients' message classes, sent over loopback to broker 1, answers checked field by field
 * (error codes and Kafka's messages), and the effect checked in ZooKeeper and in the broker's metadata cache.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminApisTest {
    @TempDir
    static Path dir;
    private TestingServer zk;
    private DataCluster cluster;
    private EventLoopGroup loop;
    private WireClient client;

    @BeforeAll
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> {
            props.put("num.partitions", 2);
            props.put("log.retention.bytes", 1_073_741_824L); // a broker-level default: STATIC_BROKER_CONFIG
        });
        cluster.startAll(1, 2);
        loop = new NioEventLoopGroup(1);
        final SeglogBroker b1 = cluster.broker(1);
        client = new WireClient(loop, "127.0.0.1", b1.boundAddress().getPort(), "admin-apis-test", 64 << 20, 60_000);
    }

    @AfterAll
    void stop() throws Exception {
        client.close();
        loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        cluster.close();
        zk.close();
    }

    @SuppressWarnings("unchecked")
    private <T extends ApiMessage> T send(final ApiKeys api, final int version, final ApiMessage body) {
        try {
            return (T) client.send(api, (short) version, body).get(90, TimeUnit.SECONDS);
        } catch (final InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError(api + " v" + version, e);
        }
    }

    private static CreateTopicsRequestData.CreatableTopic topic(final String name, final int partitions,
                                                                final int rf) {
        return new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
            .setReplicationFactor((short) rf);
    }

    private CreateTopicsResponseData create(final int version, final boolean validateOnly, final int timeoutMs,
                                            final CreateTopicsRequestData.CreatableTopic... topics) {
        final CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(timeoutMs)
            .setValidateOnly(validateOnly);
        for (final CreateTopicsRequestData.CreatableTopic t : topics) {
            req.topics().add(t);
        }
        return send(ApiKeys.CREATE_TOPICS, version, req);
    }

    private static CreateTopicsResponseData.CreatableTopicResult only(final CreateTopicsResponseData resp) {
        assertEquals(1, resp.topics().size(), resp.toString());
        return resp.topics().iterator().next();
    }

    private boolean ledInCache(final String topic, final int partitions) {
        final Map<TopicPartition, ?> meta = cluster.broker(1).control().controlHandler().metadata();
        for (int p = 0; p < partitions; p++) {
            if (!meta.containsKey(new TopicPartition(topic, p))) {
                return false;
            }
        }
        return true;
    }

    // --------------------------------------------------------------------------------------- CreateTopics

    @Test
    void createTopicsWithBrokerDefaultsAtEveryVersionAndAnswersOnceLed() {
        for (int v = AdminApis.CREATE_TOPICS_MIN; v <= AdminApis.CREATE_TOPICS_MAX; v++) {
            final String name = "defaults-v" + v;
            final CreateTopicsResponseData.CreatableTopicResult r = only(create(v, false, 30_000, topic(name, -1, -1)));
            assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v + ": " + r);
            assertNull(r.errorMessage(), "v" + v);
            // The answer waited for the leaders: the receiving broker's cache already has both partitions.
            assertTrue(ledInCache(name, 2), "v" + v + ": partitions of " + name + " led in broker 1's cache");
            assertEquals(List.of(0, 1), new ArrayList<>(cluster.store().topicAssignment(name, null).orElseThrow()
                .value().partitions().keySet()), "v" + v);
            if (v >= 5) {
                assertEquals(2, r.numPartitions(), "v" + v);
                assertEquals(1, r.replicationFactor(), "v" + v);
                final CreateTopicsResponseData.CreatableTopicConfigs retention = r.configs().stream()
                    .filter(c -> c.name().equals("retention.ms")).findFirst().orElseThrow();
                assertEquals("604800000", retention.value(), "v" + v);
                assertEquals(TopicConfigs.SOURCE_DEFAULT, retention.configSource(), "v" + v);
                final CreateTopicsResponseData.CreatableTopicConfigs bytes = r.configs().stream()
                    .filter(c -> c.name().equals("retention.bytes")).findFirst().orElseThrow();
                assertEquals("1073741824", bytes.value(), "v" + v);
                assertEquals(TopicConfigs.SOURCE_STATIC_BROKER, bytes.configSource(), "v" + v);
            } else {
                assertEquals(-1, r.numPartitions(), "v" + v);
            }
            if (v >= 7) {
                assertNotEquals(Uuid.ZERO_UUID, r.topicId(), "v" + v + ": the new topic's id");
            }
        }
    }

    @Test
    void createTopicsWithAssignmentAndConfigsWritesBothToZooKeeper() {
        final CreateTopicsRequestData.CreatableTopic t = topic("placed", -1, -1);
        t.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(0)
            .setBrokerIds(List.of(2, 1)));
        t.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(1)
            .setBrokerIds(List.of(1, 2)));
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms").setValue("3600000"));
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("cleanup.policy").setValue("compact"));
        final CreateTopicsResponseData.CreatableTopicResult r = only(create(7, false, 30_000, t));
        assertEquals(Errors.NONE.code(), r.errorCode(), r.toString());
        assertEquals(2, r.replicationFactor());
        assertEquals(Map.of(0, List.of(2, 1), 1, List.of(1, 2)),
            cluster.store().topicAssignment("placed", null).orElseThrow().value().partitions());
        assertEquals(Optional.of(new TopicConfigZnode(Map.of("retention.ms", "3600000", "cleanup.policy", "compact"))),
            cluster.store().admin().topicConfig("placed"));
        final CreateTopicsResponseData.CreatableTopicConfigs retention = r.configs().stream()
            .filter(c -> c.name().equals("retention.ms")).findFirst().orElseThrow();
        assertEquals("3600000", retention.value());
        assertEquals(TopicConfigs.SOURCE_TOPIC, retention.configSource());
    }

    @Test
    void createTopicsAnswersKafkasErrorsPerTopic() {
        assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic("taken", 1, 1))).errorCode());
        final CreateTopicsRequestData.CreatableTopic unknownBroker = topic("unknown-broker", -1, -1);
        unknownBroker.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(0)
            .setBrokerIds(List.of(1, 9)));
        final CreateTopicsRequestData.CreatableTopic gap = topic("gap", -1, -1);
        gap.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(1)
            .setBrokerIds(List.of(1)));
        final CreateTopicsRequestData.CreatableTopic both = topic("both", 1, -1);
        both.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(0)
            .setBrokerIds(List.of(1)));
        final CreateTopicsRequestData.CreatableTopic badValue = topic("bad-value", 1, 1);
        badValue.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms")
            .setValue("soon"));
        final CreateTopicsRequestData.CreatableTopic unknownConfig = topic("unknown-config", 1, 1);
        unknownConfig.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("no.such.config")
            .setValue("1"));
        final CreateTopicsRequestData.CreatableTopic nullConfig = topic("null-config", 1, 1);
        nullConfig.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms")
            .setValue(null));
        for (int v = AdminApis.CREATE_TOPICS_MIN; v <= AdminApis.CREATE_TOPICS_MAX; v++) {
            final CreateTopicsResponseData resp = create(v, false, 30_000, topic("taken", 1, 1),
                topic("bad/name", 1, 1), topic("too-many-replicas", 1, 3), topic("no-partitions", 0, 1),
                topic("no-replicas", 1, 0), unknownBroker.duplicate(), gap.duplicate(), both.duplicate(),
                badValue.duplicate(), unknownConfig.duplicate(), nullConfig.duplicate());
            final String at = "v" + v;
            expect(resp, "taken", Errors.TOPIC_ALREADY_EXISTS, "Topic 'taken' already exists.", at);
            expect(resp, "bad/name", Errors.INVALID_TOPIC_EXCEPTION, null, at);
            expect(resp, "too-many-replicas", Errors.INVALID_REPLICATION_FACTOR,
                "Replication factor: 3 larger than available brokers: 2.", at);
            expect(resp, "no-partitions", Errors.INVALID_PARTITIONS, "Number of partitions must be larger than 0.", at);
            expect(resp, "no-replicas", Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.",
                at);
            expect(resp, "unknown-broker", Errors.INVALID_REPLICA_ASSIGNMENT,
                "Unknown broker(s) in replica assignment: 9.", at);
            expect(resp, "gap", Errors.INVALID_REPLICA_ASSIGNMENT,
                "partitions should be a consecutive 0-based integer sequence", at);
            expect(resp, "both", Errors.INVALID_REQUEST, "Both numPartitions or replicationFactor and "
                + "replicasAssignments were set. Both cannot be used at the same time.", at);
            expect(resp, "bad-value", Errors.INVALID_CONFIG, null, at);
            expect(resp, "unknown-config", Errors.INVALID_CONFIG, "Unknown topic config name: no.such.config", at);
            expect(resp, "null-config", Errors.INVALID_CONFIG, "Null value not supported for topic configs: retention.ms",
                at);
            for (final CreateTopicsResponseData.CreatableTopicResult r : resp.topics()) {
                assertEquals(-1, r.numPartitions(), at + " " + r.name());
                assertTrue(r.configs() == null || r.configs().isEmpty(), at + " " + r.name());
            }
        }
        for (final String name : List.of("bad-value", "unknown-config", "too-many-replicas", "gap")) {
            assertTrue(cluster.store().topicAssignment(name, null).isEmpty(), name + " was not created");
        }
        final CreateTopicsResponseData dup = create(7, false, 30_000, topic("twice", 1, 1), topic("twice", 1, 1));
        assertEquals(2, dup.topics().size());
        dup.topics().forEach(r -> assertEquals(Errors.INVALID_REQUEST.code(), r.errorCode()));
        assertTrue(cluster.store().topicAssignment("twice", null).isEmpty());
    }

    private static void expect(final CreateTopicsResponseData resp, final String topic, final Errors error,
                               final String message, final String at) {
        final CreateTopicsResponseData.CreatableTopicResult r = resp.topics().find(topic);
        assertEquals(error.code(), r.errorCode(), at + " " + topic + ": " + r);
        if (message != null) {
            assertEquals(message, r.errorMessage(), at + " " + topic);
        } else {
            assertFalse(r.errorMessage() == null || r.errorMessage().isEmpty(), at + " " + topic + " has a message");
        }
    }

    @Test
    void kafkaTopicConfigsSeglogLacksAreRefusedByName() {
        final CreateTopicsRequestData.CreatableTopic t = topic("preallocated", 1, 1);
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("preallocate").setValue("true"));
        final CreateTopicsResponseData.CreatableTopicResult r = only(create(7, false, 30_000, t));
        assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode());
        assertEquals("Topic config preallocate is not supported by Seglog", r.errorMessage());
        assertTrue(cluster.store().topicAssignment("preallocated", null).isEmpty());
    }

    @Test
    void apiVersionsAdvertisesTheAdminApisWithTheirRanges() {
        final org.apache.kafka.common.message.ApiVersionsResponseData resp = send(ApiKeys.API_VERSIONS, 3,
            new org.apache.kafka.common.message.ApiVersionsRequestData().setClientSoftwareName("admin-apis-test")
                .setClientSoftwareVersion("1"));
        assertEquals(Errors.NONE.code(), resp.errorCode());
        final Map<ApiKeys, String> expected = Map.of(ApiKeys.CREATE_TOPICS, "2-7", ApiKeys.DELETE_TOPICS, "1-6",
            ApiKeys.CREATE_PARTITIONS, "0-3", ApiKeys.DESCRIBE_CLUSTER, "0-2", ApiKeys.DESCRIBE_CONFIGS, "1-4",
            ApiKeys.ALTER_CONFIGS, "0-2", ApiKeys.INCREMENTAL_ALTER_CONFIGS, "0-1");
        expected.forEach((api, range) -> {
            final org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion v = resp.apiKeys().find(api.id);
            assertTrue(v != null, api + " advertised");
            assertEquals(range, v.minVersion() + "-" + v.maxVersion(), api.toString());
        });
        assertNull(resp.apiKeys().find(ApiKeys.ALTER_CLIENT_QUOTAS.id), "AlterClientQuotas is not served, so not"
            + " advertised");
    }

    @Test
    void validateOnlyCreatesNothingAndZeroTimeoutAnswersTimedOutAfterWriting() {
        final CreateTopicsResponseData.CreatableTopicResult checked =
            only(create(7, true, 30_000, topic("only-checked", 3, 2)));
        assertEquals(Errors.NONE.code(), checked.errorCode());
        assertEquals(3, checked.numPartitions());
        assertEquals(2, checked.replicationFactor());
        assertTrue(cluster.store().topicAssignment("only-checked", null).isEmpty());
        // Kafka's rule for timeoutMs <= 0: written, then answered REQUEST_TIMED_OUT without waiting.
        final CreateTopicsResponseData.CreatableTopicResult noWait = only(create(7, false, 0, topic("no-wait", 1, 1)));
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), noWait.errorCode());
        assertTrue(cluster.store().topicAssignment("no-wait", null).isPresent());
        Await.until(DataCluster.WAIT, () -> ledInCache("no-wait", 1), () -> "no-wait led");
    }

    // --------------------------------------------------------------------------------------- DeleteTopics

    @Test
    void deleteTopicsAtEveryVersionWaitsUntilGone() {
        for (int v = AdminApis.DELETE_TOPICS_MIN; v <= AdminApis.DELETE_TOPICS_MAX; v++) {
            final String name = "doomed-v" + v;
            assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic(name, 2, 2))).errorCode());
            final DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTimeoutMs(30_000);
            if (v >= 6) {
                req.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
                req.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("never-was"));
            } else {
                req.setTopicNames(List.of(name, "never-was"));
            }
            final DeleteTopicsResponseData resp = send(ApiKeys.DELETE_TOPICS, v, req);
            assertEquals(Errors.NONE.code(), resp.responses().find(name).errorCode(), "v" + v + ": " + resp);
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), resp.responses().find("never-was").errorCode(),
                "v" + v);
            assertFalse(cluster.broker(1).control().controlHandler().metadata().keySet().stream()
                .anyMatch(tp -> tp.topic().equals(name)), "v" + v + ": " + name + " gone from the cache when answered");
        }
    }

    @Test
    void deleteTopicsByIdAnswersUnknownTopicIdAndRefusesNameWithId() {
        final Uuid id = Uuid.randomUuid();
        final DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTimeoutMs(10_000);
        req.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setTopicId(id));
        req.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName("named").setTopicId(id));
        final DeleteTopicsResponseData resp = send(ApiKeys.DELETE_TOPICS, 6, req);
        final List<DeleteTopicsResponseData.DeletableTopicResult> results = new ArrayList<>(resp.responses());
        assertEquals(2, results.size());
        assertNull(results.get(0).name());
        assertEquals(id, results.get(0).topicId());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), results.get(0).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), results.get(1).errorCode());
        assertEquals("Topic name and topic ID can not both be specified.", results.get(1).errorMessage());
    }

    // ----------------------------------------------------------------------------------- CreatePartitions

    private CreatePartitionsResponseData.CreatePartitionsTopicResult grow(final int version, final String topic,
                                                                         final int count, final boolean validateOnly,
                                                                         final List<List<Integer>> assignments) {
        final CreatePartitionsRequestData.CreatePartitionsTopic t = new CreatePartitionsRequestData
            .CreatePartitionsTopic().setName(topic).setCount(count);
        if (assignments != null) {
            final List<CreatePartitionsRequestData.CreatePartitionsAssignment> list = new ArrayList<>();
            assignments.forEach(a -> list.add(new CreatePartitionsRequestData.CreatePartitionsAssignment()
                .setBrokerIds(a)));
            t.setAssignments(list);
        } else {
            t.setAssignments(null);
        }
        final CreatePartitionsRequestData req = new CreatePartitionsRequestData().setTimeoutMs(30_000)
            .setValidateOnly(validateOnly);
        req.topics().add(t);
        final CreatePartitionsResponseData resp = send(ApiKeys.CREATE_PARTITIONS, version, req);
        assertEquals(1, resp.results().size());
        return resp.results().get(0);
    }

    @Test
    void createPartitionsAtEveryVersionStartsTheNewPartitions() {
        for (int v = AdminApis.CREATE_PARTITIONS_MIN; v <= AdminApis.CREATE_PARTITIONS_MAX; v++) {
            final String name = "growing-v" + v;
            assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic(name, 1, 2))).errorCode());
            final CreatePartitionsResponseData.CreatePartitionsTopicResult auto = grow(v, name, 3, false, null);
            assertEquals(Errors.NONE.code(), auto.errorCode(), "v" + v + ": " + auto);
            assertNull(auto.errorMessage());
            assertTrue(ledInCache(name, 3), "v" + v + ": new partitions led when answered");
            final CreatePartitionsResponseData.CreatePartitionsTopicResult manual =
                grow(v, name, 4, false, List.of(List.of(2, 1)));
            assertEquals(Errors.NONE.code(), manual.errorCode(), "v" + v + ": " + manual);
            assertEquals(List.of(2, 1), cluster.store().topicAssignment(name, null).orElseThrow().value().partitions()
                .get(3), "v" + v);
            assertTrue(ledInCache(name, 4), "v" + v);
        }
    }

    @Test
    void createPartitionsAnswersKafkasErrors() {
        assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic("fixed", 2, 2))).errorCode());
        for (int v = AdminApis.CREATE_PARTITIONS_MIN; v <= AdminApis.CREATE_PARTITIONS_MAX; v++) {
            final String at = "v" + v;
            check(grow(v, "fixed", 2, false, null), Errors.INVALID_PARTITIONS, "Topic already has 2 partitions.", at);
            check(grow(v, "fixed", 1, false, null), Errors.INVALID_PARTITIONS,
                "Topic currently has 2 partitions, which is higher than the requested 1.", at);
            check(grow(v, "absent", 3, false, null), Errors.UNKNOWN_TOPIC_OR_PARTITION,
                "The topic 'absent' does not exist.", at);
            check(grow(v, "fixed", 3, false, List.of(List.of(1, 9))), Errors.INVALID_REPLICA_ASSIGNMENT,
                "Unknown broker(s) in replica assignment: 9.", at);
            check(grow(v, "fixed", 4, false, List.of(List.of(1, 2))), Errors.INVALID_REPLICA_ASSIGNMENT,
                "Increasing the number of partitions by 2 but 1 assignments provided.", at);
            check(grow(v, "fixed", 3, false, List.of(List.of(1))), Errors.INVALID_REPLICA_ASSIGNMENT,
                "Inconsistent replication factor between partitions, partition 0 has 2 while partitions [2] have "
                    + "replication factors [1], respectively.", at);
            check(grow(v, "fixed", 3, false, List.of(List.of(1, 1))), Errors.INVALID_REPLICA_ASSIGNMENT,
                "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 2.", at);
            check(grow(v, "fixed", 3, true, null), Errors.NONE, null, at);
        }
        assertEquals(2, cluster.store().topicAssignment("fixed", null).orElseThrow().value().partitions().size(),
            "nothing added by refused or validate-only requests");
    }

    private static void check(final CreatePartitionsResponseData.CreatePartitionsTopicResult r, final Errors error,
                              final String message, final String at) {
        assertEquals(error.code(), r.errorCode(), at + ": " + r);
        assertEquals(message, r.errorMessage(), at);
    }

    // ------------------------------------------------------------------------------------ DescribeCluster

    @Test
    void describeClusterAtEveryVersion() {
        for (int v = DescribeApis.DESCRIBE_CLUSTER_MIN; v <= DescribeApis.DESCRIBE_CLUSTER_MAX; v++) {
            final DescribeClusterResponseData resp = send(ApiKeys.DESCRIBE_CLUSTER, v,
                new DescribeClusterRequestData().setIncludeFencedBrokers(v >= 2));
            assertEquals(Errors.NONE.code(), resp.errorCode(), "v" + v);
            assertEquals(cluster.broker(1).clusterId(), resp.clusterId(), "v" + v);
            assertEquals(cluster.store().controllerId(null).getAsInt(), resp.controllerId(), "v" + v);
            assertEquals(List.of(1, 2), resp.brokers().stream().map(b -> b.brokerId()).toList(), "v" + v);
            final DescribeClusterResponseData.DescribeClusterBroker b2 = resp.brokers().find(2);
            assertEquals(cluster.broker(2).boundAddress().getPort(), b2.port(), "v" + v);
            assertEquals("127.0.0.1", b2.host(), "v" + v);
            assertNull(b2.rack(), "v" + v);
            assertFalse(b2.isFenced(), "v" + v);
        }
        final DescribeClusterResponseData controllers = send(ApiKeys.DESCRIBE_CLUSTER, 1,
            new DescribeClusterRequestData().setEndpointType((byte) 2));
        assertEquals(Errors.MISMATCHED_ENDPOINT_TYPE.code(), controllers.errorCode());
        final DescribeClusterResponseData unknown = send(ApiKeys.DESCRIBE_CLUSTER, 2,
            new DescribeClusterRequestData().setEndpointType((byte) 9));
        assertEquals(Errors.UNSUPPORTED_ENDPOINT_TYPE.code(), unknown.errorCode());
        assertEquals("Unsupported endpoint type 9", unknown.errorMessage());
    }

    // ------------------------------------------------------------------------------------ DescribeConfigs

    @Test
    void describeConfigsOfTopicsAndBrokersAtEveryVersion() {
        final CreateTopicsRequestData.CreatableTopic t = topic("configured", 1, 1);
        t.configs().add(new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.ms").setValue("60000"));
        assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, t)).errorCode());
        for (int v = DescribeApis.DESCRIBE_CONFIGS_MIN; v <= DescribeApis.DESCRIBE_CONFIGS_MAX; v++) {
            final String at = "v" + v;
            final DescribeConfigsRequestData req = new DescribeConfigsRequestData().setIncludeSynonyms(true);
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                .setResourceName("configured").setConfigurationKeys(null));
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                .setResourceName("configured").setConfigurationKeys(List.of("retention.bytes")));
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                .setResourceName("nowhere").setConfigurationKeys(null));
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4)
                .setResourceName("1").setConfigurationKeys(null));
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 4)
                .setResourceName("7").setConfigurationKeys(null));
            req.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 8)
                .setResourceName("1").setConfigurationKeys(null));
            final DescribeConfigsResponseData resp = send(ApiKeys.DESCRIBE_CONFIGS, v, req);
            assertEquals(6, resp.results().size(), at);

            final DescribeConfigsResponseData.DescribeConfigsResult all = resp.results().get(0);
            assertEquals(Errors.NONE.code(), all.errorCode(), at);
            assertEquals("configured", all.resourceName(), at);
            assertEquals(TopicConfigs.NAMES.size(), all.configs().size(), at);
            final DescribeConfigsResponseData.DescribeConfigsResourceResult retention = entry(all, "retention.ms");
            assertEquals("60000", retention.value(), at);
            assertEquals(TopicConfigs.SOURCE_TOPIC, retention.configSource(), at);
            assertEquals(List.of("retention.ms/60000/1", "log.retention.ms/604800000/5"),
                retention.synonyms().stream().map(s -> s.name() + "/" + s.value() + "/" + s.source()).toList(), at);
            assertEquals(v >= 3 ? TopicConfigs.TYPE_LONG : 0, retention.configType(), at);
            final DescribeConfigsResponseData.DescribeConfigsResourceResult policy = entry(all, "cleanup.policy");
            assertEquals("delete", policy.value(), at);
            assertEquals(TopicConfigs.SOURCE_DEFAULT, policy.configSource(), at);

            final DescribeConfigsResponseData.DescribeConfigsResult filtered = resp.results().get(1);
            assertEquals(List.of("retention.bytes"), filtered.configs().stream().map(c -> c.name()).toList(), at);
            assertEquals(TopicConfigs.SOURCE_STATIC_BROKER, filtered.configs().get(0).configSource(), at);
            assertEquals("log.retention.bytes", filtered.configs().get(0).synonyms().get(0).name(), at);

            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), resp.results().get(2).errorCode(), at);
            assertEquals("nowhere", resp.results().get(2).resourceName(), at);

            final DescribeConfigsResponseData.DescribeConfigsResult broker = resp.results().get(3);
            assertEquals(Errors.NONE.code(), broker.errorCode(), at);
            assertEquals("1", entry(broker, "broker.id").value(), at);
            assertEquals(TopicConfigs.SOURCE_STATIC_BROKER, entry(broker, "broker.id").configSource(), at);
            assertEquals("2", entry(broker, "num.partitions").value(), at);
            assertEquals("1073741824", entry(broker, "log.retention.bytes").value(), at);
            assertEquals(TopicConfigs.SOURCE_DEFAULT, entry(broker, "log.segment.bytes").configSource(), at);

            assertEquals(Errors.INVALID_REQUEST.code(), resp.results().get(4).errorCode(), at);
            assertEquals("Unexpected broker id, expected 1 or empty string, but received 7",
                resp.results().get(4).errorMessage(), at);
            assertEquals(Errors.INVALID_REQUEST.code(), resp.results().get(5).errorCode(), at);
            assertEquals("Unsupported resource type: BROKER_LOGGER", resp.results().get(5).errorMessage(), at);
            assertEquals(8, resp.results().get(5).resourceType(), at);
        }
        final DescribeConfigsRequestData noSynonyms = new DescribeConfigsRequestData();
        noSynonyms.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
            .setResourceName("configured").setConfigurationKeys(null));
        final DescribeConfigsResponseData plain = send(ApiKeys.DESCRIBE_CONFIGS, 4, noSynonyms);
        assertTrue(entry(plain.results().get(0), "retention.ms").synonyms().isEmpty());
    }

    private static DescribeConfigsResponseData.DescribeConfigsResourceResult entry(
        final DescribeConfigsResponseData.DescribeConfigsResult result, final String name) {
        return result.configs().stream().filter(c -> c.name().equals(name)).findFirst()
            .orElseThrow(() -> new AssertionError(name + " in " + result));
    }

    // ------------------------------------------------------------------- AlterConfigs, IncrementalAlterConfigs

    private static IncrementalAlterConfigsRequestData.AlterConfigsResource incremental(final int type,
                                                                                      final String name,
                                                                                      final Object... opNameValue) {
        final IncrementalAlterConfigsRequestData.AlterConfigsResource r =
            new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) type)
                .setResourceName(name);
        for (int i = 0; i < opNameValue.length; i += 3) {
            r.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                .setConfigOperation(((Integer) opNameValue[i]).byteValue()).setName((String) opNameValue[i + 1])
                .setValue((String) opNameValue[i + 2]));
        }
        return r;
    }

    private IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse alterIncrementally(
        final int version, final boolean validateOnly, final IncrementalAlterConfigsRequestData.AlterConfigsResource r) {
        final IncrementalAlterConfigsRequestData req = new IncrementalAlterConfigsRequestData()
            .setValidateOnly(validateOnly);
        req.resources().add(r);
        final IncrementalAlterConfigsResponseData resp = send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, version, req);
        assertEquals(1, resp.responses().size(), resp.toString());
        final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse only = resp.responses().get(0);
        assertEquals(r.resourceName(), only.resourceName());
        assertEquals(r.resourceType(), only.resourceType());
        return only;
    }

    private Map<String, String> overrides(final String topic) {
        return cluster.store().admin().topicConfig(topic).map(TopicConfigZnode::config).orElse(Map.of());
    }

    @Test
    void incrementalAlterConfigsSetsDeletesAppendsAndSubtractsAtEveryVersion() {
        for (int v = AlterConfigsApis.INCREMENTAL_ALTER_CONFIGS_MIN; v <= AlterConfigsApis.INCREMENTAL_ALTER_CONFIGS_MAX;
             v++) {
            final String name = "incremental-v" + v;
            assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic(name, 1, 1)
                .setConfigs(new CreateTopicsRequestData.CreatableTopicConfigCollection(List.of(
                    new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.bytes").setValue("1000"))
                    .iterator())))).errorCode());
            final int notificationsBefore = cluster.store().admin().configChangeNotifications(null).size();
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r = alterIncrementally(v, false,
                incremental(2, name, 0, "retention.ms", "60000", 2, "cleanup.policy", "compact",
                    1, "retention.bytes", null));
            assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v + ": " + r);
            assertNull(r.errorMessage());
            assertEquals(Map.of("retention.ms", "60000", "cleanup.policy", "delete,compact"), overrides(name));
            assertEquals(notificationsBefore + 1, cluster.store().admin().configChangeNotifications(null).size(),
                "one change notification");
            assertEquals(Optional.of("topics/" + name), cluster.store().admin().configChangeNotifications(null)
                .values().stream().reduce((a, b) -> b).map(n -> n.entityPath()));

            r = alterIncrementally(v, false, incremental(2, name, 3, "cleanup.policy", "delete"));
            assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v + ": " + r);
            assertEquals("compact", overrides(name).get("cleanup.policy"));

            r = alterIncrementally(v, true, incremental(2, name, 0, "retention.ms", "1"));
            assertEquals(Errors.NONE.code(), r.errorCode(), "validateOnly");
            assertEquals("60000", overrides(name).get("retention.ms"), "validateOnly writes nothing");
        }
    }

    @Test
    void incrementalAlterConfigsRefusesWhatCreateTopicsRefuses() {
        final String name = "incremental-refusals";
        assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic(name, 1, 1))).errorCode());
        IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r =
            alterIncrementally(1, false, incremental(2, name, 0, "retention.ms", "soon"));
        assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode());
        assertTrue(r.errorMessage().contains("retention.ms"), r.errorMessage());
        r = alterIncrementally(1, false, incremental(2, name, 0, "preallocate", "true"));
        assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode());
        assertEquals("Topic config preallocate is not supported by Seglog", r.errorMessage());
        r = alterIncrementally(1, false, incremental(2, name, 0, "no.such.config", "1"));
        assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode());
        r = alterIncrementally(1, false, incremental(2, name, 2, "retention.ms", "1"));
        assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode());
        assertEquals("Config value append is not allowed for config key: retention.ms", r.errorMessage());
        r = alterIncrementally(1, false, incremental(2, name, 0, "retention.ms", "1", 1, "retention.ms", null));
        assertEquals(Errors.INVALID_REQUEST.code(), r.errorCode());
        r = alterIncrementally(1, false, incremental(2, "no-such-topic", 0, "retention.ms", "1"));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), r.errorCode());
        r = alterIncrementally(1, false, incremental(4, "1", 0, "log.retention.ms", "1"));
        assertEquals(Errors.INVALID_REQUEST.code(), r.errorCode(), "no dynamic broker configuration");
        assertEquals(Map.of(), overrides(name), "nothing written");
    }

    @Test
    void alterConfigsReplacesTheWholeSetAtEveryVersion() {
        for (int v = AlterConfigsApis.ALTER_CONFIGS_MIN; v <= AlterConfigsApis.ALTER_CONFIGS_MAX; v++) {
            final String name = "alter-v" + v;
            assertEquals(Errors.NONE.code(), only(create(7, false, 30_000, topic(name, 1, 1)
                .setConfigs(new CreateTopicsRequestData.CreatableTopicConfigCollection(List.of(
                    new CreateTopicsRequestData.CreatableTopicConfig().setName("retention.bytes").setValue("1000"))
                    .iterator())))).errorCode());
            final AlterConfigsRequestData req = new AlterConfigsRequestData();
            final AlterConfigsRequestData.AlterConfigsResource res = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType((byte) 2).setResourceName(name);
            res.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("segment.ms").setValue("3600000"));
            req.resources().add(res);
            final AlterConfigsResponseData resp = send(ApiKeys.ALTER_CONFIGS, v, req);
            final AlterConfigsResponseData.AlterConfigsResourceResponse r = resp.responses().get(0);
            assertEquals(Errors.NONE.code(), r.errorCode(), "v" + v + ": " + r);
            assertEquals(name, r.resourceName());
            assertEquals(Map.of("segment.ms", "3600000"), overrides(name), "retention.bytes gone: the whole set");

            res.configs().clear();
            res.configs().add(new AlterConfigsRequestData.AlterableConfig().setName("segment.ms").setValue("-5"));
            final AlterConfigsResponseData.AlterConfigsResourceResponse bad =
                ((AlterConfigsResponseData) send(ApiKeys.ALTER_CONFIGS, v, req)).responses().get(0);
            assertEquals(Errors.INVALID_CONFIG.code(), bad.errorCode(), "v" + v);
            assertEquals("3600000", overrides(name).get("segment.ms"));
        }
    }
}
