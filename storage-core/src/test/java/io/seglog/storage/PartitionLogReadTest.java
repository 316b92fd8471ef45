package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static io.seglog.storage.KafkaBatches.batches;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads at every offset of a multi-segment log, against a model of where each batch lies. */
class PartitionLogReadTest {
    private static final long SEED = 0x5e6109L;

    @TempDir
    Path dir;

    /** What the test appended: one entry per batch. */
    record Appended(long base, long last, int size, long segmentBase) {
    }

    private final List<Appended> model = new ArrayList<>();

    private PartitionLog writeLog(final SplittableRandom random) {
        final LogConfig config = LogConfig.builder().segmentBytes(2_000).indexIntervalBytes(150).build();
        final PartitionLog log = PartitionLog.open(dir.resolve("read-0"), config, FileIO.system(), new ManualClock(0));
        for (int b = 0; b < 120; b++) {
            final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(5)];
            for (int r = 0; r < records.length; r++) {
                records[r] = KafkaBatches.randomRecord(random, 1_000_000);
            }
            final ByteBuffer batch = batch(0, records);
            final long base = log.logEndOffset();
            final int size = batch.remaining();
            final long last = log.appendAsLeader(batch, 1);
            final long[] bases = log.segmentBaseOffsets();
            model.add(new Appended(base, last, size, bases[bases.length - 1]));
        }
        return log;
    }

    @Test
    void readsAtEveryOffsetMatchTheModel() throws IOException {
        System.out.println("PartitionLogReadTest seed=" + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        try (PartitionLog log = writeLog(random)) {
            assertTrue(log.segmentCount() >= 5, "segments=" + log.segmentCount());
            final long end = log.logEndOffset();
            final LogReader reused = log.reader();
            for (long offset = 0; offset <= end; offset++) {
                for (int trial = 0; trial < 6; trial++) {
                    final int maxBytes = trial == 0 ? 0 : random.nextInt(900);
                    final long bound = trial % 2 == 0 ? Long.MAX_VALUE : offset + random.nextInt(40);
                    final boolean minOne = random.nextBoolean();
                    reused.read(offset, maxBytes, bound, minOne);
                    final LogSlice slice = reused.slice();
                    checkAgainstModel(slice, offset, maxBytes, Math.min(bound, end), minOne);
                }
            }
        }
    }

    private void checkAgainstModel(final LogSlice slice, final long offset, final int maxBytes, final long bound,
                                   final boolean minOne) throws IOException {
        final String what = "offset=" + offset + " maxBytes=" + maxBytes + " bound=" + bound + " minOne=" + minOne
            + " got " + slice;
        // Expected: from the batch containing offset, whole batches of the same segment below the bound.
        int first = -1;
        for (int i = 0; i < model.size(); i++) {
            if (model.get(i).last() >= offset) {
                first = i;
                break;
            }
        }
        if (first < 0 || model.get(first).last() >= bound) {
            assertTrue(slice.isEmpty(), what);
            return;
        }
        final Appended start = model.get(first);
        int expectedSize = 0;
        for (int i = first; i < model.size(); i++) {
            final Appended a = model.get(i);
            if (a.segmentBase() != start.segmentBase() || a.last() >= bound) {
                break;
            }
            if (expectedSize + a.size() > maxBytes && !(minOne && i == first)) {
                break;
            }
            expectedSize += a.size();
        }
        assertEquals(expectedSize, slice.sizeInBytes(), what);
        if (expectedSize == 0) {
            return;
        }
        assertEquals(start.base(), slice.firstOffset(), what);
        assertEquals(start.segmentBase(), slice.segmentBaseOffset(), what);
        final List<RecordBatch> read = batches(bytesOf(slice));
        long next = start.base();
        int bytes = 0;
        for (final RecordBatch b : read) {
            b.ensureValid();
            assertEquals(next, b.baseOffset(), what);
            assertTrue(b.lastOffset() < bound, what);
            next = b.lastOffset() + 1;
            bytes += b.sizeInBytes();
        }
        assertEquals(slice.sizeInBytes(), bytes, "whole batches only: " + what);
        assertTrue(read.get(0).baseOffset() <= offset && offset <= read.get(0).lastOffset(), what);
    }

    @Test
    void outOfRangeReadsCarryTheValidRange() {
        try (PartitionLog log = writeLog(new SplittableRandom(SEED))) {
            final long end = log.logEndOffset();
            final OffsetOutOfRangeException above = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(end + 1, 100, Long.MAX_VALUE, true));
            assertEquals(end + 1, above.requestedOffset());
            assertEquals(0, above.logStartOffset());
            assertEquals(end, above.logEndOffset());
            assertTrue(above.getMessage().contains("logEndOffset=" + end), above.getMessage());
            final OffsetOutOfRangeException below = assertThrows(OffsetOutOfRangeException.class,
                () -> log.read(-1, 100, Long.MAX_VALUE, true));
            assertEquals(-1, below.requestedOffset());
            assertTrue(log.read(end, 100, Long.MAX_VALUE, true).isEmpty(), "reading at the log end is empty");
            assertThrows(IllegalArgumentException.class, () -> log.read(0, -1, Long.MAX_VALUE, true));
        }
    }

    @Test
    void transferToSendsExactlyTheSliceBytes() throws IOException {
        try (PartitionLog log = writeLog(new SplittableRandom(SEED + 1))) {
            final LogSlice slice = log.read(7, 1_500, Long.MAX_VALUE, true);
            final ByteBuffer expected = bytesOf(slice);
            final Path out = dir.resolve("out.bin");
            try (FileChannel target = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                assertEquals(slice.sizeInBytes(), slice.transferTo(target));
            }
            assertEquals(expected, ByteBuffer.wrap(java.nio.file.Files.readAllBytes(out)));
        }
    }

    @Test
    void readFromAnOffsetInsideACompactedGapReturnsTheBatchHoldingIt() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir.resolve("gap-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            log.appendAsFollower(batchAtOffsets(0, 0, 1));
            log.appendAsFollower(batchAtOffsets(0, 2, 9)); // offsets 3..8 were compacted away
            log.appendAsFollower(batchAtOffsets(0, 10));
            final List<RecordBatch> read = batches(bytesOf(log.read(5, 10_000, Long.MAX_VALUE, false)));
            assertEquals(2, read.get(0).baseOffset());
            assertEquals(9, read.get(0).lastOffset());
            // An upper bound inside a batch excludes that batch.
            final List<RecordBatch> bounded = batches(bytesOf(log.read(0, 10_000, 5, false)));
            assertEquals(1, bounded.size());
            assertEquals(1, bounded.get(0).lastOffset());
        }
    }
}
