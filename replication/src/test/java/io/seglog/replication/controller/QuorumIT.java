package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RP-10 on a real ensemble of three: a server restart is harmless; without quorum nothing changes and every call
 * fails within its deadline; after a short outage the same controller carries on, after one longer than the
 * session timeout the brokers register again and a new controller takes over.
 */
@Timeout(120)
class QuorumIT {
    private static final int REQUEST_TIMEOUT_MS = 1500;
    /** Long enough for a busy machine to fail a call whose deadline is the request timeout: a hang guard. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final int SHORT_SESSION_TIMEOUT_MS = 3000;
    private static final int LONG_SESSION_TIMEOUT_MS = 8000;
    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("q", 0),
        new TopicPartition("q", 1), new TopicPartition("q", 2));

    private Set<Thread> threadsBefore;
    private ZkTestSupport ensemble;
    private TestCluster cluster;

    @BeforeEach
    void start() throws Exception {
        threadsBefore = Await.threads();
        ensemble = ZkTestSupport.ensembleOfThree();
    }

    private void startCluster(final int sessionTimeoutMs) throws Exception {
        cluster = new TestCluster(ensemble.connectString() + "/quorum", b -> b
            .zookeeperSessionTimeoutMs(sessionTimeoutMs).zookeeperRequestTimeoutMs(REQUEST_TIMEOUT_MS));
        cluster.startAll(1, 2, 3);
        cluster.awaitController(1);
        // The brokers registered through their own servers; the test's client may read a server that has not applied
        // every registration yet (ZooKeeper's reads are not linearizable), so it waits until it sees all three.
        Await.until(TestCluster.WAIT, () -> cluster.observer.brokers(null).keySet().equals(Set.of(1, 2, 3)),
            () -> "the test's client sees all three registrations");
        cluster.admin().createTopic("q", Map.of(0, List.of(1, 2, 3), 1, List.of(2, 3, 1), 2, List.of(3, 1, 2)));
        cluster.awaitAllLed(PARTITIONS);
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        ensemble.close();
        // ZooKeeper's LearnerHandler ("Sender-<peer>") of a killed follower can outlive the ensemble's close(): a
        // server-internal thread, not ours. Every client and broker thread must still be gone.
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30), name -> name.startsWith("Sender-/"));
    }

    private boolean zkAnswers() {
        try {
            cluster.observer.controllerEpoch();
            return true;
        } catch (final ZkException e) {
            return false;
        }
    }

    private Map<Integer, Map<TopicPartition, PartitionStateInfo>> brokerViews() {
        final Map<Integer, Map<TopicPartition, PartitionStateInfo>> views = new HashMap<>();
        cluster.brokers.forEach((id, b) -> views.put(id, b.controlHandler().replicas()));
        return views;
    }

    @Test
    void serverRestartAndShortQuorumLossChangeNothingAndTheSameControllerCarriesOn() throws Exception {
        startCluster(LONG_SESSION_TIMEOUT_MS);
        final ReplicationBroker controller = cluster.awaitController(1);
        final int epoch = controller.controller().epoch();

        ensemble.killServer(0);
        cluster.admin().createTopic("with-two-servers", 1, 3);
        cluster.awaitAllLed(List.of(new TopicPartition("with-two-servers", 0)));
        ensemble.restartServer(0);

        final Map<TopicPartition, Optional<PartitionStateZnode>> before = cluster.observer.partitionStates(PARTITIONS);
        final Map<Integer, Map<TopicPartition, PartitionStateInfo>> viewsBefore = brokerViews();
        ensemble.killServer(1);
        ensemble.killServer(2);
        // Every ZooKeeper call has a deadline: without a quorum a write fails instead of waiting for one (the guard
        // only catches a hang; how soon it fails is the request timeout's business, not this test's).
        assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(ZkException.class,
            () -> cluster.admin().createTopic("late", 1, 1)));
        assertThrows(ZkException.class, () -> cluster.leaderSetsIsr(PARTITIONS.get(0), List.of(1)));
        assertEquals(viewsBefore, brokerViews(), "no broker saw a change without quorum");
        assertTrue(controller.isController(), "a disconnected controller does not resign before its session ends");

        ensemble.restartServer(1);
        Await.until(TestCluster.WAIT, this::zkAnswers, () -> "quorum back");
        assertEquals(before, cluster.observer.partitionStates(PARTITIONS), "no state change without quorum");
        assertSame(controller, cluster.awaitController(epoch));
        assertEquals(epoch, controller.controller().epoch(), "same term: the session survived");
        cluster.admin().createTopic("after", 2, 3);
        cluster.awaitAllLed(List.of(new TopicPartition("after", 0), new TopicPartition("after", 1)));
        ensemble.restartServer(2);
    }

    @Test
    void quorumLossLongerThanTheSessionMakesEveryoneResignThenRecover() throws Exception {
        startCluster(SHORT_SESSION_TIMEOUT_MS);
        final ReplicationBroker controller = cluster.awaitController(1);
        final int epoch = controller.controller().epoch();
        final Map<TopicPartition, Optional<PartitionStateZnode>> before = cluster.observer.partitionStates(PARTITIONS);
        ensemble.killServer(1);
        ensemble.killServer(2);
        // Past the session timeout Curator declares the session lost: the controller resigns, registrations end.
        Await.until(TestCluster.WAIT, () -> cluster.active().isEmpty() && cluster.brokers.values().stream()
            .allMatch(b -> b.controlHandler().brokerEpoch() == -1), () -> "everyone resigned");
        assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(ZkException.class, () -> cluster.start(4),
            "a broker cannot start without quorum"));

        ensemble.restartServer(1);
        ensemble.restartServer(2);
        final ReplicationBroker next = cluster.awaitController(epoch + 1);
        assertTrue(next.controller().epoch() > epoch);
        Await.until(TestCluster.WAIT, () -> cluster.observer.brokers(null).keySet().equals(Set.of(1, 2, 3)),
            () -> "all three registered again");
        cluster.awaitAllLed(PARTITIONS);
        final Map<TopicPartition, Optional<PartitionStateZnode>> after = cluster.observer.partitionStates(PARTITIONS);
        for (final TopicPartition tp : PARTITIONS) {
            assertTrue(after.get(tp).orElseThrow().leaderAndIsr().leaderEpoch()
                >= before.get(tp).orElseThrow().leaderAndIsr().leaderEpoch());
        }
        cluster.admin().createTopic("recovered", 1, 3);
        cluster.awaitAllLed(List.of(new TopicPartition("recovered", 0)));
    }
}
