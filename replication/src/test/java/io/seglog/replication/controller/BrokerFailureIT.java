package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Broker loss, bounce and controlled shutdown; unclean election; preferred-leader election on request and
 * automatic. Broker 9 is started first and stays controller; partitions live on brokers 1-3.
 */
@Timeout(60)
class BrokerFailureIT {
    private static final AtomicInteger CHROOTS = new AtomicInteger();
    private static Set<Thread> threadsBefore;
    private static ZkTestSupport zk;
    private TestCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        threadsBefore = Await.threads();
        zk = ZkTestSupport.server();
    }

    @AfterAll
    static void stopServer() throws Exception {
        zk.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(20));
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private ReplicationBroker startWithController(final UnaryOperator<ReplicationConfig.Builder> tweak) throws Exception {
        cluster = new TestCluster(zk.connectString() + "/failure" + CHROOTS.incrementAndGet(), tweak);
        cluster.startAll(9);
        final ReplicationBroker controller = cluster.awaitController(1);
        assertEquals(9, controller.brokerId());
        cluster.startAll(1, 2, 3);
        Await.until(TestCluster.WAIT, () -> controller.controlHandler().liveBrokers().size() == 4, () -> "4 live");
        return controller;
    }

    private static TopicPartition tp(final String topic, final int p) {
        return new TopicPartition(topic, p);
    }

    private void awaitLeader(final TopicPartition tp, final int leader) {
        Await.until(TestCluster.WAIT, () -> cluster.leaderAndIsr(tp).leader() == leader,
            () -> tp + " led by " + leader + ", state " + cluster.state(tp));
    }

    @Test
    void leadersMoveOnlyToIsrMembersAndAWholeIsrDownLeavesThePartitionLeaderless() throws Exception {
        final ReplicationBroker controller = startWithController(b -> b);
        cluster.admin().createTopic("t", Map.of(0, List.of(1, 3, 2), 1, List.of(2, 3, 1)));
        final TopicPartition p0 = tp("t", 0);
        final TopicPartition p1 = tp("t", 1);
        cluster.awaitAllLed(List.of(p0, p1));
        assertEquals(new LeaderAndIsr(1, 0, List.of(1, 3, 2), 0), cluster.leaderAndIsr(p0));
        cluster.leaderSetsIsr(p0, List.of(1, 2)); // the leader dropped the lagging replica 3

        final LeaderAndIsr beforeLoss = cluster.leaderAndIsr(p0);
        cluster.stop(1);
        awaitLeader(p0, 2); // 3 comes first in the assignment and is alive, but it is not in the ISR
        final LeaderAndIsr afterLoss = cluster.leaderAndIsr(p0);
        assertEquals(List.of(2), afterLoss.isr());
        assertEquals(beforeLoss.leaderEpoch() + 1, afterLoss.leaderEpoch());
        Await.until(TestCluster.WAIT, () -> cluster.leaderAndIsr(p1).isr().equals(List.of(2, 3)),
            () -> "1 leaves the ISR of p1: " + cluster.state(p1));
        assertEquals(2, cluster.leaderAndIsr(p1).leader());

        assertEquals(Map.of(1, ReplicaState.OFFLINE, 2, ReplicaState.ONLINE, 3, ReplicaState.ONLINE),
            controller.controller().replicaStates(p0).get(10, TimeUnit.SECONDS));
        cluster.stop(2);
        Await.until(TestCluster.WAIT, () -> !cluster.leaderAndIsr(p0).hasLeader(), () -> "p0 leaderless");
        final LeaderAndIsr leaderless = cluster.leaderAndIsr(p0);
        assertEquals(List.of(2), leaderless.isr(), "the ISR is never emptied: its last member stays");
        assertEquals(afterLoss.leaderEpoch() + 1, leaderless.leaderEpoch());
        awaitLeader(p1, 3);
        assertEquals(List.of(3), cluster.leaderAndIsr(p1).isr());
        final ReplicationBroker three = cluster.broker(3);
        Await.until(TestCluster.WAIT, () -> three.controlHandler().replica(p1).map(s -> s.leaderAndIsr().leader())
            .orElse(-1) == 3, () -> "broker 3 told it leads p1");
        Await.until(TestCluster.WAIT, () -> three.controlHandler().replica(p0).map(s -> s.leaderAndIsr().leader())
            .orElse(0) == LeaderAndIsr.NO_LEADER, () -> "broker 3 told p0 has no leader");

        // The last ISR member returns: it leads again.
        cluster.startAll(2);
        awaitLeader(p0, 2);
        assertEquals(Map.of(1, ReplicaState.OFFLINE, 2, ReplicaState.ONLINE, 3, ReplicaState.ONLINE),
            controller.controller().replicaStates(p0).get(10, TimeUnit.SECONDS));
        assertTrue(cluster.leaderAndIsr(p0).leaderEpoch() > leaderless.leaderEpoch());
        assertFalse(cluster.state(p0).orElseThrow().leaderRecovering());
    }

    @Test
    void anElectionThatMeetsAConcurrentWriteReadsAgainAndRetries() throws Exception {
        final ReplicationBroker controller = startWithController(b -> b);
        cluster.admin().createTopic("cas", Map.of(0, List.of(1, 2, 3)));
        final TopicPartition p0 = tp("cas", 0);
        cluster.awaitAllLed(List.of(p0));
        final LeaderAndIsr before = cluster.leaderAndIsr(p0);
        final AtomicInteger rounds = new AtomicInteger();
        controller.controller().partitionStateMachine().beforeElectionWrite(tps -> {
            if (tps.contains(p0) && rounds.getAndIncrement() == 0) {
                // The old leader's last ISR shrink lands between the controller's read and its conditional write.
                cluster.observer.updateIsrAsLeader(p0, cluster.state(p0).orElseThrow(), List.of(1, 2));
            }
        });
        cluster.stop(1);
        awaitLeader(p0, 2);
        final LeaderAndIsr after = cluster.leaderAndIsr(p0);
        assertEquals(2, rounds.get(), "the conflicting round was read again and retried once");
        assertEquals(List.of(2), after.isr(), "the retry saw the concurrent ISR [1, 2], not the stale [1, 2, 3]");
        assertEquals(before.leaderEpoch() + 1, after.leaderEpoch(), "one election, one epoch");
        assertEquals(before.partitionEpoch() + 2, after.partitionEpoch(), "the leader's write, then the controller's");
    }

    @Test
    void uncleanElectionLetsTheFirstLiveReplicaLeadAtAHigherEpoch() throws Exception {
        startWithController(b -> b.uncleanLeaderElectionEnable(true));
        cluster.admin().createTopic("u", Map.of(0, List.of(1, 3, 2)));
        final TopicPartition p0 = tp("u", 0);
        cluster.awaitAllLed(List.of(p0));
        cluster.leaderSetsIsr(p0, List.of(1));
        final LeaderAndIsr before = cluster.leaderAndIsr(p0);
        cluster.stop(1);
        awaitLeader(p0, 3);
        final PartitionStateZnode after = cluster.state(p0).orElseThrow();
        assertEquals(List.of(3), after.leaderAndIsr().isr());
        assertTrue(after.leaderAndIsr().leaderEpoch() > before.leaderEpoch());
        assertTrue(after.leaderRecovering(), "an unclean leader is recorded as recovering (KIP-704)");
    }

    @Test
    void aBouncedBrokerIsAFailureFollowedByAStart() throws Exception {
        final ReplicationBroker controller = startWithController(b -> b);
        cluster.admin().createTopic("b", Map.of(0, List.of(1, 2, 3)));
        final TopicPartition p0 = tp("b", 0);
        cluster.awaitAllLed(List.of(p0));
        final ReplicationBroker one = cluster.broker(1);
        final long oldEpoch = one.controlHandler().brokerEpoch();
        final LeaderAndIsr before = cluster.leaderAndIsr(p0);

        // Hold the controller so that it sees the old and the new registration of broker 1 in one BrokerChange.
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        controller.controller().runOnEventThread(() -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        ZkTestSupport.expireSession(cluster.observerClient.connectString(), one.zkClient().sessionCredentials());
        Await.until(TestCluster.WAIT, () -> {
            final var b = cluster.observer.brokers(null).get(1);
            return b != null && b.epoch() != oldEpoch;
        }, () -> "broker 1 registered again");
        final long newEpoch = cluster.observer.brokers(null).get(1).epoch();
        release.countDown();

        awaitLeader(p0, 2);
        final LeaderAndIsr after = cluster.leaderAndIsr(p0);
        assertFalse(after.isr().contains(1), "a bounced broker has lost its replicas' in-sync status");
        assertTrue(after.leaderEpoch() > before.leaderEpoch());
        Await.until(TestCluster.WAIT, () -> Long.valueOf(newEpoch).equals(one.controlHandler().liveBrokers().get(1))
            && one.controlHandler().replica(p0).map(s -> s.leaderAndIsr().leader()).orElse(-1) == 2,
            () -> "broker 1, started again, knows itself and p0's new leader");
    }

    @Test
    void controlledShutdownMovesLeadershipAwayFirst() throws Exception {
        startWithController(b -> b);
        cluster.admin().createTopic("c", Map.of(0, List.of(1, 2, 3), 1, List.of(2, 1, 3), 2, List.of(1)));
        final TopicPartition p0 = tp("c", 0);
        final TopicPartition p1 = tp("c", 1);
        final TopicPartition single = tp("c", 2);
        cluster.awaitAllLed(List.of(p0, p1, single));
        final ReplicationBroker one = cluster.broker(1);

        final ExecutionException stale = assertThrows(ExecutionException.class,
            () -> cluster.channel.controlledShutdown(9, 1, one.controlHandler().brokerEpoch() + 1)
                .get(10, TimeUnit.SECONDS));
        assertInstanceOf(StaleBrokerEpochException.class, stale.getCause());

        final Set<TopicPartition> remaining = one.controlledShutdown(10_000);
        assertEquals(Set.of(single), remaining, "only the partition without another replica stays");
        assertEquals(2, cluster.leaderAndIsr(p0).leader());
        assertFalse(cluster.leaderAndIsr(p0).isr().contains(1));
        assertFalse(cluster.leaderAndIsr(p1).isr().contains(1));
        assertEquals(2, cluster.leaderAndIsr(p1).leader());
        Await.until(TestCluster.WAIT, () -> one.controlHandler().replica(p1).isEmpty(),
            () -> "StopReplica for the partition broker 1 followed");
    }

    @Test
    void preferredLeaderElectionOnRequest() throws Exception {
        startWithController(b -> b);
        final TopicPartition p0 = tp("p", 0);
        moveLeadershipOffThePreferredReplica(p0);
        final int epoch = cluster.leaderAndIsr(p0).leaderEpoch();
        cluster.admin().preferredLeaderElection(Set.of(p0, tp("p", 7)));
        awaitLeader(p0, 1);
        assertEquals(epoch + 1, cluster.leaderAndIsr(p0).leaderEpoch());
        assertEquals(List.of(2, 3, 1), cluster.leaderAndIsr(p0).isr(), "a preferred election keeps the ISR");
        Await.until(TestCluster.WAIT, () -> cluster.observerClient.exists(ZkPaths.PREFERRED, null).isEmpty(),
            () -> "request removed when done");
    }

    @Test
    void automaticRebalanceWhenABrokerLeadsTooFewOfItsPreferredPartitions() throws Exception {
        startWithController(b -> b.autoLeaderRebalanceEnable(true).leaderImbalanceCheckIntervalSeconds(1)
            .leaderImbalancePerBrokerPercentage(10));
        final TopicPartition p0 = tp("p", 0);
        moveLeadershipOffThePreferredReplica(p0);
        awaitLeader(p0, 1);
    }

    /** Broker 1 leaves and comes back; its leader re-admits it to the ISR, so it may lead again. */
    private void moveLeadershipOffThePreferredReplica(final TopicPartition p0) throws Exception {
        cluster.admin().createTopic(p0.topic(), Map.of(0, List.of(1, 2, 3)));
        cluster.awaitAllLed(List.of(p0));
        cluster.stop(1);
        awaitLeader(p0, 2);
        Await.until(TestCluster.WAIT, () -> cluster.leaderAndIsr(p0).isr().equals(List.of(2, 3)), () -> "1 out");
        cluster.startAll(1);
        cluster.leaderSetsIsr(p0, List.of(2, 3, 1));
        assertEquals(2, cluster.leaderAndIsr(p0).leader());
        // The leader's ISR change notification reaches the controller, which tells every broker and cleans up.
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream().allMatch(b -> b.controlHandler()
                .metadata(p0).map(m -> m.leaderAndIsr().isr().equals(List.of(2, 3, 1))).orElse(false))
                && cluster.observerClient.children(ZkPaths.ISR_CHANGE, null).orElseThrow().isEmpty(),
            () -> "ISR change propagated");
    }
}
