package io.seglog.storage;

import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.cleaner.CleanableLog;
import io.seglog.storage.cleaner.CompactionSettings;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The cleaner's view of one {@link PartitionLog} (the narrow interface it works through; the log stays the owner of
 * its segments and offsets). Thread-safe as the log's reads are; {@link #replaceSegments} takes the append lock.
 */
final class PartitionCleaning implements CleanableLog {
    private final PartitionLog log;
    private final PartitionKey key;

    PartitionCleaning(final PartitionLog log, final TopicPartition tp) {
        this.log = log;
        this.key = new PartitionKey(tp.topic(), tp.partition());
    }

    @Override
    public PartitionKey partition() {
        return key;
    }

    @Override
    public Path dir() {
        return log.dir();
    }

    @Override
    public CompactionSettings compaction() {
        final LogConfig config = log.config();
        return new CompactionSettings(config.cleanupPolicy().compact(), config.minCleanableDirtyRatio(),
            config.minCompactionLagMs(), config.maxCompactionLagMs(), config.deleteRetentionMs(),
            config.segmentBytes(), config.segmentIndexBytes());
    }

    @Override
    public FileIO io() {
        return log.io();
    }

    @Override
    public LogSegment[] segments() {
        return log.segmentArray();
    }

    @Override
    public long logStartOffset() {
        return log.logStartOffset();
    }

    @Override
    public long lastStableOffset() {
        return log.lastStableOffset();
    }

    @Override
    public long logEndOffset() {
        return log.logEndOffset();
    }

    @Override
    public boolean isClosedOrOffline() {
        return log.isOfflineOrClosed();
    }

    @Override
    public boolean replaceSegments(final LogSegment[] group, final Path swapFile, final long nowMs)
        throws IOException {
        return log.replaceSegments(group, swapFile, nowMs);
    }
}
