package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link LogManager} adds to a {@link PartitionLog} it opened: the log directory's shared failure state,
 * the scheduler, the hook that persists a lowered recovery point, and the offsets restored from the
 * directory's checkpoints. A standalone log keeps all three empty.
 *
 * <p>Thread-safety: the attached state is volatile, set once right after open; {@link #restoreOffsets} takes
 * the log's append lock and {@link #markUnflushedFrom} its flush lock.
 */
final class LogManagerHooks {
    // Logged under PartitionLog, where these messages have always come from.
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final PartitionLog log;
    /** The log directory's shared state when a LogManager opened this log; null for a standalone log. */
    private volatile LogDirFailure dirFailure;
    private volatile Scheduler scheduler;
    /** Persists the lowered recovery point (a LogManager's checkpoint write); null for a standalone log. */
    private volatile Runnable recoveryPointLowered;

    LogManagerHooks(final PartitionLog log) {
        this.log = log;
    }

    LogDirFailure dirFailure() {
        return dirFailure;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Joins a LogManager's directory state and scheduler; called once right after open. */
    void attach(final LogDirFailure failure, final Scheduler sched) {
        this.dirFailure = failure;
        this.scheduler = sched;
        log.groupCommit.attachScheduler(sched);
        failure.onOffline(e -> log.groupCommit.failAll(e, true));
    }

    /** Sets what persists a lowered recovery point; called once right after open by a LogManager. */
    void onRecoveryPointLowered(final Runnable persist) {
        this.recoveryPointLowered = persist;
    }

    /**
     * A truncation below the recovery point must lower the checkpointed one before anything is appended again
     * (Kafka's LogManager.truncateTo checkpoints the recovery points too): otherwise a crash that tears a batch
     * appended after the truncation, below the old recovery point, reads as corruption instead of a torn tail.
     * Runs under the append lock, so no append slips in between.
     */
    void persistLoweredRecoveryPoint() {
        final Runnable persist = recoveryPointLowered;
        if (persist != null) {
            persist.run();
        }
    }

    /** Restores the log start offset and high watermark read from the log directory's checkpoints. */
    void restoreOffsets(final long checkpointedLogStart, final long checkpointedHighWatermark) {
        log.appendLock.lock();
        try {
            final long first = log.segments[0].baseOffset();
            final long end = log.endOffset;
            if (checkpointedLogStart > first) {
                log.logStartOffset = Math.min(checkpointedLogStart, end);
            }
            log.highWatermark = Math.max(log.logStartOffset, Math.min(checkpointedHighWatermark, end));
            if (checkpointedHighWatermark > end || checkpointedLogStart > end) {
                LOG.warn("Checkpointed offsets of {} lie beyond its log end {} (highWatermark={}, logStartOffset={});"
                    + " clamped to the log end", log.dir, end, checkpointedHighWatermark, checkpointedLogStart);
            }
        } finally {
            log.appendLock.unlock();
        }
    }

    /**
     * After an unclean shutdown, recovered data may still be only in the page cache: treat everything from
     * the checkpointed recovery point on as unflushed (Kafka keeps {@code min(checkpoint, LEO)}), so the next
     * flush fsyncs it and the recovery-point checkpoint never claims more than is on disk.
     */
    void markUnflushedFrom(final long recoveryPoint) {
        synchronized (log.flushLock) {
            final LogSegment[] segs = log.segments;
            final long point = Math.max(0, Math.min(recoveryPoint, log.endOffset));
            if (point < log.flushedOffset) {
                log.flushedOffset = point;
                log.flushedSegmentBase = Math.min(log.flushedSegmentBase,
                    segs[PartitionLog.floorIndex(segs, point)].baseOffset());
            }
        }
    }
}
