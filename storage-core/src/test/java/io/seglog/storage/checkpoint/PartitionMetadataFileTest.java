package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicId;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code partition.metadata} against Kafka 4.4.0's own {@code PartitionMetadataFile}: Kafka reads the files we write
 * and we read the files Kafka writes, byte for byte the same; malformed files are refused naming file and line.
 */
class PartitionMetadataFileTest {
    private static final long SEED = 0x70_91c1dL;

    @TempDir
    Path dir;

    private static Uuid kafka(final TopicId id) {
        return new Uuid(id.mostSignificantBits(), id.leastSignificantBits());
    }

    @Test
    void kafkaReadsOursAndWeReadKafkasWithTheSameBytes() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 50; round++) {
            final TopicId id = TopicId.random(random);
            final Path ours = Files.createDirectories(dir.resolve("ours-" + round));
            final Path theirs = Files.createDirectories(dir.resolve("theirs-" + round));

            assertEquals(PartitionMetadataFile.Outcome.WRITTEN, PartitionMetadataFile.open(FileIO.system(), ours, true).assign(id.toUuid()));
            final var kafkaOnOurs = new org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile(
                ours.resolve(PartitionMetadataFile.FILE_NAME).toFile(), new LogDirFailureChannel(1));
            assertEquals(kafka(id), kafkaOnOurs.read().topicId(), "seed=" + SEED + " round=" + round);

            final var kafkaFile = new org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile(
                theirs.resolve(PartitionMetadataFile.FILE_NAME).toFile(), new LogDirFailureChannel(1));
            kafkaFile.record(kafka(id));
            kafkaFile.maybeFlush();
            assertEquals(Optional.of(id.toUuid()), PartitionMetadataFile.open(FileIO.system(), theirs, false).topicId(),
                "seed=" + SEED + " round=" + round);

            assertArrayEquals(Files.readAllBytes(theirs.resolve(PartitionMetadataFile.FILE_NAME)),
                Files.readAllBytes(ours.resolve(PartitionMetadataFile.FILE_NAME)), "seed=" + SEED + " round=" + round);
        }
    }

    @Test
    void topicIdTextIsKafkasUuidText() {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 1_000; i++) {
            final TopicId id = TopicId.random(random);
            final Uuid uuid = kafka(id);
            assertEquals(uuid.toString(), id.toString());
            assertEquals(id, TopicId.fromString(uuid.toString()));
            assertFalse(Uuid.RESERVED.contains(uuid), "a reserved id: " + id);
            assertFalse(id.toString().startsWith("-"), id.toString());
            // Version 4, variant 2, as java.util.UUID.randomUUID (and so Kafka's randomUuid) makes them.
            assertEquals(4, new java.util.UUID(id.mostSignificantBits(), id.leastSignificantBits()).version());
        }
        assertEquals(Uuid.ZERO_UUID.toString(), TopicId.ZERO.toString());
        assertEquals(Uuid.METADATA_TOPIC_ID.toString(), TopicId.ONE.toString());
        assertThrows(IllegalArgumentException.class, () -> TopicId.fromString("AAAA"));
        assertThrows(IllegalArgumentException.class, () -> TopicId.fromString("not base64 at all!!!!!"));
    }

    @Test
    void assigningTheSameIdIsIdempotentAndAnotherIdIsAConflict() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        final UUID first = TopicId.random(random).toUuid();
        final UUID second = TopicId.random(random).toUuid();
        final PartitionMetadataFile file = PartitionMetadataFile.open(FileIO.system(), dir, true);
        assertEquals(Optional.empty(), file.topicId());
        assertEquals(PartitionMetadataFile.Outcome.WRITTEN, file.assign(first));
        assertEquals(PartitionMetadataFile.Outcome.ALREADY_HELD, file.assign(first));
        assertEquals(PartitionMetadataFile.Outcome.CONFLICT, file.assign(second));
        assertEquals(Optional.of(first), file.topicId());
        assertEquals(Optional.of(first), PartitionMetadataFile.open(FileIO.system(), dir, true).topicId());
        assertThrows(IllegalArgumentException.class, () -> file.assign(TopicId.ZERO.toUuid()));
        assertThrows(IllegalArgumentException.class, () -> file.assign(TopicId.ONE.toUuid()));
        assertFalse(Files.exists(dir.resolve(PartitionMetadataFile.FILE_NAME + ".tmp")));
        final PartitionMetadataFile readOnly = PartitionMetadataFile.open(FileIO.system(),
            Files.createDirectories(dir.resolve("empty")), false);
        assertThrows(IllegalStateException.class, () -> readOnly.assign(first));
    }

    @Test
    void readsATerminatedFileAndALaterVersionAsKafkaDoes() throws IOException {
        final TopicId id = TopicId.random(new SplittableRandom(SEED));
        write("version: 0\ntopic_id: " + id + "\n");
        assertEquals(Optional.of(id.toUuid()), PartitionMetadataFile.open(FileIO.system(), dir, false).topicId());
        write("version:  0\r\ntopic_id:\t" + id + "\r\n");
        assertEquals(Optional.of(id.toUuid()), PartitionMetadataFile.open(FileIO.system(), dir, false).topicId());
        write("version: 1\ntopic_id: " + id + "\nsomething: new\n");
        assertEquals(Optional.of(id.toUuid()), PartitionMetadataFile.open(FileIO.system(), dir, false).topicId());
    }

    @Test
    void refusesMalformedFilesNamingFileAndLine() throws IOException {
        final TopicId id = TopicId.random(new SplittableRandom(SEED));
        assertCorrupt("", 1, "expected 'version: ...'");
        assertCorrupt("versions: 0\ntopic_id: " + id, 1, "expected 'version: ...'");
        assertCorrupt("version:0\ntopic_id: " + id, 1, "expected 'version: ...'");
        assertCorrupt("version: x\ntopic_id: " + id, 1, "not a decimal int");
        assertCorrupt("version: -1\ntopic_id: " + id, 1, "must be >= 0");
        assertCorrupt("version: 0\n", 2, "expected 'topic_id: ...'");
        assertCorrupt("version: 0", 2, "missing");
        assertCorrupt("version: 0\ntopic_id: AAAA", 2, "decodes to 3 bytes");
        assertCorrupt("version: 0\ntopic_id: " + TopicId.ZERO, 2, "zero id");
        assertCorrupt("version: 0\ntopic_id: " + id + "\nmore", 3, "after the topic_id line");
        assertCorrupt("version: 0\ntopic_id: " + id + "\n".repeat(2_000), 0, "exceeds");
    }

    private void write(final String content) throws IOException {
        Files.writeString(dir.resolve(PartitionMetadataFile.FILE_NAME), content, StandardCharsets.UTF_8);
    }

    private void assertCorrupt(final String content, final int line, final String reason) throws IOException {
        write(content);
        final CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
            () -> PartitionMetadataFile.open(FileIO.system(), dir, false));
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertEquals(dir.resolve(PartitionMetadataFile.FILE_NAME), e.file());
        assertTrue(e.getMessage().contains(reason) && e.getMessage().contains(PartitionMetadataFile.FILE_NAME),
            e.getMessage());
    }
}
