package io.seglog.replication.replica;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a leader records a new ISR where the controller and the other brokers see it: in ZooKeeper mode, a
 * conditional write of the partition's state znode at the partition epoch the leader holds, plus an ISR change
 * notification for the controller (Kafka &le; 2.6). The leader acts on the new ISR only once it is written.
 */
@FunctionalInterface
public interface IsrWriter {
    /**
     * A new ISR for the partition, to be written only if the partition's state is still at {@code partitionEpoch}.
     *
     * @param leader          the leader (this broker)
     * @param leaderEpoch     its epoch (unchanged: an ISR change is not an election)
     * @param isr             the new ISR
     * @param partitionEpoch  the state's version the leader holds
     * @param controllerEpoch the epoch of the controller that made the leadership decision (kept in the znode)
     * @param leaderRecovering whether the written state carries {@code leader_recovery_state} RECOVERING (false
     *                         once the leader has recovered the partition)
     */
    record Proposal(int leader, int leaderEpoch, List<Integer> isr, int partitionEpoch, int controllerEpoch,
                    boolean leaderRecovering) {
        /**
         * Copies the ISR.
         *
         * @param leader           the leader
         * @param leaderEpoch      its epoch
         * @param isr              the new ISR
         * @param partitionEpoch   the expected version
         * @param controllerEpoch  the deciding controller's epoch
         * @param leaderRecovering whether RECOVERING
         */
        public Proposal {
            isr = List.copyOf(isr);
        }
    }

    /** The outcome of a write. */
    sealed interface Result permits Written, Conflict {
    }

    /**
     * Written.
     *
     * @param partitionEpoch the state's new version
     */
    record Written(int partitionEpoch) implements Result {
    }

    /**
     * The state was not at the expected version: someone else wrote it (the controller, or an earlier attempt of
     * this leader whose answer was lost). The leader decides again from what is there now.
     *
     * @param current the state now, with its version as partition epoch; null when the state znode is gone
     */
    record Conflict(LeaderAndIsr current) implements Result {
    }

    /**
     * Writes the proposal.
     *
     * @param tp       the partition
     * @param proposal the new state
     * @return completes with the outcome, or exceptionally when the store could not be reached (the leader keeps its
     *     ISR and proposes again later)
     */
    CompletableFuture<Result> write(TopicPartition tp, Proposal proposal);
}
