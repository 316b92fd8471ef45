package io.seglog.replication.election;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kafka's leader election rules ({@code PartitionLeaderElectionAlgorithms} and {@code Election} in Kafka 3.9's
 * ZooKeeper-mode controller), as pure functions over broker ids.
 *
 * <p>Every rule scans replicas in <b>assignment order</b> (the first replica is the preferred leader), and every
 * successful election is written with the leader epoch one higher ({@link ElectionResult#applyTo}). The rules:
 * <ul>
 *   <li>{@link #newPartition}: first live replica; the ISR is every live replica.</li>
 *   <li>{@link #offline}: first live replica that is in the ISR; the ISR keeps only live members. If no ISR member
 *       is live and unclean election is enabled: first live replica, ISR {@code [leader]}, recorded as unclean.</li>
 *   <li>{@link #reassignment}: first replica of the <em>target</em> list that is live and in the ISR; ISR unchanged.</li>
 *   <li>{@link #preferred}: the head of the assignment if it is live and in the ISR, else nothing (no fallback);
 *       ISR unchanged.</li>
 *   <li>{@link #controlledShutdown}: first live ISR member that is not shutting down; shutting-down brokers leave
 *       the ISR.</li>
 *   <li>{@link #removeFromIsr}: a replica going offline leaves the ISR, but the ISR is never emptied: its last
 *       member stays ("last replica standing", the ZooKeeper-mode behaviour behind KIP-966).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class LeaderElection {
    private LeaderElection() {
    }

    /**
     * The first leader and ISR of a new partition (Kafka's {@code initializeLeaderAndIsrForPartitions}).
     *
     * @param assignment the replicas in assignment order
     * @param live       the live brokers
     * @return the first live replica with every live replica as ISR, or no leader when none is live
     * @throws IllegalArgumentException when a list holds a negative or repeated id
     */
    public static ElectionResult newPartition(final List<Integer> assignment, final Set<Integer> live) {
        final List<Integer> liveReplicas = new ArrayList<>();
        for (final int replica : ids("assignment", assignment)) {
            if (live.contains(replica)) {
                liveReplicas.add(replica);
            }
        }
        return liveReplicas.isEmpty() ? ElectionResult.none(List.of())
            : new ElectionResult(liveReplicas.get(0), liveReplicas, false);
    }

    /**
     * Election for a partition whose leader is gone (or that has none).
     *
     * @param assignment     the replicas in assignment order
     * @param isr            the current ISR
     * @param live           the live brokers
     * @param uncleanEnabled whether a replica outside the ISR may lead ({@code unclean.leader.election.enable})
     * @return the first live ISR member with the ISR filtered to live members; else, when unclean election is
     *         enabled, the first live replica with ISR {@code [leader]} marked unclean; else no leader
     * @throws IllegalArgumentException when a list holds a negative or repeated id
     */
    public static ElectionResult offline(final List<Integer> assignment, final List<Integer> isr,
        final Set<Integer> live, final boolean uncleanEnabled) {
        final List<Integer> replicas = ids("assignment", assignment);
        final List<Integer> inSync = ids("isr", isr);
        final Optional<Integer> clean = firstMatching(replicas, r -> live.contains(r) && inSync.contains(r));
        if (clean.isPresent()) {
            return new ElectionResult(clean.get(), inSync.stream().filter(live::contains).toList(), false);
        }
        if (uncleanEnabled) {
            final Optional<Integer> any = firstMatching(replicas, live::contains);
            if (any.isPresent()) {
                return new ElectionResult(any.get(), List.of(any.get()), true);
            }
        }
        return ElectionResult.none(inSync);
    }

    /**
     * Election during a reassignment: the leader must come from the target replicas.
     *
     * @param targetReplicas the reassignment's target replicas, in order
     * @param isr            the current ISR
     * @param live           the live brokers
     * @return the first target replica that is live and in the ISR, ISR unchanged; else no leader
     * @throws IllegalArgumentException when a list holds a negative or repeated id
     */
    public static ElectionResult reassignment(final List<Integer> targetReplicas, final List<Integer> isr,
        final Set<Integer> live) {
        final List<Integer> inSync = ids("isr", isr);
        return firstMatching(ids("targetReplicas", targetReplicas), r -> live.contains(r) && inSync.contains(r))
            .map(leader -> new ElectionResult(leader, inSync, false))
            .orElseGet(() -> ElectionResult.none(inSync));
    }

    /**
     * Preferred replica election: only the head of the assignment may be chosen.
     *
     * @param assignment the replicas in assignment order
     * @param isr        the current ISR
     * @param live       the live brokers
     * @return the head, ISR unchanged, when it is live and in the ISR; else no leader (never another replica)
     * @throws IllegalArgumentException when a list holds a negative or repeated id
     */
    public static ElectionResult preferred(final List<Integer> assignment, final List<Integer> isr,
        final Set<Integer> live) {
        final List<Integer> replicas = ids("assignment", assignment);
        final List<Integer> inSync = ids("isr", isr);
        if (!replicas.isEmpty() && live.contains(replicas.get(0)) && inSync.contains(replicas.get(0))) {
            return new ElectionResult(replicas.get(0), inSync, false);
        }
        return ElectionResult.none(inSync);
    }

    /**
     * Election when brokers shut down in a controlled way: leadership moves to a replica that stays.
     *
     * @param assignment   the replicas in assignment order
     * @param isr          the current ISR
     * @param live         the live brokers (shutting-down brokers are alive until they stop, but never chosen)
     * @param shuttingDown the brokers shutting down
     * @return the first live ISR member not shutting down, with the shutting-down brokers removed from the ISR;
     *         else no leader (ISR unchanged)
     * @throws IllegalArgumentException when a list holds a negative or repeated id
     */
    public static ElectionResult controlledShutdown(final List<Integer> assignment, final List<Integer> isr,
        final Set<Integer> live, final Set<Integer> shuttingDown) {
        final List<Integer> inSync = ids("isr", isr);
        return firstMatching(ids("assignment", assignment),
                r -> live.contains(r) && inSync.contains(r) && !shuttingDown.contains(r))
            .map(leader -> new ElectionResult(leader,
                inSync.stream().filter(r -> !shuttingDown.contains(r)).toList(), false))
            .orElseGet(() -> ElectionResult.none(inSync));
    }

    /**
     * The state after a replica goes offline (Kafka's {@code ReplicaStateMachine} moving it to OfflineReplica):
     * it leaves the ISR unless it is the last member, and if it led, the partition has no leader. Kafka writes
     * this with {@code newLeaderAndIsr}, so the leader epoch rises by one.
     *
     * @param current   the partition's state
     * @param replicaId the replica going offline
     * @return the new state, or empty when the replica is not in the ISR (nothing to write)
     */
    public static Optional<LeaderAndIsr> removeFromIsr(final LeaderAndIsr current, final int replicaId) {
        if (!current.isr().contains(replicaId)) {
            return Optional.empty();
        }
        final int leader = current.leader() == replicaId ? LeaderAndIsr.NO_LEADER : current.leader();
        // Never empty the ISR: the last member keeps the record of who had the committed data (KIP-966).
        final List<Integer> isr = current.isr().size() == 1 ? current.isr()
            : current.isr().stream().filter(r -> r != replicaId).toList();
        return Optional.of(current.newLeader(leader, isr));
    }

    private static List<Integer> ids(final String field, final List<Integer> ids) {
        return LeaderAndIsr.validIds(field, ids);
    }

    private static Optional<Integer> firstMatching(final List<Integer> replicas,
        final java.util.function.IntPredicate test) {
        for (final int r : replicas) {
            if (test.test(r)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
