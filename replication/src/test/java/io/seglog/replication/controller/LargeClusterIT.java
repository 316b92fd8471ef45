package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** 1,000 partitions over 5 brokers: how long until every partition a lost broker led has a new leader. */
@Timeout(120)
class LargeClusterIT extends ClusterFixture {
    private static final int PARTITIONS = 1000;

    LargeClusterIT() {
        super("/large", b -> b, 1, 2, 3, 4, 5);
    }

    @Test
    void leadersOfALostBrokerMoveWithinTheIsr() throws Exception {
        final ReplicationBroker controller = cluster.awaitController(1);
        final List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition("big", p));
        }
        final long createStart = System.nanoTime();
        cluster.admin().createTopic("big", PARTITIONS, 3);
        cluster.awaitAllLed(all);
        final long createMs = (System.nanoTime() - createStart) / 1_000_000;

        final int lost = controller.brokerId() == 5 ? 4 : 5;
        final Map<TopicPartition, Optional<PartitionStateZnode>> before = cluster.observer.partitionStates(all);
        final List<TopicPartition> led = new ArrayList<>();
        before.forEach((tp, s) -> {
            if (s.orElseThrow().leaderAndIsr().leader() == lost) {
                led.add(tp);
            }
        });
        assertTrue(led.size() > PARTITIONS / 10, "broker " + lost + " leads " + led.size());
        final ReplicationBroker witness = cluster.broker(lost == 5 ? 1 : 2);
        final long lossStart = System.nanoTime();
        cluster.stop(lost);
        Await.until(TestCluster.WAIT, () -> cluster.observer.partitionStates(led).values().stream()
                .allMatch(s -> s.isPresent() && s.get().leaderAndIsr().hasLeader()
                    && s.get().leaderAndIsr().leader() != lost),
            () -> "new leaders for the " + led.size() + " partitions of broker " + lost);
        final long zkMs = (System.nanoTime() - lossStart) / 1_000_000;
        Await.until(TestCluster.WAIT, () -> led.stream().allMatch(tp -> witness.controlHandler().metadata(tp)
                .map(m -> m.leaderAndIsr().leader() != lost && m.leaderAndIsr().hasLeader()).orElse(false)),
            () -> "broker " + witness.brokerId() + " metadata shows the new leaders");
        final long metadataMs = (System.nanoTime() - lossStart) / 1_000_000;
        System.out.printf("FIGURE %d partitions (RF 3) over 5 brokers: created and led in %d ms; broker %d (leader of "
            + "%d) lost -> all have new leaders in ZooKeeper after %d ms, in a live broker's metadata after %d ms%n",
            PARTITIONS, createMs, lost, led.size(), zkMs, metadataMs);

        // Leaders came from the ISR, one epoch up, and the lost broker left every ISR.
        Await.until(TestCluster.WAIT, () -> cluster.observer.partitionStates(all).values().stream()
            .noneMatch(s -> s.orElseThrow().leaderAndIsr().isr().contains(lost)), () -> "lost broker out of ISRs");
        final Map<TopicPartition, Optional<PartitionStateZnode>> after = cluster.observer.partitionStates(all);
        for (final TopicPartition tp : led) {
            final LeaderAndIsr was = before.get(tp).orElseThrow().leaderAndIsr();
            final LeaderAndIsr now = after.get(tp).orElseThrow().leaderAndIsr();
            assertTrue(was.isr().contains(now.leader()), tp + ": " + was + " -> " + now);
            assertEquals(was.leaderEpoch() + 1, now.leaderEpoch(), tp.toString());
            assertFalse(now.isr().isEmpty());
        }

        // Controller failover with 1,000 partitions: until every live broker has the new controller's metadata.
        final int epoch = controller.controller().epoch();
        final long failoverStart = System.nanoTime();
        ZkTestSupport.expireSession(cluster.observerClient.connectString(), controller.zkClient().sessionCredentials());
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream().filter(b -> b != controller)
                .allMatch(b -> b.controlHandler().controllerEpoch() > epoch),
            () -> "every other broker follows the new controller");
        final long failoverMs = (System.nanoTime() - failoverStart) / 1_000_000;
        System.out.printf("FIGURE controller failover with %d partitions: every other live broker accepted the new "
            + "controller's metadata after %d ms%n", PARTITIONS, failoverMs);
    }
}
