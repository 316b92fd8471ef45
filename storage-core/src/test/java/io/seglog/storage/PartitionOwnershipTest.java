package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.dir.LogDirLockChild;
import io.seglog.storage.io.FileIO;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer per partition: every writable open (a standalone {@link PartitionLog}, a {@link LogManager}'s) holds
 * the partition directory's {@code .lock}; a second writer, in this JVM or another process, is refused with
 * {@link LogInUseException} before it reads or changes anything, and nothing acknowledged is lost.
 */
@Timeout(120)
class PartitionOwnershipTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock(T0);

    private PartitionLog open(final Path dir) {
        return PartitionLog.open(dir, LogConfig.defaults(), FileIO.system(), clock);
    }

    @Test
    void aSecondStandaloneOpenIsRefusedAndTheFirstKeepsEveryRecord() {
        final Path dir = root.resolve("orders-0");
        try (PartitionLog first = open(dir)) {
            first.appendAsLeader(batch(0, T0, T0, T0), 0);
            final LogInUseException e = assertThrows(LogInUseException.class, () -> open(dir));
            assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("this process"),
                e.getMessage());
            // Before the fix the second log opened, recovered and appended at offset 0 too.
            first.appendAsLeader(batch(0, T0), 0);
            assertEquals(4, first.logEndOffset());
        }
        try (PartitionLog again = open(dir)) {
            assertEquals(4, again.logEndOffset(), "released by close; nothing lost");
            long offset = 0;
            for (final LogRecord record : Records.of(again, 0, 4)) {
                assertEquals(offset++, record.offset());
            }
            assertEquals(4, offset);
        }
    }

    @Test
    void aStandaloneOpenOfALogManagersPartitionIsRefusedAndTheDirectoryStaysOnline() {
        final Path logs = root.resolve("logs");
        final TopicPartition tp = new TopicPartition("orders", 0);
        try (LogManager manager = LogManager.open(LogManagerConfig.builder().logDirs(logs).build(), FileIO.system(),
            new ManualScheduler(clock), clock)) {
            manager.getOrCreate(tp).appendAsLeader(batch(0, T0, T0), 0);
            assertThrows(LogInUseException.class, () -> open(logs.resolve("orders-0")));
            manager.getOrCreate(tp).appendAsLeader(batch(0, T0), 0);
            assertEquals(3, manager.log(tp).orElseThrow().logEndOffset());
            assertFalse(manager.isOffline(logs), "a refused second writer is not a directory failure");
        }
    }

    @Test
    void aLogManagerDoesNotStartOverAPartitionAStandaloneLogHoldsAndStartsOnceItIsClosed() {
        final Path logs = root.resolve("logs");
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs).build();
        try (LogManager manager = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            manager.getOrCreate(new TopicPartition("orders", 0));
            manager.getOrCreate(new TopicPartition("orders", 1)).appendAsLeader(batch(0, T0), 0);
        } // clean shutdown: the marker is written
        final PartitionLog standalone = open(logs.resolve("orders-0"));
        standalone.appendAsLeader(batch(0, T0), 0);
        final LogInUseException e = assertThrows(LogInUseException.class,
            () -> LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock));
        assertTrue(e.getMessage().contains("orders-0"), e.getMessage());
        standalone.close();
        // The refused manager changed nothing (the marker is still there, no partition was recovered) and
        // released its log directory's lock: a new one opens cleanly and finds both records.
        try (LogManager manager = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            assertTrue(manager.hadCleanShutdown(logs), "the refused start did not consume the marker");
            assertEquals(1, manager.log(new TopicPartition("orders", 0)).orElseThrow().logEndOffset());
            assertEquals(1, manager.log(new TopicPartition("orders", 1)).orElseThrow().logEndOffset());
        }
    }

    @Test
    void aPartitionBeingDeletedCannotBeOpenedBetweenItsCloseAndItsRename() {
        final Path logs = root.resolve("logs");
        final TopicPartition tp = new TopicPartition("orders", 0);
        final java.util.List<Throwable> during = new java.util.ArrayList<>();
        final io.seglog.storage.io.ForwardingFileIO watching = new io.seglog.storage.io.ForwardingFileIO() {
            @Override
            public void atomicMove(final Path source, final Path target) throws IOException {
                if (source.getFileName().toString().equals("orders-0")) {
                    // Another writer tries the partition after the log closed, before the rename.
                    try (PartitionLog intruder = PartitionOwnershipTest.this.open(source)) {
                        during.add(new AssertionError("opened during the deletion: " + intruder.dir()));
                    } catch (final LogInUseException refused) {
                        during.add(refused);
                    }
                }
                super.atomicMove(source, target);
            }
        };
        try (LogManager manager = LogManager.open(LogManagerConfig.builder().logDirs(logs).build(), watching,
            new ManualScheduler(clock), clock)) {
            manager.getOrCreate(tp).appendAsLeader(batch(0, T0), 0);
            assertTrue(manager.delete(tp));
            assertEquals(1, during.size());
            assertTrue(during.get(0) instanceof LogInUseException, during.get(0).toString());
            // Released after the rename: the partition can be created again at once.
            assertEquals(0, manager.getOrCreate(tp).logEndOffset());
        }
    }

    @Test
    void anOpenThatFailsReleasesTheLock() throws IOException {
        final Path dir = root.resolve("bad-0");
        try (PartitionLog log = open(dir)) {
            log.appendAsLeader(batch(0, T0, T0), 0);
            log.appendAsLeader(batch(0, T0, T0), 0);
        }
        final Path file = dir.resolve("00000000000000000000.log");
        final byte[] bytes = Files.readAllBytes(file);
        bytes[65] ^= 0x01; // inside the first batch's records: a CRC mismatch with a valid batch after it
        Files.write(file, bytes);
        assertThrows(CorruptLogException.class, () -> open(dir));
        bytes[65] ^= 0x01;
        Files.write(file, bytes);
        try (PartitionLog log = open(dir)) {
            assertEquals(4, log.logEndOffset(), "the failed open did not keep the lock");
        }
    }

    @Test
    void anotherProcessHoldingThePartitionIsNamed() throws Exception {
        final Path dir = root.resolve("shared-0");
        Files.createDirectories(dir);
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(java, "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), LogDirLockChild.class.getName(), "hold", dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8));
            assertEquals("ACQUIRED " + dir.toAbsolutePath(), out.readLine());
            final LogInUseException e = assertThrows(LogInUseException.class, () -> open(dir));
            assertTrue(e.getMessage().contains("another process"), e.getMessage());
            assertEquals(Set.of(".lock"), Set.of(dir.toFile().list()), "the refused open created nothing");
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not exit");
        }
        try (PartitionLog log = open(dir)) {
            assertEquals(0, log.logEndOffset());
        }
    }
}
