package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.kafka.storage.internals.log.OffsetPosition;
import org.apache.kafka.storage.internals.log.TimestampOffset;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka's own {@code OffsetIndex} and {@code TimeIndex} (kafka-storage 4.4.0) as the oracle: an index written
 * by Seglog opens in Kafka with identical lookups and passes Kafka's sanity check, an index written by Kafka
 * opens in Seglog with identical lookups, and both write the same bytes for the same entries.
 */
class KafkaIndexCompatibilityTest {
    private static final int MAX_INDEX_BYTES = 64 * 1024;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {11L, 12L, 2026L})
    void offsetIndexRoundTripsWithKafka(final long seed) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        final long base = random.nextLong(0, 1L << 40);
        final int count = random.nextInt(1, 3_000);   // the warm tail is 1024 entries: cover both branches
        final long[] offsets = new long[count];
        final int[] positions = new int[count];
        long offset = base + random.nextInt(5);
        for (int i = 0; i < count; i++) {
            offsets[i] = offset;
            positions[i] = i * 4_111;
            offset += random.nextInt(1, 300);
        }
        final Path ours = dir.resolve(String.format("%020d.index", base));
        final Path theirs = dir.resolve("kafka").resolve(String.format("%020d.index", base));
        Files.createDirectories(theirs.getParent());

        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), ours, base, MAX_INDEX_BYTES)) {
            for (int i = 0; i < count; i++) {
                index.append(offsets[i], positions[i]);
            }
        }
        final org.apache.kafka.storage.internals.log.OffsetIndex kafkaWriter =
            new org.apache.kafka.storage.internals.log.OffsetIndex(theirs.toFile(), base, MAX_INDEX_BYTES);
        for (int i = 0; i < count; i++) {
            kafkaWriter.append(offsets[i], positions[i]);
        }
        // Kafka 4.4's close() no longer trims; its log trims on roll and before shutdown.
        kafkaWriter.trimToValidSize();
        kafkaWriter.close();
        assertArrayEquals(Files.readAllBytes(theirs), Files.readAllBytes(ours), "same entries, same bytes");

        final org.apache.kafka.storage.internals.log.OffsetIndex kafkaReadsOurs =
            new org.apache.kafka.storage.internals.log.OffsetIndex(ours.toFile(), base, MAX_INDEX_BYTES);
        try (OffsetIndex oursReadsKafka = OffsetIndex.open(FileIO.system(), theirs, base, MAX_INDEX_BYTES)) {
            kafkaReadsOurs.sanityCheck();
            oursReadsKafka.sanityCheck();
            assertEquals(count, kafkaReadsOurs.entries());
            assertEquals(count, oursReadsKafka.entries());
            assertEquals(kafkaReadsOurs.lastOffset(), oursReadsKafka.lastOffset());
            for (int i = 0; i < count; i++) {
                final OffsetPosition entry = kafkaReadsOurs.entry(i);
                assertEquals(entry.offset(), oursReadsKafka.entryOffset(i), "slot " + i);
                assertEquals(entry.position(), oursReadsKafka.entryPosition(i), "slot " + i);
            }
            final long last = offsets[count - 1];
            for (int i = 0; i < 3_000; i++) {
                final long target = i % 3 == 0 ? offsets[random.nextInt(count)] + random.nextInt(-1, 2)
                    : random.nextLong(base - 3, last + 3);
                final OffsetPosition expected = kafkaReadsOurs.lookup(target);
                assertEquals(expected.offset(), oursReadsKafka.lookupOffset(target), "target=" + target);
                assertEquals(expected.position(), oursReadsKafka.lookupPosition(target), "target=" + target);
                // Upper bound by position; positions off the 4111 grid, where Kafka's search has no tie quirk.
                final int start = random.nextInt(0, positions[count - 1] + 10_000);
                final int size = 1 + random.nextInt(20_000);
                if ((start + size) % 4_111 != 0) {
                    final long kafkaBound = kafkaReadsOurs.fetchUpperBoundOffset(new OffsetPosition(0, start), size)
                        .map(OffsetPosition::offset).orElse(-1L);
                    assertEquals(kafkaBound, oursReadsKafka.upperBoundOffsetForPosition(start + size),
                        "position=" + (start + size));
                }
            }
        } finally {
            kafkaReadsOurs.close();
        }
    }

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {21L, 22L, 2027L})
    void timeIndexRoundTripsWithKafka(final long seed) throws IOException {
        final SplittableRandom random = new SplittableRandom(seed);
        final long base = random.nextLong(0, 1L << 40);
        final int count = random.nextInt(1, 2_000);   // the warm tail is 682 entries
        final long[] timestamps = new long[count];
        final long[] offsets = new long[count];
        long ts = random.nextLong(0, 1L << 41);
        long offset = base;
        for (int i = 0; i < count; i++) {
            timestamps[i] = ts;
            offsets[i] = offset;
            ts += random.nextInt(1, 5_000);
            offset += random.nextInt(0, 100);
        }
        final Path ours = dir.resolve(String.format("%020d.timeindex", base));
        final Path theirs = dir.resolve("kafka").resolve(String.format("%020d.timeindex", base));
        Files.createDirectories(theirs.getParent());

        try (TimeIndex index = TimeIndex.open(FileIO.system(), ours, base, MAX_INDEX_BYTES)) {
            for (int i = 0; i < count; i++) {
                index.maybeAppend(timestamps[i], offsets[i], false);
            }
            index.maybeAppend(timestamps[count - 1], offsets[count - 1], true);   // the roll entry, ignored
        }
        final org.apache.kafka.storage.internals.log.TimeIndex kafkaWriter =
            new org.apache.kafka.storage.internals.log.TimeIndex(theirs.toFile(), base, MAX_INDEX_BYTES);
        for (int i = 0; i < count; i++) {
            kafkaWriter.maybeAppend(timestamps[i], offsets[i], false);
        }
        kafkaWriter.maybeAppend(timestamps[count - 1], offsets[count - 1], true);
        kafkaWriter.trimToValidSize();
        kafkaWriter.close();
        assertArrayEquals(Files.readAllBytes(theirs), Files.readAllBytes(ours), "same entries, same bytes");

        final org.apache.kafka.storage.internals.log.TimeIndex kafkaReadsOurs =
            new org.apache.kafka.storage.internals.log.TimeIndex(ours.toFile(), base, MAX_INDEX_BYTES);
        try (TimeIndex oursReadsKafka = TimeIndex.open(FileIO.system(), theirs, base, MAX_INDEX_BYTES)) {
            kafkaReadsOurs.sanityCheck();
            oursReadsKafka.sanityCheck();
            assertEquals(count, kafkaReadsOurs.entries());
            assertEquals(count, oursReadsKafka.entries());
            assertEquals(kafkaReadsOurs.lastEntry().timestamp(), oursReadsKafka.lastTimestamp());
            assertEquals(kafkaReadsOurs.lastEntry().offset(), oursReadsKafka.lastEntryOffset());
            for (int i = 0; i < count; i++) {
                final TimestampOffset entry = kafkaReadsOurs.entry(i);
                assertEquals(entry.timestamp(), oursReadsKafka.entryTimestamp(i), "slot " + i);
                assertEquals(entry.offset(), oursReadsKafka.entryOffset(i), "slot " + i);
            }
            final long last = timestamps[count - 1];
            for (int i = 0; i < 3_000; i++) {
                final long target = i % 3 == 0 ? timestamps[random.nextInt(count)] + random.nextInt(-1, 2)
                    : random.nextLong(timestamps[0] - 3, last + 3);
                assertEquals(kafkaReadsOurs.lookup(target).offset(), oursReadsKafka.lookupOffset(target),
                    "target=" + target);
            }
        } finally {
            kafkaReadsOurs.close();
        }
    }

    @ParameterizedTest(name = "truncateAt={0}")
    @ValueSource(ints = {0, 1, 5, 9})
    void truncationMatchesKafka(final int truncateSlot) throws IOException {
        final long base = 100;
        final Path ours = dir.resolve("ours.index");
        final Path theirs = dir.resolve("theirs.index");
        final org.apache.kafka.storage.internals.log.OffsetIndex kafka =
            new org.apache.kafka.storage.internals.log.OffsetIndex(theirs.toFile(), base, 800);
        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), ours, base, 800)) {
            for (int i = 0; i < 10; i++) {
                index.append(base + 10L * i + 5, i * 100);
                kafka.append(base + 10L * i + 5, i * 100);
            }
            for (final long target : new long[] {base + 10L * truncateSlot + 5, base + 10L * truncateSlot + 3}) {
                index.truncateTo(target);
                kafka.truncateTo(target);
                assertEquals(kafka.entries(), index.entries(), "truncateTo(" + target + ")");
                assertEquals(kafka.lastOffset(), index.lastOffset(), "truncateTo(" + target + ")");
            }
        } finally {
            kafka.close();
        }
    }
}
