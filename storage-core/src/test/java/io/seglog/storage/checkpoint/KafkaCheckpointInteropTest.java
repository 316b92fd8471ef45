package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka 4.4.0's own checkpoint classes read the files we write and we read theirs, with identical bytes
 * for identical content.
 */
class KafkaCheckpointInteropTest {
    private static final long SEED = 0x5eed_c4ecL;

    @TempDir
    Path dir;

    private static Map<PartitionKey, Long> randomOffsets(final SplittableRandom random, final int count) {
        final Map<PartitionKey, Long> offsets = new LinkedHashMap<>();
        final String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
        while (offsets.size() < count) {
            final StringBuilder topic = new StringBuilder();
            final int length = 1 + random.nextInt(random.nextInt(10) == 0 ? 249 : 20);
            for (int i = 0; i < length; i++) {
                topic.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            if (topic.toString().equals(".") || topic.toString().equals("..")) {
                continue;
            }
            final long offset = random.nextInt(4) == 0 ? Long.MAX_VALUE - random.nextInt(3)
                : random.nextLong(0, 1L << 40);
            offsets.put(new PartitionKey(topic.toString(), random.nextInt(0, Integer.MAX_VALUE)), offset);
        }
        return offsets;
    }

    private static Map<org.apache.kafka.common.TopicPartition, Long> toKafka(final Map<PartitionKey, Long> ours) {
        final Map<org.apache.kafka.common.TopicPartition, Long> theirs = new HashMap<>();
        ours.forEach((tp, offset) -> theirs.put(
            new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()), offset));
        return theirs;
    }

    @Test
    void kafkaReadsOurOffsetCheckpointAndWeReadTheirs() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 20; round++) {
            final Map<PartitionKey, Long> offsets = randomOffsets(random, round == 0 ? 0 : 1 + random.nextInt(50));
            final Path oursFile = dir.resolve("ours-" + round);
            final Path theirsFile = dir.resolve("theirs-" + round);

            new OffsetCheckpointFile(FileIO.system(), oursFile).write(offsets);
            final var kafkaOnOurs = new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(
                oursFile.toFile(), new LogDirFailureChannel(1));
            assertEquals(toKafka(offsets), kafkaOnOurs.read(), "seed=" + SEED + " round=" + round);

            final var kafka = new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(
                theirsFile.toFile(), new LogDirFailureChannel(1));
            kafka.write(toKafka(offsets));
            assertEquals(offsets, new OffsetCheckpointFile(FileIO.system(), theirsFile).read(),
                "seed=" + SEED + " round=" + round);

            // Same content: Kafka writes in hash-map order, we sort, so compare the sorted lines.
            assertEquals(sortedLines(theirsFile), sortedLines(oursFile), "seed=" + SEED + " round=" + round);
        }
    }

    @Test
    void identicalBytesForASinglePartition() throws IOException {
        final Map<PartitionKey, Long> offsets = Map.of(new PartitionKey("orders", 3), 1200L);
        final Path ours = dir.resolve(OffsetCheckpointFile.REPLICATION_FILE);
        final Path theirs = dir.resolve("kafka-" + OffsetCheckpointFile.REPLICATION_FILE);
        new OffsetCheckpointFile(FileIO.system(), ours).write(offsets);
        new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(theirs.toFile(),
            new LogDirFailureChannel(1)).write(toKafka(offsets));
        assertArrayEquals(Files.readAllBytes(theirs), Files.readAllBytes(ours));
        assertEquals("0\n1\norders 3 1200\n", Files.readString(ours));
    }

    @Test
    void weReadTheEmptyFileKafkaCreatesOnConstruction() throws IOException {
        final Path file = dir.resolve(OffsetCheckpointFile.LOG_START_FILE);
        new org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile(file.toFile(),
            new LogDirFailureChannel(1));
        assertEquals(0, Files.size(file));
        assertEquals(Map.of(), new OffsetCheckpointFile(FileIO.system(), file).read());
    }

    @Test
    void kafkaReadsOurLeaderEpochCheckpointAndWeReadTheirs() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 20; round++) {
            final List<EpochEntry> ours = new ArrayList<>();
            int epoch = random.nextInt(3);
            long offset = random.nextInt(3);
            final int count = round == 0 ? 0 : 1 + random.nextInt(30);
            for (int i = 0; i < count; i++) {
                ours.add(new EpochEntry(epoch, offset));
                epoch += 1 + random.nextInt(random.nextInt(10) == 0 ? 1_000_000 : 3);
                offset += 1 + random.nextLong(random.nextInt(10) == 0 ? 1L << 50 : 1000);
            }
            final List<org.apache.kafka.storage.internals.log.EpochEntry> theirs = new ArrayList<>();
            ours.forEach(e -> theirs.add(
                new org.apache.kafka.storage.internals.log.EpochEntry(e.epoch(), e.startOffset())));

            final Path oursFile = dir.resolve("ours-epoch-" + round);
            final Path theirsFile = dir.resolve("theirs-epoch-" + round);
            new LeaderEpochCheckpointFile(FileIO.system(), oursFile).write(ours);
            final var kafka = new org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile(
                theirsFile.toFile(), new LogDirFailureChannel(1));
            kafka.write(theirs);

            assertEquals(theirs, new org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile(
                oursFile.toFile(), new LogDirFailureChannel(1)).read(), "seed=" + SEED + " round=" + round);
            assertEquals(ours, new LeaderEpochCheckpointFile(FileIO.system(), theirsFile).read(),
                "seed=" + SEED + " round=" + round);
            assertArrayEquals(Files.readAllBytes(theirsFile), Files.readAllBytes(oursFile),
                "seed=" + SEED + " round=" + round);
        }
    }

    private static List<String> sortedLines(final Path file) throws IOException {
        final List<String> lines = new ArrayList<>(Files.readAllLines(file));
        lines.subList(2, lines.size()).sort(null);
        return lines;
    }
}
