package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Crashes in the middle of a write, followed by a power loss, and randomly mutated files. */
class CheckpointCrashAndFuzzTest {
    private static final Map<PartitionKey, Long> OLD = Map.of(new PartitionKey("a", 0), 10L);
    private static final Map<PartitionKey, Long> NEW = Map.of(new PartitionKey("a", 0), 20L,
        new PartitionKey("b", 1), 30L);

    private static final int FILES = 1500;

    @TempDir
    Path dir;

    /**
     * The process dies at a step of the write protocol (that step and every later I/O fail), then the machine
     * loses every byte not fsynced: a fresh reader sees exactly the old or the new checkpoint.
     */
    @ParameterizedTest
    @EnumSource(value = Op.class, names = {"OPEN", "WRITE", "FORCE", "ATOMIC_MOVE", "FSYNC_DIRECTORY"})
    void crashAtAnyStepThenPowerLossLeavesOldOrNew(final Op crashAt) throws IOException {
        final Path file = dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE);
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(io, file);
        checkpoint.write(OLD);

        for (final Op op : Op.values()) {
            io.failFromCall(op, io.count(op) + (op == crashAt ? 1 : 2));
        }
        try {
            checkpoint.write(NEW);
            fail("the write should have crashed at " + crashAt);
        } catch (final IOException expected) {
            assertTrue(expected.getMessage().contains("injected fault: " + crashAt), expected.getMessage());
        }
        io.loseUnsyncedData();

        final Map<PartitionKey, Long> after = new OffsetCheckpointFile(FileIO.system(), file).read();
        assertEquals(crashAt == Op.FSYNC_DIRECTORY ? NEW : OLD, after, "crash at " + crashAt);
    }

    /** Every byte-level mutation of a valid file reads as valid entries or as a CorruptCheckpointException. */
    @Test
    void mutatedFilesNeverFailWithAnythingButCorruption() throws IOException {
        final long seed = 0xf022L;
        final SplittableRandom random = new SplittableRandom(seed);
        final Path file = dir.resolve("fuzz");
        final byte[] valid = "0\n3\norders 0 1200\norders 1 977\nlogs-x_y.z 12 0\n".getBytes(StandardCharsets.US_ASCII);
        final byte[] alphabet = "0123456789 -\n\r\tabz.\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        final OffsetCheckpointFile checkpoint = new OffsetCheckpointFile(FileIO.system(), file);
        int corrupt = 0;
        int readable = 0;
        for (int i = 0; i < FILES; i++) {
            byte[] content = valid.clone();
            final int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                final int at = random.nextInt(content.length + 1);
                switch (random.nextInt(3)) {
                    case 0 -> {
                        if (at < content.length) {
                            content[at] = alphabet[random.nextInt(alphabet.length)];
                        }
                    }
                    case 1 -> content = java.util.Arrays.copyOf(content, at);
                    default -> {
                        final byte[] longer = new byte[content.length + 1];
                        System.arraycopy(content, 0, longer, 0, at);
                        longer[at] = alphabet[random.nextInt(alphabet.length)];
                        System.arraycopy(content, at, longer, at + 1, content.length - at);
                        content = longer;
                    }
                }
            }
            Files.write(file, content);
            try {
                final Map<PartitionKey, Long> offsets = checkpoint.read();
                assertTrue(offsets.size() <= 3 || content.length == 0,
                    "seed=" + seed + " iteration=" + i + " read " + offsets);
                readable++;
            } catch (final CorruptCheckpointException e) {
                assertEquals(file.toAbsolutePath(), e.file(), "seed=" + seed + " iteration=" + i);
                corrupt++;
            }
        }
        System.out.println("checkpoint fuzz: seed=" + seed + " files=" + FILES + " corrupt=" + corrupt
            + " readable=" + readable);
        assertTrue(corrupt > FILES * 2 / 3,
            "most mutations must be detected: corrupt=" + corrupt + " readable=" + readable);
    }
}
