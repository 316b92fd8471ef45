package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.storage.io.ForwardingFileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ABORT whose {@code .txnindex} entry cannot be written: the log goes offline before the abort is published or
 * completed, so no reader ever sees the marker, the last stable offset stays below the aborted data, and no later
 * write is taken. Reopened, the replay writes the entry the failure lost.
 */
class TransactionIndexWriteFailureTest {
    @TempDir
    Path dir;

    @Test
    void aFailedIndexWriteTakesTheLogOfflineBeforeTheAbortIsPublished() {
        final Path partition = dir.resolve("t-0");
        final ForwardingFileIO failingIndexes = new ForwardingFileIO() {
            @Override
            public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
                if (path.getFileName().toString().endsWith(".txnindex")) {
                    throw new IOException("no space left on device (injected) for " + path);
                }
                return super.open(path, options);
            }
        };
        final PartitionLog log = PartitionLog.open(partition, LogConfig.builder().build(), failingIndexes,
            InstantSource.system());
        try {
            final MemoryRecords data = MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 0, 0,
                new SimpleRecord(1_000L, null, "aborted".getBytes()));
            log.appendAsLeader(ByteBuffer.allocate(data.sizeInBytes()).put(data.buffer()).flip(), 0);
            log.updateHighWatermark(log.logEndOffset());
            assertThrows(StorageException.class, () -> log.appendTransactionMarker(7L, (short) 0, 0, false, 0));
            assertEquals(1, log.logEndOffset(), "the marker was never published");
            assertEquals(0, log.lastStableOffset(), "the transaction still holds the LSO below its data");
            assertThrows(StorageException.class, () -> log.appendTransactionMarker(7L, (short) 0, 0, false, 0),
                "offline: nothing more is written");
        } finally {
            log.close();
        }

        // The marker's bytes reached the segment before the index failed; the replay at the next open indexes it.
        try (PartitionLog reopened = PartitionLog.open(partition, LogConfig.builder().build(),
            io.seglog.storage.io.FileIO.system(), InstantSource.system())) {
            reopened.updateHighWatermark(reopened.logEndOffset());
            final LogReader reader = reopened.reader();
            reader.read(0, 1 << 20, reopened.lastStableOffset(), true);
            final long[] told = new long[2];
            assertEquals(2, reopened.logEndOffset(), "the marker's whole batch is in the segment");
            assertEquals(2, reopened.lastStableOffset(), "the abort decided the transaction");
            assertEquals(1, reader.abortedTransactions((pid, first) -> {
                told[0] = pid;
                told[1] = first;
            }), "the abort is indexed");
            assertEquals(7L, told[0]);
            assertEquals(0L, told[1]);
        }
    }
}
