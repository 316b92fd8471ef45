package io.seglog.storage;

import static io.seglog.storage.AllocationTesting.allocatedBytes;
import static io.seglog.storage.AllocationTesting.directConcat;
import static io.seglog.storage.AllocationTesting.smallBatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader append and read allocate nothing per record (nor per call) in steady state, measured with the JVM's
 * per-thread allocation counter.
 */
class HotPathAllocationTest {
    private static final int BATCHES_PER_APPEND = 10;
    private static final int RECORDS_PER_BATCH = 10;
    private static final int WARMUP_CALLS = 20_000;
    private static final int MEASURED_CALLS = 10_000;

    @TempDir
    Path dir;

    @Test
    void appendAndReadAllocateNothingInSteadyState() {
        // A direct buffer is what a network layer hands over; the leader re-stamps its offsets on every append.
        final ByteBuffer append = directConcat(smallBatches(BATCHES_PER_APPEND, RECORDS_PER_BATCH));
        final LogConfig config = LogConfig.builder().messageTimestampType(TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("alloc-0"), config, FileIO.system(), Clock.systemUTC())) {
            final LogReader slice = log.reader();
            for (int i = 0; i < WARMUP_CALLS; i++) {
                appendAndRead(log, append, slice);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                appendAndRead(log, append, slice);
            }
            final long allocated = allocatedBytes() - before;
            final long records = (long) MEASURED_CALLS * BATCHES_PER_APPEND * RECORDS_PER_BATCH;
            System.out.println("HotPathAllocationTest: " + allocated + " bytes allocated over " + MEASURED_CALLS
                + " appends and reads of " + records + " records");
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            // Zero is the expectation; the slack absorbs sporadic JIT/JDK allocations (about 1 KB observed). One
            // 16-byte object per call would already be 160 KB, one per record 16 MB.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes for " + records + " records");
        }
    }

    @Test
    void appendsFromManyDistinctNetworkBuffersAllocateNothing() {
        // A network layer hands a different buffer to each append; neither the CRC check nor the log-append-time
        // CRC rewrite may allocate a ByteBuffer duplicate per buffer (64 B each).
        final ByteBuffer[] requests = new ByteBuffer[32];
        for (int b = 0; b < requests.length; b++) {
            final SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                records[r] = new SimpleRecord(1_000L + r, null, new byte[] {(byte) r});
            }
            final ByteBuffer heap = KafkaBatches.batch(0, records);
            requests[b] = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
        }
        final LogConfig config = LogConfig.builder().messageTimestampType(TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("rotate-0"), config, FileIO.system(), Clock.systemUTC())) {
            final LogReader slice = log.reader();
            for (int i = 0; i < WARMUP_CALLS; i++) {
                appendAndRead(log, requests[i % requests.length], slice);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                appendAndRead(log, requests[i % requests.length], slice);
            }
            final long allocated = allocatedBytes() - before;
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            // One duplicate per call would be 640 KB here.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes over " + MEASURED_CALLS + " appends");
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void compressedAppendsAndRecordIterationAllocateNothing(final String codec) {
        // A leader decompresses every client batch to validate it; the codec state and buffers are reused.
        final ByteBuffer[] requests = new ByteBuffer[16];
        final org.agrona.concurrent.UnsafeBuffer[] views = new org.agrona.concurrent.UnsafeBuffer[requests.length];
        for (int b = 0; b < requests.length; b++) {
            final SimpleRecord[] records = new SimpleRecord[100];
            for (int r = 0; r < records.length; r++) {
                records[r] = new SimpleRecord(1_000L + r, null, ("{\"n\":" + (b * 100 + r) + ",\"pad\":\"xxxxxxxxxx\"}")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
            final ByteBuffer heap = KafkaBatches.batch(0, KafkaBatches.compression(codec), records);
            requests[b] = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
            views[b] = new org.agrona.concurrent.UnsafeBuffer(requests[b]);
        }
        final io.seglog.storage.format.BatchRecordReader reader = new io.seglog.storage.format.BatchRecordReader(
            1 << 20);
        final io.seglog.storage.format.RecordBatch batch = new io.seglog.storage.format.RecordBatch();
        final io.seglog.storage.format.RecordView record = new io.seglog.storage.format.RecordView();
        final int calls = 2_000;
        try (PartitionLog log = PartitionLog.open(dir.resolve(codec + "-0"), LogConfig.defaults(), FileIO.system(),
            Clock.systemUTC())) {
            long sum = 0;
            for (int i = 0; i < calls; i++) {
                sum += appendAndIterate(log, requests[i % requests.length], batch.wrap(views[i % views.length], 0),
                    reader, record);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < calls; i++) {
                sum += appendAndIterate(log, requests[i % requests.length], batch.wrap(views[i % views.length], 0),
                    reader, record);
            }
            final long allocated = allocatedBytes() - before;
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            assertTrue(sum != 0);
            // One object per batch would be 32 KB here, one per record 3.2 MB.
            assertTrue(allocated < 16 * 1024, codec + ": allocated " + allocated + " bytes over " + calls
                + " appends and iterations of 100 records");
        } finally {
            reader.close();
        }
    }

    private static long appendAndIterate(final PartitionLog log, final ByteBuffer append,
                                         final io.seglog.storage.format.RecordBatch batch,
                                         final io.seglog.storage.format.BatchRecordReader reader,
                                         final io.seglog.storage.format.RecordView record) {
        append.putLong(0, 0L);
        final long last = log.appendAsLeader(append.clear(), 1);
        reader.open(batch);
        long sum = last;
        while (reader.next(record)) {
            sum += record.offset() + record.valueLength();
        }
        return sum;
    }

    private static void appendAndRead(final PartitionLog log, final ByteBuffer append, final LogReader slice) {
        final long last = log.appendAsLeader(append, 1);
        slice.read(last, 64 * 1024, Long.MAX_VALUE, true);
        if (slice.isEmpty()) {
            throw new AssertionError("empty read at " + last);
        }
    }
}
