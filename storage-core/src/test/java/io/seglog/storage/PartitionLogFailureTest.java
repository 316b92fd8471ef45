package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I/O failures take the log offline; the flush policy forces fsyncs; a torn tail is reported, not hidden. */
class PartitionLogFailureTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(0);

    @Test
    void aFailedWriteTakesTheLogOfflineAndPublishesNothing() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO().tornWrites(true);
        final Path logDir = dir.resolve("fail-0");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, clock);
        log.appendAsLeader(batch(0, 1, 2), 0);
        io.failNext(Op.WRITE);
        final StorageException failed = assertThrows(StorageException.class,
            () -> log.appendAsLeader(batch(0, 3, 4, 5), 0));
        assertEquals(logDir, failed.path());
        assertEquals(2, log.logEndOffset(), "nothing published");
        final StorageException offline = assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, 6), 0));
        assertTrue(offline.getMessage().contains("offline"), offline.getMessage());
        assertThrows(StorageException.class, () -> log.read(0, 100, Long.MAX_VALUE, true));
        assertThrows(StorageException.class, log::flush);
        log.close();

        // Half a batch is on disk past the last whole one: the open refuses, naming the file and the position
        // (truncating a torn tail is crash recovery's job, issue 3).
        final StorageException torn = assertThrows(StorageException.class,
            () -> PartitionLog.open(logDir, LogConfig.defaults(), FileIO.system(), clock));
        assertTrue(torn.getMessage().contains("00000000000000000000.log"), torn.getMessage());
        assertTrue(torn.getMessage().contains("position=" + batch(0, 1, 2).remaining()), torn.getMessage());
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
            final int forcesAtOpen = io.count(Op.FORCE);
            log.appendAsLeader(batch(0, 1, 2), 0);
            assertEquals(0, log.flushedOffset());
            assertEquals(forcesAtOpen, io.count(Op.FORCE));
            log.appendAsLeader(batch(0, 3), 0);
            assertEquals(3, log.flushedOffset());
            assertTrue(io.count(Op.FORCE) > forcesAtOpen, "the data file was forced");
            log.appendAsLeader(batch(0, 4), 0);
            assertEquals(3, log.flushedOffset());
            log.flush();
            assertEquals(4, log.flushedOffset());
        }
    }
}
