package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.CleanShutdownFile;
import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.io.ForwardingFileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** LogManager: locking, layout, names, create/delete, checkpoints, clean shutdown, threads. */
class LogManagerTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock(T0);

    private LogManagerConfig config(final Path... dirs) {
        return LogManagerConfig.builder().logDirs(dirs).build();
    }

    private static Set<String> seglogThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .filter(n -> n.startsWith("seglog-")).collect(Collectors.toSet());
    }

    private static void awaitNoSeglogThreads() throws InterruptedException {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!seglogThreads().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10); // polling a condition with a deadline
        }
        assertEquals(Set.of(), seglogThreads(), "threads left running");
    }

    @Test
    void aSecondOpenOfALockedDirectoryFailsNamingIt() {
        final Path logs = root.resolve("logs");
        try (LogManager first = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            final StorageException e = assertThrows(StorageException.class,
                () -> LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock));
            assertTrue(e.getMessage().contains("lock") && e.getMessage().contains(logs.toString()), e.getMessage());
            assertFalse(first.partitions().iterator().hasNext());
        }
        // released by close: a new open succeeds
        LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock).close();
    }

    @Test
    void createsPartitionDirectoriesAndFindsThemAgain() {
        final Path a = root.resolve("a");
        final Path b = root.resolve("b");
        final TopicPartition t0 = new TopicPartition("orders", 0);
        final TopicPartition t1 = new TopicPartition("orders", 1);
        try (LogManager m = LogManager.open(config(a, b), FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog l0 = m.getOrCreate(t0);
            assertSame(l0, m.getOrCreate(t0));
            m.getOrCreate(t1);
            assertNotEquals(m.logDir(t0).orElseThrow(), m.logDir(t1).orElseThrow(), "spread over both dirs");
            assertEquals(m.logDir(t0).orElseThrow().resolve("orders-0"), l0.dir());
            assertTrue(Files.isDirectory(l0.dir()));
            l0.appendAsLeader(batch(0, T0, T0), 0);
        }
        try (LogManager m = LogManager.open(config(a, b), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertEquals(Set.of(t0, t1), m.partitions());
            assertEquals(2, m.log(t0).orElseThrow().logEndOffset());
            assertTrue(m.hadCleanShutdown(a) && m.hadCleanShutdown(b));
        }
    }

    @Test
    void namesAreValidatedAndStrayEntriesAreLeftAlone() throws IOException {
        final Path logs = root.resolve("logs");
        Files.createDirectories(logs.resolve("foo"));
        Files.createDirectories(logs.resolve("foo-x"));
        Files.createDirectories(logs.resolve("bad name-0"));
        Files.createDirectories(root.resolve("outside-0"));
        Files.createSymbolicLink(logs.resolve("linked-0"), root.resolve("outside-0"));
        Files.writeString(logs.resolve("notes-1"), "a file, not a directory");
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertEquals(Set.of(), m.partitions());
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition("../etc", 0));
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition("a/b", 0));
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition("..", 0));
            final TopicPartition dots = new TopicPartition("...", 0);
            assertEquals(logs.toAbsolutePath().normalize().resolve("...-0"), m.getOrCreate(dots).dir());
        }
        for (final String name : new String[] {"foo", "foo-x", "bad name-0", "linked-0", "notes-1"}) {
            assertTrue(Files.exists(logs.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS), name + " kept");
        }
        assertEquals(Set.of(), Set.copyOf(listNames(root.resolve("outside-0"))), "never followed the link");
    }

    @Test
    void partitionPathsStayDirectChildrenOfTheLogDirectory() {
        final Path logs = root.resolve("logs").toAbsolutePath();
        assertEquals(logs.resolve("t-3"), PartitionDirs.resolveInside(logs, new TopicPartition("t", 3)));
        // Dots-only names are legal topics but must not climb: "...-0" is an ordinary child.
        assertEquals(logs, PartitionDirs.resolveInside(logs.resolve("sub").resolve(".."),
            new TopicPartition("...", 0)).getParent());
        // Escaping names never get as far as a path: TopicPartition refuses them before any file-system call.
        for (final String topic : new String[] {"../etc", "a/b", "a\\b", "..", ".", "", "x\u0000"}) {
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition(topic, 0), topic);
        }
    }

    @Test
    void deleteRenamesThenRemovesAfterTheDelay() throws IOException {
        final Path logs = root.resolve("logs");
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs)
            .logConfig(LogConfig.builder().fileDeleteDelayMs(10_000).build()).build();
        final TopicPartition tp = new TopicPartition("gone", 2);
        try (LogManager m = LogManager.open(config, FileIO.system(), scheduler, clock)) {
            final PartitionLog log = m.getOrCreate(tp);
            log.appendAsLeader(batch(0, T0), 0);
            assertTrue(m.delete(tp));
            assertFalse(m.delete(tp));
            assertTrue(m.log(tp).isEmpty());
            assertFalse(Files.exists(logs.resolve("gone-2")));
            final String renamed = listNames(logs).stream().filter(n -> n.endsWith("-delete")).findFirst()
                .orElseThrow();
            assertTrue(renamed.matches("gone-2\\.[0-9a-f]{32}-delete"), renamed);
            assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, T0), 0), "closed");
            scheduler.advanceMs(9_999);
            assertTrue(Files.exists(logs.resolve(renamed)));
            scheduler.advanceMs(1);
            assertFalse(Files.exists(logs.resolve(renamed)));
            assertEquals(0, m.getOrCreate(tp).logEndOffset(), "re-created empty");
        }
    }

    @Test
    void longLegalTopicNamesAreDeletedAndOverlongDirectoryNamesRefusedWithoutTakingTheDirectoryOffline()
        throws IOException {
        final Path logs = root.resolve("logs");
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final TopicPartition longest = new TopicPartition("t".repeat(230), 7);
        final TopicPartition tooLong = new TopicPartition("u".repeat(TopicPartition.MAX_TOPIC_LENGTH), 123_456);
        final TopicPartition ordinary = new TopicPartition("ordinary", 0);
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), scheduler, clock)) {
            m.getOrCreate(longest).appendAsLeader(batch(0, T0), 0);
            // <topic>-7.<32 hex>-delete would be 272 bytes: the topic is cut short in the renamed name (Kafka's rule)
            assertTrue(m.delete(longest));
            final String renamed = listNames(logs).stream().filter(n -> n.endsWith("-delete")).findFirst()
                .orElseThrow();
            assertEquals(PartitionDirs.MAX_NAME_BYTES, renamed.length(), renamed);
            assertTrue(renamed.matches("t+-7\\.[0-9a-f]{32}-delete"), renamed);

            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> m.getOrCreate(tooLong));
            assertTrue(e.getMessage().contains("256 bytes") && e.getMessage().contains("255"), e.getMessage());
            assertFalse(listNames(logs).stream().anyMatch(n -> n.startsWith("u")), "nothing made");
            // the directory stays online for everything else
            m.getOrCreate(ordinary).appendAsLeader(batch(0, T0), 0);
            assertEquals(1, m.log(ordinary).orElseThrow().logEndOffset());
            assertEquals(Set.of(ordinary), m.partitions());
        }
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertEquals(Set.of(ordinary), m.partitions(), "the renamed directory is removed at the next open");
            assertFalse(listNames(logs).stream().anyMatch(n -> n.endsWith("-delete")));
        }
    }

    @Test
    void leftoverDeleteDirectoriesAreRemovedAtOpen() throws IOException {
        final Path logs = root.resolve("logs");
        Files.createDirectories(logs.resolve("x-0.0123456789abcdef0123456789abcdef-delete"));
        Files.writeString(logs.resolve("x-0.0123456789abcdef0123456789abcdef-delete/00000000000000000000.log"), "");
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertEquals(Set.of(), m.partitions());
        }
        assertFalse(listNames(logs).stream().anyMatch(n -> n.endsWith("-delete")));
    }

    @Test
    void checkpointsAreWrittenReadableByKafkaAndRestoredOnOpen() throws IOException {
        final Path logs = root.resolve("logs");
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final TopicPartition tp = new TopicPartition("cp", 0);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs)
            .logConfig(LogConfig.builder().segmentBytes(batch(0, T0, T0).remaining()).build())
            .highWatermarkCheckpointIntervalMs(5_000).build();
        try (LogManager m = LogManager.open(config, FileIO.system(), scheduler, clock)) {
            final PartitionLog log = m.getOrCreate(tp);
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(0, T0, T0), 0); // offsets 2i, 2i+1, one segment each
            }
            log.updateHighWatermark(7);
            log.deleteRecordsBefore(3);
            scheduler.advanceMs(5_000);
            assertEquals(Map.of(new PartitionKey(tp.topic(), tp.partition()), 7L), new OffsetCheckpointFile(
                FileIO.system(), logs.resolve(OffsetCheckpointFile.REPLICATION_FILE)).read(), "periodic HW checkpoint");
        }
        assertTrue(Files.exists(logs.resolve(CleanShutdownFile.FILE_NAME)), "clean-shutdown marker after close");
        final org.apache.kafka.common.TopicPartition ktp = new org.apache.kafka.common.TopicPartition("cp", 0);
        assertEquals(Map.of(ktp, 8L), kafkaRead(logs.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE)));
        assertEquals(Map.of(ktp, 3L), kafkaRead(logs.resolve(OffsetCheckpointFile.LOG_START_FILE)));
        assertEquals(Map.of(ktp, 7L), kafkaRead(logs.resolve(OffsetCheckpointFile.REPLICATION_FILE)));
        try (LogManager m = LogManager.open(config, FileIO.system(), scheduler, clock)) {
            assertTrue(m.hadCleanShutdown(logs));
            assertFalse(Files.exists(logs.resolve(CleanShutdownFile.FILE_NAME)), "consumed at open");
            final PartitionLog log = m.log(tp).orElseThrow();
            assertEquals(3, log.logStartOffset(), "log start restored from its checkpoint");
            assertEquals(7, log.highWatermark(), "high watermark restored from its checkpoint");
            assertThrows(OffsetOutOfRangeException.class, () -> log.read(2, 1000, Long.MAX_VALUE, true));
        }
    }

    @Test
    void aMalformedCheckpointFallsBackToEmpty() throws IOException {
        final Path logs = root.resolve("logs");
        final TopicPartition tp = new TopicPartition("m", 0);
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            m.getOrCreate(tp).appendAsLeader(batch(0, T0, T0), 0);
            m.log(tp).orElseThrow().updateHighWatermark(2);
        }
        Files.writeString(logs.resolve(OffsetCheckpointFile.REPLICATION_FILE), "0\n999999999\ngarbage");
        try (LogManager m = LogManager.open(config(logs), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertEquals(0, m.log(tp).orElseThrow().highWatermark(), "HW falls back to the log start");
            assertEquals(2, m.log(tp).orElseThrow().logEndOffset());
        }
    }

    @Test
    @Timeout(60)
    void opensManyPartitionsInParallelAndLeavesNoThreadRunning() throws Exception {
        final Path a = root.resolve("a");
        final Path b = root.resolve("b");
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(a, b).openThreadsPerDir(2).build();
        try (LogManager m = LogManager.open(config)) {
            for (int p = 0; p < 12; p++) {
                m.getOrCreate(new TopicPartition("many", p)).appendAsLeader(batch(0, T0), 0);
            }
            assertTrue(seglogThreads().contains("seglog-log-manager"), "the default scheduler runs");
        }
        awaitNoSeglogThreads();
        try (LogManager m = LogManager.open(config)) {
            assertEquals(12, m.partitions().size());
            for (final TopicPartition tp : m.partitions()) {
                assertEquals(1, m.log(tp).orElseThrow().logEndOffset(), tp.toString());
            }
        }
        awaitNoSeglogThreads();
    }

    @Test
    void closeIsIdempotentAndLaterCallsFailClearly() {
        final LogManager m = LogManager.open(config(root.resolve("logs")), FileIO.system(),
            new ManualScheduler(clock), clock);
        final PartitionLog log = m.getOrCreate(new TopicPartition("c", 0));
        m.close();
        m.close();
        assertThrows(IllegalStateException.class, () -> m.getOrCreate(new TopicPartition("c", 1)));
        final StorageException e = assertThrows(StorageException.class, () -> log.appendAsLeader(batch(0, T0), 0));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    private static Map<org.apache.kafka.common.TopicPartition, Long> kafkaRead(final Path file) throws IOException {
        return new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(file.toFile(),
            new LogDirFailureChannel(1)).read();
    }

    private static java.util.List<String> listNames(final Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void aMissingCleanShutdownMarkerMakesOpenRecoverFromTheCheckpointedRecoveryPoint() throws IOException {
        final Path logs = root.resolve("logs");
        final TopicPartition tp = new TopicPartition("rec", 0);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs)
            .logConfig(LogConfig.builder().segmentBytes(batch(0, T0).remaining()).build()).build();
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog log = m.getOrCreate(tp);
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(0, T0 + i), 0); // one segment per batch: 0, 1, 2, 3
            }
        }
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            assertFalse(m.log(tp).orElseThrow().recoveryReport().recovered(), "clean shutdown: no scan");
        }
        // A crash: no marker, and a recovery point of 2 (as if segments 2 and 3 had not been flushed).
        Files.delete(logs.resolve(CleanShutdownFile.FILE_NAME));
        new OffsetCheckpointFile(FileIO.system(), logs.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE))
            .write(Map.of(new PartitionKey(tp.topic(), tp.partition()), 2L));
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            assertFalse(m.hadCleanShutdown(logs));
            final PartitionLog log = m.log(tp).orElseThrow();
            assertTrue(log.recoveryReport().recovered());
            assertEquals(2, log.recoveryReport().segmentsScanned(), "only segments at or above the recovery point");
            assertEquals(2, log.flushedOffset(), "recovered data counts as unflushed until the next flush");
            assertEquals(4, log.logEndOffset());
            log.flush();
            assertEquals(4, log.flushedOffset());
        }
    }

    @Test
    void aPartitionThatCannotOpenTakesOnlyItsDirectoryOffline() throws IOException {
        final Path a = root.resolve("a");
        final Path b = root.resolve("b");
        final TopicPartition p = new TopicPartition("p", 0);
        final TopicPartition q = new TopicPartition("q", 0);
        try (LogManager m = LogManager.open(config(a, b), FileIO.system(), new ManualScheduler(clock), clock)) {
            m.getOrCreate(p).appendAsLeader(batch(0, T0), 0); // dir a
            m.getOrCreate(p).appendAsLeader(batch(0, T0), 0);
            m.getOrCreate(q).appendAsLeader(batch(0, T0), 0); // dir b
        }
        // Crash image of dir a: no marker, no recovery point, and a flipped byte in the first of two batches.
        Files.delete(a.resolve(CleanShutdownFile.FILE_NAME));
        Files.delete(a.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));
        final Path segment = a.resolve("p-0").resolve("00000000000000000000.log");
        final byte[] bytes = Files.readAllBytes(segment);
        bytes[batch(0, T0).remaining() - 2] ^= 0x5A;
        Files.write(segment, bytes);
        try (LogManager m = LogManager.open(config(a, b), FileIO.system(), new ManualScheduler(clock), clock)) {
            assertTrue(m.isOffline(a));
            assertFalse(m.isOffline(b));
            assertEquals(Set.of(q), m.partitions());
            final StorageException e = assertThrows(StorageException.class, () -> m.getOrCreate(p),
                "never re-created in another directory");
            assertTrue(e.getMessage().contains(a.toAbsolutePath().normalize().toString()), e.getMessage());
            // The error says what happened (corruption found at open), not "a failed write or fsync", and the
            // caller can get the corruption itself, with file, position and offset.
            assertTrue(e.getMessage().contains("corrupt log") && !e.getMessage().contains("fsync"), e.getMessage());
            assertTrue(e.getCause() instanceof CorruptLogException, String.valueOf(e.getCause()));
            final CorruptLogException why = (CorruptLogException) m.openFailure(p).orElseThrow();
            assertEquals(0, why.offset());
            assertEquals(segment.toAbsolutePath().normalize(), why.path().toAbsolutePath().normalize());
            assertTrue(m.openFailure(q).isEmpty());
            final PartitionLog log = m.log(q).orElseThrow();
            assertEquals(2, log.appendAsLeader(batch(0, T0), 0) + 1);
            final TopicPartition r = new TopicPartition("r", 0);
            assertEquals(b.toAbsolutePath().normalize(), m.getOrCreate(r).dir().getParent(), "new ones go to b");
        }
        assertFalse(Files.exists(a.resolve(CleanShutdownFile.FILE_NAME)));
        assertTrue(Files.exists(b.resolve(CleanShutdownFile.FILE_NAME)));
    }
    @Test
    void aCrashedPartitionIsVerifiedWithTheRecoveryThreadsWhichEndWithTheOpen() throws Exception {
        final Path logs = root.resolve("logs");
        final TopicPartition tp = new TopicPartition("big", 0);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs).openThreadsPerDir(2).build();
        final int batches = 300;
        int victimPosition = -1;
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog log = m.getOrCreate(tp);
            int position = 0;
            for (int i = 0; i < batches; i++) {
                if (i == batches / 2) {
                    victimPosition = position;
                }
                final ByteBuffer b = batch(0, T0 + i, T0 + i);
                position += b.remaining();
                log.appendAsLeader(b, 0);
            }
        }
        // A crash: no marker, no recovery point. One partition, so the pool exists only to verify its CRCs.
        Files.delete(logs.resolve(CleanShutdownFile.FILE_NAME));
        Files.delete(logs.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));
        final Path segment = logs.resolve("big-0").resolve("00000000000000000000.log");
        final byte[] intact = Files.readAllBytes(segment);
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog log = m.log(tp).orElseThrow();
            assertTrue(log.recoveryReport().recovered());
            assertEquals(2L * batches, log.logEndOffset());
            assertEquals(intact.length, log.recoveryReport().bytesScanned());
        }
        awaitNoSeglogThreads();
        // The same crash with a flipped byte in the middle batch: corruption, reported from the opening thread.
        Files.delete(logs.resolve(CleanShutdownFile.FILE_NAME));
        final byte[] damaged = intact.clone();
        damaged[victimPosition + 40] ^= 0x5A;
        Files.write(segment, damaged);
        final StorageException e = assertThrows(StorageException.class,
            () -> LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock).close(),
            "the only directory goes offline");
        assertTrue(e.getMessage().contains("position=" + victimPosition) && e.getMessage().contains("offset=" + batches)
            && e.getMessage().contains("00000000000000000000.log"), e.getMessage());
        assertTrue(Files.exists(segment) && Files.size(segment) == intact.length, "a refused open changes nothing");
        awaitNoSeglogThreads();
    }

    @Test
    void aDirectoryThatCannotBeWrittenIsNotReportedAsLockedByAnotherProcess() {
        final Path logs = root.resolve("read-only");
        // What a read-only file system answers when the lock file is created (root ignores chmod, so it is injected).
        final FileIO readOnly = new ForwardingFileIO() {
            @Override
            public java.nio.channels.FileChannel open(final Path path,
                                                      final Set<? extends java.nio.file.OpenOption> options)
                throws IOException {
                if (path.getFileName().toString().equals(".lock")) {
                    throw new java.nio.file.AccessDeniedException(path.toString());
                }
                return super.open(path, options);
            }
        };
        final StorageException e = assertThrows(StorageException.class, () -> LogManager.open(
            LogManagerConfig.builder().logDirs(logs).build(), readOnly, new ManualScheduler(clock), clock));
        assertTrue(e.getMessage().contains("read-only file system or no write permission"), e.getMessage());
        assertFalse(e.getMessage().contains("another process"), e.getMessage());
        assertTrue(e.getCause() instanceof java.nio.file.AccessDeniedException, String.valueOf(e.getCause()));
    }
}
