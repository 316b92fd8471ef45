package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@code segment.index.bytes} that LogConfig accepts (Kafka's {@code atLeast(4)}) gives a log that opens,
 * appends, reopens and answers timestamp searches; indexes smaller than one entry have no slot and the log rolls
 * instead of indexing. A failed segment creation leaves no files behind.
 */
class SegmentIndexBytesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {4, 8, 11, 12})
    void everyAcceptedSegmentIndexBytesOpensAppendsAndReopens(final int segmentIndexBytes) {
        final LogConfig config = LogConfig.builder().segmentIndexBytes(segmentIndexBytes).build(); // accepted
        final Path partition = dir.resolve("t-" + segmentIndexBytes);
        try (PartitionLog log = PartitionLog.open(partition, config, FileIO.system(), new ManualClock(0))) {
            for (int i = 0; i < 3; i++) {
                assertEquals(i, log.appendAsLeader(copy(RecordBatchBuilder.batchOf(0, 1_000L + i, new byte[] {1})), 0));
            }
        }
        try (PartitionLog log = PartitionLog.open(partition, config, FileIO.system(), new ManualClock(0))) {
            assertEquals(3, log.logEndOffset());
            assertEquals(2, log.offsetForTimestamp(1_002));
            assertEquals(3, log.appendAsLeader(copy(RecordBatchBuilder.batchOf(0, 1_003L, new byte[] {1})), 0));
        }
    }

    @Test
    void failedSegmentCreationRemovesTheFilesItCreated() throws IOException {
        // Calls to open: 1 = the .log, 2 = the .index; the second fails after the .log exists.
        final FaultInjectingFileIO io = new FaultInjectingFileIO().failOnCall(FaultInjectingFileIO.Op.OPEN, 2);
        final LogConfig config = LogConfig.builder().build();
        assertThrows(IOException.class, () -> LogSegment.create(io, dir, 0, config.segmentConfig(), 0, 0));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count(), "files left behind by a failed creation");
        }
    }

    private static ByteBuffer copy(final UnsafeBuffer batch) {
        final ByteBuffer copy = ByteBuffer.allocate(batch.capacity());
        batch.getBytes(0, copy, 0, batch.capacity());
        return copy;
    }
}
