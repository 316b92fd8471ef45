package io.seglog.replication.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Kafka's HW and ISR rules ({@code PartitionTest}'s cases by name where there is one), and a seeded comparison of
 * the HW rule with a recomputed minimum over random follower states.
 */
class IsrRulesTest {
    private static final long LAG = 10_000;
    private static final IsrRules.Eligibility ALL = id -> true;

    private static FollowerProgress follower(final int id, final long leo, final long caughtUpMs) {
        final FollowerProgress f = new FollowerProgress(id);
        f.resetForNewLeader(caughtUpMs, true);
        if (leo >= 0) {
            f.onFetch(leo, 0, leo, leo + 1_000_000, caughtUpMs, 1); // behind the leader: time unchanged
        }
        return f;
    }

    @Test
    void hwIsTheSmallestLogEndInTheIsr() {
        final List<FollowerProgress> fs = List.of(follower(2, 7, 0), follower(3, 5, 0));
        assertEquals(5, IsrRules.highWatermark(0, 10, fs, 3, List.of(1, 2, 3), 1, ALL, 0, LAG));
        assertEquals(7, IsrRules.highWatermark(0, 10, fs, 2, List.of(1, 2), 1, ALL, LAG + 1, LAG),
            "a lagging follower outside the ISR does not hold it back");
    }

    @Test
    void caughtUpFollowerOutsideTheIsrHoldsTheHwSoItCanJoin() {
        final List<FollowerProgress> fs = List.of(follower(2, 10, 0), follower(3, 6, 5_000));
        assertEquals(6, IsrRules.highWatermark(0, 10, fs, 2, List.of(1, 2), 1, ALL, 6_000, LAG));
        assertEquals(10, IsrRules.highWatermark(0, 10, fs, 2, List.of(1, 2), 1, id -> id != 3, 6_000, LAG),
            "unless its broker is not eligible (dead or shutting down)");
    }

    @Test
    void hwNeverGoesBackAndStopsBelowMinIsr() {
        final List<FollowerProgress> fs = List.of(follower(2, 3, 0));
        assertEquals(8, IsrRules.highWatermark(8, 10, fs, 2, List.of(1, 2), 1, ALL, 0, LAG), "monotonic");
        // testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR
        assertEquals(4, IsrRules.highWatermark(4, 10, List.of(), 1, List.of(1), 2, ALL, 0, LAG));
        assertEquals(10, IsrRules.highWatermark(4, 10, List.of(), 1, List.of(1), 1, ALL, 0, LAG));
    }

    @Test
    void followerWithoutAFetchHoldsTheHwAtUnknown() {
        // A new leader's ISR followers have not fetched: the HW may not move (Kafka: UnknownOffset).
        final FollowerProgress f = new FollowerProgress(2);
        f.resetForNewLeader(0, true);
        assertEquals(4, IsrRules.highWatermark(4, 10, List.of(f), 2, List.of(1, 2), 1, ALL, 0, LAG));
    }

    @Test
    void shrinkRemovesStuckAndSlowFollowersButNeverTheLeader() {
        // IsrExpirationTest: testIsrExpirationForStuckFollowers / ForSlowFollowers / ForCaughtUpFollowers
        final FollowerProgress stuck = follower(2, 3, 0);
        final FollowerProgress slow = follower(3, 8, 1_000);
        final FollowerProgress caughtUp = follower(4, 10, 0);
        final List<FollowerProgress> fs = List.of(stuck, slow, caughtUp);
        assertEquals(List.of(), IsrRules.outOfSync(1, List.of(1, 2, 3, 4), fs, 10, LAG, LAG));
        assertEquals(List.of(2), IsrRules.outOfSync(1, List.of(1, 2, 3, 4), fs, 10, LAG + 1, LAG));
        assertEquals(List.of(2, 3), IsrRules.outOfSync(1, List.of(1, 2, 3, 4), fs, 10, LAG + 1_001, LAG));
        assertEquals(List.of(5), IsrRules.outOfSync(1, List.of(1, 5), fs, 10, 0, LAG),
            "a member the leader has no progress for is out of sync");
        assertEquals(List.of(), IsrRules.outOfSync(1, List.of(1), fs, 10, Long.MAX_VALUE, LAG));
    }

