package io.seglog.replication.data;

import static io.seglog.replication.data.ScenarioSupport.awaitConverged;
import static io.seglog.replication.data.ScenarioSupport.awaitLeader;
import static io.seglog.replication.data.ScenarioSupport.log;
import static io.seglog.replication.data.ScenarioSupport.partition;
import static io.seglog.replication.data.ScenarioSupport.values;
import static io.seglog.replication.data.ScenarioSupport.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication failures Kafka's history is made of, each as its own test on real brokers over a real ZooKeeper
 * and real sockets (kafka-replication.md §5 and §7, reliability.md RP-01, RP-02, RP-07). Faults are placed on the
 * replication links ({@link Links}) and the disks ({@link DataCluster#cutLogs}); everything else runs as in
 * production.
 */
@Timeout(300)
class ReplicationScenariosIT {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;
    private TestingServer zk;
    private DataCluster cluster;

    private void start(final Consumer<Map<String, Object>> props, final int... ids) throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props);
        cluster.startAll(ids);
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private static long offset(final AppendResult r) {
        assertEquals(ReplicaError.NONE, r.error(), () -> "write failed: " + r);
        return r.baseOffset();
    }

    /**
     * KIP-101 scenario 1 (KAFKA-1211): B leads, A follows with m1 and m2 but a high watermark of 1 (the answer that
     * would have told it 2 was lost). A becomes a follower again in a new epoch (C's loss bumps it) and must not cut
     * its log to its high watermark; B then dies before A fetches again, A is elected from the ISR, and m2, which was
     * acknowledged, is still there.
     */
    @Test
    void kip101Scenario1FollowerNeverTruncatesToItsHighWatermark() throws Exception {
        start(p -> p.put("min.insync.replicas", 1), 1, 2, 3);
        cluster.createTopic("t", Map.of(0, List.of(1, 2, 3)));
        assertEquals(0, offset(write(cluster, 1, TP, -1, "m1")));
        cluster.links.dropResponses(2, 1, r -> Links.fetchOffset(r, TP) >= 2);
        assertEquals(1, offset(write(cluster, 1, TP, -1, "m2")), "m2 acknowledged by the whole ISR");
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).logEndOffset() == 2, () -> "A holds m2");
        assertEquals(1, log(cluster, 2, TP).highWatermark(), "A never learnt that m2 was committed");

        cluster.stop(3); // the controller removes C from the ISR: a new epoch for A and B, A stays in the ISR
        Await.until(DataCluster.WAIT, () -> partition(cluster, 2, TP).leaderEpoch() == cluster.state(TP).leaderEpoch()
            && cluster.state(TP).leaderEpoch() > 0, () -> "A follows in the new epoch: " + cluster.state(TP));
        assertEquals(2, log(cluster, 2, TP).logEndOffset(), "A kept m2 when it became a follower again");

        cluster.links.block(2, 1); // A cannot fetch again before B dies
        cluster.stop(1);
        awaitLeader(cluster, TP, 2);
        assertEquals(List.of("m1", "m2"), values(cluster, 2, TP), "the acknowledged m2 survives");
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).highWatermark() == 2, () -> "A commits what it holds");
    }

    /**
     * KIP-101 scenario 1 with a restart: A restarts with m1, m2 on disk and a high-watermark checkpoint of 1, and does
     * not cut its log on the way up (Kafka before 0.11 truncated to the checkpoint here). Cut off from B, A leaves the
     * ISR; when B dies, an unclean election makes A leader, and m2 is still there.
     */
    @Test
    void kip101Scenario1RestartedFollowerKeepsItsLog() throws Exception {
        start(p -> {
            p.put("min.insync.replicas", 1);
            p.put("unclean.leader.election.enable", "true");
        }, 1, 2);
        cluster.createTopic("t", Map.of(0, List.of(1, 2)));
        write(cluster, 1, TP, -1, "m1");
        cluster.links.dropResponses(2, 1, r -> Links.fetchOffset(r, TP) >= 2);
        assertEquals(1, offset(write(cluster, 1, TP, -1, "m2")));
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).logEndOffset() == 2, () -> "A holds m2");
        cluster.links.block(2, 1);
        cluster.stop(2);
        cluster.start(2).awaitRegistered(DataCluster.WAIT.toMillis());
        Await.until(DataCluster.WAIT, () -> cluster.broker(2).partition(TP).isPresent(), () -> "A hosts t-0 again");
        assertEquals(1, log(cluster, 2, TP).highWatermark(), "A restarted with its lagging high-watermark checkpoint");
        assertEquals(2, log(cluster, 2, TP).logEndOffset(), "A did not cut its log to that checkpoint");
        cluster.stop(1);
        awaitLeader(cluster, TP, 2);
        assertEquals(List.of("m1", "m2"), values(cluster, 2, TP));
    }

    /**
     * KIP-101 scenario 2: A leads with m1, m2 (both acknowledged), B replicated both but only m1 reached its disk.
     * Both crash; B comes back first with m1 only, is elected and appends m3 at offset 1. A comes back as a follower:
     * the leader answers its fetch with the epoch where the logs diverge, A cuts m2 and fetches m3. Before epochs,
     * A kept m2 and the logs differed at offset 1 for ever.
     */
    @Test
    void kip101Scenario2DivergentLogsAfterAWholeClusterCrashAreRepaired() throws Exception {
        start(p -> p.put("min.insync.replicas", 1), 1, 2);
        cluster.createTopic("t", Map.of(0, List.of(1, 2)));
        write(cluster, 1, TP, -1, "m1");
        write(cluster, 1, TP, -1, "m2");
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).logEndOffset() == 2, () -> "B holds m2");
        cluster.stop(1); // B leads in the next epoch
        awaitLeader(cluster, TP, 2);
        cluster.stop(2); // the last ISR member stays in the ISR
        cluster.cutLogs(2, Map.of(TP, 1L)); // m2 never reached B's disk
        cluster.start(2);
        awaitLeader(cluster, TP, 2);
        assertEquals(List.of("m1"), values(cluster, 2, TP));
        assertEquals(1, offset(write(cluster, 2, TP, 1, "m3")));
        cluster.start(1);
        final long end = awaitConverged(cluster, TP);
        assertEquals(2, end);
        assertEquals(List.of("m1", "m3"), values(cluster, 1, TP), "A cut m2 and fetched m3");
    }

    /**
     * KIP-279 case 3 (KAFKA-6361): A leads epoch e1 with 0:e1, 1:e1, 2:e1 (B got only 0). B leads the next epoch and
     * appends 1:e2, then dies; A comes back, is elected uncleanly and appends 3:e3. B returns and names epoch e2; A
     * answers with the largest epoch it knows below it (e1) and where that ended (3), and B, whose e1 ended at 1,
     * cuts to 1 and fetches 1:e1 onwards. With the pre-KIP-279 answer (the start of the next epoch, 3) B kept 1:e2
     * and the logs diverged.
     */
    @Test
    void kip279Case3FastLeaderFailoverDoesNotDiverge() throws Exception {
        start(p -> {
            p.put("min.insync.replicas", 1);
            p.put("unclean.leader.election.enable", "true");
            p.put("replica.lag.time.max.ms", 600_000); // B stays in the ISR while it cannot fetch
        }, 1, 2);
        cluster.createTopic("t", Map.of(0, List.of(1, 2)));
        write(cluster, 1, TP, -1, "r0");
        cluster.links.block(2, 1);
        write(cluster, 1, TP, 1, "r1");
        write(cluster, 1, TP, 1, "r2");
        cluster.stop(1);
        awaitLeader(cluster, TP, 2);
        assertEquals(1, offset(write(cluster, 2, TP, 1, "r1-by-B")));
        cluster.stop(2);
        cluster.links.healAll();
        cluster.start(1);
        awaitLeader(cluster, TP, 1);
        assertTrue(cluster.store().partitionStates(List.of(TP)).get(TP).map(PartitionStateZnode::leaderRecovering)
            .orElse(false), "an unclean election is recorded in the state znode (leader_recovery_state)");
        assertEquals(3, offset(write(cluster, 1, TP, 1, "r3")));
        cluster.start(2);
        assertEquals(4, awaitConverged(cluster, TP));
        assertEquals(List.of("r0", "r1", "r2", "r3"), values(cluster, 2, TP));
    }

    /**
     * KAFKA-7415: a leader records its epoch when it is elected, before it appends. A leads epoch e0, B leads e1 and
     * writes nothing, A is elected again (preferred election) in e2. B, which began e1 as leader, fetches naming e1:
     * A knows e1 lies between e0 and e2 and answers where e0 ended, B drops its empty e1 and replicates on, and an
     * acks=all write that needs it succeeds. Without the epoch recorded at election, A knew no epoch above e0,
     * answered OFFSET_OUT_OF_RANGE for e1, and B was stuck.
     */
    @Test
    void kafka7415BackToBackElectionsLeaveEveryEpochAnswerable() throws Exception {
        start(p -> p.put("min.insync.replicas", 2), 1, 2);
        cluster.createTopic("t", Map.of(0, List.of(1, 2)));
        write(cluster, 1, TP, -1, "r0", "r1", "r2");
        cluster.stop(1);
        awaitLeader(cluster, TP, 2);
        final int e1 = cluster.state(TP).leaderEpoch();
        assertEquals(3, partition(cluster, 2, TP).leaderEpochStartOffset());
        assertEquals(e1, log(cluster, 2, TP).latestEpoch(), "B recorded e1 at once, with no batch in it");
        cluster.start(1);
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().size() == 2, () -> "A back in the ISR: "
            + cluster.state(TP));
        cluster.broker(1).admin().preferredLeaderElection(java.util.Set.of(TP));
        awaitLeader(cluster, TP, 1);
        final int e2 = cluster.state(TP).leaderEpoch();
        assertEquals(e2, log(cluster, 1, TP).latestEpoch(), "A recorded e2 at its election");
        assertEquals(new io.seglog.storage.EpochEndOffset(0, 3), log(cluster, 1, TP).endOffsetForEpoch(e1),
            "A answers for e1, an epoch it never wrote: e0 ended at 3");
        assertEquals(3, offset(write(cluster, 1, TP, -1, "r3")), "acks=all needs B, which must replicate past e1");
        assertEquals(4, awaitConverged(cluster, TP));
        assertFalse(log(cluster, 2, TP).leaderEpochs().stream().anyMatch(e -> e.epoch() == e1),
            "B dropped its empty epoch e1");
    }

    /**
     * KAFKA-7128: B is elected with a high watermark (7) that lags the old leader's (10). C, out of the ISR with 7
     * records, fetches from B at offset 7, past B's stale high watermark but short of B's epoch start (10): it must not
     * join the ISR (it lacks committed records 7..9, and as an ISR member it could be elected). Once C reaches 10 it
     * joins.
     */
    @Test
    void kafka7128NoIsrJoinBeforeTheCurrentLeaderEpoch() throws Exception {
        start(p -> p.put("min.insync.replicas", 2), 1, 2, 3);
        cluster.createTopic("t", Map.of(0, List.of(1, 2, 3)));
        write(cluster, 1, TP, -1, "r0", "r1", "r2", "r3", "r4", "r5", "r6");
        Await.until(DataCluster.WAIT, () -> log(cluster, 3, TP).logEndOffset() == 7, () -> "C holds 7 records");
        cluster.links.block(3, 1);
        cluster.stop(3);
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().equals(List.of(1, 2)), () -> "C out of the ISR");
        cluster.links.dropResponses(2, 1, r -> Links.fetchOffset(r, TP) >= 10);
        assertEquals(7, offset(write(cluster, 1, TP, -1, "r7", "r8", "r9")));
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).logEndOffset() == 10, () -> "B holds 10 records");
        assertEquals(7, log(cluster, 2, TP).highWatermark(), "B's high watermark lags");
        // C reaches B but never gets an answer: B sees C at offset 7 again and again.
        cluster.links.dropResponses(3, 2, r -> true);
        cluster.start(3);
        cluster.stop(1);
        awaitLeader(cluster, TP, 2);
        assertEquals(10, partition(cluster, 2, TP).leaderEpochStartOffset());
        final long before = cluster.links.delivered(3, 2);
        Await.until(DataCluster.WAIT, () -> cluster.links.delivered(3, 2) >= before + 5
                && partition(cluster, 2, TP).followerLogEndOffset(3) == 7,
            () -> "B saw C's fetches at 7: " + cluster.links.delivered(3, 2));
        assertEquals(List.of(2), cluster.state(TP).isr(), "C, short of B's epoch start, is not in the ISR");
        assertEquals(7, log(cluster, 2, TP).highWatermark(), "below min.insync.replicas the HW does not move");
        cluster.links.heal(3, 2);
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().containsAll(List.of(2, 3)), () -> "C joins: "
            + cluster.state(TP));
        assertEquals(10, awaitConverged(cluster, TP));
        assertEquals(10, values(cluster, 3, TP).size());
    }

    /**
     * RP-01 (Jepsen 2013): the followers are cut off, the ISR shrinks to the leader alone, which keeps acknowledging
     * acks=all writes (min.insync.replicas=1), then dies. With unclean election off the partition stays leaderless and
     * nothing acknowledged is lost: when the leader returns, every record is there.
     */
    @Test
    void rp01IsrOfTheLeaderAloneWithUncleanElectionOffStaysLeaderless() throws Exception {
        isrShrinksToTheLeaderThenItDies(false);
        Await.until(DataCluster.WAIT, () -> !cluster.state(TP).hasLeader(), () -> "leaderless: " + cluster.state(TP));
        assertEquals(List.of(1), cluster.state(TP).isr(), "the ISR is never emptied");
        cluster.links.healAll();
        cluster.start(1);
        awaitLeader(cluster, TP, 1);
        assertEquals(List.of("a0", "a1", "a2", "a3", "a4", "a5"), values(cluster, 1, TP));
        assertEquals(6, awaitConverged(cluster, TP));
    }

    /**
     * RP-01 with unclean election on: an out-of-sync follower is elected, the election is recorded as unclean, and
     * the old leader, when it returns, cuts the records the new leader never had (acknowledged ones: the loss Jepsen
     * found, chosen here by configuration) so that the replicas agree again.
     */
    @Test
    void rp01IsrOfTheLeaderAloneWithUncleanElectionOnElectsAndTruncates() throws Exception {
        isrShrinksToTheLeaderThenItDies(true);
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).hasLeader(), () -> "a leader: " + cluster.state(TP));
        final int leader = cluster.state(TP).leader();
        assertTrue(leader == 2 || leader == 3);
        assertEquals(1, cluster.brokers().values().stream()
                .mapToLong(b -> b.control().controller().uncleanLeaderElections()).sum(),
            "recorded as an unclean election by the controller that made it");
        cluster.links.healAll();
        cluster.start(1);
        final long end = awaitConverged(cluster, TP);
        assertEquals(List.of("a0"), values(cluster, 1, TP), "the records only the old leader had are gone");
        assertEquals(1, end);
    }

    private void isrShrinksToTheLeaderThenItDies(final boolean unclean) throws Exception {
        start(p -> {
            p.put("min.insync.replicas", 1);
            p.put("replica.lag.time.max.ms", 1_500);
            p.put("unclean.leader.election.enable", Boolean.toString(unclean));
        }, 1, 2, 3);
        cluster.createTopic("t", Map.of(0, List.of(1, 2, 3)));
        write(cluster, 1, TP, -1, "a0");
        Await.until(DataCluster.WAIT, () -> log(cluster, 2, TP).logEndOffset() == 1
            && log(cluster, 3, TP).logEndOffset() == 1, () -> "the followers hold a0");
        cluster.links.block(2, 1);
        cluster.links.block(3, 1);
        // Followers that hold all the leader has are in sync however long they are silent (Kafka's rule): the
        // leader must get ahead of them before they can fall behind.
        assertEquals(ReplicaError.NONE, write(cluster, 1, TP, 1, "a1").error());
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().equals(List.of(1)), () -> "the ISR shrinks to the"
            + " leader: " + cluster.state(TP));
        for (int i = 2; i <= 5; i++) {
            assertEquals(ReplicaError.NONE, write(cluster, 1, TP, -1, "a" + i).error(), "acknowledged with ISR [1]");
        }
        cluster.stop(1);
    }

    /**
     * RP-02: with the ISR below min.insync.replicas an acks=all write is refused before it is appended
     * (NOT_ENOUGH_REPLICAS) and the high watermark does not move, even for an acks=1 write (Kafka 3.7+); once a
     * follower is back the high watermark moves again.
     */
    @Test
    void rp02BelowMinInsyncReplicasNothingIsAcknowledgedAndTheHwIsFrozen() throws Exception {
        start(p -> p.put("min.insync.replicas", 2), 1, 2, 3);
        cluster.createTopic("t", Map.of(0, List.of(1, 2, 3)));
        write(cluster, 1, TP, -1, "x0");
        cluster.stop(2);
        cluster.stop(3);
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().equals(List.of(1)), () -> "ISR [1]");
        Await.until(DataCluster.WAIT, () -> partition(cluster, 1, TP).isr().equals(List.of(1)), () -> "the leader knows");
        final AppendResult refused = write(cluster, 1, TP, -1, "x1");
        assertEquals(ReplicaError.NOT_ENOUGH_REPLICAS, refused.error());
        assertEquals(1, log(cluster, 1, TP).logEndOffset(), "nothing appended");
        assertEquals(ReplicaError.NONE, write(cluster, 1, TP, 1, "x2").error(), "acks=1 is appended");
        assertEquals(2, log(cluster, 1, TP).logEndOffset());
        assertEquals(1, log(cluster, 1, TP).highWatermark(), "but not committed");
        cluster.start(2);
        Await.until(DataCluster.WAIT, () -> log(cluster, 1, TP).highWatermark() == 2, () -> "committed once the ISR"
            + " holds two: " + ScenarioSupport.describe(cluster, TP));
        assertEquals(List.of("x0", "x2"), values(cluster, 2, TP));
    }

    /**
     * KIP-966's "last replica standing", as ZooKeeper mode behaves (documented): records committed while the ISR was
     * {3, 2} are lost for good when 3, the last ISR member, loses its unflushed tail in a crash, is elected again
     * (the ISR is never emptied) and the others truncate to its shorter log.
     */
    @Test
    void kip966LastReplicaStandingLosesCommittedRecordsWithoutDurableAcks() throws Exception {
        final long end = lastReplicaStanding(false);
        assertTrue(end < 10, "records committed before the crash are gone from every replica: end=" + end);
        for (final int broker : List.of(1, 2, 3)) {
            assertFalse(values(cluster, broker, TP).contains("c9"), "broker " + broker + " lost the committed c9");
        }
    }

    /**
     * KIP-966 with Seglog's durable acks: an acks=all write is acknowledged only once every replica that counted has it
     * on disk, so the crash of the last ISR member loses none of them.
     */
    @Test
    void kip966DurableAcksKeepCommittedRecordsThroughTheLastReplicasCrash() throws Exception {
        final long end = lastReplicaStanding(true);
        assertTrue(end >= 10, "every acknowledged record survives: end=" + end);
        for (final int broker : List.of(1, 2, 3)) {
            assertEquals(List.of("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"),
                values(cluster, broker, TP).subList(0, 10), "broker " + broker);
        }
    }

    private long lastReplicaStanding(final boolean durable) throws Exception {
        start(p -> {
            p.put("min.insync.replicas", 2);
            p.put("replica.lag.time.max.ms", 1_500);
            p.put("seglog.acks.all.durable", Boolean.toString(durable));
        }, 1, 2, 3);
        cluster.createTopic("t", Map.of(0, List.of(3, 1, 2)));
        for (int i = 0; i < 5; i++) {
            assertEquals(ReplicaError.NONE, write(cluster, 3, TP, -1, "c" + i).error());
        }
        cluster.links.block(1, 3); // 1 leaves the ISR once the leader is ahead of it
        assertEquals(ReplicaError.NONE, write(cluster, 3, TP, 1, "c5").error());
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().equals(List.of(3, 2)), () -> "ISR [3, 2]: "
            + cluster.state(TP));
        for (int i = 6; i < 10; i++) {
            assertEquals(ReplicaError.NONE, write(cluster, 3, TP, -1, "c" + i).error(), "committed with ISR [3, 2]");
        }
        cluster.links.block(2, 3); // 2 leaves too: 3 stands alone
        assertEquals(ReplicaError.NONE, write(cluster, 3, TP, 1, "c10").error(), "acks=1: 3 gets ahead of 2");
        Await.until(DataCluster.WAIT, () -> cluster.state(TP).isr().equals(List.of(3)), () -> "ISR [3]");
        final Map<TopicPartition, Long> kept = new HashMap<>(cluster.crash(3));
        assertEquals(durable, kept.get(TP) >= 10, "what 3 had flushed when it crashed: " + kept.get(TP));
        cluster.links.healAll();
        cluster.start(3);
        awaitLeader(cluster, TP, 3);
        return awaitConverged(cluster, TP);
    }

    @SuppressWarnings("unused")
    private static boolean led(final LeaderAndIsr lai) {
        return lai.hasLeader();
    }
}
