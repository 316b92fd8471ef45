package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static io.seglog.storage.KafkaBatches.batches;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static io.seglog.storage.KafkaBatches.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogAppendTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    private PartitionLog open(final LogConfig config) {
        return PartitionLog.open(dir.resolve("t-0"), config, FileIO.system(), clock);
    }

    @Test
    void newLogHasOneEmptySegmentWithKafkaFileNames() {
        try (PartitionLog log = open(LogConfig.defaults())) {
            assertEquals(0, log.logStartOffset());
            assertEquals(0, log.logEndOffset());
            assertEquals(1, log.segmentCount());
            assertTrue(Files.exists(log.dir().resolve("00000000000000000000.log")));
            assertTrue(Files.exists(log.dir().resolve("00000000000000000000.index")));
            assertTrue(Files.exists(log.dir().resolve("00000000000000000000.timeindex")));
        }
    }

    @Test
    void leaderAppendAssignsOffsetsInPlaceAndStampsEpoch() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            final ByteBuffer first = concat(batch(0, 10, 11, 12), batch(0, 13));
            assertEquals(3, log.appendAsLeader(first, 7));
            assertEquals(0, first.position(), "the caller's position is unchanged");
            assertEquals(5, log.appendAsLeader(batch(0, 14, 15), 8));
            assertEquals(6, log.logEndOffset());

            final List<RecordBatch> read = batches(bytesOf(log.read(0, 1 << 20, Long.MAX_VALUE, false)));
            assertEquals(3, read.size());
            assertEquals(0, read.get(0).baseOffset());
            assertEquals(2, read.get(0).lastOffset());
            assertEquals(3, read.get(1).baseOffset());
            assertEquals(4, read.get(2).baseOffset());
            assertEquals(5, read.get(2).lastOffset());
            assertEquals(7, read.get(0).partitionLeaderEpoch());
            assertEquals(7, read.get(1).partitionLeaderEpoch());
            assertEquals(8, read.get(2).partitionLeaderEpoch());
            for (final RecordBatch b : read) {
                b.ensureValid(); // CRC still valid: offset and epoch are outside it
                assertEquals(TimestampType.CREATE_TIME, b.timestampType());
            }
        }
    }

    @Test
    void leaderAppendWithLogAppendTimeStampsBrokerTimeAndKeepsCrcValid() throws IOException {
        final LogConfig config = LogConfig.builder().messageTimestampType(io.seglog.storage.TimestampType.LOG_APPEND_TIME).build();
        try (PartitionLog log = open(config)) {
            log.appendAsLeader(batch(0, 5, 6), 0);
            final RecordBatch b = batches(bytesOf(log.read(0, 1 << 20, Long.MAX_VALUE, false))).get(0);
            b.ensureValid();
            assertEquals(TimestampType.LOG_APPEND_TIME, b.timestampType());
            assertEquals(clock.millis(), b.maxTimestamp());
            b.forEach(r -> assertEquals(clock.millis(), r.timestamp()));
        }
    }

    @Test
    void leaderAppendIsAllOrNothing() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            log.appendAsLeader(batch(0, 1), 0);
            final long sizeBefore = Files.size(log.dir().resolve("00000000000000000000.log"));
            final ByteBuffer good = batch(0, 2, 3);
            final ByteBuffer bad = batch(0, 4);
            bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) ^ 0x5a)); // breaks the CRC
            final ByteBuffer both = concat(good, bad);
            final InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(both, 0));
            assertEquals(1, e.batchIndex(), e.getMessage());
            assertEquals(1, log.logEndOffset());
            assertEquals(sizeBefore, Files.size(log.dir().resolve("00000000000000000000.log")));
            assertEquals(0, both.getLong(0), "nothing stamped before validation passed");
            // The log still works afterwards.
            assertEquals(2, log.appendAsLeader(good, 0));
        }
    }

    @Test
    void appendsFromTheBufferPositionAndReportsPositionsInTheCallersBuffer() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            final ByteBuffer good = batch(0, 1, 2);
            final ByteBuffer padded = ByteBuffer.allocate(7 + good.remaining());
            padded.position(7);
            padded.put(good.duplicate()).position(7);
            assertEquals(1, log.appendAsLeader(padded, 0));
            assertEquals(7, padded.position());
            assertEquals(0, padded.getLong(0), "bytes before the position are untouched");
            assertEquals(good.remaining(), log.read(0, 1 << 20, Long.MAX_VALUE, false).sizeInBytes());

            final ByteBuffer twice = ByteBuffer.allocate(7 + 2 * good.remaining());
            twice.position(7);
            twice.put(batchAtOffsets(0, 2)).put(batchAtOffsets(0, 2)).flip().position(7);
            final int secondBatchAt = 7 + batchAtOffsets(0, 2).remaining();
            final InvalidRecordException overlap = assertThrows(InvalidRecordException.class,
                () -> log.appendAsFollower(twice));
            assertEquals(1, overlap.batchIndex());
            assertEquals(secondBatchAt, overlap.position(), overlap.getMessage());
        }
    }

    @Test
    void rejectsBatchLargerThanMaxMessageBytesNamingTheLimit() {
        final LogConfig config = LogConfig.builder().maxMessageBytes(100).build();
        try (PartitionLog log = open(config)) {
            final ByteBuffer big = batch(0, 1, 2, 3, 4, 5, 6);
            final InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(big, 0));
            assertEquals(88, e.limit(), e.getMessage()); // batchLength limit = max.message.bytes - 12
            assertEquals(0, log.logEndOffset());
        }
    }

    @Test
    void rejectsEmptyAppendAndNegativeEpoch() {
        try (PartitionLog log = open(LogConfig.defaults())) {
            assertThrows(IllegalArgumentException.class, () -> log.appendAsLeader(ByteBuffer.allocate(0), 0));
            assertThrows(IllegalArgumentException.class, () -> log.appendAsLeader(batch(0, 1), -1));
            assertThrows(IllegalArgumentException.class, () -> log.appendAsLeader(batch(0, 1).asReadOnlyBuffer(), 0));
        }
    }

    @Test
    void followerAppendKeepsOffsetsAndEpochs() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            assertEquals(4, log.appendAsFollower(concat(batchAtOffsets(3, 0, 1), batchAtOffsets(4, 2, 4))));
            assertEquals(5, log.logEndOffset());
            final List<RecordBatch> read = batches(bytesOf(log.read(0, 1 << 20, Long.MAX_VALUE, false)));
            assertEquals(3, read.get(0).partitionLeaderEpoch());
            assertEquals(4, read.get(1).partitionLeaderEpoch());
            assertEquals(2, read.get(1).baseOffset());
            assertEquals(4, read.get(1).lastOffset());
        }
    }

    @Test
    void operationsAfterCloseFailClearly() {
        final PartitionLog log = open(LogConfig.defaults());
        log.close();
        log.close(); // idempotent
        final StorageException e = assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 1), 0));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(StorageException.class, () -> log.read(0, 10, Long.MAX_VALUE, true));
    }
}
