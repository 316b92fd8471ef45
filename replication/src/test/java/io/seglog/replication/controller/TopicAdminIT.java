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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Topic creation, validation errors, partition addition and deletion, carried out by the controller. */
@Timeout(60)
class TopicAdminIT extends ClusterFixture {
    TopicAdminIT() {
        super("/admin", b -> b);
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
    void deletionWaitsForAReplicaOnADeadBrokerAndFinishesWhenItReturns() throws Exception {
        cluster.startAll(1, 2, 3);
        final ReplicationBroker controller = cluster.awaitController(1);
        final int victim = controller.brokerId() == 3 ? 2 : 3;
        final TopicAdmin admin = cluster.admin();
        admin.createTopic("gone", Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1)));
        final List<TopicPartition> gone = partitions("gone", 2);
        cluster.awaitAllLed(gone);
        cluster.stop(victim);
        Await.until(TestCluster.WAIT, () -> !controller.controlHandler().liveBrokers().containsKey(victim),
            () -> "the controller saw broker " + victim + " go");

        admin.deleteTopic("gone");
        final Map<Integer, ReplicaState> waiting = new java.util.HashMap<>();
        List.of(1, 2, 3).forEach(r -> waiting.put(r, r == victim ? ReplicaState.REPLICA_DELETION_INELIGIBLE
            : ReplicaState.REPLICA_DELETION_SUCCESSFUL));
        for (final TopicPartition tp : gone) {
            Await.until(TestCluster.WAIT, () -> waiting.equals(replicaStates(controller, tp)),
                () -> tp + " replica states " + replicaStates(controller, tp) + ", expected " + waiting);
        }
        // Another event goes through the controller; the deletion still waits for the dead broker.
        admin.createTopic("other", 1, 2);
        cluster.awaitAllLed(partitions("other", 1));
        assertTrue(cluster.observerClient.exists(ZkPaths.topicPath("gone"), null).isPresent(), "assignment kept");
        assertTrue(cluster.observerClient.exists(ZkPaths.deleteTopicPath("gone"), null).isPresent(), "request kept");
        assertEquals(waiting, replicaStates(controller, gone.get(0)));
        for (final ReplicationBroker b : cluster.brokers.values()) {
            for (final TopicPartition tp : gone) {
                assertTrue(b.controlHandler().replica(tp).isEmpty(), "live replicas are deleted at once: " + tp);
            }
        }
        assertTrue(stopAndDeleteSentTo(victim).isEmpty(), "nothing was sent to the dead broker");

