package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.ManualClock;
import io.seglog.storage.OffsetOutOfRangeException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.LeaderEpochEntry;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A closed, seeded partition log held in memory (every file's bytes) with its batches as the oracle: tests
 * cut, corrupt or extend copies of its files, reopen them and compare what the log serves with the oracle.
 */
final class LogImage {
    /** One batch of the original log. */
    record Batch(int segment, int position, long baseOffset, long lastOffset, int epoch, byte[] bytes) {
    }

    final Map<String, byte[]> files;
    final List<Long> segmentBases;
    final List<Batch> batches;

    private LogImage(final Map<String, byte[]> files, final List<Long> segmentBases, final List<Batch> batches) {
        this.files = files;
        this.segmentBases = segmentBases;
        this.batches = batches;
    }

    /**
     * Appends {@code count} seeded batches (1-4 random records, the leader epoch rising now and then) to a new
     * log in {@code dir}, closes it and captures its files.
     */
    static LogImage build(final Path dir, final LogConfig config, final long seed, final int count) throws IOException {
        return build(dir, config, seed, count, false);
    }

    /** As {@link #build(Path, LogConfig, long, int)}; {@code small} records carry 1-8 value bytes and no key. */
    static LogImage build(final Path dir, final LogConfig config, final long seed, final int count,
                          final boolean small) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        int epoch = random.nextInt(3);
        try (PartitionLog log = PartitionLog.open(dir, config, FileIO.system(), new ManualClock(1_000))) {
            for (int b = 0; b < count; b++) {
                final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(4)];
                for (int r = 0; r < records.length; r++) {
                    records[r] = small
                        ? new SimpleRecord(7_000_000 + b * 50L + random.nextInt(100), null, new byte[1 + random.nextInt(8)])
                        : KafkaBatches.randomRecord(random, 7_000_000 + b * 50L);
                }
                if (random.nextInt(8) == 0) {
                    epoch += 1 + random.nextInt(2);
                }
                log.appendAsLeader(KafkaBatches.batch(0, records), epoch);
            }
        }
        return capture(dir);
    }

    static LogImage capture(final Path dir) throws IOException {
        final Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (final Path file : (Iterable<Path>) list::iterator) {
                files.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        final List<Long> bases = new ArrayList<>();
        final List<Batch> batches = new ArrayList<>();
        for (final Map.Entry<String, byte[]> e : files.entrySet()) {
            if (!e.getKey().endsWith(".log")) {
                continue;
            }
            bases.add(Long.parseLong(e.getKey().substring(0, 20)));
            final ByteBuffer data = ByteBuffer.wrap(e.getValue());
            for (int p = 0; p < data.limit(); ) {
                final int size = data.getInt(p + 8) + 12;
                final long base = data.getLong(p);
                final long last = base + data.getInt(p + 23);
                final byte[] bytes = new byte[size];
                data.get(p, bytes);
                batches.add(new Batch(bases.size() - 1, p, base, last, data.getInt(p + 12), bytes));
                p += size;
            }
        }
        return new LogImage(files, bases, batches);
    }

    static String logName(final long base) {
        return String.format("%020d.log", base);
    }

    /** Writes every file of the image (or the given replacement map) into an empty directory. */
    static void write(final Map<String, byte[]> files, final Path dir) throws IOException {
        Files.createDirectories(dir);
        for (final Map.Entry<String, byte[]> e : files.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
    }

    /** Asserts that the directory holds exactly {@code files}, byte for byte (a read-only open changed nothing). */
    static void assertHolds(final Map<String, byte[]> files, final Path dir, final String context) throws IOException {
        final Map<String, byte[]> found = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (final Path p : (Iterable<Path>) list::iterator) {
                found.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        assertEquals(files.keySet(), found.keySet(), context + ": file names");
        for (final Map.Entry<String, byte[]> e : files.entrySet()) {
            assertArrayEquals(e.getValue(), found.get(e.getKey()), context + ": " + e.getKey() + " changed");
        }
    }

    long logEndOffset() {
        return batches.get(batches.size() - 1).lastOffset() + 1;
    }

    /**
     * Asserts the log serves exactly the oracle's batches below {@code expectedEnd} (byte-identical, each read at
     * its base and last offset), that its end is {@code expectedEnd} and nothing at or past it is visible, and
     * that its leader epochs are those of the surviving batches.
     */
    void assertServes(final PartitionLog log, final long expectedEnd, final String context) throws IOException {
        assertEquals(expectedEnd, log.logEndOffset(), context + ": log end offset");
        final List<LeaderEpochEntry> epochs = new ArrayList<>();
        for (final Batch batch : batches) {
            if (batch.lastOffset() >= expectedEnd) {
                break;
            }
            for (final long at : new long[] {batch.baseOffset(), batch.lastOffset()}) {
                final LogSlice slice = log.read(at, 1, Long.MAX_VALUE, true);
                assertEquals(batch.baseOffset(), slice.firstOffset(), context + ": first offset read at " + at);
                final ByteBuffer read = KafkaBatches.bytesOf(slice);
                assertArrayEquals(batch.bytes(), toArray(read), context + ": bytes of the batch at " + batch.baseOffset());
            }
            if (epochs.isEmpty() || epochs.get(epochs.size() - 1).epoch() != batch.epoch()) {
                epochs.add(new LeaderEpochEntry(batch.epoch(), batch.baseOffset()));
            }
        }
        assertTrue(log.read(expectedEnd, 1_000_000, Long.MAX_VALUE, true).isEmpty(), context + ": read at the end");
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(expectedEnd + 1, 100, Long.MAX_VALUE, true),
            context + ": read past the end");
        assertEquals(epochs, log.leaderEpochs(), context + ": leader epochs");
    }

    private static byte[] toArray(final ByteBuffer buffer) {
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
