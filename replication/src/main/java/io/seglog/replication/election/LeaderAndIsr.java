package io.seglog.replication.election;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A partition's leader, leader epoch, in-sync replica set and partition epoch, as Kafka keeps them in the
 * partition's state znode.
 *
 * <ul>
 *   <li>The <b>leader epoch</b> rises by one on every leader election, even when the same broker stays leader
 *       (reassignment, controlled shutdown); an ISR-only change keeps it.</li>
 *   <li>The <b>partition epoch</b> is the state znode's version ({@code Stat.version}): it changes on every
 *       write, and it is the compare-and-set token of every write. It is not stored in the JSON.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param leader         the leader's broker id, {@link #NO_LEADER} or {@link #LEADER_DURING_DELETE}
 * @param leaderEpoch    the leader epoch, zero or more
 * @param isr            the in-sync replicas: distinct, non-negative broker ids (copied, immutable)
 * @param partitionEpoch the state znode's version, zero or more
 */
public record LeaderAndIsr(int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch) {
    /** The leader id of a partition without a leader. */
    public static final int NO_LEADER = -1;
    /** The leader id Kafka writes while a topic is being deleted. */
    public static final int LEADER_DURING_DELETE = -2;
    /** The leader epoch of a new partition. */
    public static final int INITIAL_LEADER_EPOCH = 0;
    /** The version of a freshly created state znode. */
    public static final int INITIAL_PARTITION_EPOCH = 0;

    /**
     * Validates and copies.
     *
     * @param leader         the leader's broker id, {@link #NO_LEADER} or {@link #LEADER_DURING_DELETE}
     * @param leaderEpoch    the leader epoch
     * @param isr            the in-sync replicas
     * @param partitionEpoch the state znode's version
     * @throws IllegalArgumentException naming the field and value when any is out of range, or the ISR holds a
     *                                  negative or repeated id
     */
    public LeaderAndIsr {
        if (leader < LEADER_DURING_DELETE) {
            throw new IllegalArgumentException("leader=" + leader + " must be >= " + LEADER_DURING_DELETE);
        }
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        if (partitionEpoch < 0) {
            throw new IllegalArgumentException("partitionEpoch=" + partitionEpoch + " must be >= 0");
        }
        isr = validIds("isr", isr);
    }

    /**
     * The state of a new partition: leader epoch 0, partition epoch 0 (the version the state znode's create gives).
     *
     * @param leader the first leader
     * @param isr    the first ISR
     * @return the state
     */
    public static LeaderAndIsr initial(final int leader, final List<Integer> isr) {
        return new LeaderAndIsr(leader, INITIAL_LEADER_EPOCH, isr, INITIAL_PARTITION_EPOCH);
    }

    /**
     * The state after an election: the given leader and ISR, the leader epoch one higher, the partition epoch
     * unchanged (the caller replaces it with the version its conditional write returns).
     *
     * @param newLeader the elected leader, or {@link #NO_LEADER}
     * @param newIsr    the ISR after the election
     * @return the new state
     * @throws IllegalStateException when the leader epoch cannot be raised any further
     */
    public LeaderAndIsr newLeader(final int newLeader, final List<Integer> newIsr) {
        if (leaderEpoch == Integer.MAX_VALUE) {
            throw new IllegalStateException("leaderEpoch=" + leaderEpoch + " cannot be incremented");
        }
        return new LeaderAndIsr(newLeader, leaderEpoch + 1, newIsr, partitionEpoch);
    }

    /**
     * The state after an ISR-only change (a replica leaving or joining the ISR): leader and leader epoch kept.
     *
     * @param newIsr the new ISR
     * @return the new state
     */
    public LeaderAndIsr newIsr(final List<Integer> newIsr) {
        return new LeaderAndIsr(leader, leaderEpoch, newIsr, partitionEpoch);
    }

    /**
     * The same state at another znode version, after a successful conditional write.
     *
     * @param newPartitionEpoch the version returned by the write
     * @return the new state
     */
    public LeaderAndIsr withPartitionEpoch(final int newPartitionEpoch) {
        return new LeaderAndIsr(leader, leaderEpoch, isr, newPartitionEpoch);
    }

    /**
     * Whether the partition has a leader.
     *
     * @return {@code true} when {@link #leader()} is a broker id
     */
    public boolean hasLeader() {
        return leader >= 0;
    }

    static List<Integer> validIds(final String field, final List<Integer> ids) {
        if (ids == null) {
            throw new IllegalArgumentException(field + "=null");
        }
        final Set<Integer> seen = new HashSet<>();
        for (final Integer id : ids) {
            if (id == null || id < 0) {
                throw new IllegalArgumentException(field + "=" + ids + " holds an invalid broker id=" + id);
            }
            if (!seen.add(id)) {
                throw new IllegalArgumentException(field + "=" + ids + " holds broker id=" + id + " twice");
            }
        }
        return List.copyOf(ids);
    }
}
