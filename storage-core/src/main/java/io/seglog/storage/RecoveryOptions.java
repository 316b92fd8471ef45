package io.seglog.storage;

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
 * @param hadCleanShutdown whether the log was closed cleanly
 * @param recoveryPoint    offsets below it were flushed (Kafka's {@code recovery-point-offset-checkpoint})
 * @param scanFromOffset   the scan starts at the segment holding {@code min(recoveryPoint, scanFromOffset)}
 */
public record RecoveryOptions(boolean hadCleanShutdown, long recoveryPoint, long scanFromOffset) {
    /**
     * Checks the offsets.
     *
     * @param hadCleanShutdown whether the log was closed cleanly
     * @param recoveryPoint    the recovery point, 0 or more
     * @param scanFromOffset   where the scan may start at the latest, 0 or more
     * @throws IllegalArgumentException naming a negative value
     */
    public RecoveryOptions {
        if (recoveryPoint < 0) {
            throw new IllegalArgumentException("recoveryPoint=" + recoveryPoint + " must be >= 0");
        }
        if (scanFromOffset < 0) {
            throw new IllegalArgumentException("scanFromOffset=" + scanFromOffset + " must be >= 0");
        }
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
        return new RecoveryOptions(hadCleanShutdown, recoveryPoint, offset);
    }
}
