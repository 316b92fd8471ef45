package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link PartitionLog#topicId()} and {@link PartitionLog#assignTopicId}: written once, kept across reopens. */
class PartitionTopicIdTest {
    private static final LogConfig CONFIG = LogConfig.builder().segmentBytes(4_096).build();
    private static final long T0 = 1_700_000_000_000L;
    private final SplittableRandom random = new SplittableRandom(0x1d5L);
    private final ManualClock clock = new ManualClock(T0);

    @TempDir
    Path dir;

    @Test
    void reopenKeepsTheIdAndAnotherIdIsRefused() {
        final TopicId id = TopicId.random(random);
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            assertEquals(Optional.empty(), log.topicId());
            log.appendAsLeader(batch(0, T0), 0);
            assertTrue(log.assignTopicId(id));
            assertFalse(log.assignTopicId(id));
            assertEquals(Optional.of(id), log.topicId());
        }
        final TopicId other = TopicId.random(random);
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            assertEquals(Optional.of(id), log.topicId());
            assertEquals(1, log.logEndOffset());
            final InconsistentTopicIdException e = assertThrows(InconsistentTopicIdException.class,
                () -> log.assignTopicId(other));
            assertTrue(e.getMessage().contains(id.toString()) && e.getMessage().contains(other.toString())
                && e.getMessage().contains(dir.toString()), e.getMessage());
            assertEquals(Optional.of(id), log.topicId());
            log.appendAsLeader(batch(0, T0), 0); // the refusal did not take the log offline
        }
        try (PartitionLog log = PartitionLog.openReadOnly(dir, CONFIG, FileIO.system(), clock)) {
            assertEquals(Optional.of(id), log.topicId());
            assertFalse(log.assignTopicId(id));
            assertThrows(IllegalStateException.class, () -> log.assignTopicId(other));
        }
    }

    @Test
    void opensADirectoryWhoseIdKafkaWrote() {
        final Uuid uuid = Uuid.randomUuid();
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            log.appendAsLeader(batch(0, T0), 0);
        }
        final var kafka = new org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile(
            dir.resolve("partition.metadata").toFile(), new LogDirFailureChannel(1));
        kafka.record(uuid);
        kafka.maybeFlush();
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            assertEquals(uuid.toString(), log.topicId().orElseThrow().toString());
        }
    }

    @Test
    void aMalformedFileFailsTheOpenNamingFileAndLine() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            log.appendAsLeader(batch(0, T0), 0);
        }
        Files.writeString(dir.resolve("partition.metadata"), "version: 0\ntopic_id: nonsense");
        final StorageException e = assertThrows(StorageException.class,
            () -> PartitionLog.open(dir, CONFIG, FileIO.system(), clock));
        assertTrue(e.getMessage().contains("partition.metadata at line 2"), e.getMessage());
        assertEquals(dir.resolve("partition.metadata"), e.path());
        // The failed open released the directory: a repaired file opens.
        Files.delete(dir.resolve("partition.metadata"));
        try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), clock)) {
            assertEquals(Optional.empty(), log.topicId());
        }
    }
}
