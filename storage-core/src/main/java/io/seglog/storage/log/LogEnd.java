package io.seglog.storage.log;

import io.seglog.storage.segment.LogSegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The published end of a partition log, the triple (log end offset, active segment, position in it), under a
 * sequence lock: the writer makes the sequence odd, writes the triple and makes it even again; a reader takes a
 * snapshot of the sequence, the triple and the sequence again, and retries while they differ or the sequence is
 * odd. Readers never look past the triple, so they see no partial batch and no byte past the end.
 *
 * <p>Memory protocol: the writer's stores are release stores, not volatile ones (on x86 a volatile store is a full
 * fence, five per append here; a release store is a plain store). Each release store orders every earlier store
 * before it, so the odd sequence is visible before any field of the new triple, and the fields before the even
 * sequence; readers load the sequence, the fields and the sequence again with volatile (acquire) loads, so a field
 * of a newer triple makes the second sequence load see that triple's odd (or a later) value, and the reader
 * retries. {@code LogEndStressTest} fails when the first release store is dropped.
 *
 * <p>Truncation count: raised before a truncation shrinks any file and again after the new end is published, so a
 * reader whose read ran into a shrink can tell (the count it read first has changed) and read again from a fresh
 * snapshot, instead of reporting an I/O error.
 *
 * <p>Threads: {@link #publish} and the truncation methods from the log's writer only; the reads from any thread.
 */
public final class LogEnd {
    private static final VarHandle SEQ;
    private static final VarHandle OFFSET;
    private static final VarHandle SEGMENT;
    private static final VarHandle POSITION;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            SEQ = lookup.findVarHandle(LogEnd.class, "seq", int.class);
            OFFSET = lookup.findVarHandle(LogEnd.class, "offset", long.class);
            SEGMENT = lookup.findVarHandle(LogEnd.class, "segment", LogSegment.class);
            POSITION = lookup.findVarHandle(LogEnd.class, "position", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int seq;
    private volatile long offset;
    private volatile LogSegment segment;
    private volatile int position;
    private volatile int truncations;

    /**
     * Starts at the end an open found.
     *
     * @param offset   the log end offset
     * @param segment  the active segment
     * @param position its size
     */
    public LogEnd(final long offset, final LogSegment segment, final int position) {
        this.offset = offset;
        this.segment = segment;
        this.position = position;
    }

    /**
     * Publishes a new end. Writer only.
     *
     * @param endOffset   the new log end offset
     * @param endSegment  the segment it lies in
     * @param endPosition the byte position of the end in that segment
     */
    public void publish(final long endOffset, final LogSegment endSegment, final int endPosition) {
        final int s = seq;
        SEQ.setRelease(this, s + 1);
        OFFSET.setRelease(this, endOffset);
        SEGMENT.setRelease(this, endSegment);
        POSITION.setRelease(this, endPosition);
        SEQ.setRelease(this, s + 2);
    }

    /**
     * Marks the start of a truncation, before anything is published or shrunk. Writer only.
     */
    public void beginTruncation() {
        truncations++;
    }

    /**
     * Publishes the end a truncation leaves and raises the truncation count again: a reader that read the first
     * count may still have taken the old end, and this second change tells it to retry when it runs into the
     * shrink. Writer only.
     *
     * @param endOffset   the new log end offset
     * @param endSegment  the segment it lies in
     * @param endPosition the byte position of the end in that segment
     */
    public void publishTruncated(final long endOffset, final LogSegment endSegment, final int endPosition) {
        publish(endOffset, endSegment, endPosition);
        truncations++;
    }

    /**
     * The log end offset as last published.
     *
     * @return the offset
     */
    public long offset() {
        return offset;
    }

    /**
     * The truncation count, to compare before and after a read.
     *
     * @return the count
     */
    public int truncations() {
        return truncations;
    }

    /**
     * Takes a consistent snapshot of the published end; spins only while the writer is publishing.
     *
     * @param into the reader's snapshot, overwritten
     * @return {@code into}
     */
    public Snapshot snapshot(final Snapshot into) {
        int s;
        do {
            s = seq;
            if ((s & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            into.offset = offset;
            into.segment = segment;
            into.position = position;
        } while ((s & 1) != 0 || s != seq);
        return into;
    }

    /** A reader's snapshot of the end; one per reader, so taking one allocates nothing. Not thread-safe. */
    public static final class Snapshot {
        private long offset;
        private LogSegment segment;
        private int position;

        /** Creates an empty snapshot, filled by {@link LogEnd#snapshot}. */
        public Snapshot() {
        }

        /**
         * The log end offset.
         *
         * @return the offset
         */
        public long offset() {
            return offset;
        }

        /**
         * The segment the end lies in.
         *
         * @return the segment
         */
        public LogSegment segment() {
            return segment;
        }

        /**
         * The byte position of the end in {@link #segment()}.
         *
         * @return the position
         */
        public int position() {
            return position;
        }
    }
}
