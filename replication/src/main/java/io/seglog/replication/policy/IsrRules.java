package io.seglog.replication.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Kafka's rules for a leader's high watermark and ISR (its {@code Partition.maybeIncrementLeaderHW},
 * {@code getOutOfSyncReplicas} and {@code isFollowerInSync}), as functions of the leader's state.
 *
 * <ul>
 *   <li><b>High watermark</b> ({@link #highWatermark}): the smallest log end offset among the leader and every
 *       follower that is in the maximal ISR (the committed ISR plus a member being added), or that is caught up and
 *       eligible to join it. A caught-up follower outside the ISR holds the HW back on purpose: otherwise an HW
 *       driven by the others alone could run ahead of it and it could never join. Nothing moves while the committed
 *       ISR is smaller than {@code min.insync.replicas} (Kafka 3.7+, KAFKA-15583), and the HW never goes back.</li>
 *   <li><b>Shrink</b> ({@link #outOfSync}): an ISR member other than the leader that is not caught up
 *       ({@link FollowerProgress#isCaughtUp}) leaves. The leader never leaves, so the ISR is never empty.</li>
 *   <li><b>Expand</b> ({@link #canJoinIsr}): a follower joins when its log end offset reaches the leader's high
 *       watermark <em>and</em> the start offset of the leader's current epoch (KAFKA-7128: a follower past a lagging
 *       HW but short of the current epoch may lack committed records), and its broker is eligible (alive).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class IsrRules {
    private IsrRules() {
    }

    /** Whether a broker may be counted in or join an ISR (alive in the metadata, not shutting down). */
    @FunctionalInterface
    public interface Eligibility {
        /**
         * @param brokerId the follower's broker
         * @return whether it may be in the ISR
         */
        boolean isEligible(int brokerId);
    }

    /**
     * The leader's new high watermark.
     *
     * @param currentHw         the current high watermark
     * @param leaderLogEndOffset the leader's log end offset
     * @param followers         every follower of the partition (the assignment minus the leader)
     * @param committedIsrSize  the size of the ISR as ZooKeeper holds it (for the min-ISR rule)
     * @param maximalIsr        the committed ISR plus any member being added
     * @param minInsyncReplicas {@code min.insync.replicas}
     * @param eligibility       which brokers may join the ISR
     * @param nowMs             the leader's clock
     * @param maxLagMs          {@code replica.lag.time.max.ms}
     * @return the new high watermark: at least {@code currentHw}, at most {@code leaderLogEndOffset} (unless
     *     {@code currentHw} was above it, which only a truncation of the leader can make, and which is kept)
     */
    public static long highWatermark(final long currentHw, final long leaderLogEndOffset,
                                     final Collection<FollowerProgress> followers, final int committedIsrSize,
                                     final Collection<Integer> maximalIsr, final int minInsyncReplicas,
                                     final Eligibility eligibility, final long nowMs, final long maxLagMs) {
        if (committedIsrSize < minInsyncReplicas) {
            return currentHw;
        }
        long candidate = leaderLogEndOffset;
        for (final FollowerProgress f : followers) {
            if (f.logEndOffset() < candidate && (maximalIsr.contains(f.brokerId())
                || f.isCaughtUp(leaderLogEndOffset, nowMs, maxLagMs) && eligibility.isEligible(f.brokerId()))) {
                candidate = f.logEndOffset();
            }
        }
        return Math.max(currentHw, candidate);
    }

    /**
     * The durable high watermark of Seglog's durable acks mode: the smallest durable offset among the leader and the
     * followers that hold the high watermark back (the same set as {@link #highWatermark}), never above the high
     * watermark. An acknowledgement that waits for it knows every replica that counted has the records on disk, so
     * a power loss of the whole ISR at once loses nothing acknowledged.
     *
     * @param highWatermark      the high watermark just computed
     * @param leaderDurableOffset the leader's flushed offset
     * @param leaderLogEndOffset the leader's log end offset
     * @param followers          every follower of the partition
     * @param maximalIsr         the committed ISR plus any member being added
     * @param eligibility        which brokers may join the ISR
     * @param nowMs              the leader's clock
     * @param maxLagMs           {@code replica.lag.time.max.ms}
     * @return the durable high watermark
     */
    public static long durableHighWatermark(final long highWatermark, final long leaderDurableOffset,
                                            final long leaderLogEndOffset,
                                            final Collection<FollowerProgress> followers,
                                            final Collection<Integer> maximalIsr, final Eligibility eligibility,
                                            final long nowMs, final long maxLagMs) {
        long durable = Math.min(highWatermark, leaderDurableOffset);
        for (final FollowerProgress f : followers) {
            if (maximalIsr.contains(f.brokerId())
                || f.isCaughtUp(leaderLogEndOffset, nowMs, maxLagMs) && eligibility.isEligible(f.brokerId())) {
                durable = Math.min(durable, f.durableOffset());
            }
        }
        return Math.max(durable, FollowerProgress.UNKNOWN_OFFSET);
    }

    /**
     * The ISR members that are out of sync (Kafka's {@code getOutOfSyncReplicas}): every member but the leader
     * that is not caught up.
     *
     * @param leaderId           the leader's broker id (never out of sync)
     * @param isr                the ISR
     * @param followers          the followers' progress; a member without one counts as out of sync
     * @param leaderLogEndOffset the leader's log end offset
     * @param nowMs              the leader's clock
     * @param maxLagMs           {@code replica.lag.time.max.ms}
     * @return the members to remove, in ISR order (empty when none)
     */
    public static List<Integer> outOfSync(final int leaderId, final List<Integer> isr,
                                          final Collection<FollowerProgress> followers, final long leaderLogEndOffset,
                                          final long nowMs, final long maxLagMs) {
        final List<Integer> out = new ArrayList<>();
        for (final int member : isr) {
            if (member == leaderId) {
                continue;
            }
            final FollowerProgress f = find(followers, member);
            if (f == null || !f.isCaughtUp(leaderLogEndOffset, nowMs, maxLagMs)) {
                out.add(member);
            }
        }
        return out;
    }

    /**
     * Whether a follower outside the ISR may join it (Kafka's {@code isFollowerInSync} with KAFKA-7128).
     *
     * @param follower               the follower's progress
     * @param highWatermark          the leader's high watermark
     * @param leaderEpochStartOffset the offset at which the leader's current epoch began (its log end when it became
     *                               leader)
     * @param eligible               whether the follower's broker may be in the ISR
     * @return whether it may join
     */
    public static boolean canJoinIsr(final FollowerProgress follower, final long highWatermark,
                                     final long leaderEpochStartOffset, final boolean eligible) {
        final long leo = follower.logEndOffset();
        return eligible && leo != FollowerProgress.UNKNOWN_OFFSET && leo >= highWatermark
            && leo >= leaderEpochStartOffset;
    }

    private static FollowerProgress find(final Collection<FollowerProgress> followers, final int brokerId) {
        for (final FollowerProgress f : followers) {
            if (f.brokerId() == brokerId) {
                return f;
            }
        }
        return null;
    }
}
