package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.sim.ReplicationInvariants.Replica;
import io.seglog.replication.sim.ReplicationInvariants.Snapshot;
import io.seglog.replication.sim.ReplicationInvariants.Violation;
import io.seglog.replication.sim.ReplicationInvariants.ZkPartition;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each invariant caught in a history that breaks it, and a healthy failover history that passes. */
class ReplicationInvariantsTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    private static Snapshot snap(final String event, final int controllerEpoch, final ZkPartition zk,
                                 final Replica... replicas) {
        return new Snapshot(event, Map.of(TP, List.of(replicas)), Map.of(TP, zk), controllerEpoch,
            Map.of(1, controllerEpoch, 2, controllerEpoch, 3, controllerEpoch));
    }

    private static Replica leader(final int broker, final int epoch, final long hw, final long leo) {
        return new Replica(broker, true, epoch, hw, leo);
    }

    private static Replica follower(final int broker, final int epoch, final long hw, final long leo) {
        return new Replica(broker, false, epoch, hw, leo);
    }

    private static ZkPartition zk(final int leader, final int epoch, final Integer... isr) {
        return new ZkPartition(leader, epoch, List.of(isr));
    }

    @Test
    void aFailoverThatKeepsEveryRulePasses() {
        final ReplicationInvariants inv = new ReplicationInvariants();
        inv.observe(snap("append", 1, zk(1, 0, 1, 2, 3), leader(1, 0, 5, 5), follower(2, 0, 5, 5),
            follower(3, 0, 4, 5)));
        inv.observe(snap("broker 1 dies", 2, zk(2, 1, 2, 3), leader(2, 1, 5, 5), follower(3, 1, 4, 5)));
        // A follower's high watermark may go back after a new leader (Kafka's rule); it is not truncated below it.
        inv.observe(snap("fetch", 2, zk(2, 1, 2, 3), leader(2, 1, 5, 6), follower(3, 1, 5, 6)));
        inv.restarted(1);
        inv.truncated("broker 1 rejoins", 1, TP, 5);
        inv.observe(snap("broker 1 back", 2, zk(2, 1, 2, 3, 1), leader(2, 1, 6, 6), follower(3, 1, 6, 6),
            follower(1, 1, 6, 6)));
        assertEquals(4, inv.events());
        ReplicationInvariants.checkEnd(Map.of(TP, Map.of(0L, 10L, 5L, 15L)),
            Map.of(TP, Map.of(1, Map.of(0L, 10L, 5L, 15L), 2, Map.of(0L, 10L, 5L, 15L), 3, Map.of(0L, 10L,
                5L, 15L))), Map.of(TP, List.of(1, 2, 3)), Map.of(TP, 6L));
    }

    @Test
    void twoLeadersInOneEpochAreCaught() {
        final ReplicationInvariants inv = new ReplicationInvariants();
        inv.observe(snap("elect", 1, zk(1, 3, 1, 2), leader(1, 3, 0, 0), follower(2, 3, 0, 0)));
        final Violation v = assertThrows(Violation.class, () -> inv.observe(snap("zombie", 1, zk(1, 3, 1, 2),
            follower(1, 3, 0, 0), leader(2, 3, 0, 0))));
        assertTrue(v.getMessage().contains("brokers 1 and 2 both led leader epoch 3"), v.getMessage());
    }

    @Test
    void epochsThatGoBackAreCaught() {
        final ReplicationInvariants leaderEpoch = new ReplicationInvariants();
        leaderEpoch.observe(snap("a", 1, zk(1, 4, 1), leader(1, 4, 0, 0)));
        assertThrows(Violation.class, () -> leaderEpoch.observe(snap("b", 1, zk(1, 4, 1), leader(1, 3, 0, 0))));

        final ReplicationInvariants controller = new ReplicationInvariants();
        controller.observe(snap("a", 5, zk(1, 0, 1), leader(1, 0, 0, 0)));
        final Violation v = assertThrows(Violation.class, () -> controller.observe(snap("b", 4, zk(1, 0, 1),
            leader(1, 0, 0, 0))));
        assertTrue(v.getMessage().contains("controller epoch went back from 5 to 4"), v.getMessage());

        final ReplicationInvariants broker = new ReplicationInvariants();
        broker.observe(new Snapshot("a", Map.of(), Map.of(), 5, Map.of(2, 5)));
        assertThrows(Violation.class, () -> broker.observe(new Snapshot("b", Map.of(), Map.of(), 5, Map.of(2, 4))));
    }

    @Test
    void aLeadersHighWatermarkGoingBackWithinItsEpochIsCaughtButARestartStartsAgain() {
        final ReplicationInvariants inv = new ReplicationInvariants();
        inv.observe(snap("a", 1, zk(1, 0, 1), leader(1, 0, 7, 7)));
        assertThrows(Violation.class, () -> inv.observe(snap("b", 1, zk(1, 0, 1), leader(1, 0, 6, 7))));
        final ReplicationInvariants restarted = new ReplicationInvariants();
        restarted.observe(snap("a", 1, zk(1, 0, 1), leader(1, 0, 7, 7)));
        restarted.restarted(1);
        restarted.observe(snap("b", 1, zk(1, 0, 1), leader(1, 0, 3, 7)));
    }

    @Test
    void aHighWatermarkPastAnIsrMembersLogEndIsCaught() {
        final ReplicationInvariants inv = new ReplicationInvariants();
        final Violation v = assertThrows(Violation.class, () -> inv.observe(snap("ack", 1, zk(1, 2, 1, 2),
            leader(1, 2, 9, 9), follower(2, 2, 0, 8))));
        assertTrue(v.getMessage().contains("high watermark 9 is past ISR member 2's log end offset 8"),
            v.getMessage());
        // Outside the ISR, a lagging replica is allowed.
        new ReplicationInvariants().observe(snap("ack", 1, zk(1, 2, 1), leader(1, 2, 9, 9), follower(2, 2, 0, 8)));
    }

    @Test
    void anEmptyIsrAndATruncationBelowTheHighWatermarkOfAnIsrMemberAreCaught() {
        assertThrows(Violation.class, () -> new ReplicationInvariants().observe(snap("shrink", 1, zk(-1, 2),
            follower(1, 2, 0, 0))));
        final ReplicationInvariants inv = new ReplicationInvariants();
        inv.observe(snap("a", 1, zk(1, 0, 1, 2), leader(1, 0, 8, 8), follower(2, 0, 8, 8)));
        final Violation v = assertThrows(Violation.class, () -> inv.truncated("truncate to the HW (KIP-101 off)", 2,
            TP, 6));
        assertTrue(v.getMessage().contains("truncated to 6, below its high watermark 8"), v.getMessage());
        inv.truncated("above the HW", 2, TP, 8);
    }

    @Test
    void theEndChecksFindALostRecordAndDivergedReplicas() {
        final Violation lost = assertThrows(Violation.class, () -> ReplicationInvariants.checkEnd(
            Map.of(TP, Map.of(3L, 33L)), Map.of(TP, Map.of(1, Map.of(3L, 33L), 2, Map.of())),
            Map.of(TP, List.of(1, 2)), Map.of(TP, 4L)));
        assertTrue(lost.getMessage().contains("acknowledged offset 3 is missing on ISR member 2"), lost.getMessage());
        final Violation diverged = assertThrows(Violation.class, () -> ReplicationInvariants.checkEnd(Map.of(),
            Map.of(TP, Map.of(1, Map.of(0L, 1L), 2, Map.of(0L, 2L))), Map.of(TP, List.of(1, 2)), Map.of(TP, 1L)));
        assertTrue(diverged.getMessage().contains("offset 0 below the high watermark 1 differs between ISR members 1"
            + " and 2"), diverged.getMessage());
    }

    @Test
    void theIdempotenceCheckFindsARetryAppendedTwiceAndASequenceGap() {
        ReplicationInvariants.checkIdempotent("tp", "idem-", Map.of(0L, "idem-7-0", 1L, "plain", 2L, "idem-8-0",
            3L, "idem-7-1", 4L, "idem-8-1"));
        final Violation twice = assertThrows(Violation.class, () -> ReplicationInvariants.checkIdempotent("tp",
            "idem-", Map.of(0L, "idem-7-0", 1L, "idem-7-1", 2L, "idem-7-1")));
        assertTrue(twice.getMessage().contains("idem-7-1 twice, at offsets 1 and 2"), twice.getMessage());
        final Violation gap = assertThrows(Violation.class, () -> ReplicationInvariants.checkIdempotent("tp",
            "idem-", Map.of(0L, "idem-7-0", 5L, "idem-7-2")));
        assertTrue(gap.getMessage().contains("producer 7's sequence 2 at offset 5 right after its sequence 0"),
            gap.getMessage());
    }
}
