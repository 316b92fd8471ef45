package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RP-08: a controller paused past its session's end, replaced by another, then resumed, changes nothing in
 * ZooKeeper and every broker refuses its messages.
 */
@Timeout(90)
class ZombieControllerIT extends ClusterFixture {
    ZombieControllerIT() {
        super("/zombie", b -> b, 1, 2, 3);
    }

    @Test
    void resumedZombieWritesNothingAndIsRefusedByEveryBroker() throws Exception {
        final ReplicationBroker zombie = cluster.awaitController(1);
        final int zombieEpoch = zombie.controller().epoch();
        final List<TopicPartition> partitions = new ArrayList<>();
        final Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            assignment.put(p, List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
            partitions.add(new TopicPartition("z", p));
        }
        cluster.admin().createTopic("z", assignment);
        cluster.awaitAllLed(partitions);

        // Pause the controller's event thread inside an event that will act as controller when resumed.
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        final AtomicReference<Throwable> directWrite = new AtomicReference<>();
        final AtomicReference<Throwable> election = new AtomicReference<>();
        final CountDownLatch done = new CountDownLatch(1);
        zombie.controller().runOnEventThread(() -> {
            paused.countDown();
            try {
                if (!resume.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never resumed");
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                zombie.controller().sendMetadataToAll();
                // A forged leader change at the state znode's current version: only the epoch fence can stop it.
                final TopicPartition tp = partitions.get(0);
                final PartitionStateZnode current = zombie.store().partitionStates(List.of(tp)).get(tp).orElseThrow();
                final LeaderAndIsr forged = current.leaderAndIsr().newLeader(current.leaderAndIsr().isr().get(0),
                    current.leaderAndIsr().isr());
                try {
                    zombie.store().updatePartitionStates(Map.of(tp, new PartitionStateZnode(forged, zombieEpoch)),
                        zombie.controller().epochZkVersion());
                } catch (final RuntimeException e) {
                    directWrite.set(e);
                }
                try {
                    zombie.controller().reelect(Set.copyOf(partitions));
                } catch (final RuntimeException e) {
                    election.set(e);
                    throw e;
                }
            } finally {
                done.countDown();
            }
        });
        assertTrue(paused.await(30, TimeUnit.SECONDS));

        final long zombieBrokerEpoch = zombie.controlHandler().brokerEpoch();
        ZkTestSupport.expireSession(cluster.observerClient.connectString(), zombie.zkClient().sessionCredentials());
        Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream()
            .anyMatch(b -> b != zombie && b.isController() && b.controller().epoch() == zombieEpoch + 1),
            () -> "a new controller at epoch " + (zombieEpoch + 1));
        final List<ReplicationBroker> others = new ArrayList<>(cluster.brokers.values());
        others.remove(zombie);
        // The new controller has told the other brokers about itself (its UpdateMetadata after failover).
        Await.until(TestCluster.WAIT, () -> others.stream()
            .allMatch(b -> b.controlHandler().controllerEpoch() == zombieEpoch + 1), () -> "brokers know epoch+1");
        assertTrue(zombie.isController(), "still believes it is controller: it has not processed anything yet");
        // Let the new controller settle (zombie leaves the ISRs), then freeze the picture.
        Await.until(TestCluster.WAIT, () -> partitions.stream()
            .allMatch(tp -> !cluster.leaderAndIsr(tp).isr().contains(zombie.brokerId())), () -> "zombie out of ISRs");
        final Map<TopicPartition, Optional<PartitionStateZnode>> before = cluster.observer.partitionStates(partitions);
        final int epochBefore = cluster.observer.controllerEpoch().orElseThrow().value();
        final Map<Integer, Long> refusedBefore = new HashMap<>();
        cluster.brokers.values().forEach(b -> refusedBefore.put(b.brokerId(), b.controlHandler().refusedCount()));
        final long zombieRefusalsBefore = zombie.controller().refusedMessages();

        // Its ZooKeeper client learns of the expiry when it reconnects; the event thread is still paused, so the
        // controller part has not resigned yet, but the broker part has dropped its registration.
        Await.until(TestCluster.WAIT, () -> zombie.controlHandler().brokerEpoch() == -1, () -> "expiry noticed");
        assertTrue(zombie.isController(), "the paused event thread has not resigned yet");
        resume.countDown();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        Await.until(TestCluster.WAIT, () -> !zombie.isController(), () -> "zombie resigned");

        assertTrue(directWrite.get() instanceof ControllerMovedException, "epoch fence refused the write: "
            + directWrite.get());
        assertTrue(election.get() instanceof ControllerMovedException, "election refused: " + election.get());
        assertEquals(before, cluster.observer.partitionStates(partitions), "no zombie write landed");
        assertEquals(epochBefore, cluster.observer.controllerEpoch().orElseThrow().value());
        for (final ReplicationBroker b : others) {
            assertTrue(b.controlHandler().refusedCount() > refusedBefore.get(b.brokerId()),
                "broker " + b.brokerId() + " refused the zombie's UpdateMetadata");
            assertEquals(zombieEpoch + 1, b.controlHandler().controllerEpoch());
        }
        assertTrue(zombie.controlHandler().refusedCount() > refusedBefore.get(zombie.brokerId()),
            "the zombie's own broker refuses it too (its registration ended with the session)");
        assertTrue(zombie.controller().refusedMessages() >= zombieRefusalsBefore + 3);
        // Afterwards the old broker registers again as a new incarnation and follows the new controller.
        Await.until(TestCluster.WAIT, () -> zombie.controlHandler().brokerEpoch() > 0
            && zombie.controlHandler().controllerEpoch() == zombieEpoch + 1, () -> "zombie rejoined as a broker");
        assertNotEquals(zombieBrokerEpoch, zombie.controlHandler().brokerEpoch());
        assertFalse(zombie.isController());
        assertEquals(1, cluster.active().size());
    }

