package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.zk.ZkTestSupport;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RP-08/RP-09 basics: one controller among three brokers; session expiry hands over with the epoch one higher. */
@Timeout(120)
class ControllerElectionIT extends ClusterFixture {
    private static final int TRIALS = 20;

    ControllerElectionIT() {
        super("/election", b -> b, 1, 2, 3);
    }

    @Test
    void exactlyOneControllerAndExpiryElectsANewOneWithTheEpochOneHigher() throws Exception {
        final ReplicationBroker first = cluster.awaitController(1);
        final int epoch = first.controller().epoch();
        assertEquals(1, cluster.active().size());
        assertEquals(epoch, cluster.observer.controllerEpoch().orElseThrow().value());
        assertEquals(first.brokerId(), cluster.observer.controllerId(null).getAsInt());
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream()
                .allMatch(b -> b.controller().activeControllerId() == first.brokerId()),
            () -> "every broker knows the controller");

        ZkTestSupport.expireSession(cluster.observerClient.connectString(), first.zkClient().sessionCredentials());
        final ReplicationBroker second = cluster.awaitController(epoch + 1);
        assertEquals(epoch + 1, second.controller().epoch());
        assertEquals(epoch + 1, cluster.observer.controllerEpoch().orElseThrow().value());
        assertEquals(1, cluster.active().size());
        if (second != first) {
            assertFalse(first.isController());
        }
        // The expired broker registers again, with a new broker epoch.
        Await.until(TestCluster.WAIT, () -> first.controlHandler().brokerEpoch() > 0
            && cluster.observer.brokers(null).containsKey(first.brokerId()), () -> "re-registration");
    }

    @Test
    void failoverTimeOverTwentyTrials() throws Exception {
        final long[] failoverMs = new long[TRIALS];
        final long[] resignMs = new long[TRIALS];
        for (int trial = 0; trial < TRIALS; trial++) {
            final ReplicationBroker current = cluster.awaitController(1);
            final int epoch = current.controller().epoch();
            final long start = System.nanoTime();
            ZkTestSupport.expireSession(cluster.observerClient.connectString(), current.zkClient().sessionCredentials());
            // Failover = a broker is active at the next epoch (the old one may not have noticed its expiry yet: its
            // writes are fenced meanwhile, see ZombieControllerIT).
            Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream()
                .anyMatch(b -> b.isController() && b.controller().epoch() == epoch + 1), () -> "epoch " + (epoch + 1));
            failoverMs[trial] = (System.nanoTime() - start) / 1_000_000;
            final ReplicationBroker next = cluster.awaitController(epoch + 1);
            resignMs[trial] = (System.nanoTime() - start) / 1_000_000;
            assertEquals(epoch + 1, next.controller().epoch(), "trial " + trial);
            assertEquals(1, cluster.active().size(), "trial " + trial);
            // Every broker must be registered again before the next trial expires a session.
            Await.until(TestCluster.WAIT, () -> cluster.observer.brokers(null).size() == 3, () -> "3 brokers");
        }
        Arrays.sort(failoverMs);
        Arrays.sort(resignMs);
        final long p50 = failoverMs[(int) Math.ceil(0.50 * TRIALS) - 1];
        final long p99 = failoverMs[(int) Math.ceil(0.99 * TRIALS) - 1];
        System.out.printf("FIGURE controller failover after session expiry (3 brokers, %d trials): new controller active "
            + "p50=%d ms p99=%d ms (min=%d max=%d); old one resigned too (single active) p50=%d ms p99=%d ms%n",
            TRIALS, p50, p99, failoverMs[0], failoverMs[TRIALS - 1], resignMs[(int) Math.ceil(0.50 * TRIALS) - 1],
            resignMs[(int) Math.ceil(0.99 * TRIALS) - 1]);
        assertTrue(p99 < 10_000, "p99=" + p99);
    }
}