        cluster.startAll(victim);
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.topicPath("gone"), null).isEmpty()
                && cluster.observerClient.exists(ZkPaths.deleteTopicPath("gone"), null).isEmpty()
                && cluster.observerClient.exists(ZkPaths.partitionsPath("gone"), null).isEmpty(),
            () -> "deletion completes once broker " + victim + " is back");
        final Set<TopicPartition> stopped = new HashSet<>();
        stopAndDeleteSentTo(victim).forEach(r -> stopped.addAll(r.partitions()));
        assertEquals(Set.copyOf(gone), stopped, "the returning broker was told to delete its replicas");
        assertEquals(Map.of(), replicaStates(controller, gone.get(0)), "replicas went to NON_EXISTENT");
        assertTrue(cluster.observerClient.exists(ZkPaths.topicPath("other"), null).isPresent());
    }

    @Test
    void aRefusedReplicaDeletionKeepsTheTopicAndIsRetriedOnTheNextEvent() throws Exception {
        cluster.startAll(1, 2, 3);
        final ReplicationBroker controller = cluster.awaitController(1);
        final int refusing = controller.brokerId() == 3 ? 2 : 3;
        final TopicAdmin admin = cluster.admin();
        admin.createTopic("stuck", Map.of(0, List.of(1, 2, 3)));
        final TopicPartition tp = new TopicPartition("stuck", 0);
        cluster.awaitAllLed(List.of(tp));
        cluster.sent.refuse(s -> s.brokerId() == refusing
            && s.request() instanceof io.seglog.replication.transport.StopReplicaRequest r && r.delete());
        admin.deleteTopic("stuck");
        Await.until(TestCluster.WAIT, () -> stopAndDeleteSentTo(refusing).size() == 1
                && replicaStates(controller, tp).values().stream()
                    .filter(s -> s == ReplicaState.REPLICA_DELETION_SUCCESSFUL).count() == 2,
            () -> "two replicas deleted, broker " + refusing + " refused: " + replicaStates(controller, tp));
        // The refused replica was marked ineligible and re-armed (Offline) for the next event; the znodes stay.
        Await.until(TestCluster.WAIT, () -> replicaStates(controller, tp).get(refusing) == ReplicaState.OFFLINE,
            () -> "re-armed: " + replicaStates(controller, tp));
        assertTrue(cluster.observerClient.exists(ZkPaths.topicPath("stuck"), null).isPresent(), "assignment kept");
        assertTrue(cluster.observerClient.exists(ZkPaths.deleteTopicPath("stuck"), null).isPresent(), "request kept");

        cluster.sent.refuse(s -> false);
        admin.createTopic("nudge", 1, 1);
        admin.deleteTopic("nudge"); // any deletion event resumes the pending ones
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.topicPath("stuck"), null).isEmpty()
                && cluster.observerClient.exists(ZkPaths.deleteTopicPath("stuck"), null).isEmpty(),
            () -> "the retry deletes it: " + replicaStates(controller, tp));
        assertEquals(2, stopAndDeleteSentTo(refusing).stream().filter(r -> r.partitions().contains(tp)).count(),
            "one refused StopReplica, one accepted retry");
    }

    private List<io.seglog.replication.transport.StopReplicaRequest> stopAndDeleteSentTo(final int broker) {
        return cluster.sent.sent(s -> s.brokerId() == broker
                && s.request() instanceof io.seglog.replication.transport.StopReplicaRequest r && r.delete())
            .stream().map(s -> (io.seglog.replication.transport.StopReplicaRequest) s.request()).toList();
    }

    private static Map<Integer, ReplicaState> replicaStates(final ReplicationBroker controller,
                                                            final TopicPartition tp) {
        try {
            return controller.controller().replicaStates(tp).get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (final Exception e) {
            throw new AssertionError("replica states of " + tp, e);
        }
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
    void aManualAssignmentNamingUnregisteredBrokersIsRefused() throws Exception {
        cluster.startAll(1, 2);
        cluster.awaitController(1);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> cluster.admin().createTopic("later", Map.of(0, List.of(4, 1), 1, List.of(1, 3))));
        assertEquals("unknown broker ids [3, 4] in the replica assignment of topic=later (registered brokers=[1, 2])",
            e.getMessage());
        assertTrue(cluster.observerClient.exists(ZkPaths.topicPath("later"), null).isEmpty(), "nothing written");
        assertEquals("replicas=[1, 1] for topic=later partition=0 repeats a broker", assertThrows(
            IllegalArgumentException.class, () -> cluster.admin().createTopic("later", Map.of(0, List.of(1, 1))))
            .getMessage());
        cluster.admin().createTopic("later", Map.of(0, List.of(2, 1), 1, List.of(1)));
        cluster.awaitAllLed(partitions("later", 2));
    }

    @Test
    void aNewPartitionWithoutLiveReplicasWaitsForOne() throws Exception {
        cluster.startAll(1, 2);
        cluster.awaitController(1);
        // TopicAdmin refuses unregistered brokers, but another ZooKeeper client may write such an assignment (or
        // the broker may die between the check and the write): the controller keeps the partition NEW until then.
        cluster.observer.createTopic("later", Map.of(0, List.of(3), 1, List.of(1)));
        final TopicPartition waiting = new TopicPartition("later", 0);
        cluster.awaitAllLed(List.of(new TopicPartition("later", 1)));
        assertTrue(cluster.state(waiting).isEmpty(), "no state until a replica is alive");
        cluster.startAll(3);
        cluster.awaitAllLed(List.of(waiting));
        assertEquals(3, cluster.leaderAndIsr(waiting).leader());
    }

    @Test
    void malformedZnodesWrittenByOtherClientsAreSkippedNotFatal() throws Exception {
        // A deletion request whose name is no legal topic (ZooKeeper allows the space), present when the first
        // controller starts: it is dropped like a request for an unknown topic. Before, the deletion event failed on
        // it, in the controller's start too, so no topic could be deleted.
        final String illegal = ZkPaths.DELETE_TOPICS + "/bad name";
        cluster.observer.createPersistentPaths();
        cluster.observerClient.create(illegal, new byte[0], false);
        cluster.startAll(1, 2, 3);
        final ReplicationBroker controller = cluster.awaitController(1);
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(illegal, null).isEmpty(),
            () -> "the new controller dropped the illegal deletion request");
        final int epoch = controller.controller().epoch();
        cluster.observerClient.create(ZkPaths.topicPath("garbage"), "{not json".getBytes(StandardCharsets.UTF_8), false);
        cluster.observerClient.create(ZkPaths.brokerPath(77), "x".getBytes(StandardCharsets.UTF_8), true);
        cluster.observerClient.create(ZkPaths.PREFERRED, "[1,2]".getBytes(StandardCharsets.UTF_8), false);
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.PREFERRED, null).isEmpty(),
            () -> "the unreadable preferred-election request is dropped");
        cluster.admin().createTopic("fine", 2, 3);
        cluster.awaitAllLed(partitions("fine", 2));
        assertEquals(epoch, controller.controller().epoch(), "still the same controller");

        // Written while the controller runs: dropped by the deletion event, and a real deletion still completes.
        cluster.observerClient.create(illegal, new byte[0], false);
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(illegal, null).isEmpty(),
            () -> "the illegal deletion request is dropped");
        cluster.admin().createTopic("doomed", 1, 3);
        cluster.awaitAllLed(partitions("doomed", 1));
        cluster.admin().deleteTopic("doomed");
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.topicPath("doomed"), null).isEmpty()
            && cluster.observerClient.exists(ZkPaths.deleteTopicPath("doomed"), null).isEmpty(),
            () -> "a real deletion still completes");

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
        cluster.admin().createTopic("doomed2", 1, 2);
        cluster.awaitAllLed(partitions("doomed2", 1));
        cluster.admin().deleteTopic("doomed2");
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.topicPath("doomed2"), null).isEmpty(),
            () -> "deletions work under the new controller");
    }
}
