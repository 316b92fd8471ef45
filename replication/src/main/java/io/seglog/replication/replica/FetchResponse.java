package io.seglog.replication.replica;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A follower's fetch answer: the partitions' answers, whose record buffers may be views into the connection's receive
 * buffer (decoded in place, not copied). They are valid until {@link #close()}, which gives that buffer back; the
 * fetcher closes every response it receives once it has appended the batches, and one whose wait was abandoned as
 * soon as it arrives.
 *
 * <p>Thread-safe; closing is idempotent.
 */
public final class FetchResponse implements AutoCloseable {
    private static final Runnable NOTHING = () -> { };

    private final List<FetchedPartition> partitions;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * A response whose buffers are given back by {@code release}.
     *
     * @param partitions the partitions' answers (in any order)
     * @param release    gives the buffers back; run once, at the first close
     */
    public FetchResponse(final List<FetchedPartition> partitions, final Runnable release) {
        this.partitions = List.copyOf(partitions);
        this.release = release;
    }

    /**
     * A response whose buffers the follower may keep (nothing to give back: an in-memory endpoint's answer).
     *
     * @param partitions the partitions' answers
     * @return the response
     */
    public static FetchResponse of(final List<FetchedPartition> partitions) {
        return new FetchResponse(partitions, NOTHING);
    }

    /**
     * The partitions' answers; their record buffers must not be read after {@link #close()}.
     *
     * @return the answers, unmodifiable
     */
    public List<FetchedPartition> partitions() {
        return partitions;
    }

    /**
     * Whether the buffers were given back.
     *
     * @return true after the first close
     */
    public boolean closed() {
        return closed.get();
    }

    /** Gives the buffers back. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release.run();
        }
    }
}
