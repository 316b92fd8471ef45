package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers run without locks while one appender appends and rolls: every slice they get holds whole, valid
 * batches whose records are exactly the ones appended at those offsets, and nothing at or past the log end.
 */
class ConcurrentReadersTest {
    private static final long SEED = 9_001L;
    private static final int BATCHES = 1_500;
    private static final int READERS = 3;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void readersNeverSeePartialBatchesOrBytesPastTheEnd() throws Exception {
        System.out.println("ConcurrentReadersTest seed=" + SEED);
        final LogConfig config = LogConfig.builder().segmentBytes(4_096).indexIntervalBytes(100)
            .segmentIndexBytes(8_192).build();
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong reads = new AtomicLong();
        try (PartitionLog log = PartitionLog.open(dir.resolve("conc-0"), config, FileIO.system(), new ManualClock(0))) {
            final Thread[] readers = new Thread[READERS];
            for (int t = 0; t < READERS; t++) {
                final SplittableRandom random = new SplittableRandom(SEED + 1 + t);
                readers[t] = new Thread(() -> {
                    final LogReader slice = log.reader();
                    try {
                        while (!done.get() && failures.isEmpty()) {
                            checkOneRead(log, random, slice);
                            reads.incrementAndGet();
                        }
                    } catch (final Throwable e) {
                        failures.add(e);
                    }
                }, "reader-" + t);
                readers[t].start();
            }
            final SplittableRandom random = new SplittableRandom(SEED);
            try {
                for (int b = 0; b < BATCHES && failures.isEmpty(); b++) {
                    final long base = log.logEndOffset();
                    final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(5)];
                    for (int r = 0; r < records.length; r++) {
                        final long offset = base + r;
                        // The value and the timestamp name the offset the record will get.
                        records[r] = new SimpleRecord(offset, null, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
                    }
                    log.appendAsLeader(KafkaBatches.batch(0, records), 0);
                }
            } finally {
                done.set(true);
                for (final Thread reader : readers) {
                    reader.join(TimeUnit.SECONDS.toMillis(30));
                    assertTrue(!reader.isAlive(), reader.getName() + " did not stop");
                }
            }
            if (!failures.isEmpty()) {
                final AssertionError error = new AssertionError("reader failed (seed=" + SEED + ")", failures.peek());
                failures.forEach(error::addSuppressed);
                throw error;
            }
            assertTrue(log.segmentCount() > 20, "the log rolled while readers read: " + log.segmentCount());
            assertTrue(reads.get() > 100, "reads=" + reads.get());
            System.out.println("ConcurrentReadersTest reads=" + reads.get() + " segments=" + log.segmentCount());
        }
    }

    private static void checkOneRead(final PartitionLog log, final SplittableRandom random, final LogReader slice)
        throws Exception {
        final long endBefore = log.logEndOffset();
        final long offset = endBefore == 0 ? 0 : random.nextLong(endBefore + 1);
        final long bound = random.nextBoolean() ? Long.MAX_VALUE : offset + random.nextInt(50);
        slice.read(offset, random.nextInt(2_000), bound, true);
        final long endAfter = log.logEndOffset();
        // (A bound inside a batch excludes that batch, so only an unbounded read below the end must find one.)
        if (bound == Long.MAX_VALUE && offset < endBefore) {
            assertTrue(!slice.isEmpty(), "offset " + offset + " below end " + endBefore + " gave nothing");
        }
        if (slice.isEmpty()) {
            return;
        }
        final ByteBuffer bytes = KafkaBatches.bytesOf(slice);
        final List<RecordBatch> batches = KafkaBatches.batches(bytes);
        int total = 0;
        long next = batches.get(0).baseOffset();
        assertTrue(next <= offset && offset <= batches.get(0).lastOffset(), "first batch holds " + offset);
        for (final RecordBatch batch : batches) {
            batch.ensureValid();
            assertEquals(next, batch.baseOffset());
            for (final Record record : batch) {
                final ByteBuffer value = record.value();
                final byte[] text = new byte[value.remaining()];
                value.get(text);
                assertEquals(Long.toString(record.offset()), new String(text, StandardCharsets.UTF_8));
                assertEquals(record.offset(), record.timestamp());
            }
            next = batch.lastOffset() + 1;
            total += batch.sizeInBytes();
        }
        assertEquals(slice.sizeInBytes(), total, "whole batches only");
        assertTrue(next <= endAfter, "slice ends at " + next + " past the log end " + endAfter);
        assertTrue(next - 1 < bound, "slice passes the upper bound " + bound);
        // Timestamps equal offsets, so a timestamp search below the end finds exactly that offset.
        final long target = random.nextLong(endBefore == 0 ? 1 : endBefore);
        if (target < endBefore) {
            assertEquals(target, log.offsetForTimestamp(target));
        }
    }
}
