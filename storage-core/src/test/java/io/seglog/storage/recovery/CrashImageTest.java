package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ST-01/ST-02/ST-16: synthesised crash images. Seeded logs of several segments are cut at a byte beyond the
 * durable point (inside the offset/length prefix, the header or the records of a batch, or at a batch
 * boundary), in the last segment or an earlier one (later segments then dropped or kept, as a power loss
 * without ordering may leave them), with nothing, zeros or garbage appended; the stale index files stay. Each
 * image is reopened after a crash with the durable point as recovery point: every batch below the cut reads
 * back byte-identical, nothing past it is visible, the leader epochs are those of the surviving batches, and
 * no exception is thrown. {@code -Dseglog.crash.images=N} runs N images (default 1,200). Every other image is
 * opened with its CRCs verified on a second thread as well ({@code RecoveryOptions.verifyingOn}).
 */
class CrashImageTest extends ScratchDirTest {
    private static final long SEED = 0x5E610CL;
    private static final int IMAGES = Integer.getInteger("seglog.crash.images", 1_200);
    /** Three layouts: tiny segments with dense indexes, medium, and a sparse index. */
    private static final LogConfig[] LAYOUTS = {
        SMALL_SEGMENTS,
        LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(4_000).indexIntervalBytes(300).segmentIndexBytes(8192).build(),
        LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(3_000).indexIntervalBytes(4096).segmentIndexBytes(1024).build(),
    };

    CrashImageTest() {
        super("crash-images");
    }

    private ExecutorService verifyPool;

    @BeforeEach
    void startVerifyPool() {
        verifyPool = Executors.newFixedThreadPool(1);
    }

    @AfterEach
    void stopVerifyPool() throws InterruptedException {
        verifyPool.shutdown();
        assertTrue(verifyPool.awaitTermination(10, TimeUnit.SECONDS), "verify thread ends");
    }

    @Test
    @Timeout(300)
    void everyDurableRecordSurvivesEveryCrashImage() throws IOException {
        final List<LogImage> originals = new ArrayList<>();
        for (int l = 0; l < LAYOUTS.length; l++) {
            originals.add(LogImage.build(tmp.resolve("original-" + l), LAYOUTS[l], SEED + l, 40 + 10 * l));
            assertTrue(originals.get(l).segmentBases.size() >= 3, "layout " + l + " needs several segments");
        }
        final SplittableRandom random = new SplittableRandom(SEED);
        int tornTails = 0;
        int deletedSegments = 0;
        long maxRecoveryNs = 0;
        for (int i = 0; i < IMAGES; i++) {
            final long imageSeed = random.nextLong();
            final int layout = i % LAYOUTS.length;
            final Path dir = tmp.resolve("image-" + i);
            final Image image = makeImage(originals.get(layout), new SplittableRandom(imageSeed));
            LogImage.write(image.files, dir);
            final String context = "image " + i + " (seed " + imageSeed + ", layout " + layout + ", " + image.what + ")";
            // Every other image verifies its CRCs on a second thread too: the outcome must not differ.
            final RecoveryOptions options = i % 2 == 0 ? image.options : image.options.verifyingOn(verifyPool, 1);
            // Read-only first: it ends where recovery will cut, serves the same batches, and changes no byte.
            try (PartitionLog readOnly = PartitionLog.openReadOnly(dir, LAYOUTS[layout], FileIO.system(),
                new ManualClock(1_000), options)) {
                originals.get(layout).assertServes(readOnly, image.expectedEnd, context + ", read-only");
                for (final RecoveryReport.Truncation t : readOnly.recoveryReport().truncations()) {
                    assertEquals(RecoveryReport.Reason.TORN_TAIL, t.reason(), context + ", read-only: " + t);
                }
            } catch (final RuntimeException | AssertionError e) {
                throw new AssertionError(context + ", read-only: " + e, e);
            }
            LogImage.assertHolds(image.files, dir, context + ", read-only");
            final long start = System.nanoTime();
            try (PartitionLog log = PartitionLog.open(dir, LAYOUTS[layout], FileIO.system(), new ManualClock(1_000),
                new SplittableRandom(1), options)) {
                maxRecoveryNs = Math.max(maxRecoveryNs, System.nanoTime() - start);
                originals.get(layout).assertServes(log, image.expectedEnd, context);
                final RecoveryReport report = log.recoveryReport();
                assertTrue(report.recovered(), context);
                tornTails += report.truncations().size();
                deletedSegments += report.deletedSegments().size();
                for (final RecoveryReport.Truncation t : report.truncations()) {
                    assertEquals(RecoveryReport.Reason.TORN_TAIL, t.reason(), context + ": " + t);
                }
            } catch (final RuntimeException | AssertionError e) {
                throw new AssertionError(context + ": " + e, e);
            }
            FastDirs.deleteTree(dir);
        }
        assertTrue(tornTails > IMAGES / 2, "most images have a torn tail to truncate: " + tornTails);
        System.out.printf("CrashImageTest: %d images over %d layouts, torn tails truncated=%d, segments deleted=%d,"
            + " max recovery=%.1f ms%n", IMAGES, LAYOUTS.length, tornTails, deletedSegments, maxRecoveryNs / 1e6);
    }

