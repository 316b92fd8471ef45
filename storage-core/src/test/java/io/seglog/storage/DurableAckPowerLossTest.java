package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.CleanShutdownFile;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acknowledgement is a promise (FS-1, ST-13, ST-16): four appenders wait for durability through a
 * LogManager on its default scheduler while the Nth fsync fails. Afterwards the flushed offset is frozen, no
 * future reports more than it, and after a simulated power loss (every file cut to its last fsynced length)
 * and crash recovery every acknowledged offset reads back with the record that was acknowledged.
 */
class DurableAckPowerLossTest {
    private static final int THREADS = 4;
    private static final int APPENDS_PER_THREAD = 60;

    @TempDir
    Path root;

    @Test
    @Timeout(120)
    void everyAcknowledgedOffsetSurvivesAFsyncFailureAndPowerLoss() throws Exception {
        for (final int nth : new int[] {3, 17, 40}) {
            runTrial(nth);
        }
    }

    private void runTrial(final int nth) throws Exception {
        final Path logs = root.resolve("trial-" + nth);
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LogConfig config = LogConfig.builder().segmentBytes(20 * batch(0, 0).remaining())
            .segmentIndexBytes(4096).build();
        final LogManagerConfig managerConfig = LogManagerConfig.builder().logDirs(logs).logConfig(config).build();
        final TopicPartition tp = new TopicPartition("acks", 0);
        final Map<Long, Long> acked = new ConcurrentHashMap<>(); // offset -> timestamp of its record
        final List<Long> ackValues = new CopyOnWriteArrayList<>();
        final List<Throwable> unexpected = new CopyOnWriteArrayList<>();
        final LogManager manager = LogManager.open(managerConfig, io, null, java.time.InstantSource.system());
        final PartitionLog log = manager.getOrCreate(tp);
        io.failOnCall(Op.FORCE, io.count(Op.FORCE) + nth);
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            final Thread thread = new Thread(() -> {
                for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                    final long ts = 1_000_000L * (id + 1) + i;
                    try {
                        final long offset = log.appendAsLeader(batch(0, ts), 0);
                        final long durable = log.awaitDurable(offset).get(30, TimeUnit.SECONDS);
                        ackValues.add(durable);
                        acked.put(offset, ts);
                    } catch (final StorageException | ExecutionException e) {
                        return; // the directory went offline: this appender stops
                    } catch (final InterruptedException | TimeoutException | RuntimeException e) {
                        unexpected.add(e);
                        return;
                    }
                }
            }, "appender-" + id);
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads) {
            thread.join(60_000);
            assertFalse(thread.isAlive(), thread.getName());
        }
        assertTrue(unexpected.isEmpty(), () -> "unexpected: " + unexpected);
        assertTrue(manager.isOffline(logs), "nth=" + nth + ": the fsync failure took the directory offline");
        final long frozen = log.flushedOffset();
        for (final long value : ackValues) {
            assertTrue(value <= frozen, "an acknowledgement (" + value + ") beyond the frozen flushed offset " + frozen);
        }
        for (final long offset : acked.keySet()) {
            assertTrue(offset < frozen, "acknowledged offset " + offset + " is below the flushed offset " + frozen);
        }
        assertThrows(StorageException.class, () -> log.awaitDurable(0));
        manager.close(); // the offline directory was reported already; close skips it and writes no marker
        assertFalse(java.nio.file.Files.exists(logs.resolve(
            CleanShutdownFile.FILE_NAME)), "no clean-shutdown marker");
        assertEquals(frozen, log.flushedOffset(), "nothing more became durable");

        io.loseUnsyncedData(); // power loss: unsynced bytes vanish
        try (LogManager reopened = LogManager.open(managerConfig, FileIO.system(), new ManualScheduler(
            new ManualClock(0)), java.time.InstantSource.system())) {
            assertFalse(reopened.hadCleanShutdown(logs));
            final PartitionLog recovered = reopened.log(tp).orElseThrow();
            assertTrue(recovered.logEndOffset() >= frozen, "nth=" + nth + ": recovered end "
                + recovered.logEndOffset() + " keeps every flushed offset " + frozen);
            for (final Map.Entry<Long, Long> e : acked.entrySet()) {
                final ByteBuffer bytes = bytesOf(recovered.read(e.getKey(), 1 << 16, e.getKey() + 1, true));
                final var batches = KafkaBatches.batches(bytes);
                assertEquals(e.getKey(), batches.get(0).baseOffset());
                assertEquals(e.getValue(), batches.get(0).maxTimestamp(),
                    "nth=" + nth + ": offset " + e.getKey() + " reads back the acknowledged record");
            }
            System.out.printf("power loss after fsync #%d failed: %d offsets acknowledged durable, flushed=%d,"
                + " recovered end=%d, all read back%n", nth, acked.size(), frozen, recovered.logEndOffset());
        }
    }
}
