package io.seglog.storage;

/**
 * What a {@link LogManager} gives a {@link PartitionLog} it opens: the log directory's shared failure state, the
 * scheduler, what persists a lowered recovery point, and the offsets read from the directory's checkpoints. The log
 * takes all of it in its constructor. A standalone log has none of them ({@link #STANDALONE}).
 *
 * @param dirFailure           the directory's failure state, or null
 * @param scheduler            runs group-commit flushes and segment unlinks, or null
 * @param recoveryPointLowered persists a lowered recovery point (runs under the append lock)
 * @param logStartRaised       persists a raised log start before segment files go (a log manager's checkpoint write),
 *                             so the first segment always holds the checkpointed log start
 * @param logStartOffset       the log-start checkpoint's entry for the log, -1 when it has none
 * @param highWatermark        the replication checkpoint's value (0 when none)
 * @param unflushedFrom        after a crash, the checkpointed recovery point from which recovered data counts as
 *                             unflushed; -1 after a clean shutdown or for a new log
 */
record LogEnvironment(LogDirFailure dirFailure, Scheduler scheduler, Runnable recoveryPointLowered,
                      Runnable logStartRaised, long logStartOffset, long highWatermark, long unflushedFrom) {
    /** A log opened alone: no checkpoints, so no log start is known. */
    static final LogEnvironment STANDALONE = new LogEnvironment(null, null, () -> { }, () -> { }, -1, 0, -1);
}
