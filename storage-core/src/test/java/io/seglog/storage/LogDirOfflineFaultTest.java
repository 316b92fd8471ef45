package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.checkpoint.CleanShutdownFile;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.function.Executable;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault injection at every write, fsync, directory fsync, rename and map (segment tails, indexes) that a LogManager scenario makes in one of
 * two log directories (sweeping N over every such call): the directory goes offline, nothing is acknowledged
 * durable after the failure, every later call on its partition fails naming the directory, the failed fsync is
 * not retried, the other directory keeps working, and only it gets a clean-shutdown marker.
 */
class LogDirOfflineFaultTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final Op[] SWEPT = {Op.WRITE, Op.FORCE, Op.FSYNC_DIRECTORY, Op.ATOMIC_MOVE, Op.MAP};

    @TempDir
    Path fallback;

    /** On tmpfs when the machine has one: the sweep makes thousands of fsyncs; the logic is the same. */
    private Path root;

    @BeforeEach
    void createRoot() throws IOException {
        final Path shm = Paths.get("/dev/shm");
        root = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "offline-sweep")
            : fallback;
    }

    @AfterEach
    void deleteRoot() throws IOException {
        if (!root.equals(fallback)) {
            try (Stream<Path> walk = Files.walk(root)) {
                for (final Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Sends calls on paths under {@code faultyRoot} to the fault injector, others to the real file system. */
    private static final class RoutingFileIO implements FileIO {
        private final Path faultyRoot;
        private final FaultInjectingFileIO faulty;

        RoutingFileIO(final Path faultyRoot, final FaultInjectingFileIO faulty) {
            this.faultyRoot = faultyRoot.toAbsolutePath().normalize();
            this.faulty = faulty;
        }

        private FileIO route(final Path path) {
            return path.toAbsolutePath().normalize().startsWith(faultyRoot) ? faulty : FileIO.system();
        }

        @Override
        public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
            return route(path).open(path, options);
        }

        @Override
        public void fsyncDirectory(final Path directory) throws IOException {
            route(directory).fsyncDirectory(directory);
        }

        @Override
        public void atomicMove(final Path source, final Path target) throws IOException {
            route(source).atomicMove(source, target);
        }

        @Override
        public boolean deleteIfExists(final Path path) throws IOException {
            return route(path).deleteIfExists(path);
        }

        @Override
        public void createDirectories(final Path directory) throws IOException {
            route(directory).createDirectories(directory);
        }
    }

    /** One run of the scenario, with a fault armed (or none, {@code op == null}). */
    private final class Run {
        final Path dirA;
        final Path dirB;
        final FaultInjectingFileIO faulty = new FaultInjectingFileIO();
        final ManualClock clock = new ManualClock(T0);
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final List<CompletableFuture<Long>> futures = new ArrayList<>();
        final List<String> lateAcks = new ArrayList<>();
        final Map<Op, Integer> callsAtArm = new EnumMap<>(Op.class);
        LogManager manager;
        PartitionLog a;
        StorageException thrown;

        Run(final String name) {
            dirA = root.resolve(name).resolve("a");
            dirB = root.resolve(name).resolve("b");
        }

        boolean faultFired() {
            return faulty.journal().stream().anyMatch(l -> l.endsWith(" FAILED"));
        }

        void run(final Op op, final int nth) {
            final LogConfig config = LogConfig.builder().segmentBytes(2 * batch(0, T0).remaining())
                .segmentIndexBytes(4096).fileDeleteDelayMs(1_000).build();
            final LogManagerConfig managerConfig = LogManagerConfig.builder().logDirs(dirA, dirB).logConfig(config)
                .recoveryPointCheckpointIntervalMs(10_000).logStartCheckpointIntervalMs(10_000)
                .highWatermarkCheckpointIntervalMs(5_000).build();
            manager = LogManager.open(managerConfig, new RoutingFileIO(dirA, faulty), scheduler, clock);
            for (final Op o : Op.values()) {
                callsAtArm.put(o, faulty.count(o));
            }
            if (op != null) {
                faulty.failOnCall(op, callsAtArm.get(op) + nth);
            }
            try {
                a = manager.getOrCreate(new TopicPartition("a", 0)); // the first, least-loaded dir: A
                for (int i = 0; i < 5; i++) {
                    final long offset = a.appendAsLeader(batch(0, T0 + i), 0);
                    final CompletableFuture<Long> f = a.awaitDurable(offset);
                    f.thenRun(() -> {
                        if (faultFired()) {
                            lateAcks.add("offset " + offset + " acknowledged durable after the fault");
                        }
                    });
                    futures.add(f);
                    if (i % 2 == 1) {
                        scheduler.runDue(); // group-commit flush
                    }
                }
                scheduler.runDue();
                a.updateHighWatermark(a.logEndOffset());
                a.deleteRecordsBefore(2); // renames segment files .deleted
                scheduler.advanceMs(10_000); // checkpoints and the delayed unlink
                a.appendAsLeader(batch(0, T0 + 9), 0);
                a.flush();
            } catch (final StorageException e) {
                thrown = e;
            }
        }
    }

    private Map<Op, Integer> dryRun() {
        final Run run = new Run("dry");
        run.run(null, 0);
        assertTrue(run.thrown == null, () -> "the scenario runs cleanly without faults: " + run.thrown);
        for (final CompletableFuture<Long> f : run.futures) {
            assertTrue(f.isDone() && !f.isCompletedExceptionally());
        }
        run.manager.close();
        assertTrue(Files.exists(run.dirA.resolve(CleanShutdownFile.FILE_NAME)));
        final Map<Op, Integer> counts = new EnumMap<>(Op.class);
        for (final Op op : SWEPT) {
            counts.put(op, run.faulty.count(op) - run.callsAtArm.get(op));
        }
        return counts;
    }

    @Test
    void everyWriteFsyncAndRenameFailureTakesOnlyItsDirectoryOffline() throws IOException {
        final Map<Op, Integer> counts = dryRun();
        System.out.println("fault sweep: calls per kind in the scenario (dir A, after open) = " + counts);
        int runs = 0;
        for (final Op op : SWEPT) {
            assertTrue(counts.get(op) > 0, "the scenario makes " + op + " calls");
            for (int n = 1; n <= counts.get(op); n++) {
                final Run run = new Run(op + "-" + n);
                run.run(op, n);
                if (run.faultFired()) {
                    check(run, op + " #" + n);
                } else {
                    checkFaultAtClose(run, op + " #" + n);
                }
                runs++;
            }
        }
        System.out.println("fault sweep: " + runs + " runs, each failing one call");
    }

    private void check(final Run run, final String what) throws IOException {
        final LogManager m = run.manager;
        assertTrue(m.isOffline(run.dirA), what + ": dir A offline");
        assertFalse(m.isOffline(run.dirB), what + ": dir B online");
        assertEquals(List.of(), run.lateAcks, what);
        for (final CompletableFuture<Long> f : run.futures) {
            assertTrue(f.isDone(), what + ": every durable wait is resolved (acknowledged before, or failed)");
        }
        if (run.a != null) {
            final PartitionLog a = run.a;
            final String dirA = run.dirA.toAbsolutePath().normalize().toString();
            for (final Executable call : List.<Executable>of(
                () -> a.appendAsLeader(batch(0, T0), 0),
                () -> a.read(a.logStartOffset(), 1000, Long.MAX_VALUE, true),
                a::flush,
                () -> a.awaitDurable(0),
                a::deleteOldSegments,
                () -> a.updateHighWatermark(0),
                () -> a.offsetForTimestamp(T0))) {
                final StorageException e = assertThrows(StorageException.class, call, what);
                assertTrue(e.getMessage().contains(dirA) && e.getMessage().contains("offline"),
                    what + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("injected fault"), what + ": names the first failure: "
                    + e.getMessage());
            }
        }
        assertNoSyncRetried(run, what);

        // The other directory keeps working.
        final PartitionLog b = m.getOrCreate(new TopicPartition("b", 0));
        assertTrue(b.dir().startsWith(run.dirB.toAbsolutePath().normalize()), what);
        final long offset = b.appendAsLeader(batch(0, T0), 0);
        final CompletableFuture<Long> durable = b.awaitDurable(offset);
        run.scheduler.runDue();
        assertEquals(offset + 1, durable.join(), what);
        assertEquals(batch(0, T0).remaining(), b.read(offset, 1000, Long.MAX_VALUE, true).sizeInBytes(), what);

        try {
            m.close();
        } catch (final StorageException e) {
            // a close that also fails is allowed; the marker rule below is what matters
        }
        assertFalse(Files.exists(run.dirA.resolve(CleanShutdownFile.FILE_NAME)), what + ": no marker in A");
        assertTrue(Files.exists(run.dirB.resolve(CleanShutdownFile.FILE_NAME)), what + ": marker in B");
    }

    /** The call that fails is one of close's (checkpoints, marker): close reports it and A gets no marker. */
    private static void checkFaultAtClose(final Run run, final String what) {
        assertEquals(null, run.thrown, what);
        final StorageException e = assertThrows(StorageException.class, run.manager::close, what);
        assertTrue(run.faultFired(), what + " fired during close");
        assertTrue(e.getMessage().contains("injected fault") || String.valueOf(e.getCause()).contains("injected"),
            what + ": " + e);
        assertTrue(run.manager.isOffline(run.dirA), what);
        assertFalse(Files.exists(run.dirA.resolve(CleanShutdownFile.FILE_NAME)), what + ": no marker in A");
        assertTrue(Files.exists(run.dirB.resolve(CleanShutdownFile.FILE_NAME)), what + ": marker in B");
        assertNoSyncRetried(run, what);
    }

    /** After a failed fsync of a file or directory, that same target is never fsynced again. */
    private static void assertNoSyncRetried(final Run run, final String what) {
        final List<String> journal = run.faulty.journal();
        int failedAt = -1;
        for (int i = 0; i < journal.size(); i++) {
            if (journal.get(i).endsWith(" FAILED")) {
                failedAt = i;
                break;
            }
        }
        final String failed = journal.get(failedAt);
        if (!failed.startsWith("FORCE ") && !failed.startsWith("FSYNC_DIRECTORY ")) {
            return;
        }
        final String target = failed.substring(0, failed.length() - " FAILED".length());
        for (int i = failedAt + 1; i < journal.size(); i++) {
            if (journal.get(i).equals(target)) {
                fail(what + ": retried " + target + " after it failed (journal entry " + i + "): " + journal);
            }
        }
    }
}
