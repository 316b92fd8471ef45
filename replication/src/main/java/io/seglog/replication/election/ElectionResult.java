package io.seglog.replication.election;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of one leader election: the new leader and ISR, or no leader (the partition keeps its state).
 *
 * <p>Immutable and thread-safe.
 *
 * @param leader  the elected leader, or {@link LeaderAndIsr#NO_LEADER} when the election failed
 * @param isr     the ISR to write with the new leader; when the election failed, the unchanged ISR
 * @param unclean whether the leader was not in the ISR (an unclean election: committed records may be lost;
 *                Kafka marks the partition {@code RECOVERING}, KIP-704, and counts it in a metric)
 */
public record ElectionResult(int leader, List<Integer> isr, boolean unclean) {
    /**
     * Validates and copies.
     *
     * @param leader  the leader or {@link LeaderAndIsr#NO_LEADER}
     * @param isr     the ISR
     * @param unclean whether the election was unclean
     * @throws IllegalArgumentException when a leader is not in its own ISR, or a failed election claims to be
     *                                  unclean
     */
    public ElectionResult {
        isr = LeaderAndIsr.validIds("isr", isr);
        if (leader < LeaderAndIsr.NO_LEADER) {
            throw new IllegalArgumentException("leader=" + leader + " must be a broker id or " + LeaderAndIsr.NO_LEADER);
        }
        if (leader >= 0 && !isr.contains(leader)) {
            throw new IllegalArgumentException("leader=" + leader + " is not in isr=" + isr);
        }
        if (leader < 0 && unclean) {
            throw new IllegalArgumentException("unclean=true without a leader");
        }
    }

    /**
     * A failed election: no leader could be chosen, and the partition's state stays as it is.
     *
     * @param isr the unchanged ISR
     * @return the result
     */
    public static ElectionResult none(final List<Integer> isr) {
        return new ElectionResult(LeaderAndIsr.NO_LEADER, isr, false);
    }

    /**
     * Whether a leader was elected.
     *
     * @return {@code true} when {@link #leader()} is a broker id
     */
    public boolean hasLeader() {
        return leader >= 0;
    }

    /**
     * The state to write for this result: the current state with the new leader and ISR and the leader epoch one
     * higher (the partition epoch is the caller's to replace after its conditional write).
     *
     * @param current the partition's current state, as read from its state znode
     * @return the new state, or empty when the election failed (nothing is written)
     */
    public Optional<LeaderAndIsr> applyTo(final LeaderAndIsr current) {
        return hasLeader() ? Optional.of(current.newLeader(leader, isr)) : Optional.empty();
    }
}
