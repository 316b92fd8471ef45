package io.seglog.storage;

import io.seglog.storage.log.Durability;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.Segments;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The flush rules of one {@link PartitionLog} and their entry points: it owns the {@code flush.messages} setting and
 * the active segment the last append saw (a new one means a roll, whose old segments are flushed on the scheduler,
 * Kafka's rule). The flushed offset, the flush lock and the durability waiters stay {@link Durability}'s; a failed
 * fsync goes to {@link LogHealth}.
 *
 * <p>Threads: {@link #afterAppend} runs after an append with the append lock released, so an fsync never blocks
 * appends; {@link #flush} may run on any thread.
 */
final class Flushing {
    private final Path dir;
    private final Segments segments;
    private final LogEnd end;
    private final Durability durability;
    private final InstantSource time;
    /** Runs the flush of a rolled segment; null for a standalone log, whose owner flushes. */
    private final Scheduler scheduler;
    private final LogHealth health;
    /** The active segment the last append saw: a new one means a roll. */
    private final AtomicReference<LogSegment> lastActive;
    /** {@code flush.messages}, read on every append: a field, not a lookup in the configuration's table. */
    private volatile long flushMessages;

    Flushing(final Path dir, final Segments segments, final LogEnd end, final Durability durability,
             final InstantSource time, final Scheduler scheduler, final LogHealth health, final long flushMessages) {
        this.dir = dir;
        this.segments = segments;
        this.end = end;
        this.durability = durability;
        this.time = time;
        this.scheduler = scheduler;
        this.health = health;
        this.lastActive = new AtomicReference<>(segments.active());
        this.flushMessages = flushMessages;
    }

    /** Sets {@code flush.messages} for the next append (under the append lock). */
    void reconfigure(final long newFlushMessages) {
        this.flushMessages = newFlushMessages;
    }

    /**
     * After an append, with the append lock released so an fsync never blocks appends: Kafka's flush of the segments
     * a roll left behind, on the scheduler (a standalone log has none: its owner flushes), and the
     * {@code flush.messages} rule.
     */
    void afterAppend() {
        final LogSegment active = segments.active();
        final LogSegment seen = lastActive.get();
        if (active != seen && lastActive.compareAndSet(seen, active) && scheduler != null && !health.isReadOnly()) {
            scheduler.schedule("flush-rolled " + dir, () -> flushRolled(active), 0, 0);
        }
        if (end.offset() - durability.flushedOffset() >= flushMessages) {
            flush();
        }
    }

    /** The scheduled flush of what a roll to {@code rolledTo} left behind; a failure takes the log offline. */
    private void flushRolled(final LogSegment rolledTo) {
        if (health.isClosed() || health.isOffline()) {
            return;
        }
        try {
            durability.flushRolled(segments, rolledTo);
        } catch (final IOException | RuntimeException e) {
            health.goOffline("flush of a rolled segment failed", e);
        }
    }

    /** {@link PartitionLog#flush}. */
    void flush() {
        health.ensureWritable();
        try {
            durability.flush(segments, end.offset(), time.millis());
        } catch (final IOException | RuntimeException e) {
            throw health.goOffline("flush failed", e);
        }
    }

    /** {@link PartitionLog#awaitDurable}. */
    CompletableFuture<Long> awaitDurable(final long offset) {
        health.ensureWritable();
        final long endOffset = end.offset();
        if (offset < 0 || offset >= endOffset) {
            throw new IllegalArgumentException("offset=" + offset + " must be in [0, logEndOffset=" + endOffset
                + ") of " + dir);
        }
        return durability.await(offset);
    }

    /** The {@code flush.ms} rule, for a log manager's flush task. */
    boolean isFlushDue(final long nowMs, final long flushMs) {
        return durability.isFlushDue(nowMs, flushMs, end.offset());
    }
}