    /** A damaged copy of the files, the options to reopen with and the log end expected after recovery. */
    private record Image(Map<String, byte[]> files, RecoveryOptions options, long expectedEnd, String what) {
    }

    private static Image makeImage(final LogImage original, final SplittableRandom random) {
        final List<LogImage.Batch> batches = original.batches;
        // The durable point: a batch boundary; everything below it was fsynced.
        final int durableBatch = random.nextInt(batches.size() + 1);
        final long recoveryPoint = durableBatch == batches.size()
            ? original.logEndOffset() : batches.get(durableBatch).baseOffset();
        // The cut: inside or at the start of a batch at or after the durable point.
        final int cutBatch = durableBatch + random.nextInt(batches.size() - durableBatch + 1);
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        if (cutBatch == batches.size()) {
            // No cut: an image with only garbage after the end of the last segment (or nothing at all).
            final long lastBase = original.segmentBases.get(original.segmentBases.size() - 1);
            final String name = LogImage.logName(lastBase);
            final byte[] tail = tail(random);
            files.put(name, concat(files.get(name), tail));
            return new Image(files, options(random, recoveryPoint), original.logEndOffset(),
                "no cut, tail of " + tail.length + " bytes");
        }
        final LogImage.Batch victim = batches.get(cutBatch);
        final int within;
        final String where;
        switch (random.nextInt(4)) {
            case 0 -> {
                within = 0;
                where = "at a batch boundary";
            }
            case 1 -> {
                within = 1 + random.nextInt(11);
                where = "inside the offset/length prefix";
            }
            case 2 -> {
                within = 12 + random.nextInt(49);
                where = "inside the header";
            }
            default -> {
                within = 61 + random.nextInt(victim.bytes().length - 61);
                where = "inside the records";
            }
        }
        final long segmentBase = original.segmentBases.get(victim.segment());
        final String name = LogImage.logName(segmentBase);
        final byte[] tail = tail(random);
        files.put(name, concat(Arrays.copyOf(files.get(name), victim.position() + within), tail));
        final boolean keepLater = random.nextBoolean();
        if (!keepLater) {
            for (int s = victim.segment() + 1; s < original.segmentBases.size(); s++) {
                final String stem = String.format("%020d", original.segmentBases.get(s));
                files.remove(stem + ".log");
                files.remove(stem + ".index");
                files.remove(stem + ".timeindex");
            }
        }
        if (random.nextInt(10) == 0) {
            files.remove("leader-epoch-checkpoint");
        }
        return new Image(files, options(random, recoveryPoint), survivingEnd(original, files), "cut " + where + " of the batch at offset "
            + victim.baseOffset() + " (segment " + victim.segment() + "), tail " + tail.length + " bytes, later segments "
            + (keepLater ? "kept" : "dropped") + ", recovery point " + recoveryPoint);
    }

    /**
     * The oracle: the end of the longest prefix of the original batches still present byte for byte at their
     * positions (a tail of zeros can restore a cut batch whose last bytes were zeros). A segment with any bytes
     * past its intact batches was truncated, so nothing after it survives (Kafka's rule).
     */
    private static long survivingEnd(final LogImage original, final Map<String, byte[]> files) {
        long end = original.batches.get(0).baseOffset();
        int segment = 0;
        int intactBytes = 0;
        for (final LogImage.Batch batch : original.batches) {
            final byte[] file = files.get(LogImage.logName(original.segmentBases.get(batch.segment())));
            if (batch.segment() != segment) {
                final byte[] previous = files.get(LogImage.logName(original.segmentBases.get(segment)));
                if (previous.length != intactBytes || file == null) {
                    return end;
                }
                segment = batch.segment();
                intactBytes = 0;
            }
            if (file == null || file.length < batch.position() + batch.bytes().length
                || !Arrays.equals(file, batch.position(), batch.position() + batch.bytes().length, batch.bytes(), 0,
                    batch.bytes().length)) {
                return end;
            }
            end = batch.lastOffset() + 1;
            intactBytes = batch.position() + batch.bytes().length;
        }
        return end;
    }

    private static RecoveryOptions options(final SplittableRandom random, final long recoveryPoint) {
        final RecoveryOptions crash = RecoveryOptions.afterCrash(recoveryPoint);
        return random.nextInt(4) == 0 ? crash.scanningFrom(0) : crash;
    }

    /** Nothing, zeros (a length persisted before its data) or random garbage. */
    private static byte[] tail(final SplittableRandom random) {
        final int kind = random.nextInt(3);
        if (kind == 0) {
            return new byte[0];
        }
        final byte[] tail = new byte[1 + random.nextInt(kind == 1 ? 4096 : 300)];
        if (kind == 2) {
            random.nextBytes(tail);
        }
        return tail;
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