    @Test
    void repeatedZombieTrialsLandNoStaleWrite() throws Exception {
        final int trials = 10;
        final TopicPartition tp = new TopicPartition("zt", 0);
        cluster.awaitController(1);
        cluster.admin().createTopic("zt", Map.of(0, List.of(1, 2, 3)));
        cluster.awaitAllLed(List.of(tp));
        int accepted = 0;
        final long[] handoverMs = new long[trials];
        for (int trial = 0; trial < trials; trial++) {
            final ReplicationBroker zombie = cluster.awaitController(1);
            final int epoch = zombie.controller().epoch();
            final CountDownLatch paused = new CountDownLatch(1);
            final CountDownLatch resume = new CountDownLatch(1);
            final AtomicReference<Map<TopicPartition, LeaderAndIsr>> written = new AtomicReference<>();
            final AtomicReference<Throwable> refused = new AtomicReference<>();
            final CountDownLatch done = new CountDownLatch(1);
            zombie.controller().runOnEventThread(() -> {
                paused.countDown();
                try {
                    resume.await(30, TimeUnit.SECONDS);
                    final PartitionStateZnode current = zombie.store().partitionStates(List.of(tp)).get(tp).orElseThrow();
                    final LeaderAndIsr forged = current.leaderAndIsr().newLeader(current.leaderAndIsr().leader(),
                        current.leaderAndIsr().isr());
                    written.set(zombie.store().updatePartitionStates(Map.of(tp, new PartitionStateZnode(forged, epoch)),
                        zombie.controller().epochZkVersion()));
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (final RuntimeException e) {
                    refused.set(e);
                } finally {
                    done.countDown();
                }
            });
            assertTrue(paused.await(30, TimeUnit.SECONDS));
            final long start = System.nanoTime();
            ZkTestSupport.expireSession(cluster.observerClient.connectString(), zombie.zkClient().sessionCredentials());
            Await.until(TestCluster.WAIT, () -> cluster.brokers.values().stream()
                .anyMatch(b -> b != zombie && b.isController() && b.controller().epoch() == epoch + 1), () -> "epoch+1");
            handoverMs[trial] = (System.nanoTime() - start) / 1_000_000;
            resume.countDown();
            assertTrue(done.await(30, TimeUnit.SECONDS));
            if (written.get() != null && !written.get().isEmpty()) {
                accepted++;
            }
            // Fenced by the epoch check (ControllerMovedException), or refused with its session (ZkException).
            assertTrue(refused.get() instanceof ControllerMovedException || refused.get() instanceof ZkException,
                "trial " + trial + ": " + refused.get());
            Await.until(TestCluster.WAIT, () -> cluster.active().size() == 1
                && cluster.observer.brokers(null).size() == 3, () -> "settled");
        }
        java.util.Arrays.sort(handoverMs);
        System.out.printf("FIGURE zombie controller trials=%d: stale writes accepted=%d; handover p50=%d ms p99=%d ms%n",
            trials, accepted, handoverMs[trials / 2 - 1], handoverMs[trials - 1]);
        assertEquals(0, accepted);
    }
}
