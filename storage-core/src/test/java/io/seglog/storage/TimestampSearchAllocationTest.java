package io.seglog.storage;

import static io.seglog.storage.AllocationTesting.allocatedBytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A timestamp search reads a batch's records in bounded chunks, never into a buffer sized from the batch length
 * on disk, and with a reused {@link LogSlice} allocates nothing in steady state; a record length that does not
 * fit its batch is reported with the file and position.
 */
class TimestampSearchAllocationTest {
    private static final int RECORDS = 2_000;

    @TempDir
    Path dir;

    @Test
    void searchingALargeBatchAllocatesNothingWithAReusedSlice() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.builder().build(), FileIO.system(),
            new ManualClock(0))) {
            log.appendAsLeader(largeBatch(), 0); // ~400 KB in one batch
            final LogReader scratch = log.reader();
            final long last = 1_000L + RECORDS - 1;
            assertEquals(RECORDS - 1, scratch.offsetForTimestamp(last, Long.MAX_VALUE)); // warm-up
            final long before = allocatedBytes();
            for (int i = 0; i < 200; i++) {
                assertEquals(RECORDS - 1, scratch.offsetForTimestamp(last, Long.MAX_VALUE));
            }
            final long allocated = allocatedBytes() - before;
            System.out.println("TimestampSearchAllocationTest: " + allocated + " bytes over 200 searches");
            // The old path allocated the whole batch (~400 KB) per search; allow only incidental JIT noise.
            assertTrue(allocated < 16 * 1024, "allocated=" + allocated);
        }
    }

    @Test
    void aRecordLengthBeyondItsBatchIsReportedWithFileAndPosition() throws IOException {
        final Path partition = dir.resolve("t-1");
        try (PartitionLog log = PartitionLog.open(partition, LogConfig.builder().build(), FileIO.system(),
            new ManualClock(0))) {
            log.appendAsLeader(copy(RecordBatchBuilder.batchOf(0, new long[] {1_000, 2_000}, null,
                new byte[][] {{1}, {2}})), 0);
            // Overwrite the first record's length varint with a huge one (zig-zag 0x7fffffff: ff ff ff ff 0f).
            try (FileChannel channel = FileChannel.open(partition.resolve("00000000000000000000.log"),
                StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}),
                    RecordBatchDescriptor.RECORDS_OFFSET);
            }
            final StorageException e = assertThrows(StorageException.class, () -> log.offsetForTimestamp(1_500));
            assertTrue(e.getMessage().contains("position=" + RecordBatchDescriptor.RECORDS_OFFSET), e.getMessage());
            assertTrue(e.getMessage().contains("00000000000000000000.log"), e.getMessage());
        }
    }

    private static ByteBuffer largeBatch() {
        final long[] timestamps = new long[RECORDS];
        final byte[][] values = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++) {
            timestamps[i] = 1_000L + i;
            values[i] = new byte[200];
        }
        return copy(RecordBatchBuilder.batchOf(0, timestamps, null, values));
    }

    private static ByteBuffer copy(final UnsafeBuffer batch) {
        final ByteBuffer copy = ByteBuffer.allocate(batch.capacity());
        batch.getBytes(0, copy, 0, batch.capacity());
        return copy;
    }
}
