package io.seglog.storage;

import io.seglog.storage.cleaner.CleanableLog;
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
    private final TopicPartition tp;

    PartitionCleaning(final PartitionLog log, final TopicPartition tp) {
        this.log = log;
        this.tp = tp;
    }

    @Override
    public TopicPartition topicPartition() {
        return tp;
    }

    @Override
    public Path dir() {
        return log.dir();
    }

    @Override
    public LogConfig config() {
        return log.config();
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
    public long highWatermark() {
        return log.highWatermark();
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
