package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogReader;
import io.seglog.storage.LogSlice;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ST-19 for truncation: one thread appends and truncates (always above a "committed" offset it only raises,
 * like a follower that never truncates below its leader's high watermark), two readers read below the committed
 * offset without locks (reads and timestamp searches). Every read must succeed and return the records written at those offsets, across
 * truncations, rolls and segment deletions: the bytes a truncation removes are never ones a bounded reader was
 * given.
 */
class TruncationReadersTest {
    private static final LogConfig CONFIG = LogConfig.builder().segmentBytes(2_000).indexIntervalBytes(120)
        .segmentIndexBytes(4096).build();

    @TempDir
    Path dir;

    private static byte[] value(final long offset) {
        return ("v" + offset).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void readersBelowTheCommittedOffsetNeverSeeTruncatedBytes() throws Exception {
        final AtomicLong committed = new AtomicLong(0);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong reads = new AtomicLong();
        try (PartitionLog log = PartitionLog.open(dir.resolve("race-0"), CONFIG, FileIO.system(), new ManualClock(0))) {
            final Thread[] readers = new Thread[2];
            final AtomicLong stop = new AtomicLong();
            for (int r = 0; r < readers.length; r++) {
                final long seed = r;
                readers[r] = new Thread(() -> {
                    final SplittableRandom random = new SplittableRandom(seed);
                    final LogReader slice = log.reader();
                    try {
                        while (stop.get() == 0) {
                            final long bound = committed.get();
                            if (bound == 0) {
                                Thread.onSpinWait();
                                continue;
                            }
                            final long offset = random.nextLong(bound);
                            slice.read(offset, 1, bound, true);
                            final List<Record> records = KafkaBatches.records(KafkaBatches.bytesOf(slice));
                            boolean seen = false;
                            for (final Record record : records) {
                                final byte[] v = new byte[record.valueSize()];
                                record.value().get(v);
                                if (!java.util.Arrays.equals(value(record.offset()), v)) {
                                    throw new AssertionError("offset " + record.offset() + " holds " + new String(v,
                                        StandardCharsets.UTF_8));
                                }
                                seen |= record.offset() == offset;
                            }
                            if (!seen) {
                                throw new AssertionError("offset " + offset + " not in the slice read for it");
                            }
                            if (random.nextInt(8) == 0 && log.offsetForTimestamp(1_000L) != 0) {
                                throw new AssertionError("offsetForTimestamp lost offset 0 below the committed offset");
                            }
                            reads.incrementAndGet();
                        }
                    } catch (final Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "reader-" + r);
                readers[r].start();
            }
            final SplittableRandom random = new SplittableRandom(77);
            int truncations = 0;
            for (int step = 0; step < 3_000 && failure.get() == null; step++) {
                final long end = log.logEndOffset();
                if (random.nextInt(10) == 0 && end > committed.get() + 1) {
                    // Truncate only above the committed offset, as a follower does; an offset inside a batch takes
                    // the batch, which starts at or above the committed boundary.
                    log.truncateTo(committed.get() + 1 + random.nextLong(end - committed.get() - 1));
                    truncations++;
                } else {
                    final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(3)];
                    for (int i = 0; i < records.length; i++) {
                        records[i] = new SimpleRecord(1_000L, null, value(end + i));
                    }
                    log.appendAsLeader(KafkaBatches.batch(0, records), 1);
                    if (random.nextInt(4) == 0) {
                        // A batch boundary: what a leader's high watermark is after whole batches replicate.
                        committed.set(log.logEndOffset());
                    }
                }
            }
            stop.set(1);
            for (final Thread reader : readers) {
                reader.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a reader failed", failure.get());
            }
            assertTrue(truncations > 100 && reads.get() > 1_000, "truncations=" + truncations + " reads=" + reads);
            assertTrue(log.segmentCount() > 1);
            final ByteBuffer first = KafkaBatches.bytesOf(log.read(0, 1, Long.MAX_VALUE, true));
            assertEquals(0, KafkaBatches.records(first).get(0).offset());
        }
    }
}
