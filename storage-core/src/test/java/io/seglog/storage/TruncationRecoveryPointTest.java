package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * From the recovery engineer: a recovery-point checkpoint older than a truncation made a torn tail appended after
 * the truncation read as corruption. Truncating below the recovery point now rewrites the checkpoint with the
 * lowered point, so the crash image recovers by cutting the torn tail.
 */
class TruncationRecoveryPointTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path root;

    @Test
    void aCrashAfterTruncationAndNewAppendsTruncatesTheTornTailInsteadOfFailing() throws IOException {
        final ManualClock clock = new ManualClock(T0);
        final Path logs = root.resolve("logs");
        final Path image = root.resolve("image");
        final TopicPartition tp = new TopicPartition("t", 0);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logs).build();
        final long dataBytes;
        try (LogManager m = LogManager.open(config, FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog log = m.getOrCreate(tp);
            for (int i = 0; i < 6; i++) {
                log.appendAsLeader(batch(0, T0 + i), 0);
            }
            log.flush();
            m.checkpointRecoveryPoints(); // recovery point 6 on disk
            assertEquals(2, log.truncateTo(2));
            assertEquals(2, recoveryPoint(logs, tp), "the truncation lowered the checkpointed recovery point");
            for (int i = 0; i < 3; i++) {
                log.appendAsLeader(batch(0, T0 + 10 + i), 0); // offsets 2, 3, 4, not flushed
            }
            dataBytes = log.segments().get(0).sizeInBytes();
            copyTree(logs, image); // the crash: the files as they are, no clean-shutdown marker
        }
        // The last batch (offset 4) was torn by the crash (cut within its data: the file may run past the data,
        // zeros of the mapped tail).
        final Path segment = image.resolve("t-0").resolve("00000000000000000000.log");
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.truncate(dataBytes - 5);
        }
        final LogManagerConfig crashed = LogManagerConfig.builder().logDirs(image).build();
        try (LogManager m = LogManager.open(crashed, FileIO.system(), new ManualScheduler(clock), clock)) {
            assertFalse(m.isOffline(image), "a torn tail above the recovery point is not corruption");
            final PartitionLog log = m.log(tp).orElseThrow();
            assertTrue(log.recoveryReport().recovered());
            assertEquals(4, log.logEndOffset(), "the torn batch is cut, the whole ones stay");
        }
    }

    private static long recoveryPoint(final Path logDir, final TopicPartition tp) throws IOException {
        return new OffsetCheckpointFile(FileIO.system(), logDir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE))
            .read().get(new PartitionKey(tp.topic(), tp.partition()));
    }

    private static void copyTree(final Path from, final Path to) throws IOException {
        final List<Path> paths;
        try (Stream<Path> walk = Files.walk(from)) {
            paths = walk.toList();
        }
        for (final Path p : paths) {
            final Path target = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
                Files.createDirectories(target);
            } else if (!p.getFileName().toString().endsWith(".lock")) {
                Files.copy(p, target);
            }
        }
    }
}
