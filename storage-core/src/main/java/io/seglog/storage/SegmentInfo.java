package io.seglog.storage;

import java.nio.file.Path;

/**
 * A read-only view of one segment of a log, as it was when the view was taken.
 *
 * @param baseOffset      the first offset the segment may hold (its files are named by it, in 20 digits)
 * @param sizeInBytes     the size of its data file's batches
 * @param logFile         its data file
 * @param maxTimestampMs  the largest batch timestamp in it, -1 when none
 */
public record SegmentInfo(long baseOffset, int sizeInBytes, Path logFile, long maxTimestampMs) {
}
