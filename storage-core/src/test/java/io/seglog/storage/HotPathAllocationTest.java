package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.lang.management.ManagementFactory;
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

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
            .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void appendAndReadAllocateNothingInSteadyState() {
        final ByteBuffer[] batches = new ByteBuffer[BATCHES_PER_APPEND];
        for (int b = 0; b < BATCHES_PER_APPEND; b++) {
            final SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                records[r] = new SimpleRecord(1_000L + r, null, new byte[] {(byte) r});
            }
            batches[b] = KafkaBatches.batch(0, records);
        }
        final ByteBuffer heap = KafkaBatches.concat(batches);
        // A direct buffer is what a network layer hands over; the leader re-stamps its offsets on every append.
        final ByteBuffer append = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
        final LogConfig config = LogConfig.builder().messageTimestampType(LogConfig.TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("alloc-0"), config, FileIO.system(), Clock.systemUTC())) {
            final LogSlice slice = new LogSlice();
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

    private static void appendAndRead(final PartitionLog log, final ByteBuffer append, final LogSlice slice) {
        final long last = log.appendAsLeader(append, 1);
        log.read(last, 64 * 1024, Long.MAX_VALUE, true, slice);
        if (slice.isEmpty()) {
            throw new AssertionError("empty read at " + last);
        }
    }
}
