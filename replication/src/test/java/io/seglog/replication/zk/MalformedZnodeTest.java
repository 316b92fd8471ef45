package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every malformed payload is a checked {@link MalformedZnodeException} naming the path and the field, never an
 * unchecked exception.
 */
class MalformedZnodeTest {
    private static final String STATE = "/brokers/topics/t/partitions/0/state";

    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] json) throws MalformedZnodeException;
    }

    private static Arguments reject(final String name, final Decoder decoder, final String json,
        final String path, final String field) {
        return Arguments.of(name, decoder, json, path, field);
    }

    static Stream<Arguments> malformed() {
        final Decoder state = json -> PartitionStateZnode.fromJson(STATE, json, 0);
        final Decoder broker = json -> BrokerRegistration.fromJson(1, json);
        final Decoder topic = json -> TopicAssignmentZnode.fromJson("t", json);
        final Decoder controller = ControllerZnode::fromJson;
        final Decoder epoch = ControllerEpochZnode::fromBytes;
        final Decoder isr = json -> IsrChangeNotificationZnode.fromJson("/isr_change_notification/isr_change_1", json);
        final Decoder preferred = PreferredReplicaElectionZnode::fromJson;
        final Decoder reassign = ReassignPartitionsZnode::fromJson;
        final String w = MalformedZnodeException.WHOLE_PAYLOAD;
        final Decoder pidBlock = ProducerIdBlockZnode::fromJson;
        final String pid = ZkPaths.LATEST_PRODUCER_ID_BLOCK;
        final String okState = "\"controller_epoch\":1,\"leader\":1,\"version\":1,\"leader_epoch\":0";
        final String b = "/brokers/ids/1";
        final String okBroker = "\"version\":5,\"host\":\"h\",\"port\":9092,\"jmx_port\":-1,\"timestamp\":\"1\"";
        final String tp = "/brokers/topics/t";
        return Stream.of(
            reject("state: empty", state, "", STATE, w),
            reject("state: not JSON", state, "{\"leader\":", STATE, w),
            reject("state: array", state, "[1,2]", STATE, w),
            reject("state: trailing garbage", state, "{" + okState + ",\"isr\":[1]} x", STATE, w),
            reject("state: duplicate key", state, "{" + okState + ",\"isr\":[1],\"isr\":[2]}", STATE, w),
            reject("state: too deep", state, "{\"x\":" + "[".repeat(40) + "]".repeat(40) + "}", STATE, w),
            reject("state: missing isr", state, "{" + okState + "}", STATE, "isr"),
            reject("state: missing leader", state,
                "{\"controller_epoch\":1,\"version\":1,\"leader_epoch\":0,\"isr\":[1]}", STATE, "leader"),
            reject("state: leader string", state,
                "{\"controller_epoch\":1,\"leader\":\"1\",\"version\":1,\"leader_epoch\":0,\"isr\":[1]}", STATE, "leader"),
            reject("state: leader fraction", state,
                "{\"controller_epoch\":1,\"leader\":1.5,\"version\":1,\"leader_epoch\":0,\"isr\":[1]}", STATE, "leader"),
            reject("state: leader -3", state,
                "{\"controller_epoch\":1,\"leader\":-3,\"version\":1,\"leader_epoch\":0,\"isr\":[1]}", STATE, "leader"),
            reject("state: leader_epoch overflow", state,
                "{\"controller_epoch\":1,\"leader\":1,\"version\":1,\"leader_epoch\":2147483648,\"isr\":[1]}", STATE,
                "leader_epoch"),
            reject("state: negative controller_epoch", state,
                "{\"controller_epoch\":-1,\"leader\":1,\"version\":1,\"leader_epoch\":0,\"isr\":[1]}", STATE,
                "controller_epoch"),
            reject("state: version 2", state,
                "{\"controller_epoch\":1,\"leader\":1,\"version\":2,\"leader_epoch\":0,\"isr\":[1]}", STATE, "version"),
            reject("state: isr not array", state, "{" + okState + ",\"isr\":1}", STATE, "isr"),
            reject("state: negative isr id", state, "{" + okState + ",\"isr\":[1,-2]}", STATE, "isr[1]"),
            reject("state: repeated isr id", state, "{" + okState + ",\"isr\":[1,2,1]}", STATE, "isr[2]"),
            reject("state: null isr id", state, "{" + okState + ",\"isr\":[null]}", STATE, "isr[0]"),
            reject("state: absurd isr", state, "{" + okState + ",\"isr\":[" + range(2000) + "]}", STATE, "isr"),
            reject("state: bad recovery state", state, "{" + okState + ",\"isr\":[1],\"leader_recovery_state\":2}",
                STATE, "leader_recovery_state"),
            reject("broker: missing jmx_port", broker,
                "{\"version\":5,\"host\":\"h\",\"port\":1,\"endpoints\":[\"PLAINTEXT://h:1\"]}", b, "jmx_port"),
            reject("broker: version 0", broker, "{\"version\":0,\"jmx_port\":-1}", b, "version"),
            reject("broker: v1 without host", broker, "{\"version\":1,\"jmx_port\":-1,\"port\":9092}", b, "host"),
            reject("broker: v1 port too large", broker,
                "{\"version\":1,\"jmx_port\":-1,\"host\":\"h\",\"port\":70000}", b, "port"),
            reject("broker: missing endpoints", broker, "{" + okBroker + "}", b, "endpoints"),
            reject("broker: empty endpoints", broker, "{" + okBroker + ",\"endpoints\":[]}", b, "endpoints"),
            reject("broker: endpoint not a string", broker, "{" + okBroker + ",\"endpoints\":[9092]}", b, "endpoints[0]"),
            reject("broker: endpoint without scheme", broker, "{" + okBroker + ",\"endpoints\":[\"h:9092\"]}", b,
                "endpoints[0]"),
            reject("broker: endpoint without port", broker, "{" + okBroker + ",\"endpoints\":[\"PLAINTEXT://h\"]}", b,
                "endpoints[0]"),
            reject("broker: endpoint negative port", broker,
                "{" + okBroker + ",\"endpoints\":[\"PLAINTEXT://h:-1\"]}", b, "endpoints[0].port"),
            reject("broker: unmapped listener", broker, "{" + okBroker + ",\"endpoints\":[\"CLIENT://h:1\"],"
                + "\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"}}", b, "endpoints[0]"),
            reject("broker: unknown protocol", broker, "{" + okBroker + ",\"endpoints\":[\"CLIENT://h:1\"],"
                + "\"listener_security_protocol_map\":{\"CLIENT\":\"TLS\"}}", b, "listener_security_protocol_map.CLIENT"),
            reject("broker: duplicate listener", broker,
                "{" + okBroker + ",\"endpoints\":[\"PLAINTEXT://h:1\",\"PLAINTEXT://h:2\"]}", b, "endpoints[1]"),
            reject("broker: rack number", broker, "{" + okBroker + ",\"endpoints\":[\"PLAINTEXT://h:1\"],\"rack\":7}", b,
                "rack"),
            reject("broker: features array", broker,
                "{" + okBroker + ",\"endpoints\":[\"PLAINTEXT://h:1\"],\"features\":[]}", b, "features"),
            reject("broker: bad timestamp", broker,
                "{\"version\":5,\"jmx_port\":-1,\"timestamp\":\"soon\",\"endpoints\":[\"PLAINTEXT://h:1\"]}", b,
                "timestamp"),
            reject("topic: missing partitions", topic, "{\"version\":3}", tp, "partitions"),
            reject("topic: no partitions", topic, "{\"version\":3,\"partitions\":{}}", tp, "partitions"),
            reject("topic: missing version", topic, "{\"partitions\":{\"0\":[1]}}", tp, "version"),
            reject("topic: partition key not a number", topic, "{\"version\":3,\"partitions\":{\"a\":[1]}}", tp,
                "partitions.a"),
            reject("topic: negative partition", topic, "{\"version\":3,\"partitions\":{\"-1\":[1]}}", tp,
                "partitions.-1"),
            reject("topic: non-canonical partition", topic, "{\"version\":3,\"partitions\":{\"00\":[1]}}", tp,
                "partitions.00"),
            reject("topic: empty replicas", topic, "{\"version\":3,\"partitions\":{\"0\":[]}}", tp, "partitions.0"),
            reject("topic: repeated replica", topic, "{\"version\":3,\"partitions\":{\"0\":[1,1]}}", tp,
                "partitions.0[1]"),
            reject("topic: adding for unknown partition", topic,
                "{\"version\":3,\"partitions\":{\"0\":[1]},\"adding_replicas\":{\"1\":[2]}}", tp, "adding_replicas"),
            reject("topic: removing not a subset", topic,
                "{\"version\":3,\"partitions\":{\"0\":[1]},\"removing_replicas\":{\"0\":[2]}}", tp, "removing_replicas"),
            reject("topic: bad topic id", topic,
                "{\"version\":3,\"partitions\":{\"0\":[1]},\"topic_id\":\"not-a-uuid\"}", tp, "topic_id"),
            reject("controller: missing brokerid", controller, "{\"version\":1,\"timestamp\":\"1\"}", "/controller",
                "brokerid"),
            reject("controller: negative brokerid", controller, "{\"version\":1,\"brokerid\":-1}", "/controller",
                "brokerid"),
            reject("controller: kraft epoch string", controller,
                "{\"version\":2,\"brokerid\":1,\"kraftControllerEpoch\":\"x\"}", "/controller", "kraftControllerEpoch"),
            reject("epoch: empty", epoch, "", "/controller_epoch", w),
            reject("epoch: JSON", epoch, "{\"epoch\":1}", "/controller_epoch", "epoch"),
            reject("epoch: negative", epoch, "-1", "/controller_epoch", "epoch"),
            reject("epoch: overflow", epoch, "2147483648", "/controller_epoch", "epoch"),
            reject("epoch: too long", epoch, "123456789012", "/controller_epoch", w),
            reject("isr change: partitions object", isr, "{\"version\":1,\"partitions\":{}}",
                "/isr_change_notification/isr_change_1", "partitions"),
            reject("isr change: missing topic", isr, "{\"version\":1,\"partitions\":[{\"partition\":0}]}",
                "/isr_change_notification/isr_change_1", "topic"),
            reject("isr change: illegal topic", isr,
                "{\"version\":1,\"partitions\":[{\"topic\":\"../x\",\"partition\":0}]}",
                "/isr_change_notification/isr_change_1", "partitions[0].topic"),
            reject("preferred: negative partition", preferred,
                "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":-1}]}", ZkPaths.PREFERRED,
                "partitions[0].partition"),
            reject("reassign: missing replicas", reassign,
                "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}", ZkPaths.REASSIGN,
                "replicas"),
            reject("reassign: repeated partition", reassign,
                "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1]},"
                    + "{\"topic\":\"t\",\"partition\":0,\"replicas\":[2]}]}", ZkPaths.REASSIGN, "partitions[1]"),
            reject("reassign: element not object", reassign, "{\"version\":1,\"partitions\":[1]}", ZkPaths.REASSIGN,
                "partitions[0]"),
            reject("pid block: not JSON", pidBlock, "{\"broker\":", pid, w),
            reject("pid block: missing version", pidBlock,
                "{\"broker\":1,\"block_start\":\"0\",\"block_end\":\"999\"}", pid, "version"),
            reject("pid block: missing broker", pidBlock,
                "{\"version\":1,\"block_start\":\"0\",\"block_end\":\"999\"}", pid, "broker"),
            reject("pid block: negative broker", pidBlock,
                "{\"version\":1,\"broker\":-1,\"block_start\":\"0\",\"block_end\":\"999\"}", pid, "broker"),
            reject("pid block: start a number", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":0,\"block_end\":\"999\"}", pid, "block_start"),
            reject("pid block: start not decimal", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"0x10\",\"block_end\":\"999\"}", pid,
                "block_start"),
            reject("pid block: start negative", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"-1000\",\"block_end\":\"-1\"}", pid,
                "block_start"),
            reject("pid block: missing end", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"0\"}", pid, "block_end"),
            reject("pid block: end overflows a long", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"9223372036854775808\"}",
                pid, "block_end"),
            reject("pid block: end before start", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"1000\",\"block_end\":\"999\"}", pid,
                "block_end"),
            reject("pid block: more ids than an int", pidBlock,
                "{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"2147483647\"}", pid,
                "block_end"));
    }

    private static String range(final int n) {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(i);
        }
        return sb.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void rejectsMalformedPayloadNamingPathAndField(final String name, final Decoder decoder, final String json,
        final String path, final String field) {
        final MalformedZnodeException e = assertThrows(MalformedZnodeException.class,
            () -> decoder.decode(json.getBytes(StandardCharsets.UTF_8)), name);
        assertEquals(path, e.path(), e.getMessage());
        if (field.equals("topic") || field.equals("replicas")) {
            assertEquals(true, e.field().endsWith(field) || e.field().equals(field), e.getMessage());
        } else {
            assertEquals(field, e.field(), e.getMessage());
        }
    }

    @Test
    void rejectsNullAndOversizedPayloads() {
        final MalformedZnodeException nul = assertThrows(MalformedZnodeException.class,
            () -> ControllerZnode.fromJson(null));
        assertEquals(MalformedZnodeException.WHOLE_PAYLOAD, nul.field());
        final byte[] huge = new byte[ZkJson.MAX_PAYLOAD_BYTES + 1];
        Arrays.fill(huge, (byte) ' ');
        final MalformedZnodeException big = assertThrows(MalformedZnodeException.class,
            () -> TopicAssignmentZnode.fromJson("t", huge));
        assertEquals(true, big.getMessage().contains("length=" + huge.length), big.getMessage());
    }

    @Test
    void rejectsInvalidUtf8AsMalformed() {
        final byte[] bad = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        assertThrows(MalformedZnodeException.class, () -> PreferredReplicaElectionZnode.fromJson(bad));
    }

    @Test
    void rejectsOverlongStringValue() {
        final String json = "{\"version\":1,\"brokerid\":1,\"timestamp\":\"" + "1".repeat(70_000) + "\"}";
        assertThrows(MalformedZnodeException.class,
            () -> ControllerZnode.fromJson(json.getBytes(StandardCharsets.UTF_8)));
    }
}