    @Test
    void followerJoinsOnlyPastTheHwAndTheCurrentEpochStart() {
        // testFollowerDoesNotJoinISRUntilCaughtUpToOffsetWithinCurrentLeaderEpoch (KAFKA-7128)
        final FollowerProgress f = follower(2, 5, 0);
        assertFalse(IsrRules.canJoinIsr(f, 3, 8, true), "past a lagging HW but short of the epoch start");
        assertTrue(IsrRules.canJoinIsr(follower(2, 8, 0), 3, 8, true));
        assertFalse(IsrRules.canJoinIsr(follower(2, 8, 0), 9, 8, true), "short of the HW");
        assertFalse(IsrRules.canJoinIsr(follower(2, 9, 0), 3, 8, false), "not eligible");
        final FollowerProgress unknown = new FollowerProgress(2);
        unknown.resetForNewLeader(0, false);
        assertFalse(IsrRules.canJoinIsr(unknown, 0, 0, true), "no fetch yet");
    }

    @Test
    void durableHwWaitsForTheSlowestDiskAmongThoseThatCount() {
        final FollowerProgress a = follower(2, 10, 0);
        final FollowerProgress b = follower(3, 10, 0);
        b.onFetch(9, 0, 6, 12, 0, 1);
        assertEquals(6, IsrRules.durableHighWatermark(10, 9, 10, List.of(a, b), List.of(1, 2, 3), ALL, 0, LAG));
        assertEquals(9, IsrRules.durableHighWatermark(10, 9, 10, List.of(a, b), List.of(1, 2), ALL, LAG + 1, LAG),
            "a follower that counts for nothing does not count here either");
        assertEquals(8, IsrRules.durableHighWatermark(8, 9, 10, List.of(a), List.of(1, 2), ALL, 0, LAG));
    }

    /** The HW rule against an oracle: the min over the leader and the counted followers, kept monotonic. */
    @Test
    void hwMatchesARecomputedMinimumOverSeededStates() {
        final long seed = Long.getLong("seglog.isr.seed", 20261202L);
        final SplittableRandom random = new SplittableRandom(seed);
        long hw = 0;
        long leaderLeo = 0;
        for (int round = 0; round < 20_000; round++) {
            leaderLeo += random.nextInt(3);
            final long now = round * 10L;
            final List<FollowerProgress> fs = new ArrayList<>();
            final Set<Integer> isr = new HashSet<>(Set.of(1));
            final Set<Integer> eligible = new HashSet<>();
            for (int id = 2; id <= 5; id++) {
                final FollowerProgress f = new FollowerProgress(id);
                f.resetForNewLeader(now - random.nextLong(2 * LAG), false);
                final long leo = random.nextInt(4) == 0 ? FollowerProgress.UNKNOWN_OFFSET
                    : Math.max(0, leaderLeo - random.nextInt(5));
                if (leo >= 0) {
                    f.onFetch(leo, 0, leo, leaderLeo, now - random.nextLong(2 * LAG), 1);
                }
                fs.add(f);
                if (random.nextBoolean()) {
                    isr.add(id);
                }
                if (random.nextInt(5) != 0) {
                    eligible.add(id);
                }
            }
            final int minIsr = 1 + random.nextInt(3);
            final long got = IsrRules.highWatermark(hw, leaderLeo, fs, isr.size(), isr, minIsr, eligible::contains,
                now, LAG);
            long oracle = leaderLeo;
            for (final FollowerProgress f : fs) {
                final boolean caughtUp = f.logEndOffset() == leaderLeo || now - f.lastCaughtUpTimeMs() <= LAG;
                if (isr.contains(f.brokerId()) || caughtUp && eligible.contains(f.brokerId())) {
                    oracle = Math.min(oracle, f.logEndOffset());
                }
            }
            final long expected = isr.size() < minIsr ? hw : Math.max(hw, oracle);
            assertEquals(expected, got, "seed=" + seed + " round=" + round);
            assertTrue(got >= hw, "seed=" + seed + " round=" + round + ": monotonic");
            hw = Math.min(got, leaderLeo);
        }
    }
}
