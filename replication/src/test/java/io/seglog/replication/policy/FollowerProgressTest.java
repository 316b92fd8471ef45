package io.seglog.replication.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Kafka's caught-up rule ({@code Replica.updateFetchStateOrThrow}, {@code isCaughtUp}), case by case. */
class FollowerProgressTest {
    private static final long LAG = 10_000;

    @Test
    void fetchAtTheLeaderEndIsCaughtUpNow() {
        final FollowerProgress f = new FollowerProgress(2);
        f.onFetch(10, 0, FollowerProgress.UNKNOWN_OFFSET, 10, 1_000, 7);
        assertEquals(1_000, f.lastCaughtUpTimeMs());
        assertEquals(10, f.logEndOffset());
        assertEquals(7, f.brokerEpoch());
    }

    @Test
    void followerOneRoundBehindABusyLeaderStaysCaughtUp() {
        final FollowerProgress f = new FollowerProgress(2);
        f.onFetch(10, 0, -1, 12, 1_000, 7);
        assertEquals(FollowerProgress.NEVER, f.lastCaughtUpTimeMs(), "behind the leader and no previous fetch: not caught up");
        // The next fetch reaches the leader's end of the previous fetch (12): caught up as of the previous fetch.
        f.onFetch(12, 0, -1, 15, 2_000, 7);
        assertEquals(1_000, f.lastCaughtUpTimeMs());
        f.onFetch(14, 0, -1, 18, 3_000, 7);
        assertEquals(1_000, f.lastCaughtUpTimeMs(), "short of the previous fetch's leader end: no progress");
        assertTrue(f.isCaughtUp(20, 1_000 + LAG, LAG));
        assertFalse(f.isCaughtUp(20, 1_001 + LAG, LAG));
        assertTrue(f.isCaughtUp(14, 1_001 + LAG, LAG), "holding the leader's whole log is always caught up");
    }

    @Test
    void caughtUpTimeNeverGoesBack() {
        final FollowerProgress f = new FollowerProgress(2);
        f.onFetch(10, 0, -1, 10, 5_000, 7);
        f.onFetch(10, 0, -1, 10, 4_000, 7);
        assertEquals(5_000, f.lastCaughtUpTimeMs());
    }

    @Test
    void newLeaderTreatsIsrMembersAsCaughtUpAndOthersAsNever() {
        final FollowerProgress in = new FollowerProgress(2);
        in.onFetch(10, 0, 10, 10, 1_000, 7);
        in.resetForNewLeader(50_000, true);
        assertEquals(FollowerProgress.UNKNOWN_OFFSET, in.logEndOffset());
        assertEquals(FollowerProgress.UNKNOWN_OFFSET, in.durableOffset());
        assertEquals(50_000, in.lastCaughtUpTimeMs());
        // The first fetch after the reset compares with no previous leader end: only "at the end" counts.
        in.onFetch(3, 0, -1, 20, 51_000, 7);
        assertEquals(50_000, in.lastCaughtUpTimeMs());

        final FollowerProgress out = new FollowerProgress(3);
        out.resetForNewLeader(50_000, false);
        assertEquals(FollowerProgress.NEVER, out.lastCaughtUpTimeMs());
        assertFalse(out.isCaughtUp(20, 50_000 + LAG, LAG));
    }

    @Test
    void reelectedLeaderKeepsOffsets() {
        final FollowerProgress f = new FollowerProgress(2);
        f.onFetch(10, 2, 8, 10, 1_000, 7);
        f.resetForReelectedLeader(9_000, 12, false);
        assertEquals(10, f.logEndOffset());
        assertEquals(FollowerProgress.NEVER, f.lastCaughtUpTimeMs());
        f.onFetch(12, 2, 12, 13, 9_500, 7);
        assertEquals(FollowerProgress.NEVER, f.lastCaughtUpTimeMs(), "no fetch since the re-election counts as a previous fetch");
        f.resetForReelectedLeader(10_000, 13, true);
        assertEquals(10_000, f.lastCaughtUpTimeMs());
    }

    @Test
    void durableOffsetNeverPassesTheFetchOffset() {
        final FollowerProgress f = new FollowerProgress(2);
        f.onFetch(10, 0, 25, 10, 1_000, 7);
        assertEquals(10, f.durableOffset(), "a durable offset reported from before a truncation is capped");
        f.onFetch(12, 0, 11, 12, 1_100, 7);
        assertEquals(11, f.durableOffset());
        f.onFetch(12, 0, FollowerProgress.UNKNOWN_OFFSET, 12, 1_200, 7);
        assertEquals(FollowerProgress.UNKNOWN_OFFSET, f.durableOffset());
    }
}
