package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.zk.ReassignPartitionsZnode;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.ZkOp;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Partition reassignment through {@code /admin/reassign_partitions} (Kafka's ZooKeeper-mode flow). */
@Timeout(60)
class ReassignmentIT extends ClusterFixture {
    ReassignmentIT() {
        super("/reassign", b -> b);
    }

    private TopicAssignmentZnode assignment(final String topic) {
        return cluster.observer.topicAssignment(topic, null).orElseThrow().value();
    }

    @Test
    void addsTargetsWaitsForTheIsrMovesTheLeaderAndRemovesTheOldReplicas() throws Exception {
        cluster.startAll(9);
        cluster.awaitController(1);
        cluster.startAll(1, 2, 3, 4);
        final TopicAdmin admin = cluster.admin();
        admin.createTopic("r", Map.of(0, List.of(1, 2), 1, List.of(2, 1)));
        final TopicPartition p0 = new TopicPartition("r", 0);
        cluster.awaitAllLed(List.of(p0, new TopicPartition("r", 1)));
        final LeaderAndIsr before = cluster.leaderAndIsr(p0);
        assertEquals(1, before.leader());

        admin.reassignPartitions(Map.of(p0, List.of(3, 4)));
        assertEquals("a partition reassignment is already pending", assertThrows(IllegalStateException.class,
            () -> admin.reassignPartitions(Map.of(p0, List.of(2, 3)))).getMessage());
        // Phase A: RS = TRS + ORS with adding/removing recorded, leader epoch raised, old leader kept.
        Await.until(TestCluster.WAIT, () -> assignment("r").partitions().get(0).equals(List.of(3, 4, 1, 2)),
            () -> "assignment holds RS: " + assignment("r"));
        assertEquals(Map.of(0, List.of(3, 4)), assignment("r").addingReplicas());
        assertEquals(Map.of(0, List.of(1, 2)), assignment("r").removingReplicas());
        Await.until(TestCluster.WAIT, () -> cluster.leaderAndIsr(p0).leaderEpoch() > before.leaderEpoch(),
            () -> "leader epoch raised for RS: " + cluster.state(p0));
        assertEquals(1, cluster.leaderAndIsr(p0).leader());
        Await.until(TestCluster.WAIT, () -> cluster.broker(3).controlHandler().replica(p0).isPresent(),
            () -> "the adding replica on broker 3 got a LeaderAndIsr");
        assertTrue(cluster.observerClient.exists(ZkPaths.REASSIGN, null).isPresent(), "waits for the ISR");
        assertEquals(List.of(2, 1), assignment("r").partitions().get(1), "other partitions untouched");

        // The new replicas catch up: the leader writes them into the ISR.
        cluster.leaderSetsIsr(p0, List.of(1, 2, 3, 4));
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.REASSIGN, null).isEmpty(),
            () -> "the request is removed when done");
        final TopicAssignmentZnode done = assignment("r");
        assertEquals(List.of(3, 4), done.partitions().get(0));
        assertEquals(Map.of(), done.addingReplicas());
        assertEquals(Map.of(), done.removingReplicas());
        final LeaderAndIsr after = cluster.leaderAndIsr(p0);
        assertEquals(3, after.leader(), "the first target replica in the ISR leads (reassignment election)");
        assertEquals(List.of(3, 4), after.isr());
        // Kafka sends phase B's StopReplica (B5) before it writes RS = TRS (B6) and trims the request (B7); Seglog's
        // controller sends an event's messages together after its ZooKeeper writes, so the znode can be gone before
        // the StopReplica is on its way. Either order leaves the same end state, which is what is awaited here.
        for (final int old : List.of(1, 2)) {
            Await.until(TestCluster.WAIT, () -> !cluster.sent.sent(s -> s.brokerId() == old
                    && s.request() instanceof StopReplicaRequest r && r.delete() && r.partitions().contains(p0)).isEmpty(),
                () -> "broker " + old + " is told to delete its replica of " + p0);
            Await.until(TestCluster.WAIT, () -> cluster.broker(old).controlHandler().replica(p0).isEmpty(),
                () -> "broker " + old + " dropped " + p0);
        }
        Await.until(TestCluster.WAIT, () -> cluster.broker(4).controlHandler().replica(p0)
                .map(s -> s.leaderAndIsr().leader() == 3).orElse(false),
            () -> "broker 4 follows the new leader");
    }

    @Test
    void invalidRequestsAreDroppedAndAnInSyncTargetCompletesAtOnce() throws Exception {
        cluster.startAll(1, 2, 3);
        cluster.awaitController(1);
        final TopicAdmin admin = cluster.admin();
        admin.createTopic("v", Map.of(0, List.of(1, 2, 3)));
        final TopicPartition p0 = new TopicPartition("v", 0);
        cluster.awaitAllLed(List.of(p0));
        assertEquals("unknown broker ids [7] in the reassignment of v-0 (registered brokers=[1, 2, 3])",
            assertThrows(IllegalArgumentException.class, () -> admin.reassignPartitions(Map.of(p0, List.of(1, 7))))
                .getMessage());
        assertEquals("partition=v-5 does not exist", assertThrows(IllegalArgumentException.class,
            () -> admin.reassignPartitions(Map.of(new TopicPartition("v", 5), List.of(1)))).getMessage());

        // Written by another tool: a dead broker and an unknown partition are dropped, the valid part proceeds.
        // Target [2, 1] is already in the ISR, so the reassignment completes without waiting; leader 1 is kept out.
        cluster.observer.admin().requestReassignment(new ReassignPartitionsZnode(Map.of(p0, List.of(2, 1),
            new TopicPartition("v", 9), List.of(1), new TopicPartition("nope", 0), List.of(1))));
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.REASSIGN, null).isEmpty(),
            () -> "request consumed");
        assertEquals(List.of(2, 1), assignment("v").partitions().get(0));
        assertEquals(List.of(1, 2), cluster.leaderAndIsr(p0).isr().stream().sorted().toList());
        assertEquals(1, cluster.leaderAndIsr(p0).leader(), "the leader is in the target: it stays");

        cluster.observer.admin().requestReassignment(new ReassignPartitionsZnode(Map.of(p0, List.of(2, 8))));
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.REASSIGN, null).isEmpty(),
            () -> "a target with a broker that is not live is dropped");
        assertEquals(List.of(2, 1), assignment("v").partitions().get(0), "unchanged");
    }

    /**
     * Brokers 9 (the controller) and 1-3; topic {@code topic} on [1, 2] reassigned to [1, 3] up to phase A, then the
     * controller's session expired and a new controller elected with all four brokers live.
     *
     * @param topic       the topic
     * @param beforeFailover what happens between phase A and the failover
     * @return the partition
     */
    private TopicPartition phaseAThenFailover(final String topic, final Runnable beforeFailover) throws Exception {
        cluster.startAll(9);
        final ReplicationBroker first = cluster.awaitController(1);
        cluster.startAll(1, 2, 3);
        cluster.admin().createTopic(topic, Map.of(0, List.of(1, 2)));
        final TopicPartition p0 = new TopicPartition(topic, 0);
        cluster.awaitAllLed(List.of(p0));
        cluster.admin().reassignPartitions(Map.of(p0, List.of(1, 3)));
        Await.until(TestCluster.WAIT, () -> assignment(topic).partitions().get(0).equals(List.of(1, 3, 2)),
            () -> "phase A done: " + assignment(topic));
        beforeFailover.run();
        final int epoch = first.controller().epoch();
        ZkTestSupport.expireSession(cluster.observerClient.connectString(), first.zkClient().sessionCredentials());
        final ReplicationBroker next = cluster.awaitController(epoch + 1);
        Await.until(TestCluster.WAIT, () -> next.controlHandler().liveBrokers().size() == 4, () -> "4 live brokers");
        return p0;
    }

    @Test
    void aNewControllerResumesAReassignmentLeftHalfway() throws Exception {
        final int a = 1;
        final int b = 2;
        final int c = 3;
        final TopicPartition p0 = phaseAThenFailover("h", () -> { });
        assertTrue(cluster.observerClient.exists(ZkPaths.REASSIGN, null).isPresent(), "still pending");

        cluster.leaderSetsIsr(p0, List.of(a, b, c));
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.REASSIGN, null).isEmpty(),
            () -> "the new controller completes it: " + assignment("h") + " " + cluster.state(p0));
        assertEquals(List.of(a, c), assignment("h").partitions().get(0));
        assertEquals(Map.of(), assignment("h").addingReplicas());
        assertEquals(a, cluster.leaderAndIsr(p0).leader(), "the leader is in the target: it stays");
        assertEquals(Set.of(a, c), Set.copyOf(cluster.leaderAndIsr(p0).isr()), "the removed replica left the ISR");
    }

    @Test
    void aNewControllerFinishesAReassignmentNoRequestNamesAnyMore() throws Exception {
        final int a = 1;
        final int b = 2;
        final int c = 3;
        // The request goes away with phase A written (an operator deletes it, or a controller drops it when a target
        // broker is down at its failover): only the assignment znode still says the partition is moving.
        final TopicPartition p0 = phaseAThenFailover("w",
            () -> cluster.observerClient.multi(List.of(new ZkOp.Delete(ZkPaths.REASSIGN, -1))));
        cluster.leaderSetsIsr(p0, List.of(a, b, c));
        Await.until(TestCluster.WAIT, () -> assignment("w").partitions().get(0).equals(List.of(a, c))
                && assignment("w").removingReplicas().isEmpty(),
            () -> "the new controller completes it from the assignment znode: " + assignment("w") + " "
                + cluster.state(p0));
        assertEquals(Set.of(a, c), Set.copyOf(cluster.leaderAndIsr(p0).isr()), "the removed replica left the ISR");
    }
}
