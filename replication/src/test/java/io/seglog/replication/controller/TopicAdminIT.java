package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Topic creation, validation errors, partition addition and deletion, carried out by the controller. */
@Timeout(60)
class TopicAdminIT {
    private Set<Thread> threadsBefore;
    private ZkTestSupport zk;
    private TestCluster cluster;

    @BeforeEach
    void start() throws Exception {
        threadsBefore = Await.threads();
        zk = ZkTestSupport.server();
        cluster = new TestCluster(zk.connectString() + "/admin", b -> b);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        zk.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(20));
    }

    private static List<TopicPartition> partitions(final String topic, final int count) {
        final List<TopicPartition> list = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            list.add(new TopicPartition(topic, p));
        }
        return list;
    }

    @Test
    void createsValidatesAddsPartitionsAndDeletes() throws Exception {
        cluster.startAll(1, 2, 3);
        final ReplicationBroker controller = cluster.awaitController(1);
        final TopicAdmin admin = cluster.admin();
        final Map<Integer, List<Integer>> assignment = admin.createTopic("orders", 6, 2);
        assertEquals(6, assignment.size());
        final Map<Integer, Integer> preferredCount = new java.util.HashMap<>();
        assignment.values().forEach(replicas -> {
            assertEquals(2, new HashSet<>(replicas).size());
            preferredCount.merge(replicas.get(0), 1, Integer::sum);
        });
        assertEquals(Map.of(1, 2, 2, 2, 3, 2), preferredCount, "round-robin spreads preferred leaders evenly");
        cluster.awaitAllLed(partitions("orders", 6));
        final Map<Integer, ReplicaState> online = new java.util.HashMap<>();
        assignment.get(0).forEach(r -> online.put(r, ReplicaState.ONLINE));
        assertEquals(online, controller.controller().replicaStates(new TopicPartition("orders", 0))
            .get(10, java.util.concurrent.TimeUnit.SECONDS), "New -> Online for every live replica");
        for (final TopicPartition tp : partitions("orders", 6)) {
            assertEquals(assignment.get(tp.partition()).get(0), cluster.leaderAndIsr(tp).leader(),
                "a new partition is led by its first live replica");
            assertEquals(assignment.get(tp.partition()), cluster.leaderAndIsr(tp).isr());
        }
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream().allMatch(b ->
                partitions("orders", 6).stream().allMatch(tp -> b.controlHandler().metadata(tp).isPresent())),
            () -> "every broker's metadata has the topic");

        final IllegalArgumentException badName = assertThrows(IllegalArgumentException.class,
            () -> admin.createTopic("bad name", 1, 1));
        assertTrue(badName.getMessage().contains("illegal character"), badName.getMessage());
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> admin.createTopic("x", 1, 4));
        assertEquals("replicationFactor=4 for topic=x exceeds the live brokers=3", tooMany.getMessage());
        assertEquals("partitions=0 for topic=x must be >= 1",
            assertThrows(IllegalArgumentException.class, () -> admin.createTopic("x", 0, 1)).getMessage());
        assertEquals("partitions=-3 for topic=x must be >= 1",
            assertThrows(IllegalArgumentException.class, () -> admin.createTopic("x", -3, 1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> admin.createTopic("x", 1, 0));
        assertEquals("topic=orders already exists",
            assertThrows(TopicExistsException.class, () -> admin.createTopic("orders", 1, 1)).getMessage());
        assertTrue(cluster.observerClient.exists(ZkPaths.topicPath("x"), null).isEmpty(), "nothing written");

        final Map<Integer, List<Integer>> added = admin.addPartitions("orders", 8);
        assertEquals(Set.of(6, 7), added.keySet());
        cluster.awaitAllLed(partitions("orders", 8));
        assertThrows(IllegalArgumentException.class, () -> admin.addPartitions("orders", 8));
        assertThrows(UnknownTopicException.class, () -> admin.addPartitions("nope", 2));

        admin.deleteTopic("orders");
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.topicPath("orders"), null).isEmpty()
                && cluster.observerClient.exists(ZkPaths.deleteTopicPath("orders"), null).isEmpty(),
            () -> "topic znodes and the deletion request are gone");
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream().allMatch(b ->
                partitions("orders", 8).stream().allMatch(tp -> b.controlHandler().replica(tp).isEmpty()
                    && b.controlHandler().metadata(tp).isEmpty())),
            () -> "replicas stopped and deleted, metadata dropped");
        assertThrows(UnknownTopicException.class, () -> admin.deleteTopic("orders"));
        assertEquals(Map.of(), controller.controller().replicaStates(new TopicPartition("orders", 0))
            .get(10, java.util.concurrent.TimeUnit.SECONDS), "replicas went through deletion to NON_EXISTENT");

        // The name is free again.
        admin.createTopic("orders", 1, 3);
        cluster.awaitAllLed(partitions("orders", 1));
    }

    @Test
    void rackAwareAssignmentPutsReplicasOnDistinctRacks() throws Exception {
        cluster.start(1, "r1");
        cluster.start(2, "r1");
        cluster.start(3, "r2");
        cluster.start(4, "r2");
        for (final ReplicationBroker b : cluster.brokers.values()) {
            b.awaitRegistered(TestCluster.WAIT.toMillis());
        }
        final Map<Integer, String> rack = Map.of(1, "r1", 2, "r1", 3, "r2", 4, "r2");
        final Map<Integer, List<Integer>> assignment = cluster.admin().createTopic("racked", 8, 2);
        for (final List<Integer> replicas : assignment.values()) {
            assertNotEquals(rack.get(replicas.get(0)), rack.get(replicas.get(1)), "replicas " + replicas);
        }
        cluster.awaitAllLed(partitions("racked", 8));
    }

    @Test
    void aNewPartitionWithoutLiveReplicasWaitsForOne() throws Exception {
        cluster.startAll(1, 2);
        cluster.awaitController(1);
        cluster.admin().createTopic("later", Map.of(0, List.of(3), 1, List.of(1)));
        final TopicPartition waiting = new TopicPartition("later", 0);
        cluster.awaitAllLed(List.of(new TopicPartition("later", 1)));
        assertTrue(cluster.state(waiting).isEmpty(), "no state until a replica is alive");
        cluster.startAll(3);
        cluster.awaitAllLed(List.of(waiting));
        assertEquals(3, cluster.leaderAndIsr(waiting).leader());
    }

    @Test
    void malformedZnodesWrittenByOtherClientsAreSkippedNotFatal() throws Exception {
        cluster.startAll(1, 2, 3);
        final ReplicationBroker controller = cluster.awaitController(1);
        final int epoch = controller.controller().epoch();
        cluster.observerClient.create(ZkPaths.topicPath("garbage"), "{not json".getBytes(StandardCharsets.UTF_8), false);
        cluster.observerClient.create(ZkPaths.brokerPath(77), "x".getBytes(StandardCharsets.UTF_8), true);
        cluster.observerClient.create(ZkPaths.PREFERRED, "[1,2]".getBytes(StandardCharsets.UTF_8), false);
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.PREFERRED, null).isEmpty(),
            () -> "the unreadable preferred-election request is dropped");
        cluster.admin().createTopic("fine", 2, 3);
        cluster.awaitAllLed(partitions("fine", 2));
        assertEquals(epoch, controller.controller().epoch(), "still the same controller");

        // A garbage state znode survives a failover: the new controller skips it and carries on.
        cluster.observerClient.setData(ZkPaths.partitionStatePath(new TopicPartition("fine", 0)),
            "{\"leader\":true}".getBytes(StandardCharsets.UTF_8), -1);
        ZkTestSupport.expireSession(cluster.observerClient.connectString(), controller.zkClient().sessionCredentials());
        final ReplicationBroker next = cluster.awaitController(epoch + 1);
        final int stopped = next.brokerId() == 3 ? 2 : 3;
        cluster.stop(stopped);
        final TopicPartition healthy = new TopicPartition("fine", 1);
        Await.until(TestCluster.WAIT, () -> {
            final var lai = cluster.leaderAndIsr(healthy);
            return !lai.isr().contains(stopped) && lai.hasLeader() && lai.leader() != stopped;
        }, () -> "the controller still manages the readable partition: " + cluster.state(healthy));
        assertTrue(next.isController());
    }
}
