package io.seglog.storage.log;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What of a partition log is on disk: the flushed offset (everything below it is fsynced), the oldest segment
 * that may hold unflushed bytes, the time of the last flush (the {@code flush.ms} clock) and the waiters for
 * durability ({@link GroupCommit}). The only writer of each. The fsync itself runs here, under the flush lock and
 * never under the log's append lock, so appends continue during it (KAFKA-9693).
 *
 * <p>The flush lock is held while a flush iterates the segments; a truncation or the unlink of a retired segment
 * runs inside {@link #whileNoFlush}, so no flush forces a file that is being closed.
 *
 * <p>Failures: an fsync that fails is never retried. The owner (the partition log) takes the log offline and calls
 * {@link #failAll}; from then on no waiter completes normally.
 *
 * <p>Thread-safe.
 */
public final class Durability {
    /** An I/O action run under the flush lock. */
    @FunctionalInterface
    public interface IoAction<T> {
        /**
         * Runs the action.
         *
         * @return its result
         * @throws IOException if it fails
         */
        T run() throws IOException;
    }

    private final Object flushLock = new Object();
    private final GroupCommit groupCommit;
    /** Offsets below this are on disk; written under flushLock, read without it. */
    private volatile long flushedOffset;
    /** Segments with a base below this were fully flushed; guarded by flushLock. */
    private long flushedSegmentBase;
    /** Time of the last successful flush, -1 until the first flush.ms check starts the clock. */
    private volatile long lastFlushMs = -1;
    /**
     * An fsync of this log failed: guarded by flushLock. No later flush may count, even one whose fsync succeeds:
     * after a failed fsync the kernel may have dropped the dirty pages it could not write and marked them clean, so a
     * later success says nothing of them (PostgreSQL's "fsyncgate"). Another flush can reach the lock between the
     * failure and the owner taking the log offline.
     */
    private IOException fsyncFailure;
    /**
     * The log went offline or was closed ({@link #failAll} permanent): no flush counts from then on, even one under
     * way whose fsync succeeds (the directory may have gone offline for another file's failed fsync; nothing this log
     * reports durable may change after it has been declared offline).
     */
    private volatile RuntimeException ended;

    /**
     * Starts with everything below {@code flushedOffset} on disk.
     *
     * @param what               names the log in failures of waiters
     * @param flushedOffset      the offset below which everything is on disk (the log end after a clean open)
     * @param flushedSegmentBase base of the first segment that may hold unflushed bytes (the active one)
     * @param flush              runs one flush of the log, with its failure handling, for group commit
     * @param scheduler          runs a group-commit flush task soon, or null to flush on the waiting thread
     */
    public Durability(final String what, final long flushedOffset, final long flushedSegmentBase,
                      final Runnable flush, final Consumer<Runnable> scheduler) {
        this.flushedOffset = flushedOffset;
        this.flushedSegmentBase = flushedSegmentBase;
        this.groupCommit = new GroupCommit(what, this, flush, scheduler);
    }

    /**
     * The offset below which everything is on disk.
     *
     * @return the flushed offset
     */
    public long flushedOffset() {
        return flushedOffset;
    }

    /**
     * Forces every segment written since the last flush (data and indexes), then completes the waiters it covers.
     *
     * @param segments  the log's segments
     * @param endOffset the log end offset read before the force: everything below it is then on disk
     * @param nowMs     the time, for the {@code flush.ms} rule
     * @throws IOException if an fsync fails (never retry it), or failed before: then nothing is forced or counted
     */
    public void flush(final Segments segments, final long endOffset, final long nowMs) throws IOException {
        final long flushed;
        synchronized (flushLock) {
            if (ended != null) {
                return; // offline or closed: nothing is forced or counted (the owner reported why)
            }
            final LogSegment[] segs = segments.array();
            forceUnflushedOnce(segs);
            if (ended != null) {
                return; // went offline during the force: it does not count
            }
            flushedSegmentBase = segs[segs.length - 1].baseOffset();
            flushedOffset = Math.max(flushedOffset, endOffset);
            flushed = flushedOffset;
        }
        lastFlushMs = nowMs;
        groupCommit.onFlushed(flushed);
    }

    /**
     * Kafka's flush at a roll ({@code UnifiedLog.roll} schedules {@code flushUptoOffsetExclusive} of the new segment's
     * base): forces the segments below {@code rolledTo} not yet forced, so everything below its base is on disk and
     * the recovery point can move there. Does nothing when a later flush covered it, or when the segment is no longer
     * the log's (a truncation removed it meanwhile).
     *
     * @param segments the log's segments
     * @param rolledTo the segment the log rolled to
     * @throws IOException if an fsync fails (never retry it), or failed before
     */
    public void flushRolled(final Segments segments, final LogSegment rolledTo) throws IOException {
        final long flushed;
        synchronized (flushLock) {
            final LogSegment[] segs = segments.array();
            final long base = rolledTo.baseOffset();
            if (flushedOffset >= base || !holds(segs, rolledTo)) {
                return;
            }
            if (fsyncFailure != null) {
                throw new IOException("an earlier fsync of this log failed (" + fsyncFailure.getMessage()
                    + "); no flush counts after it", fsyncFailure);
            }
            if (ended != null) {
                return;
            }
            try {
                for (final LogSegment segment : segs) {
                    if (segment.baseOffset() >= flushedSegmentBase && segment.baseOffset() < base) {
                        segment.flush();
                    }
                }
            } catch (final IOException e) {
                fsyncFailure = e;
                throw e;
            }
            if (ended != null) {
                return; // went offline during the force: it does not count
            }
            flushedSegmentBase = Math.max(flushedSegmentBase, base);
            flushedOffset = base;
            flushed = flushedOffset;
        }
        groupCommit.onFlushed(flushed);
    }

    private static boolean holds(final LogSegment[] segs, final LogSegment segment) {
        for (final LogSegment s : segs) {
            if (s == segment) {
                return true;
            }
        }
        return false;
    }

    /**
     * The last flush, on close: the writer has stopped, so {@code endOffset} is final.
     *
     * @param segments  the log's segments
     * @param endOffset the log end offset
     * @throws IOException if an fsync fails
     */
    public void flushOnClose(final Segments segments, final long endOffset) throws IOException {
        synchronized (flushLock) {
            forceUnflushedOnce(segments.array());
            flushedOffset = endOffset;
        }
        groupCommit.onFlushed(endOffset);
    }

    /** Forces, unless an earlier fsync failed; a failure is remembered. Under flushLock. */
    private void forceUnflushedOnce(final LogSegment[] segs) throws IOException {
        if (fsyncFailure != null) {
            throw new IOException("an earlier fsync of this log failed (" + fsyncFailure.getMessage()
                + "); no flush counts after it", fsyncFailure);
        }
        try {
            forceUnflushed(segs);
        } catch (final IOException e) {
            fsyncFailure = e;
            throw e;
        }
    }

    private void forceUnflushed(final LogSegment[] segs) throws IOException {
        for (final LogSegment segment : segs) {
            if (segment.baseOffset() >= flushedSegmentBase) {
                segment.flush();
            }
        }
    }

    /**
     * The {@code flush.ms} rule: unflushed data exists and the last flush is at least {@code flushMs} old. The
     * clock starts at the first check after open.
     *
     * @param nowMs     the time
     * @param flushMs   the configured interval
     * @param endOffset the log end offset
     * @return whether a flush is due
     */
    public boolean isFlushDue(final long nowMs, final long flushMs, final long endOffset) {
        if (lastFlushMs < 0) {
            lastFlushMs = nowMs;
            return false;
        }
        return endOffset > flushedOffset && nowMs - lastFlushMs >= flushMs;
    }

    /**
     * After an unclean shutdown, recovered data may still be only in the page cache: treats everything from the
     * checkpointed recovery point on as unflushed (Kafka keeps {@code min(checkpoint, LEO)}), so the next flush
     * fsyncs it and the recovery-point checkpoint never claims more than is on disk.
     *
     * @param recoveryPoint the checkpointed recovery point
     * @param segments      the log's segments
     * @param endOffset     the log end offset
     */
    public void markUnflushedFrom(final long recoveryPoint, final Segments segments, final long endOffset) {
        synchronized (flushLock) {
            final LogSegment[] segs = segments.array();
            final long point = Math.max(0, Math.min(recoveryPoint, endOffset));
            if (point < flushedOffset) {
                flushedOffset = point;
                flushedSegmentBase = Math.min(flushedSegmentBase,
                    segs[Segments.floorIndex(segs, point)].baseOffset());
            }
        }
    }

    /**
     * A truncation removed every offset at or above {@code newEnd}: the flushed offset drops to it when it was
     * above, the segment the cut lies in counts as unflushed again, and the waiters for removed offsets fail (the
     * offsets may be reassigned to other records, so they must never be reported durable). Runs inside
     * {@link #whileNoFlush}.
     *
     * @param newEnd      the new log end offset
     * @param segmentBase base offset of the segment the new end lies in
     * @return whether the flushed offset was lowered (the recovery point must then be persisted lower too)
     */
    public boolean lowerTo(final long newEnd, final long segmentBase) {
        final boolean lowered;
        synchronized (flushLock) {
            lowered = flushedOffset > newEnd;
            flushedOffset = Math.min(flushedOffset, newEnd);
            flushedSegmentBase = Math.min(flushedSegmentBase, segmentBase);
        }
        groupCommit.onTruncated(newEnd);
        return lowered;
    }

    /**
     * Runs {@code action} while no flush runs (truncation, unlinking a retired segment).
     *
     * @param action the action
     * @param <T>    its result type
     * @return its result
     * @throws IOException if the action fails
     */
    public <T> T whileNoFlush(final IoAction<T> action) throws IOException {
        synchronized (flushLock) {
            return action.run();
        }
    }

    /**
     * A future that completes once every offset up to and including {@code offset} is on disk; see
     * {@link GroupCommit}.
     *
     * @param offset an offset below the log end
     * @return the future, completed with the flushed offset
     */
    public CompletableFuture<Long> await(final long offset) {
        return groupCommit.await(offset);
    }

    /**
     * Fails every pending waiter with {@code cause}, and every later one too when {@code permanent} (the log
     * went offline).
     *
     * @param cause     the failure
     * @param permanent whether no waiter may ever complete normally again
     */
    public void failAll(final RuntimeException cause, final boolean permanent) {
        if (permanent && ended == null) {
            ended = cause;
        }
        groupCommit.failAll(cause, permanent);
    }
}
