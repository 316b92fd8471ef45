package io.seglog.replication.broker;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.replica.IsrWriter;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.storage.TopicPartition;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Leaders' ISR changes in ZooKeeper (Kafka &le; 2.6's ZooKeeper path): a conditional write of the partition's state
 * znode at the version the leader holds, keeping leader, leader epoch and the deciding controller's epoch, then an
 * {@code /isr_change_notification} for the controller. A version conflict is answered with what the znode holds now,
 * read again, so the leader decides again instead of staying on a stale version (KAFKA-2729).
 *
 * <p>Writes run on the broker's executor, in order; callers never wait on ZooKeeper.
 */
final class ZkIsrWriter implements IsrWriter {
    private final Supplier<KafkaZkStore> store;
    private final Executor executor;

    /**
     * A writer whose writes run on an executor of the broker's (one thread, or a simulation's scheduler, where each
     * write is an event), one at a time and in order; the broker owns and shuts down the executor.
     *
     * @param store    the broker's ZooKeeper store (read at each write)
     * @param executor runs the writes, never inline
     */
    ZkIsrWriter(final Supplier<KafkaZkStore> store, final Executor executor) {
        this.store = store;
        this.executor = executor;
    }

    @Override
    public CompletableFuture<Result> write(final TopicPartition tp, final Proposal proposal) {
        try {
            return CompletableFuture.supplyAsync(() -> writeNow(tp, proposal), executor);
        } catch (final RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Result writeNow(final TopicPartition tp, final Proposal proposal) {
        final KafkaZkStore zk = store.get();
        final PartitionStateZnode current = new PartitionStateZnode(new LeaderAndIsr(proposal.leader(),
            proposal.leaderEpoch(), proposal.isr(), proposal.partitionEpoch()), proposal.controllerEpoch(),
            proposal.leaderRecovering());
        try {
            final PartitionStateZnode written = zk.updateIsrAsLeader(tp, current, proposal.isr());
            return new Written(written.leaderAndIsr().partitionEpoch());
        } catch (final ZkException e) {
            if (e.error() != ZkError.BAD_VERSION && e.error() != ZkError.NO_NODE) {
                throw e;
            }
            final Optional<PartitionStateZnode> now = zk.partitionStates(Set.of(tp)).getOrDefault(tp, Optional.empty());
            return new Conflict(now.map(PartitionStateZnode::leaderAndIsr).orElse(null));
        }
    }
}
