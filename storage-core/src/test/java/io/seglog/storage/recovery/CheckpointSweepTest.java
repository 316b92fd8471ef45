package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.CorruptionPolicy;
import io.seglog.storage.LogConfig;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.StorageException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every byte of a partition's {@code leader-epoch-checkpoint} flipped (XOR 0x01 and 0xFF), the log opened after a
 * clean shutdown and after a crash, writable and read-only: the leader epochs are those of the batches (the
 * checkpoint's, or rebuilt from the batches and reported), every batch reads back, or the open is refused naming
 * a file; never a wrong epoch or offset, never an unclear exception. {@code -Dseglog.sweep.stride=N} samples every
 * N-th byte.
 */
class CheckpointSweepTest extends ScratchDirTest {
    private static final int STRIDE = Integer.getInteger("seglog.sweep.stride", 1);
    private static final String CHECKPOINT = "leader-epoch-checkpoint";

    CheckpointSweepTest() {
        super("checkpoint");
    }

    /** One damaged image: a flipped byte of the checkpoint, and the options it is opened with. */
    private record Flip(String context, Map<String, byte[]> files, RecoveryOptions options) {
    }

    /** Every byte (at the stride) XOR 0x01 and 0xFF, each opened after a clean shutdown and after a crash. */
    private static List<Flip> flips(final LogImage image, final byte[] checkpoint, final long end) {
        final List<Flip> flips = new java.util.ArrayList<>();
        for (int at = 0; at < checkpoint.length; at += STRIDE) {
            for (final int mask : new int[] {0x01, 0xFF}) {
                final byte[] damaged = checkpoint.clone();
                damaged[at] ^= (byte) mask;
                final Map<String, byte[]> files = new TreeMap<>(image.files);
                files.put(CHECKPOINT, damaged);
                for (final RecoveryOptions options : new RecoveryOptions[] {
                    new RecoveryOptions(true, end, Long.MAX_VALUE), RecoveryOptions.afterCrash(0)}) {
                    flips.add(new Flip(CHECKPOINT + " byte " + at + " ^ 0x" + Integer.toHexString(mask)
                        + (options.hadCleanShutdown() ? ", clean" : ", after a crash"), files, options));
                }
            }
        }
        return flips;
    }

    @Test
    @Timeout(300)
    void everyFlippedEpochCheckpointByteGivesTheBatchesEpochsOrIsRefused() throws IOException {
        final LogImage image = LogImage.build(tmp.resolve("original"), SMALL_SEGMENTS, 91L, 80);
        final byte[] checkpoint = image.files.get(CHECKPOINT);
        assertNotNull(checkpoint);
        assertTrue(checkpoint.length > 10, new String(checkpoint, java.nio.charset.StandardCharsets.US_ASCII));
        final long end = image.logEndOffset();
        int images = 0;
        int rebuilt = 0;
        int refused = 0;
        final java.util.Set<String> servedUnderFail = new java.util.HashSet<>();
        for (final Flip flip : flips(image, checkpoint, end)) {
            final Map<String, byte[]> files = flip.files();
            final RecoveryOptions options = flip.options();
            final Path dir = tmp.resolve("epochs-" + images++);
            LogImage.write(files, dir);
            final String context = flip.context();
            boolean readOnlyOpened = false;
            try (PartitionLog readOnly = PartitionLog.openReadOnly(dir, SMALL_SEGMENTS, FileIO.system(),
                new ManualClock(1_000), options)) {
                image.assertServes(readOnly, end, context + ", read-only");
                readOnlyOpened = true;
            } catch (final StorageException e) {
                assertNotNull(e.path(), context + ", read-only: the error names no file: " + e);
            } catch (final RuntimeException e) {
                fail(context + ", read-only: an unclear exception: " + e, e);
            }
            LogImage.assertHolds(files, dir, context + ", read-only");
            try (PartitionLog log = PartitionLog.open(dir, SMALL_SEGMENTS, FileIO.system(),
                new ManualClock(1_000), new SplittableRandom(1), options)) {
                image.assertServes(log, end, context);
                assertTrue(readOnlyOpened, context + ": served writable, refused read-only");
                servedUnderFail.add(context);
                if (log.recoveryReport().epochsRebuilt()) {
                    rebuilt++;
                }
            } catch (final StorageException e) {
                refused++;
                assertFalse(readOnlyOpened, context + ": refused writable, served read-only");
                assertNotNull(e.path(), context + ": the error names no file: " + e);
            } catch (final RuntimeException e) {
                fail(context + ": an unclear exception: " + e, e);
            }
            FastDirs.deleteTree(dir);
        }
        // Under the truncate policy a disagreement cuts the log there (the checkpoint is kept), reported.
        final LogConfig truncate = SMALL_SEGMENTS.toBuilder().corruptionPolicy(CorruptionPolicy.TRUNCATE).build();
        int truncateImages = 0;
        int cut = 0;
        for (final Flip flip : flips(image, checkpoint, end)) {
            final Map<String, byte[]> files = flip.files();
            final RecoveryOptions options = flip.options();
            final Path dir = tmp.resolve("truncate-" + truncateImages++);
            LogImage.write(files, dir);
            final String context = flip.context() + ", truncate policy";
            final String failContext = context.replace(", truncate policy", "");
            long readOnlyEnd = -1;
            try (PartitionLog readOnly = PartitionLog.openReadOnly(dir, truncate, FileIO.system(),
                new ManualClock(1_000), options)) {
                image.assertServes(readOnly, readOnly.logEndOffset(), context + ", read-only");
                readOnlyEnd = readOnly.logEndOffset();
            } catch (final RuntimeException e) {
                fail(context + ", read-only: " + e, e);
            }
            LogImage.assertHolds(files, dir, context + ", read-only");
            try (PartitionLog log = PartitionLog.open(dir, truncate, FileIO.system(), new ManualClock(1_000),
                new SplittableRandom(1), options)) {
                assertEquals(readOnlyEnd, log.logEndOffset(), context + ": read-only and writable ends");
                if (servedUnderFail.contains(failContext)) {
                    assertEquals(end, log.logEndOffset(), context + ": served whole under fail, cut here");
                }
                // Served as it was, or cut where the batches disagree with the checkpoint and reported:
                // what is left reads back with the right epochs either way.
                image.assertServes(log, log.logEndOffset(), context);
                if (log.logEndOffset() < end) {
                    cut++;
                    assertTrue(log.recoveryReport().droppedData(), context + ": " + log.recoveryReport());
                    // Each cut is reported (a second pass may cut lower); the log ends at the lowest.
                    final List<RecoveryReport.Truncation> cuts = log.recoveryReport().truncations();
                    assertTrue(cuts.stream().allMatch(t -> t.reason() == RecoveryReport.Reason.CORRUPTION),
                        context + ": " + cuts);
                    assertEquals(log.logEndOffset(), cuts.stream().mapToLong(RecoveryReport.Truncation::offset)
                        .min().orElseThrow(), context + ": " + cuts);
                }
            } catch (final RuntimeException e) {
                fail(context + ": " + e, e);
            }
            FastDirs.deleteTree(dir);
        }
        assertTrue(rebuilt > 0 && refused > 0 && cut > 0,
            "every outcome occurs: rebuilt=" + rebuilt + " refused=" + refused + " cut=" + cut);
        System.out.printf("CheckpointSweepTest: %d epoch-checkpoint images (stride %d), %d rebuilt from the batches,"
            + " %d refused naming a file; under the truncate policy %d images, %d cut where the batches disagree;"
            + " 0 wrong epochs, 0 unclear exceptions%n", images, STRIDE, rebuilt, refused, truncateImages, cut);
    }
}
