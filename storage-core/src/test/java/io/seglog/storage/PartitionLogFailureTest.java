package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batches;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I/O failures take the log offline; the flush policy forces fsyncs; a torn tail is reported, not hidden. */
class PartitionLogFailureTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(0);

    @Test
    void aFailedReadMappingFallsBackToPositionalReadsAndIsNotRetriedPerRead() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        // Appends written, not mapped, so every map call after the setup is the readers' mapping.
        final LogConfig config = LogConfig.builder().mappedAppendMaxBytes(0).indexIntervalBytes(100).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("readmap-0"), config, io, clock)) {
            for (int i = 0; i < 20; i++) {
                log.appendAsLeader(batch(0, 10L * i, 10L * i + 1), 0);
            }
            final int mapsBefore = io.count(Op.MAP);
            io.failFromCall(Op.MAP, mapsBefore + 1); // out of address space or map count, from now on
            for (long offset = 0; offset < log.logEndOffset(); offset++) {
                final List<RecordBatch> read = batches(bytesOf(log.read(offset, 1 << 20, Long.MAX_VALUE, true)));
                assertTrue(read.get(0).baseOffset() <= offset && offset <= read.get(0).lastOffset(),
                    "offset " + offset + " read from the batch holding it");
                assertEquals(log.logEndOffset() - 1, read.get(read.size() - 1).lastOffset(), "up to the log end");
            }
            assertEquals(20, log.reader().offsetForTimestamp(100L, Long.MAX_VALUE), "timestamp search by positional reads");
            assertEquals(mapsBefore + 1, io.count(Op.MAP), "one failed mapping, not one attempt per read");
            io.clearFaults(); // closing trims the indexes, which maps them again
        }
    }

    @Test
    void aFailedWriteTakesTheLogOfflineAndPublishesNothing() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO().tornWrites(true);
        final Path logDir = dir.resolve("fail-0");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, clock);
        log.appendAsLeader(batch(0, 1, 2), 0); // small: copied through the mapped tail
        io.failNext(Op.WRITE);
        // Larger than seglog.mapped.append.max.bytes, so it is a write call (the one that fails, torn).
        final ByteBuffer large = largeBatch(3);
        assertTrue(large.remaining() > LogConfig.DEFAULT_MAPPED_APPEND_MAX_BYTES, "written, not mapped");
        final StorageException failed = assertThrows(StorageException.class,
            () -> log.appendAsLeader(large, 0));
        assertEquals(logDir, failed.path());
        assertEquals(2, log.logEndOffset(), "nothing published");
        final StorageException offline = assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 6), 0));
        assertTrue(offline.getMessage().contains("offline"), offline.getMessage());
        assertThrows(StorageException.class, () -> log.read(0, 100, Long.MAX_VALUE, true));
        assertThrows(StorageException.class, log::flush);
        log.close();

        // Half a batch is on disk past the last whole one: a reopen without the clean-shutdown marker (crash
        // recovery, merged from the recovery branch) truncates that torn tail and keeps the whole batch.
        try (PartitionLog reopened = PartitionLog.open(logDir, LogConfig.defaults(), FileIO.system(), clock, 0,
            false)) {
            assertEquals(2, reopened.logEndOffset());
            assertEquals(batch(0, 1, 2).remaining(), reopened.read(0, 1 << 20, Long.MAX_VALUE, true).sizeInBytes());
        }
    }

    @Test
    void aFailedMapOfTheTailTakesTheLogOfflineAndPublishesNothing() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("map-0");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, clock);
        io.failNext(Op.MAP); // the first small append maps the tail window
        final StorageException failed = assertThrows(StorageException.class,
            () -> log.appendAsLeader(batch(0, 1, 2), 0));
        assertEquals(logDir, failed.path());
        assertTrue(failed.getMessage().contains("injected fault: MAP"), failed.getMessage());
        assertEquals(0, log.logEndOffset(), "nothing published");
        final StorageException offline = assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 6), 0));
        assertTrue(offline.getMessage().contains("offline"), offline.getMessage());
        assertThrows(StorageException.class, () -> log.read(0, 100, Long.MAX_VALUE, true));
        log.close();
        try (PartitionLog reopened = PartitionLog.open(logDir, LogConfig.defaults(), FileIO.system(), clock, 0,
            false)) {
            assertEquals(0, reopened.logEndOffset());
            assertEquals(1, reopened.appendAsLeader(batch(0, 1, 2), 0));
        }
    }

    @Test
    void aFailedRemapAfterATruncationTakesTheLogOfflineAndKeepsTheTruncatedLog() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("remap-0");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, clock);
        for (int i = 0; i < 3; i++) {
            log.appendAsLeader(batch(0, 1), 0);
        }
        final int mapsBefore = io.count(Op.MAP);
        assertEquals(1, log.truncateTo(1)); // releases the window before cutting the file
        io.failNext(Op.MAP);
        assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 2), 0));
        assertEquals(mapsBefore + 1, io.count(Op.MAP), "the append after the truncation mapped a new window");
        assertEquals(1, log.logEndOffset());
        log.close();
        try (PartitionLog reopened = PartitionLog.open(logDir, LogConfig.defaults(), FileIO.system(), clock, 0,
            false)) {
            assertEquals(1, reopened.logEndOffset());
            assertEquals(batch(0, 1).remaining(), reopened.read(0, 1 << 20, Long.MAX_VALUE, true).sizeInBytes());
        }
    }

    /** A leader batch of {@code records} records of 2000 bytes each (above the mapped-append limit). */
    private static ByteBuffer largeBatch(final int records) {
        final SimpleRecord[] rs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            rs[i] = new SimpleRecord(3 + i, null, new byte[24_000]);
        }
        return batch(0, rs);
    }

    @Test
    void aFailedFsyncTakesTheLogOffline() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        try (PartitionLog log = PartitionLog.open(dir.resolve("fsync-0"), LogConfig.defaults(), io, clock)) {
            log.appendAsLeader(batch(0, 1), 0);
            io.failNext(Op.FORCE);
            assertThrows(StorageException.class, log::flush);
            assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 2), 0));
            assertEquals(0, log.flushedOffset());
        }
    }

    @Test
    void aFailedDirectoryFsyncOnRollTakesTheLogOffline() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LogConfig config = LogConfig.builder().segmentBytes(batch(0, 1).remaining()).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("roll-0"), config, io, clock)) {
            log.appendAsLeader(batch(0, 1), 0);
            io.failNext(Op.FSYNC_DIRECTORY);
            assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 2), 0));
            assertEquals(1, log.logEndOffset());
            assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 3), 0));
        }
    }

    @Test
    void flushMessagesForcesAnFsyncOnAppend() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LogConfig config = LogConfig.builder().flushMessages(3).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("flush-0"), config, io, clock)) {
            // Count forces of the data file only: the first leader append also writes leader-epoch-checkpoint.
            final long forcesAtOpen = dataFileForces(io);
            log.appendAsLeader(batch(0, 1, 2), 0);
            assertEquals(0, log.flushedOffset());
            assertEquals(forcesAtOpen, dataFileForces(io));
            log.appendAsLeader(batch(0, 3), 0);
            assertEquals(3, log.flushedOffset());
            assertTrue(dataFileForces(io) > forcesAtOpen, "the data file was forced");
            log.appendAsLeader(batch(0, 4), 0);
            assertEquals(3, log.flushedOffset());
            log.flush();
            assertEquals(4, log.flushedOffset());
        }
    }

    private static long dataFileForces(final FaultInjectingFileIO io) {
        return io.journal().stream().filter(l -> l.startsWith("FORCE ") && l.endsWith(".log")).count();
    }
}
