package io.seglog.replication.replica;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.policy.FollowerProgress;
import io.seglog.replication.policy.IsrRules;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's ISR and the leader's view of its followers: the ISR as last written (and its partition epoch), each
 * follower's progress from its fetches, the ISR change in flight, the flag that stops proposals after a write found a
 * newer leadership, and the decisions that read them: the high watermark (and the durable one), whether a follower
 * joins the ISR, which fall out of it. The ISR rules themselves are {@link IsrRules}' pure functions.
 *
 * <p>Owner of every field here, and their only writer; {@link Partition} is its only caller. Locking: the role's
 * lock is {@link Partition}'s and is always taken first. The ISR, the partition epoch and the followers' map are
 * replaced only from the role's changes and from an ISR write's outcome, which {@link Partition} calls under its
 * role write lock; everything else is called under its role read lock. The followers' progress, the ISR change in
 * flight, the stale flag and the durable high watermark are guarded besides by this tracker's own monitor, taken
 * inside the role lock and never around a call out of the partition (the ISR writer is called by {@link Partition}
 * after both are released). The log's own locks are taken inside it (the high watermark's update).
 */
final class IsrTracker {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    private final TopicPartition tp;
    private final int localBrokerId;
    private final PartitionLog log;
    private final Partition.Context ctx;
    /** The broker's eligibility rule, made once, so the high-watermark check after each append allocates none. */
    private final IsrRules.Eligibility eligible;
    /** Guards the followers' progress, the ISR change in flight and the HW decisions (inside the role lock). */
    private final Object progressLock = new Object();

    // Replaced under the role write lock.
    private volatile List<Integer> isr = List.of();
    private int partitionEpoch = -1;
    private Map<Integer, FollowerProgress> followers = Map.of();

    // Under progressLock.
    private List<Integer> pendingIsr;
    /** An ISR write found a newer leadership in the store: no more proposals until a LeaderAndIsr. */
    private boolean isrStale;
    private long durableHighWatermark = -1;

    IsrTracker(final TopicPartition tp, final int localBrokerId, final PartitionLog log, final Partition.Context ctx) {
        this.tp = tp;
        this.localBrokerId = localBrokerId;
        this.log = log;
        this.ctx = ctx;
        this.eligible = ctx::isEligible;
    }

    // ---------------------------------------------------------------------- the role's changes (write lock)

    /**
     * Takes a leader's ISR and starts tracking every follower afresh (a new leader) or keeps what it knew
     * (re-elected); forgets the change in flight, the stale flag and the durable high watermark.
     */
    void lead(final LeaderAndIsr lai, final List<Integer> assignment, final boolean newLeader) {
        isr = List.copyOf(lai.isr());
        partitionEpoch = lai.partitionEpoch();
        final long now = ctx.nowMs();
        final long leo = log.logEndOffset();
        final Map<Integer, FollowerProgress> next = new HashMap<>();
        for (final int replica : assignment) {
            if (replica == localBrokerId) {
                continue;
            }
            final FollowerProgress known = followers.get(replica);
            final FollowerProgress f = known != null ? known : new FollowerProgress(replica);
            if (newLeader || known == null) {
                f.resetForNewLeader(now, isr.contains(replica));
            } else {
                f.resetForReelectedLeader(now, leo, isr.contains(replica));
            }
            next.put(replica, f);
        }
        followers = next;
        synchronized (progressLock) {
            pendingIsr = null;
            isrStale = false;
            durableHighWatermark = -1;
        }
    }

    /** Takes a follower's ISR (as the LeaderAndIsr gave it) and forgets the followers and the change in flight. */
    void follow(final LeaderAndIsr lai) {
        isr = List.copyOf(lai.isr());
        partitionEpoch = lai.partitionEpoch();
        followers = Map.of();
        synchronized (progressLock) {
            pendingIsr = null;
            isrStale = false;
        }
    }

