package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.CorruptLogException;
import io.seglog.storage.CorruptionPolicy;
import io.seglog.storage.LogConfig;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The loader's rules beside the crash images: no scan after a clean shutdown, the recovery point's meaning,
 * stray files (ST-06), missing and corrupt leader-epoch checkpoints (RP-05), the corruption policy setting.
 */
class LoaderTest extends ScratchDirTest {
    LoaderTest() {
        super("recovery");
    }

    private LogImage image;

    private LogImage image() throws IOException {
        if (image == null) {
            image = LogImage.build(tmp.resolve("original"), SMALL_SEGMENTS, 7L, 30);
            assertTrue(image.segmentBases.size() >= 3, "segments: " + image.segmentBases);
        }
        return image;
    }

    private static PartitionLog open(final Path dir, final RecoveryOptions options) {
        return open(dir, SMALL_SEGMENTS, options);
    }

    private static PartitionLog open(final Path dir, final LogConfig config, final RecoveryOptions options) {
        return PartitionLog.open(dir, config, FileIO.system(), new ManualClock(1_000), new SplittableRandom(1), options);
    }

    private Path copy(final String name, final Map<String, byte[]> files) throws IOException {
        final Path dir = tmp.resolve(name);
        LogImage.write(files, dir);
        return dir;
    }

    @Test
    void aCleanShutdownReadsNoBatchAndACrashScansFromTheRecoveryPointSegment() throws IOException {
        final LogImage original = image();
        try (PartitionLog log = open(copy("clean", original.files), RecoveryOptions.clean())) {
            final RecoveryReport report = log.recoveryReport();
            assertFalse(report.recovered());
            assertEquals(0, report.segmentsScanned());
            original.assertServes(log, original.logEndOffset(), "clean");
        }
        final long lastBase = original.segmentBases.get(original.segmentBases.size() - 1);
        try (PartitionLog log = open(copy("crash", original.files), RecoveryOptions.afterCrash(lastBase + 1))) {
            assertEquals(1, log.recoveryReport().segmentsScanned(), "only the segment holding the recovery point");
            original.assertServes(log, original.logEndOffset(), "crash");
        }
        try (PartitionLog log = open(copy("verify", original.files),
            RecoveryOptions.afterCrash(lastBase + 1).scanningFrom(0))) {
            assertEquals(original.segmentBases.size(), log.recoveryReport().segmentsScanned());
            assertEquals(Arrays.stream(original.batches.toArray(new LogImage.Batch[0]))
                .mapToLong(b -> b.bytes().length).sum(), log.recoveryReport().bytesScanned());
        }
    }

