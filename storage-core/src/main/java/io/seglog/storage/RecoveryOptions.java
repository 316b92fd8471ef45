package io.seglog.storage;

import java.util.concurrent.Executor;

/**
 * How {@link PartitionLog#open(java.nio.file.Path, LogConfig, io.seglog.storage.io.FileIO,
 * java.time.InstantSource, java.util.random.RandomGenerator, RecoveryOptions)} treats the files it finds.
 *
 * <ul>
 *   <li>{@link #clean()}: the log was closed cleanly (Kafka's clean-shutdown marker was present): no batch is
 *       read; only missing or insane index files are rebuilt.</li>
 *   <li>{@link #afterCrash(long)}: Kafka's recovery. Every segment from the one holding the recovery point on
 *       is CRC-checked and its indexes rebuilt; a torn tail above the recovery point is truncated; an invalid
 *       batch below it, or one followed by valid batches, is corruption ({@link CorruptLogException} or
 *       truncation, per {@link LogConfig#corruptionPolicy()}).</li>
 *   <li>{@link #scanningFrom(long)}: scan from an earlier offset than the recovery point too (0 verifies every
 *       batch), keeping the recovery point's meaning.</li>
 * </ul>
 *
 *
 * <p>A scan runs on the opening thread alone unless {@link #verifyingOn(Executor, int)} lends it an executor:
 * then the batch CRCs (most of a scan's cost) are verified on the opening thread and up to {@code threads}
 * tasks of that executor at once, while the opening thread walks the batch headers in log order; what is found,
 * truncated or refused is the same either way. No thread is started for it.
 *
 * @param hadCleanShutdown whether the log was closed cleanly
 * @param recoveryPoint    offsets below it were flushed (Kafka's {@code recovery-point-offset-checkpoint})
 * @param scanFromOffset   the scan starts at the segment holding {@code min(recoveryPoint, scanFromOffset)}
 * @param verifyExecutor   runs CRC checks beside the opening thread, or null
 * @param verifyThreads    how many tasks of {@code verifyExecutor} a scan uses at once; 0 without one
 */
public record RecoveryOptions(boolean hadCleanShutdown, long recoveryPoint, long scanFromOffset,
                              Executor verifyExecutor, int verifyThreads) {
    /**
     * Checks the offsets and the executor.
     *
     * @param hadCleanShutdown whether the log was closed cleanly
     * @param recoveryPoint    the recovery point, 0 or more
     * @param scanFromOffset   where the scan may start at the latest, 0 or more
     * @param verifyExecutor   runs CRC checks beside the opening thread, or null
     * @param verifyThreads    at least 1 with an executor, 0 without
     * @throws IllegalArgumentException naming a negative value, or an executor and thread count that disagree
     */
    public RecoveryOptions {
        if (recoveryPoint < 0) {
            throw new IllegalArgumentException("recoveryPoint=" + recoveryPoint + " must be >= 0");
        }
        if (scanFromOffset < 0) {
            throw new IllegalArgumentException("scanFromOffset=" + scanFromOffset + " must be >= 0");
        }
        if ((verifyExecutor == null) != (verifyThreads == 0) || verifyThreads < 0) {
            throw new IllegalArgumentException("verifyExecutor=" + verifyExecutor + " verifyThreads=" + verifyThreads
                + ": an executor needs at least 1 thread, and no executor 0");
        }
    }

    /**
     * Options that scan on the opening thread alone.
     *
     * @param hadCleanShutdown whether the log was closed cleanly
     * @param recoveryPoint    the recovery point, 0 or more
     * @param scanFromOffset   where the scan may start at the latest, 0 or more
     * @throws IllegalArgumentException naming a negative value
     */
    public RecoveryOptions(final boolean hadCleanShutdown, final long recoveryPoint, final long scanFromOffset) {
        this(hadCleanShutdown, recoveryPoint, scanFromOffset, null, 0);
    }

    /**
     * After a clean shutdown: no scan.
     *
     * @return the options
     */
    public static RecoveryOptions clean() {
        return new RecoveryOptions(true, 0, Long.MAX_VALUE);
    }

    /**
     * After a crash, with the recovery point from the checkpoint (0 when unknown: everything is scanned and
     * every invalid tail counts as torn).
     *
     * @param recoveryPoint offsets below it were flushed
     * @return the options
     */
    public static RecoveryOptions afterCrash(final long recoveryPoint) {
        return new RecoveryOptions(false, recoveryPoint, Long.MAX_VALUE);
    }

    /**
     * The same options, also scanning the segments from {@code offset} (no effect after a clean shutdown).
     *
     * @param offset the earliest offset whose segment is scanned
     * @return new options
     */
    public RecoveryOptions scanningFrom(final long offset) {
        return new RecoveryOptions(hadCleanShutdown, recoveryPoint, offset, verifyExecutor, verifyThreads);
    }

    /**
     * The same options, verifying batch CRCs on {@code executor} too (Kafka's
     * {@code num.recovery.threads.per.data.dir} threads are the natural ones to lend). A part of the work that
     * no executor thread takes up (all busy, or the task refused) is done by the opening thread, so the executor
     * may be the one that runs the opens; the open returns only when no task of it is still working.
     *
     * @param executor runs CRC checks beside the opening thread
     * @param threads  how many of its tasks a scan uses at once, at least 1
     * @return new options
     * @throws IllegalArgumentException when {@code executor} is null or {@code threads} below 1
     */
    public RecoveryOptions verifyingOn(final Executor executor, final int threads) {
        if (executor == null || threads < 1) {
            throw new IllegalArgumentException("executor=" + executor + " threads=" + threads
                + ": needs an executor and at least 1 thread");
        }
        return new RecoveryOptions(hadCleanShutdown, recoveryPoint, scanFromOffset, executor, threads);
    }
}