    /** StopReplica: forgets the followers and the change in flight. */
    void stop() {
        followers = Map.of();
        synchronized (progressLock) {
            pendingIsr = null;
        }
    }

    /**
     * Applies an ISR write's outcome in the leadership that proposed it (the caller checked that it still holds):
     * the ISR written, the store's version of the same leadership adopted, or proposals stopped until the controller
     * speaks.
     *
     * @return the ISR before the change when the proposal was written, else null
     */
    List<Integer> onIsrWritten(final IsrWriter.Proposal proposal, final IsrWriter.Result result,
                               final Throwable failure, final int leaderEpoch) {
        synchronized (progressLock) {
            if (pendingIsr != null && pendingIsr.equals(proposal.isr())) {
                pendingIsr = null;
            }
            if (failure != null) {
                LOG.warn("{} ISR change to {} not written (proposed again later): {}", tp, proposal.isr(),
                    failure.toString());
                return null;
            }
            if (result instanceof IsrWriter.Written written) {
                final List<Integer> before = isr;
                isr = proposal.isr();
                partitionEpoch = written.partitionEpoch();
                return before;
            }
            final LeaderAndIsr current = ((IsrWriter.Conflict) result).current();
            if (current != null && current.leader() == localBrokerId && current.leaderEpoch() == leaderEpoch) {
                // The same leadership at another version: our earlier write whose answer was lost, or a change that
                // kept the epoch. Adopt it and decide again from it (KAFKA-2729 left Kafka's leaders stuck on a stale
                // version until the next LeaderAndIsr).
                LOG.info("{} ISR write found version {} (expected {}): adopting ISR {}", tp, current.partitionEpoch(),
                    proposal.partitionEpoch(), current.isr());
                isr = List.copyOf(current.isr());
                partitionEpoch = current.partitionEpoch();
            } else {
                LOG.info("{} ISR write found a newer leadership {}: waiting for the controller", tp, current);
                isrStale = true;
            }
            return null;
        }
    }

    // ----------------------------------------------------------------------------- as leader (read lock)

    /**
     * The ISR this broker holds (as leader: the one written to the store).
     *
     * @return the ISR
     */
    List<Integer> isr() {
        return isr;
    }

    /**
     * A follower's progress, the handle {@link #onFollowerFetch} takes back; read without the monitor only as a hint.
     *
     * @return the progress, or null when the replica is not a follower of this leadership
     */
    FollowerProgress follower(final int brokerId) {
        return followers.get(brokerId);
    }

    long followerLogEndOffset(final int brokerId) {
        final FollowerProgress f = followers.get(brokerId);
        synchronized (progressLock) {
            return f == null ? -1 : f.logEndOffset();
        }
    }

    /**
     * Records a follower's fetch and decides whether it joins the ISR (Kafka's {@code maybeExpandIsr}: one change in
     * flight at a time).
     *
     * @param epochStartOffset the offset the follower must reach to join, -1 for none (the fix it belongs to is off)
     * @return the expansion to write, or null
     */
    IsrWriter.Proposal onFollowerFetch(final FollowerProgress follower, final long fetchOffset,
                                       final long followerLogStart, final long followerDurable,
                                       final long leaderLogEndOffset, final long brokerEpoch,
                                       final long epochStartOffset, final int leaderEpoch, final int controllerEpoch) {
        synchronized (progressLock) {
            follower.onFetch(fetchOffset, followerLogStart, followerDurable, leaderLogEndOffset, ctx.nowMs(),
                brokerEpoch);
            if (pendingIsr != null || isrStale || isr.contains(follower.brokerId())) {
                return null;
            }
            if (!IsrRules.canJoinIsr(follower, log.highWatermark(), epochStartOffset,
                ctx.isEligible(follower.brokerId()))) {
                return null;
            }
            final List<Integer> expanded = new ArrayList<>(isr);
            expanded.add(follower.brokerId());
            return propose(expanded, leaderEpoch, controllerEpoch);
        }
    }