    @Test
    void aTornTailBelowTheRecoveryPointIsCorruptionNotATornTail() throws IOException {
        final LogImage original = image();
        final long lastBase = original.segmentBases.get(original.segmentBases.size() - 1);
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final String name = LogImage.logName(lastBase);
        final byte[] cut = Arrays.copyOf(files.get(name), files.get(name).length - 5);
        files.put(name, cut);
        // Above the recovery point: truncated and reported.
        try (PartitionLog log = open(copy("torn", files), RecoveryOptions.afterCrash(lastBase))) {
            final RecoveryReport.Truncation t = log.recoveryReport().truncations().get(0);
            assertEquals(RecoveryReport.Reason.TORN_TAIL, t.reason());
            assertEquals(name, t.file().getFileName().toString());
            assertEquals(cut.length - t.position(), t.bytesDropped());
            assertEquals(original.batches.get(original.batches.size() - 1).baseOffset(), log.logEndOffset());
        }
        // The same bytes claimed durable: refused.
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> open(copy("durable", files), RecoveryOptions.afterCrash(original.logEndOffset())));
        assertEquals(name, e.path().getFileName().toString());
        assertTrue(e.getMessage().contains("recovery point"), e.getMessage());
        // Nothing was changed on disk by the refused open.
        assertEquals(cut.length, Files.size(tmp.resolve("durable").resolve(name)));
    }

    @Test
    void aCleanShutdownClaimOverATornTailFailsNamingFileAndPosition() throws IOException {
        final LogImage original = image();
        final long lastBase = original.segmentBases.get(original.segmentBases.size() - 1);
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final String name = LogImage.logName(lastBase);
        files.put(name, Arrays.copyOf(files.get(name), files.get(name).length - 3));
        files.remove(String.format("%020d.index", lastBase));   // forces the header walk of the clean path
        final io.seglog.storage.StorageException e = assertThrows(io.seglog.storage.StorageException.class,
            () -> open(copy("lying-marker", files), RecoveryOptions.clean()));
        assertTrue(e.getMessage().contains(name) && e.getMessage().contains("position="), e.getMessage());
    }

    @Test
    void aFlippedByteFollowedByValidBatchesFailsOrTruncatesPerPolicy() throws IOException {
        final LogImage original = image();
        final LogImage.Batch victim = original.batches.get(original.batches.size() - 3);
        final String name = LogImage.logName(original.segmentBases.get(victim.segment()));
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final byte[] bytes = files.get(name).clone();
        bytes[victim.position() + 40] ^= 1;
        files.put(name, bytes);
        final long recoveryPoint = victim.baseOffset();  // above the recovery point, yet not a torn tail
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> open(copy("fail", files), RecoveryOptions.afterCrash(recoveryPoint)));
        assertEquals("crc", e.field());
        assertEquals(victim.position(), e.position());
        assertEquals(victim.baseOffset(), e.offset());
        assertTrue(e.expected().matches("\\d+") && e.found().matches("\\d+") && !e.expected().equals(e.found()));
        assertTrue(e.getMessage().contains("valid batch follows"), e.getMessage());
        final LogConfig truncating = LogConfig.fromProperties(Map.of("internal.segment.bytes", "1500",
            "index.interval.bytes", "100", "segment.index.bytes", "4096", LogConfig.CORRUPTION_POLICY_CONFIG, "truncate"));
        assertEquals(CorruptionPolicy.TRUNCATE, truncating.corruptionPolicy());
        try (PartitionLog log = open(copy("truncate", files), truncating, RecoveryOptions.afterCrash(recoveryPoint))) {
            original.assertServes(log, victim.baseOffset(), "truncate policy");
            assertEquals(RecoveryReport.Reason.CORRUPTION, log.recoveryReport().truncations().get(0).reason());
            assertTrue(log.recoveryReport().droppedData());
        }
        assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of(LogConfig.CORRUPTION_POLICY_CONFIG, "ignore")));
        assertEquals(CorruptionPolicy.FAIL, LogConfig.defaults().corruptionPolicy());
    }

    @Test
    void strayFilesAreTidiedAndUnknownOnesLeftAlone() throws IOException {
        final LogImage original = image();
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final String first = String.format("%020d", original.segmentBases.get(0));
        final byte[] junk = "junk".getBytes(StandardCharsets.UTF_8);
        files.put(first + ".log.deleted", junk);
        // An index without its log inside the first segment's offsets (a replaced segment's leftover, not a witness
        // of lost data: those are LossWitnessTest's).
        final String inside = String.format("%020d", original.segmentBases.get(0) + 1);
        files.put(inside + ".index", junk);
        files.put(inside + ".timeindex", junk);
        files.put(first + ".index.swap", junk);                   // an index swap: indexes are rebuilt
        files.put("00000000000000000900.log.cleaned", junk);
        files.put("00000000000000000950.log.swap", junk);         // at or above a .cleaned offset: an unfinished split
        files.put("leader-epoch-checkpoint.tmp", junk);
        files.put("notes.txt", junk);
        files.put("12.log", junk);                                 // not a segment name: not a segment either
        files.remove(first + ".timeindex");                        // a missing index on the clean path
        final Path dir = copy("stray", files);
        try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
            original.assertServes(log, original.logEndOffset(), "stray");
            assertTrue(log.recoveryReport().rebuiltIndexes().contains(dir.resolve(first + ".log")));
            assertEquals(7, log.recoveryReport().removedFiles().size(), log.recoveryReport().toString());
        }
        for (final String gone : new String[] {first + ".log.deleted", inside + ".index",
            inside + ".timeindex", first + ".index.swap", "00000000000000000900.log.cleaned",
            "00000000000000000950.log.swap", "leader-epoch-checkpoint.tmp"}) {
            assertFalse(Files.exists(dir.resolve(gone)), gone);
        }
        assertTrue(Files.exists(dir.resolve("notes.txt")));
        assertTrue(Files.exists(dir.resolve("12.log")));
        assertTrue(Files.exists(dir.resolve(first + ".timeindex")));
    }

    @Test
    void aLogSwapReplacesTheSegmentsItCovers() throws IOException {
        final LogImage original = image();
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        // The swap holds exactly the first segment's batches (a compaction that kept everything).
        final String first = String.format("%020d", original.segmentBases.get(0));
        files.put(first + ".log.swap", files.get(first + ".log"));
        files.put(first + ".log", new byte[0]);
        final Path dir = copy("swap", files);
        try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
            original.assertServes(log, original.logEndOffset(), "swap");
        }
        assertFalse(Files.exists(dir.resolve(first + ".log.swap")));
    }

    @Test
    void aMissingOrCorruptEpochCheckpointIsRebuiltFromTheBatches() throws IOException {
        final LogImage original = image();
        for (final String damage : new String[] {"missing", "garbage", "empty"}) {
            final Map<String, byte[]> files = new TreeMap<>(original.files);
            switch (damage) {
                case "missing" -> files.remove("leader-epoch-checkpoint");
                case "garbage" -> files.put("leader-epoch-checkpoint", "0\n9\nx y\n".getBytes(StandardCharsets.UTF_8));
                default -> files.put("leader-epoch-checkpoint", new byte[0]);
            }
            final Path dir = copy("epochs-" + damage, files);
            for (final RecoveryOptions options : new RecoveryOptions[] {RecoveryOptions.clean(),
                RecoveryOptions.afterCrash(original.logEndOffset())}) {
                try (PartitionLog log = open(dir, options)) {
                    original.assertServes(log, original.logEndOffset(), damage + " " + options);
                }
            }
            assertEquals(new String(original.files.get("leader-epoch-checkpoint"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("leader-epoch-checkpoint")), damage + ": rewritten as before");
        }
    }

    @Test
    void anEpochCheckpointThatDisagreesWithTheBatchesIsReported() throws IOException {
        final LogImage original = image();
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final int epoch = original.batches.get(0).epoch();
        files.put("leader-epoch-checkpoint", ("0\n1\n" + (epoch + 100) + " 0\n").getBytes(StandardCharsets.UTF_8));
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> open(copy("disagree", files), RecoveryOptions.afterCrash(0)));
        assertEquals("partitionLeaderEpoch", e.field());
        assertEquals(Integer.toString(epoch + 100), e.expected());
        assertEquals(Integer.toString(epoch), e.found());
    }
}
