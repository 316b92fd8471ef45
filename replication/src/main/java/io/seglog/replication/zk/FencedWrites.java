package io.seglog.replication.zk;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fence on every controller write (KAFKA-6082): each write runs as one {@code multi} behind
 * {@code check(/controller_epoch, epochZkVersion)}, so a controller whose term has ended changes nothing
 * ({@link ControllerMovedException}); and the waits for ZooKeeper's answers, bounded by the request timeout. It owns
 * whether the check is on (off only in the simulation's proof that it finds what the check prevents), which nothing
 * changes after construction. Used by {@link KafkaZkStore}'s znode families and {@link AdminZkStore} through the
 * store's {@code fencedMulti}.
 *
 * <p>Thread-safe (immutable apart from the client).
 */
final class FencedWrites {
    private final ZkConnection zk;
    /** KAFKA-6082: every controller write checks the controller epoch's version. Off only in a simulation's proof. */
    private final boolean fenced;

    FencedWrites(final ZkConnection zk, final boolean fenced) {
        this.zk = zk;
        this.fenced = fenced;
    }

    List<ZkStat> fencedMulti(final int epochZkVersion, final List<ZkOp> ops) {
        return awaitFenced(fencedMultiAsync(epochZkVersion, ops), ops.isEmpty() ? "multi" : ops.get(0).path());
    }

    CompletableFuture<List<ZkStat>> fencedMultiAsync(final int epochZkVersion, final List<ZkOp> ops) {
        final List<ZkOp> all = new ArrayList<>(ops.size() + 1);
        all.add(fenced ? new ZkOp.Check(ZkPaths.CONTROLLER_EPOCH, epochZkVersion)
            : new ZkOp.Check(ZkPaths.CONTROLLER_EPOCH, -1));
        all.addAll(ops);
        return zk.multiAsync(all).handle((stats, failure) -> {
            if (failure == null) {
                return stats.subList(1, stats.size());
            }
            final Throwable cause = failure instanceof java.util.concurrent.CompletionException ? failure.getCause()
                : failure;
            if (cause instanceof ZkException z && z.path().equals(ZkPaths.CONTROLLER_EPOCH)
                && (z.error() == ZkError.BAD_VERSION || z.error() == ZkError.NO_NODE)) {
                throw new ControllerMovedException(epochZkVersion, "writing " + ops.stream().map(ZkOp::path).toList());
            }
            throw cause instanceof RuntimeException r ? r : new ZkException(ZkError.OTHER, "multi", cause);
        });
    }

    long deadlineNs() {
        return ZkCalls.deadlineNs(zk.requestTimeoutMs());
    }

    <T> T awaitBy(final CompletableFuture<T> f, final String what, final long deadlineNs) {
        return ZkCalls.awaitBy(f, what, deadlineNs, zk.requestTimeoutMs());
    }

    <T> T awaitFenced(final CompletableFuture<T> f, final String what) {
        return awaitFenced(f, what, deadlineNs());
    }

    <T> T awaitFenced(final CompletableFuture<T> f, final String what, final long deadlineNs) {
        try {
            return awaitBy(f, what, deadlineNs);
        } catch (final ZkException e) {
            if (e.getCause() instanceof ControllerMovedException moved) {
                throw moved;
            }
            throw e;
        }
    }
}