    /**
     * The followers that fell behind taken out of the ISR (Kafka's {@code maybeShrinkIsr}), unless a change is in
     * flight or proposals are stopped.
     *
     * @return the shrink to write, or null
     */
    IsrWriter.Proposal maybeShrink(final int leaderEpoch, final int controllerEpoch) {
        synchronized (progressLock) {
            if (pendingIsr != null || isrStale) {
                return null;
            }
            final List<Integer> out = IsrRules.outOfSync(localBrokerId, isr, followers.values(), log.logEndOffset(),
                ctx.nowMs(), ctx.replicaLagTimeMaxMs());
            if (out.isEmpty()) {
                return null;
            }
            final List<Integer> shrunk = new ArrayList<>(isr);
            shrunk.removeAll(out);
            return propose(shrunk, leaderEpoch, controllerEpoch);
        }
    }

    /**
     * Records a proposal in flight; under the progress lock. A leader elected uncleanly has nothing to recover (no
     * transaction or producer state yet), so its ISR writes mark the partition RECOVERED (KIP-704).
     */
    private IsrWriter.Proposal propose(final List<Integer> newIsr, final int leaderEpoch, final int controllerEpoch) {
        pendingIsr = List.copyOf(newIsr);
        return new IsrWriter.Proposal(localBrokerId, leaderEpoch, pendingIsr, partitionEpoch, controllerEpoch, false);
    }

    /**
     * Moves the high watermark as far as the rule allows (Kafka's {@code maybeIncrementLeaderHW}), and the durable
     * one with durable acks. Allocates nothing beyond the rule's iteration of the followers.
     *
     * @param minIsr the effective {@code min.insync.replicas}
     * @return whether either moved
     */
    boolean maybeIncrementHighWatermark(final int minIsr) {
        synchronized (progressLock) {
            final long leo = log.logEndOffset();
            final long hw = log.highWatermark();
            final List<Integer> maximal = maximalIsr();
            final long now = ctx.nowMs();
            final long next = IsrRules.highWatermark(hw, leo, followers.values(), isr.size(), maximal, minIsr,
                eligible, now, ctx.replicaLagTimeMaxMs());
            boolean moved = false;
            if (next > hw) {
                log.updateHighWatermark(next);
                moved = true;
            }
            if (ctx.durableAcks()) {
                final long durable = IsrRules.durableHighWatermark(log.highWatermark(), log.flushedOffset(), leo,
                    followers.values(), maximal, eligible, now, ctx.replicaLagTimeMaxMs());
                if (durable > durableHighWatermark) {
                    durableHighWatermark = durable;
                    moved = true;
                }
            }
            return moved;
        }
    }

    /** The committed ISR plus the members being added (Kafka's maximal ISR); under the progress lock. */
    private List<Integer> maximalIsr() {
        if (pendingIsr == null) {
            return isr;
        }
        final Set<Integer> union = new LinkedHashSet<>(isr);
        union.addAll(pendingIsr);
        return List.copyOf(union);
    }

    /**
     * The offset acks=all produces are acknowledged below: the high watermark, or with durable acks the lower of it
     * and the durable high watermark.
     */
    long committedOffset() {
        synchronized (progressLock) {
            return ctx.durableAcks() ? Math.min(durableHighWatermark, log.highWatermark()) : log.highWatermark();
        }
    }

    /**
     * Whether an in-sync follower short of {@code target} has fetched since {@code activeSinceMs} (acks=1 flow
     * control waits for it; a stopped or paused follower is not waited for).
     */
    boolean awaitsActiveFollower(final long target, final long activeSinceMs) {
        synchronized (progressLock) {
            for (final int id : isr) {
                final FollowerProgress f = followers.get(id);
                if (f != null && f.logEndOffset() < target && f.lastFetchTimeMs() >= activeSinceMs) {
                    return true;
                }
            }
            return false;
        }
    }

    long durableHighWatermark() {
        synchronized (progressLock) {
            return durableHighWatermark;
        }
    }
}
