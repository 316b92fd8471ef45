package io.seglog.storage;

import static io.seglog.storage.AllocationTesting.allocatedBytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Clock;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idempotent producer's appends, and the retries answered as duplicates, allocate nothing in steady state: one
 * map lookup per batch, the log's own {@link LeaderAppendResult} read by a handler made once.
 */
class ProducerHotPathAllocationTest {
    private static final int WARMUP_CALLS = 20_000;
    private static final int MEASURED_CALLS = 10_000;

    @TempDir
    Path dir;

    @Test
    void idempotentAppendsAndDuplicatesAllocateNothingInSteadyState() {
        final SimpleRecord[] records = new SimpleRecord[10];
        for (int r = 0; r < records.length; r++) {
            records[r] = new SimpleRecord(1_000L + r, null, new byte[] {(byte) r});
        }
        final ByteBuffer heap = MemoryRecords.withIdempotentRecords(Compression.NONE, 99L, (short) 0, 0, records)
            .buffer();
        final ByteBuffer append = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
        final UnsafeBuffer view = new UnsafeBuffer(append);
        final RecordBatch batch = RecordBatch.forOwnedBuffers();
        final LeaderAppendResult info = new LeaderAppendResult();
        final LeaderAppendResult.Handler<LeaderAppendResult> keep = info::copyFrom;
        try (PartitionLog log = PartitionLog.open(dir.resolve("idem-0"), LogConfig.builder().build(), FileIO.system(),
            Clock.systemUTC())) {
            int sequence = 0;
            for (int i = 0; i < WARMUP_CALLS; i++) {
                sequence = appendThenRetry(log, view, batch, append, keep, sequence);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                sequence = appendThenRetry(log, view, batch, append, keep, sequence);
            }
            final long allocated = allocatedBytes() - before;
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            // One 16-byte object per call would be 320 KB here.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes over " + MEASURED_CALLS
                + " appends and as many duplicates");
        }
    }

    private static int appendThenRetry(final PartitionLog log, final UnsafeBuffer view, final RecordBatch batch,
                                       final ByteBuffer append,
                                       final LeaderAppendResult.Handler<LeaderAppendResult> keep, final int sequence) {
        view.putInt(RecordBatchDescriptor.BASE_SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        batch.wrap(view, 0).writeCrc();
        LeaderAppendResult info = log.appendAsLeader(append, 1, keep);
        if (info.outcome() != AppendOutcome.APPENDED) {
            throw new AssertionError(info.toString());
        }
        final long first = info.firstOffset();
        info = log.appendAsLeader(append, 1, keep);
        if (!info.duplicate() || info.firstOffset() != first) {
            throw new AssertionError(info.toString());
        }
        return sequence + 10 == Integer.MAX_VALUE - 5 ? 0 : sequence + 10;
    }
}
