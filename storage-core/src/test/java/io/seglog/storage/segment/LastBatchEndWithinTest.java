package io.seglog.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.LogConfig;
import io.seglog.storage.SegmentConfigs;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SegmentReader#lastBatchEndWithin} (now one {@code OffsetIndex.lookupPositionAtMost} and a short header scan)
 * against a linear oracle over the known batch boundaries, for every (from, limit) pair of a seeded segment.
 */
class LastBatchEndWithinTest {
    @TempDir
    Path dir;

    @Test
    void matchesALinearScanOfBatchBoundaries() throws IOException {
        final long seed = 42;
        final SplittableRandom random = new SplittableRandom(seed);
        final LogConfig config = LogConfig.builder().indexIntervalBytes(150).segmentIndexBytes(4096).build();
        final List<Integer> boundaries = new ArrayList<>();
        boundaries.add(0);
        try (LogSegment segment = LogSegment.create(FileIO.system(), dir, 0, SegmentConfigs.of(config), 0, 0)) {
            final BatchCursor scratch = new BatchCursor();
            for (long offset = 0; offset < 60; offset++) {
                final byte[] value = new byte[random.nextInt(1, 120)];
                final UnsafeBuffer built = RecordBatchBuilder.batchOf(offset, 1_000 + offset, value);
                final ByteBuffer copy = ByteBuffer.allocate(built.capacity());
                built.getBytes(0, copy, 0, built.capacity());
                Lookups.append(segment, copy);
                boundaries.add(segment.sizeInBytes());
            }
            final int size = segment.sizeInBytes();
            for (int i = 0; i < boundaries.size(); i++) {
                final int from = boundaries.get(i);
                for (int limit = from; limit <= size; limit += 7) {
                    int expected = from;
                    for (final int boundary : boundaries) {
                        if (boundary >= from && boundary <= limit) {
                            expected = boundary;
                        }
                    }
                    assertEquals(expected, segment.reader().lastBatchEndWithin(from, limit, scratch),
                        "seed=" + seed + " from=" + from + " limit=" + limit);
                }
            }
        }
    }
}
