package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last stable offset against Kafka 4.4's {@code UnifiedLog} and against its definition: the same transactional
 * batches, markers and plain batches appended as a follower would to both logs, the same high watermarks, truncations
 * and reopens; after every step ours is the definition's, and Kafka's until a truncation (see {@code truncated}).
 */
class LastStableOffsetOracleTest {
    @TempDir
    Path dir;
    private KafkaScheduler scheduler;
    private UnifiedLog kafka;
    private PartitionLog ours;
    private final Uuid topicId = Uuid.randomUuid();

    @BeforeEach
    void start() {
        scheduler = new KafkaScheduler(1);
        scheduler.startup();
    }

    @AfterEach
    void stop() throws Exception {
        if (ours != null) {
            ours.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        scheduler.shutdown();
    }

    private UnifiedLog openKafka() throws Exception {
        // segment.bytes small enough that the runs roll segments (and take producer snapshots at the rolls).
        return UnifiedLog.create(dir.resolve("kafka-0").toFile(), new org.apache.kafka.storage.internals.log.LogConfig(
                Map.of("segment.bytes", "1048576")), 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM, 300_000,
            new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
            Optional.of(topicId));
    }

    private PartitionLog openOurs() {
        return PartitionLog.open(dir.resolve("ours-0"), LogConfig.builder().segmentBytes(1_048_576).build(),
            FileIO.system(), InstantSource.system());
    }

    @Test
    void theSameStepsGiveTheSameLastStableOffset() throws Exception {
        for (long seed = 1; seed <= 12; seed++) {
            kafka = openKafka();
            ours = openOurs();
            run(seed);
            ours.close();
            ours = null;
            kafka.close();
            kafka = null;
            deleteAll(dir.toFile());
        }
    }

    private void run(final long seed) throws Exception {
        final SplittableRandom r = new SplittableRandom(seed);
        final int producers = 1 + r.nextInt(4);
        final Map<Long, Integer> sequences = new TreeMap<>();
        final Map<Long, Boolean> open = new TreeMap<>();
        // What was appended: {base offset, producer id (-1 plain), first sequence, count, 1 for a marker}.
        final java.util.List<long[]> history = new java.util.ArrayList<>();
        long next = 0;
        long highWatermark = 0;
        int changes = 0;
        // After a follower's truncation above the HW Kafka's reload, from a snapshot it took at an earlier truncation,
        // can forget a transaction completed above the HW (it assumes the HW is at the log end) and report an LSO
        // above that transaction's first offset: from the first truncation on, ours is checked against the model.
        boolean truncated = false;
        for (int step = 0; step < 300; step++) {
            final int what = r.nextInt(10);
            final long pid = 100 + r.nextInt(producers);
            final String at = "seed " + seed + " step " + step;
            if (what < 4) { // a transactional batch
                final int count = 1 + r.nextInt(3);
                final int seq = sequences.getOrDefault(pid, 0);
                append(MemoryRecords.withTransactionalRecords(next, Compression.NONE, pid, (short) 0, seq, 0,
                    records(count)));
                sequences.put(pid, seq + count);
                open.put(pid, true);
                history.add(new long[] {next, pid, seq, count, 0});
                next += count;
            } else if (what < 6 && open.getOrDefault(pid, false)) { // its marker
                final ControlRecordType type = r.nextBoolean() ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
                append(MemoryRecords.withEndTransactionMarker(next, System.currentTimeMillis(), 0, pid, (short) 0,
                    new EndTransactionMarker(type, 3)));
                open.put(pid, false);
                history.add(new long[] {next, pid, -1, 1, 1});
                next += 1;
            } else if (what < 7) { // a plain batch
                final int count = 1 + r.nextInt(3);
                append(MemoryRecords.withRecords(next, Compression.NONE, 0, records(count)));
                history.add(new long[] {next, -1, -1, count, 0});
                next += count;
            } else if (what < 9) { // the high watermark moves
                highWatermark = highWatermark + r.nextLong(0, next - highWatermark + 1);
                kafka.updateHighWatermark(highWatermark);
                ours.updateHighWatermark(highWatermark);
            } else if (r.nextInt(4) == 0 && !history.isEmpty()
                && history.get(history.size() - 1)[0] >= highWatermark) {
                // A follower's truncation above the HW, to a batch boundary (as to a leader's epoch end: a cut inside
                // a batch removes the batch, and Kafka then reports the target as its end, not the data's).
                final long hw = highWatermark;
                final java.util.List<long[]> above = history.stream().filter(b -> b[0] >= hw).toList();
                final long to = above.get(r.nextInt(above.size()))[0];
                kafka.truncateTo(to);
                ours.truncateTo(to);
                truncated = true;
                next = to;
                // Sequences and open transactions as the truncated log has them: rebuilt from what remains.
                // A follower learns the HW again with its next fetch. Kafka's reload puts the transactions completed
                // below the HW back among its unreplicated ones until that update (its LSO is stale meanwhile);
                // ours is computed from the HW at each read, so it never is.
                kafka.updateHighWatermark(highWatermark);
                ours.updateHighWatermark(highWatermark);
                history.removeIf(b -> b[0] >= to);
                sequences.clear();
                open.clear();
                for (final long[] b : history) {
                    if (b[1] >= 0) {
                        open.put(b[1], b[4] == 0);
                        if (b[4] == 0) {
                            sequences.put(b[1], (int) (b[2] + b[3]));
                        }
                    }
                }
            }
            assertEquals(kafka.logEndOffset(), ours.logEndOffset(), at);
            assertEquals(kafka.highWatermark(), ours.highWatermark(), at);
            if (ours.lastStableOffset() != ours.highWatermark()) {
                changes++;
            }
            final long expected = modelLastStableOffset(history, highWatermark);
            assertEquals(expected, ours.lastStableOffset(), at + ": LSO, by the model");
            if (!truncated) {
                assertEquals(kafka.lastStableOffset(), ours.lastStableOffset(), at + ": LSO, as Kafka's");
            }
        }
        assertTrue(changes > 0, "seed " + seed + ": a transaction held the LSO below the HW at some step");
        // Reopened (a clean shutdown: the producer snapshot carries the open transactions), the same LSO.
        ours.close();
        ours = openOurs();
        kafka.close();
        kafka = openKafka();
        kafka.updateHighWatermark(highWatermark);
        ours.updateHighWatermark(highWatermark);
        assertEquals(modelLastStableOffset(history, highWatermark), ours.lastStableOffset(),
            "seed " + seed + " after reopen");
        if (!truncated) {
            assertEquals(kafka.lastStableOffset(), ours.lastStableOffset(), "seed " + seed + " after reopen, as Kafka");
        }
    }

    /**
     * The LSO by definition: the first offset of the earliest transaction open, or completed with a marker not below
     * the high watermark, capped at the high watermark.
     */
    private static long modelLastStableOffset(final java.util.List<long[]> history, final long highWatermark) {
        final Map<Long, Long> open = new TreeMap<>();
        long lso = highWatermark;
        for (final long[] b : history) {
            if (b[1] < 0) {
                continue;
            }
            if (b[4] == 0) {
                open.putIfAbsent(b[1], b[0]);
            } else {
                final Long first = open.remove(b[1]);
                if (first != null && b[0] >= highWatermark) {
                    lso = Math.min(lso, first);
                }
            }
        }
        for (final long first : open.values()) {
            lso = Math.min(lso, first);
        }
        return lso;
    }

    private void append(final MemoryRecords records) {
        final ByteBuffer ourCopy = ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer().duplicate()).flip();
        kafka.appendAsFollower(records, 0);
        ours.appendAsFollower(ourCopy);
    }

    private static SimpleRecord[] records(final int count) {
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, ("v" + i).getBytes());
        }
        return records;
    }

    private static void deleteAll(final File f) {
        final File[] children = f.listFiles();
        if (children != null) {
            for (final File c : children) {
                deleteAll(c);
            }
        }
        if (!f.equals(f.getAbsoluteFile().getParentFile())) {
            f.delete();
        }
    }
}
