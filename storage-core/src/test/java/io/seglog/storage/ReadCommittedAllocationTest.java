package io.seglog.storage;

import static io.seglog.storage.AllocationTesting.allocatedBytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code read_committed} fetch's storage work allocates nothing in steady state: the last stable offset, the read
 * bounded by it and the aborted transactions it overlaps, read from the transaction indexes of several segments into
 * the caller's sink.
 */
class ReadCommittedAllocationTest {
    private static final int WARMUP_CALLS = 20_000;
    private static final int MEASURED_CALLS = 10_000;

    @TempDir
    Path dir;

    private long told;

    @Test
    void readCommittedReadsAllocateNothingInSteadyState() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("rc-0"), LogConfig.builder().segmentBytes(4096).build(),
            FileIO.system(), Clock.systemUTC())) {
            for (int txn = 0; txn < 40; txn++) {
                final long pid = 10 + txn % 3;
                append(log, MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, txn / 3 * 2,
                    new SimpleRecord(1_000L, null, new byte[100]), new SimpleRecord(1_000L, null, new byte[100])));
                append(log, MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_000L, null, new byte[100])));
                log.appendTransactionMarker(pid, (short) 0, 0, txn % 2 == 0, 0);
            }
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(log.segmentCount() >= 3, "segments " + log.segmentCount());
            final LogReader reader = log.reader();
            final LogReader.AbortedTransactionSink sink = (pid, first) -> told++;
            final long end = log.logEndOffset();
            for (int i = 0; i < WARMUP_CALLS; i++) {
                fetch(log, reader, sink, i % end);
            }
            told = 0;
            final long before = allocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                fetch(log, reader, sink, i % end);
            }
            final long allocated = allocatedBytes() - before;
            assertTrue(told > MEASURED_CALLS, "the reads overlapped aborted transactions: " + told);
            assertEquals(end, log.lastStableOffset(), "every transaction decided");
            // One 16-byte object per call would be 160 KB here.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes over " + MEASURED_CALLS + " reads");
        }
    }

    private static void fetch(final PartitionLog log, final LogReader reader,
                              final LogReader.AbortedTransactionSink sink, final long offset) {
        reader.read(offset, 1024, log.lastStableOffset(), true);
        reader.abortedTransactions(sink);
    }

    private static void append(final PartitionLog log, final MemoryRecords records) {
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer()).flip(), 0);
    }
}
