package io.seglog.replication.zk;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a {@link ZkConnection}'s futures up to a deadline, shared by the client and the stores (a batch of
 * pipelined calls shares one deadline). Against a connection whose futures are complete on return (the
 * simulation's), a wait returns at once.
 */
final class ZkCalls {
    private ZkCalls() {
    }

    /**
     * The deadline of a call (or of a batch of pipelined calls) starting now.
     *
     * @param requestTimeoutMs the connection's request timeout
     * @return {@link System#nanoTime()} plus the request timeout
     */
    static long deadlineNs(final long requestTimeoutMs) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
    }

    /**
     * Waits for a future up to an absolute deadline.
     *
     * @param future           the pending call
     * @param what             the path or a description, for the error
     * @param deadlineNs       the {@link System#nanoTime()} deadline
     * @param requestTimeoutMs the request timeout, for the error text
     * @param <T>              the result type
     * @return the result
     * @throws ZkException the call's failure, or {@link ZkError#TIMEOUT}
     */
    static <T> T awaitBy(final CompletableFuture<T> future, final String what, final long deadlineNs,
                         final long requestTimeoutMs) {
        try {
            return future.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (final TimeoutException e) {
            future.cancel(false);
            throw new ZkException(ZkError.TIMEOUT, what, new TimeoutException("no answer within "
                + requestTimeoutMs + " ms"));
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof ZkException z) {
                throw new ZkException(z.error(), z.path(), z.getCause());
            }
            throw new ZkException(ZkError.OTHER, what, e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException(ZkError.OTHER, what, e);
        }
    }
}
