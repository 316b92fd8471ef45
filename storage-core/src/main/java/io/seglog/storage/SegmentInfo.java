package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A read-only view of one segment of a log, as it was when the view was taken.
 *
 * @param baseOffset      the first offset the segment may hold (its files are named by it, in 20 digits)
 * @param sizeInBytes     the size of its data file's batches
 * @param logFile         its data file
 * @param maxTimestampMs  the largest batch timestamp in it, -1 when none
 */
public record SegmentInfo(long baseOffset, int sizeInBytes, Path logFile, long maxTimestampMs) {
    /** The views of a log's segments as they are now, oldest first: an unmodifiable copy. */
    static List<SegmentInfo> listOf(final LogSegment[] segs) {
        final List<SegmentInfo> view = new ArrayList<>(segs.length);
        for (final LogSegment s : segs) {
            view.add(new SegmentInfo(s.baseOffset(), s.sizeInBytes(), s.logFile(), s.maxTimestampSoFar()));
        }
        return List.copyOf(view);
    }
}
