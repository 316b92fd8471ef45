package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.CompressionType;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cleaner on a real partition log: what survives, tombstone horizons, reopen, the checkpoint. */
class LogCleanerTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long DELETE_RETENTION_MS = 10_000;

    @TempDir
    Path logDir;

    private final ManualClock clock = new ManualClock(T0);

    /** A record as read back: offset, key, value (null for a tombstone). */
    record Rec(long offset, String key, String value) {
    }

    private LogConfig config() {
        return LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(2048)
            .minCleanableDirtyRatio(0.01).deleteRetentionMs(DELETE_RETENTION_MS).fileDeleteDelayMs(0).build();
    }

    private static ByteBuffer batch(final long ts, final String[] keys, final String[] values) {
        final long[] times = new long[keys.length];
        final byte[][] k = new byte[keys.length][];
        final byte[][] v = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            times[i] = ts + i;
            k[i] = keys[i].getBytes(StandardCharsets.UTF_8);
            v[i] = values[i] == null ? null : values[i].getBytes(StandardCharsets.UTF_8);
        }
        final UnsafeBuffer b = RecordBatchBuilder.batchOf(0, times, k, v);
        return ByteBuffer.wrap(b.byteArray(), 0, b.capacity());
    }

    /** Appends {@code batches} batches of 4 random records (keys k0..k19, 15% tombstones) and models them. */
    private static void appendRandom(final PartitionLog log, final Random random, final int batches,
                                     final long ts, final Map<String, String> model) {
        for (int b = 0; b < batches; b++) {
            final String[] keys = new String[4];
            final String[] values = new String[4];
            for (int i = 0; i < 4; i++) {
                keys[i] = "k" + random.nextInt(20);
                values[i] = random.nextInt(100) < 15 ? null : "v" + random.nextInt(1_000_000);
                model.put(keys[i], values[i]);
            }
            log.appendAsLeader(batch(ts, keys, values), 0);
        }
    }

    /** Every record of every segment file, in offset order. */
    static List<Rec> readAll(final Path partitionDir) throws IOException {
        final List<Path> files;
        try (Stream<Path> s = Files.list(partitionDir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        final List<Rec> out = new ArrayList<>();
        final RecordBatch batch = new RecordBatch();
        final RecordView view = new RecordView();
        try (BatchRecordReader reader = new BatchRecordReader(64 << 20)) {
            for (final Path file : files) {
                final byte[] bytes = Files.readAllBytes(file);
                final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
                int pos = 0;
                while (bytes.length - pos >= 61) {
                    batch.wrap(buffer, pos);
                    if (batch.batchLength() <= 0) {
                        break; // the active segment's mapped, zero-filled tail
                    }
                    assertTrue(batch.isCrcValid(), "crc of batch at " + batch.baseOffset() + " in " + file);
                    reader.open(batch);
                    while (reader.next(view)) {
                        out.add(new Rec(view.offset(), new String(view.keyBytes(), StandardCharsets.UTF_8),
                            view.valueLength() < 0 ? null : new String(view.valueBytes(), StandardCharsets.UTF_8)));
                    }
                    pos += batch.sizeInBytes();
                }
            }
        }
        return out;
    }

    private LogManager openManager() {
        return LogManager.open(LogManagerConfig.builder().logDirs(logDir).logConfig(config())
            .cleanerConfig(new CleanerConfig(false, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0)).build(),
            FileIO.system(), null, clock);
    }

    private LogCleaner cleanerOf(final LogManager manager) throws IOException {
        return new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0).settings(),
            List.of(logDir.toAbsolutePath().normalize()), manager::cleanableLogs, FileIO.system(), clock);
    }

    @Test
    void keepsTheLastRecordOfEachKeyAndTombstonesUntilTheirHorizon() throws IOException {
        final Map<String, String> model = new HashMap<>();
        final Random random = new Random(42);
        final TopicPartition tp = new TopicPartition("t", 0);
        try (LogManager manager = openManager(); LogCleaner cleaner = cleanerOf(manager)) {
            final PartitionLog log = manager.getOrCreate(tp);
            appendRandom(log, random, 120, T0, model);
            log.updateHighWatermark(log.logEndOffset());
            final long end = log.logEndOffset();
            final int segmentsBefore = log.segmentCount();
            assertTrue(cleaner.cleanOnce(), "the log is dirty");
            assertTrue(cleaner.uncleanablePartitions().isEmpty());
            assertTrue(log.segmentCount() <= segmentsBefore, "segments: " + log.segmentCount());
            assertEquals(end, log.logEndOffset());
            final long active = log.segmentBaseOffsets()[log.segmentCount() - 1];
            assertEquals(active, cleaner.checkpointedOffset(logDir.toAbsolutePath().normalize(),
                new PartitionKey(tp.topic(), tp.partition())));
            assertCompactedBelow(readAll(log.dir()), active, model, true);
            // Past the horizon a second round (with something dirty) drops the tombstones.
            clock.advanceMs(DELETE_RETENTION_MS + 1);
            appendRandom(log, random, 30, clock.millis(), new HashMap<>());
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(cleaner.cleanOnce());
            final List<Rec> after = readAll(log.dir());
            for (final Rec r : after) {
                if (r.offset() < active) {
                    assertTrue(r.value() != null, "tombstone past its horizon survived at " + r.offset());
                }
            }
        }
        // Reopen: the cleaned segments recover and read back the same.
        final List<Rec> before = readAll(logDir.resolve("t-0"));
        try (LogManager manager = openManager()) {
            assertEquals(before, readAll(manager.log(tp).orElseThrow().dir()));
        }
    }

    @Test
    void cleansCompressedBatchesKeepingTheirCodec() throws IOException {
        final Map<String, String> model = new HashMap<>();
        final Random random = new Random(7);
        final TopicPartition tp = new TopicPartition("z", 0);
        try (LogManager manager = openManager(); LogCleaner cleaner = cleanerOf(manager);
             RecordBatchBuilder builder = new RecordBatchBuilder()) {
            final PartitionLog log = manager.getOrCreate(tp);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
            for (int b = 0; b < 80; b++) {
                builder.wrap(buffer, 0, buffer.capacity()).compression(CompressionType.LZ4);
                for (int i = 0; i < 4; i++) {
                    final String key = "k" + random.nextInt(12);
                    final String value = random.nextInt(100) < 15 ? null : "v" + random.nextInt(1_000_000);
                    model.put(key, value);
                    builder.appendRecord(T0 + i, key.getBytes(StandardCharsets.UTF_8),
                        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
                }
                log.appendAsLeader(ByteBuffer.wrap(buffer.byteArray(), 0, builder.build()), 0);
            }
            log.updateHighWatermark(log.logEndOffset());
            final List<Rec> before = readAll(log.dir());
            assertTrue(cleaner.cleanOnce(), "the log is dirty");
            assertTrue(cleaner.uncleanablePartitions().isEmpty(), "compressed batches are cleanable");
            final long active = log.segmentBaseOffsets()[log.segmentCount() - 1];
            final List<Rec> after = readAll(log.dir());
            assertTrue(after.size() < before.size(), "records were removed: " + after.size());
            assertCompactedBelow(after, active, model, true);
            // Every batch still carries the codec (empty batches, which have no records, excepted).
            try (Stream<Path> files = Files.list(log.dir())) {
                for (final Path file : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                    final UnsafeBuffer bytes = new UnsafeBuffer(Files.readAllBytes(file));
                    final RecordBatch batch = new RecordBatch();
                    for (int pos = 0; bytes.capacity() - pos >= 61; pos += batch.sizeInBytes()) {
                        batch.wrap(bytes, pos);
                        if (batch.batchLength() <= 0) {
                            break;
                        }
                        if (batch.recordCount() > 0) {
                            assertEquals(CompressionType.LZ4.id(), batch.compressionCodec(), file + " at " + pos);
                        }
                    }
                }
            }
        }
    }

    /** Below {@code bound}: one record per key, the model's last value (tombstones kept when {@code tombstones}). */
    private static void assertCompactedBelow(final List<Rec> records, final long bound,
                                             final Map<String, String> model, final boolean tombstones) {
        final Map<String, Rec> last = new HashMap<>();
        final Set<String> seen = new HashSet<>();
        long previous = -1;
        for (final Rec r : records) {
            assertTrue(r.offset() > previous, "offsets increase: " + r.offset() + " after " + previous);
            previous = r.offset();
            last.put(r.key(), r);
            if (r.offset() < bound) {
                assertTrue(seen.add(r.key()), "key " + r.key() + " twice below " + bound);
            }
        }
        for (final Map.Entry<String, String> e : model.entrySet()) {
            final Rec r = last.get(e.getKey());
            if (e.getValue() == null && !tombstones) {
                assertTrue(r == null || r.value() == null);
            } else {
                assertEquals(e.getValue(), r.value(), "key " + e.getKey());
            }
        }
        assertFalse(records.isEmpty());
    }
}
