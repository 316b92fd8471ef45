package io.seglog.storage.cleaner;

import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What the cleaner needs of a partition log: a narrow view, so the log stays the only owner of its segment array
 * and offsets. The log implements {@link #replaceSegments}, the only call that changes anything.
 */
public interface CleanableLog {
    /**
     * The partition (its key in the {@code cleaner-offset-checkpoint}).
     *
     * @return the topic and partition
     */
    PartitionKey partition();

    /**
     * The partition directory.
     *
     * @return the directory
     */
    Path dir();

    /**
     * The log's configuration (cleanup policy, dirty ratio, compaction lags, tombstone retention, sizes).
     *
     * @return the configuration
     */
    CompactionSettings compaction();

    /**
     * The file layer the log uses (so a fault-injecting one sees the cleaner's files too).
     *
     * @return the file layer
     */
    FileIO io();

    /**
     * A snapshot of the segments, oldest first; the last is the active one. Must not be modified.
     *
     * @return the segments
     */
    LogSegment[] segments();

    /**
     * The log start offset.
     *
     * @return the offset
     */
    long logStartOffset();

    /**
     * The last stable offset: the cleaner never cleans at or above it (Kafka's rule): above it a transaction may
     * still be open or its marker not replicated, so whether its records are aborted is not known yet; it is at most
     * the high watermark.
     *
     * @return the offset
     */
    long lastStableOffset();

    /**
     * The log end offset.
     *
     * @return the offset
     */
    long logEndOffset();

    /**
     * Whether the log is closed or offline (the cleaner stops working on it).
     *
     * @return true when no more work should be done on it
     */
    boolean isClosedOrOffline();

    /**
     * Puts a cleaned segment in place of {@code group} (Kafka's {@code replaceSegments}, steps 2 to 4 of the swap;
     * see {@code docs/cleaner.md}): under the log's append lock, when the group is still in the log, retires the
     * old segments to {@code .deleted}, renames {@code swapFile} to its {@code .log} name, fsyncs the directory,
     * opens the new segment (its indexes built from its data) and publishes it in their place.
     *
     * @param group    consecutive segments of the log, oldest first
     * @param swapFile {@code <group base>.log.swap}, durable
     * @param nowMs    the time, for the delayed unlink of the old files
     * @return false when the group is no longer in the log (truncated or deleted meanwhile): nothing was changed
     *     and the caller deletes the swap file
     * @throws IOException if a rename, sync or open fails (the log goes offline)
     */
    boolean replaceSegments(LogSegment[] group, Path swapFile, long nowMs) throws IOException;
}
