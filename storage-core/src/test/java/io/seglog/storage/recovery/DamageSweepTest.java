package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.CorruptLogException;
import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogRecord;
import io.seglog.storage.LogSlice;
import io.seglog.storage.ManualClock;
import io.seglog.storage.OffsetOutOfRangeException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.Records;
import io.seglog.storage.StorageException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Damage that a clean open does not scan for, answered by the log: every byte of every index file flipped (XOR 0x01
 * and 0xFF), every segment file deleted one at a time, and every {@code .log} cut at every offset-index entry's
 * position. The log opens after a clean shutdown (so no recovery scan runs) and every offset is read and every
 * timestamp searched against an oracle. Each outcome must be "correct" (every answer equals the oracle's),
 * "refused" (an error that names the file) or, for a lost first segment, the out-of-range answer below the data
 * that is left; never a wrong answer, never an unclear exception. {@code -Dseglog.sweep.stride=N} samples every
 * N-th index byte (default 1: all of them).
 */
class DamageSweepTest extends ScratchDirTest {
    private static final int STRIDE = Integer.getInteger("seglog.sweep.stride", 1);
    /** Every N-th bit of each batch's base offset is flipped; {@code -Dseglog.sweep.bitStride=1} flips all 64. */
    private static final int BIT_STRIDE = Integer.getInteger("seglog.sweep.bitStride", 3);
    private static final LogConfig CONFIG = LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(600)
        .indexIntervalBytes(60).segmentIndexBytes(1024).build();

    DamageSweepTest() {
        super("damage");
    }

    /** What the undamaged log answers, computed by walking every record, not through any index. */
    private record Oracle(LogImage image, long end, TreeMap<Long, Long> firstOffsetAtOrAfterTimestamp,
                          List<Long> targets, LogConfig config) {
        long offsetForTimestamp(final long target) {
            final Map.Entry<Long, Long> e = firstOffsetAtOrAfterTimestamp.ceilingEntry(target);
            return e == null ? -1 : e.getValue();
        }
    }

    private Oracle oracle() throws IOException {
        return oracle(CONFIG, "original");
    }

    private Oracle oracle(final LogConfig config, final String name) throws IOException {
        final LogImage image = LogImage.build(tmp.resolve(name), config, 77L, 60, true);
        assertTrue(image.segmentBases.size() >= 3, "several segments: " + image.segmentBases);
        final TreeMap<Long, Long> first = new TreeMap<>();
        final TreeSet<Long> targets = new TreeSet<>();
        try (PartitionLog log = open(config, tmp.resolve(name), RecoveryOptions.afterCrash(0))) {
            // For each timestamp, the first offset whose record timestamp is at least it: walk backwards.
            final List<LogRecord> records = new ArrayList<>();
            Records.of(log, 0, log.logEndOffset()).forEach(records::add);
            long minSuffixOffset = -1;
            final TreeMap<Long, Long> byTimestamp = new TreeMap<>();
            for (final LogRecord r : records) {
                byTimestamp.merge(r.timestamp(), r.offset(), Math::min);
                targets.add(r.timestamp());
                targets.add(r.timestamp() + 1);
            }
            // first offset at or after ts = min offset over records with timestamp >= ts
            for (final Map.Entry<Long, Long> e : byTimestamp.descendingMap().entrySet()) {
                minSuffixOffset = minSuffixOffset < 0 ? e.getValue() : Math.min(minSuffixOffset, e.getValue());
                first.put(e.getKey(), minSuffixOffset);
            }
            targets.add(0L);
            return new Oracle(image, log.logEndOffset(), first, List.copyOf(targets), config);
        }
    }

    private static PartitionLog open(final Path dir, final RecoveryOptions options) {
        return open(CONFIG, dir, options);
    }

    private static PartitionLog open(final LogConfig config, final Path dir, final RecoveryOptions options) {
        return PartitionLog.open(dir, config, FileIO.system(), new ManualClock(1_000), new SplittableRandom(1), options);
    }

    /** Checks every answer of an open log against the oracle from {@code from} on; throws on a wrong one. */
    private static void assertAnswers(final Oracle oracle, final PartitionLog log, final long from,
                                      final String context) throws IOException {
        for (final LogImage.Batch batch : oracle.image().batches) {
            if (batch.lastOffset() < from || batch.baseOffset() >= log.logEndOffset()) {
                continue;
            }
            for (long at = Math.max(from, batch.baseOffset()); at <= batch.lastOffset(); at++) {
                final LogSlice slice = log.read(at, 1, Long.MAX_VALUE, true);
                assertEquals(batch.baseOffset(), slice.firstOffset(), context + ": the batch read at " + at);
                assertArrayEquals(batch.bytes(), first(KafkaBatches.bytesOf(slice)), context + ": bytes read at " + at);
            }
        }
        if (from == 0 && log.logEndOffset() == oracle.end()) {
            for (final long target : oracle.targets()) {
                assertEquals(oracle.offsetForTimestamp(target), log.offsetForTimestamp(target),
                    context + ": offsetForTimestamp(" + target + ")");
            }
        }
    }

    private static byte[] first(final ByteBuffer bytes) {
        final int size = bytes.order(ByteOrder.BIG_ENDIAN).getInt(bytes.position() + 8) + 12;
        final byte[] out = new byte[size];
        bytes.duplicate().get(out);
        return out;
    }

    /**
     * A read-only open of a damaged image: it answers correctly from {@code from} on, or refuses naming a file; either
     * way the directory is exactly as written.
     */
    private static boolean readOnlyAnswersOrRefuses(final Oracle oracle, final Map<String, byte[]> files,
                                                    final Path dir, final RecoveryOptions options, final long from,
                                                    final String context) throws IOException {
        boolean opened = false;
        try (PartitionLog log = PartitionLog.openReadOnly(dir, CONFIG, FileIO.system(), new ManualClock(1_000),
            options)) {
            assertAnswers(oracle, log, Math.max(from, log.logStartOffset()), context + ", read-only");
            opened = true;
        } catch (final StorageException e) {
            assertNamesAFile(e, context + ", read-only");
        }
        LogImage.assertHolds(files, dir, context + ", read-only");
        return opened;
    }

    private static void assertNamesAFile(final StorageException e, final String context) {
        assertNotNull(e.path(), context + ": the error names no file: " + e);
    }

    @Test
    @Timeout(600)
    void everyFlippedIndexByteIsAnsweredCorrectlyOrRebuilt() throws IOException {
        final Oracle oracle = oracle();
        int images = 0;
        int rebuiltAtOpen = 0;
        for (final String name : oracle.image().files.keySet()) {
            if (!name.endsWith(".index") && !name.endsWith(".timeindex")) {
                continue;
            }
            final byte[] bytes = oracle.image().files.get(name);
            for (int at = 0; at < bytes.length; at += STRIDE) {
                for (final int mask : new int[] {0x01, 0xFF}) {
                    final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
                    final byte[] damaged = bytes.clone();
                    damaged[at] ^= (byte) mask;
                    files.put(name, damaged);
                    final Path dir = tmp.resolve("flip-" + images++);
                    LogImage.write(files, dir);
                    final String context = name + " byte " + at + " ^ 0x" + Integer.toHexString(mask);
                    // Read-only first: the same answers, and the directory exactly as written.
                    try (PartitionLog readOnly = PartitionLog.openReadOnly(dir, CONFIG, FileIO.system(),
                        new ManualClock(1_000), RecoveryOptions.clean())) {
                        assertAnswers(oracle, readOnly, 0, context + ", read-only");
                    } catch (final RuntimeException e) {
                        fail(context + ": read-only: index damage must be answered correctly: " + e, e);
                    }
                    LogImage.assertHolds(files, dir, context + ", read-only");
                    try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
                        if (!log.recoveryReport().rebuiltIndexes().isEmpty()) {
                            rebuiltAtOpen++;
                        }
                        assertAnswers(oracle, log, 0, context);
                    } catch (final StorageException e) {
                        fail(context + ": index damage must be answered correctly, not refused: " + e, e);
                    } catch (final RuntimeException e) {
                        fail(context + ": an unclear exception: " + e, e);
                    }
                    // The log closed cleanly; opened again it answers correctly too (a wrong index was dropped).
                    try (PartitionLog again = open(dir, RecoveryOptions.clean())) {
                        assertAnswers(oracle, again, 0, context + ", reopened");
                    }
                    FastDirs.deleteTree(dir);
                }
            }
        }
        assertTrue(images > 100, "images=" + images);
        System.out.printf("DamageSweepTest: %d flipped index images (stride %d), %d rebuilt at open, the rest"
            + " answered through the checked lookups; 0 wrong answers, 0 unclear exceptions%n", images, STRIDE,
            rebuiltAtOpen);
    }

    @Test
    @Timeout(300)
    void everyDeletedSegmentFileIsRebuiltOrRefused() throws IOException {
        final Oracle oracle = oracle();
        int refused = 0;
        for (final String name : oracle.image().files.keySet()) {
            if (!name.matches("\\d{20}\\..*")) {
                continue; // checkpoints: their loss is covered by the checkpoint tests
            }
            final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
            files.remove(name);
            final boolean data = name.endsWith(".log");
            // A deleted data file leaves witnesses: its index files (a lost first, middle or last segment after a clean
            // shutdown), and for the last one the recovery point and the producer snapshot taken at close. Every such
            // open is refused, writable and read-only, with or without the recovery point a log manager keeps; an
            // index file or a snapshot deleted is rebuilt (or not needed) and every answer stays the oracle's.
            for (final RecoveryOptions options : List.of(RecoveryOptions.clean(),
                new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
                final String context = name + " deleted, " + options;
                final Path dir = tmp.resolve("deleted-" + name + "-" + options.recoveryPoint());
                LogImage.write(files, dir); // afresh: a writable open repairs what it may
                final boolean readOnlyOpened = readOnlyAnswersOrRefuses(oracle, files, dir, options, 0, context);
                try (PartitionLog log = open(dir, options)) {
                    assertTrue(readOnlyOpened, context + ": the writable open served it, the read-only one refused");
                    if (data) {
                        fail(context + ": a lost segment must be refused; the log serves " + log.logStartOffset()
                            + " to " + log.logEndOffset());
                    }
                    assertAnswers(oracle, log, 0, context);
                } catch (final CorruptLogException e) {
                    assertTrue(data, context + ": refused without reason: " + e);
                    assertFalse(readOnlyOpened, context + ": the read-only open served what the writable refused");
                    assertNamesAFile(e, context);
                    refused++;
                }
                FastDirs.deleteTree(dir);
            }
        }
        assertEquals(2 * oracle.image().segmentBases.size(), refused, "every deleted data file refused, both ways");
    }

    @Test
    void aFirstSegmentDeletedWithEveryFileOfItIsTheBlindSpotOfALogWithoutCheckpoints() throws IOException {
        final Oracle oracle = oracle();
        final List<Long> bases = oracle.image().segmentBases;
        final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
        for (final String suffix : new String[] {".log", ".index", ".timeindex"}) {
            files.remove(String.format("%020d", bases.get(0)) + suffix);
        }
        final Path dir = tmp.resolve("first-gone");
        LogImage.write(files, dir);
        // Nothing is left to say the segment existed (a standalone log has no log-start checkpoint; under a log
        // manager the checkpoint refuses it: LossWitnessTest): it reads as retention did, never as other data.
        try (PartitionLog log = open(dir, new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
            assertEquals(bases.get(1), log.logStartOffset(), "the log starts at the first segment left");
            assertAnswers(oracle, log, bases.get(1), "first segment gone");
            try {
                log.read(0, 1, Long.MAX_VALUE, true);
                fail("a read below the first segment left must be out of range");
            } catch (final OffsetOutOfRangeException expected) {
                // the lost first segment reads as data that is gone, never as other data
            }
        }
    }

    @Test
    @Timeout(300)
    void everyLogCutAtABatchBoundaryOrInsideABatchIsRefusedOrLosesOnlyWhatNoWitnessSaw() throws IOException {
        // Dense offset indexes (an entry per batch or two) and none at all (the time index's entry at each roll, for
        // the segment's largest timestamp, is then the only claim past a cut).
        cutSweep(oracle());
        cutSweep(oracle(CONFIG.toBuilder().indexIntervalBytes(1 << 20).build(), "sparse"));
    }

    private void cutSweep(final Oracle oracle) throws IOException {
        final List<Long> bases = oracle.image().segmentBases;
        int cuts = 0;
        int refused = 0;
        int blindSpots = 0;
        for (int segment = 0; segment < bases.size(); segment++) {
            final String logName = LogImage.logName(bases.get(segment));
            final byte[] data = oracle.image().files.get(logName);
            final int lastEntryPosition = lastIndexEntryPosition(oracle.image().files.get(logName.replace(".log",
                ".index")));
            final boolean last = segment == bases.size() - 1;
            for (final LogImage.Batch batch : oracle.image().batches) {
                if (batch.segment() != segment) {
                    continue;
                }
                // At the batch's start (whole batches lost from there: the indexes, the snapshot and the recovery
                // point are the only witnesses) and one byte into it (a partial batch, which a clean open sees).
                for (final int cutAt : new int[] {batch.position(), batch.position() + 1}) {
                    final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
                    files.put(logName, java.util.Arrays.copyOf(data, cutAt));
                    final String context = logName + " cut at " + cutAt;
                    cuts++;
                    final long lostTo = last ? Long.MAX_VALUE : bases.get(segment + 1);
                    // Without a recovery point (a standalone embedder after a clean close) and with the one a log
                    // manager keeps, writable and read-only.
                    boolean served = false;
                    for (final RecoveryOptions options : List.of(RecoveryOptions.clean(),
                        new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
                        final Path dir = tmp.resolve("cut-" + cuts + "-" + options.recoveryPoint());
                        LogImage.write(files, dir); // afresh: a writable open repairs what it may
                        final boolean readOnlyServed = readOnlyServesWithLossOrRefuses(oracle, files, dir, options,
                            batch.baseOffset(), lostTo, context);
                        try (PartitionLog log = open(oracle.config(), dir, options)) {
                            assertTrue(readOnlyServed, context + ": the writable open served what the read-only refused");
                            assertServesWithLoss(oracle, log, batch.baseOffset(), lostTo, context);
                            served = true;
                        } catch (final StorageException e) {
                            assertFalse(readOnlyServed, context + ": the read-only open served what the writable refused");
                            assertNamesAFile(e, context);
                        }
                        FastDirs.deleteTree(dir);
                    }
                    if (served) {
                        // The one blind spot (docs/recovery.md): a segment that is not the last, cut at a batch
                        // boundary after its last offset-index entry, whose time index's last entry lies below the cut.
                        assertTrue(!last && cutAt == batch.position() && cutAt > lastEntryPosition, context
                            + ": served although a witness saw the loss");
                        blindSpots++;
                    } else {
                        refused++;
                    }
                }
            }
        }
        assertTrue(cuts > 20 && refused > blindSpots, "cuts=" + cuts + ", refused=" + refused);
        System.out.printf("DamageSweepTest: %d cuts of %d data files (index.interval.bytes=%d): %d refused naming a"
            + " file, %d in the blind spot (a middle segment cut after its last offset-index entry, the lost batches"
            + " holding no new largest timestamp) served with only the cut batches lost%n", cuts, bases.size(),
            oracle.config().indexIntervalBytes(), refused, blindSpots);
    }

    private static int lastIndexEntryPosition(final byte[] index) {
        return index.length >= 8 ? ByteBuffer.wrap(index).getInt(index.length - 4) : -1;
    }

    /** A read-only open serves the image losing only {@code [lostFrom, lostTo)}, or refuses naming a file. */
    private static boolean readOnlyServesWithLossOrRefuses(final Oracle oracle, final Map<String, byte[]> files,
                                                           final Path dir, final RecoveryOptions options,
                                                           final long lostFrom, final long lostTo,
                                                           final String context) throws IOException {
        boolean served = false;
        try (PartitionLog log = PartitionLog.openReadOnly(dir, oracle.config(), FileIO.system(),
            new ManualClock(1_000), options)) {
            assertServesWithLoss(oracle, log, lostFrom, lostTo, context + ", read-only");
            served = true;
        } catch (final StorageException e) {
            assertNamesAFile(e, context + ", read-only");
        }
        LogImage.assertHolds(files, dir, context + ", read-only");
        return served;
    }

    /**
     * Every offset outside {@code [lostFrom, lostTo)} below the log end answers its own batch; one in the range
     * answers the first batch at or after {@code lostTo}, never a lower offset.
     */
    private static void assertServesWithLoss(final Oracle oracle, final PartitionLog log, final long lostFrom,
                                             final long lostTo, final String context) {
        for (final LogImage.Batch batch : oracle.image().batches) {
            for (long at = batch.baseOffset(); at <= batch.lastOffset() && at < log.logEndOffset(); at++) {
                final LogSlice slice = log.read(at, 1, Long.MAX_VALUE, true);
                if (at >= lostFrom && at < lostTo) {
                    assertTrue(slice.isEmpty() || slice.firstOffset() >= lostTo, context + ": a read at " + at
                        + " in the lost range answered " + slice.firstOffset());
                } else {
                    assertEquals(batch.baseOffset(), slice.firstOffset(), context + ": the batch read at " + at);
                }
            }
        }
    }

    @Test
    @Timeout(600)
    void everyFlippedBaseOffsetBitIsRefusedOrAnsweredCorrectly() throws IOException {
        // The base offset is the one batch field no CRC covers, and a clean open reads no batch: the read path itself
        // must check that every batch it steps over or serves lies in its place (docs/recovery.md).
        final Oracle oracle = oracle();
        int images = 0;
        int refusedAtOpen = 0;
        int refusedReads = 0;
        int servedWhole = 0;
        for (final LogImage.Batch batch : oracle.image().batches) {
            final String name = LogImage.logName(oracle.image().segmentBases.get(batch.segment()));
            for (int bit = 0; bit < 64; bit += BIT_STRIDE) {
                final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
                final byte[] damaged = files.get(name).clone();
                // Big-endian: bit 0 is the lowest bit of the last of the 8 bytes.
                damaged[batch.position() + 7 - bit / 8] ^= (byte) (1 << (bit % 8));
                files.put(name, damaged);
                final String context = name + ": base offset of the batch at " + batch.position() + " (offset "
                    + batch.baseOffset() + ") bit " + bit;
                for (final boolean readOnly : new boolean[] {true, false}) {
                    final Path dir = tmp.resolve("base-" + images++);
                    LogImage.write(files, dir);
                    final RecoveryOptions options = new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE);
                    try (PartitionLog log = readOnly
                        ? PartitionLog.openReadOnly(dir, CONFIG, FileIO.system(), new ManualClock(1_000), options)
                        : open(dir, options)) {
                        final int refused = readsCorrectOrRefused(oracle, log, name, context);
                        refusedReads += refused;
                        servedWhole += refused == 0 ? 1 : 0;
                    } catch (final CorruptLogException e) {
                        assertNamesAFile(e, context);
                        refusedAtOpen++;
                    } catch (final RuntimeException e) {
                        fail(context + ": an unclear exception: " + e, e);
                    }
                    FastDirs.deleteTree(dir);
                }
            }
        }
        assertTrue(refusedAtOpen + refusedReads > 0, "damage found");
        System.out.printf("DamageSweepTest: %d images with a flipped base-offset bit (every %d-th bit, writable and"
            + " read-only, after a clean shutdown): %d refused at open, %d reads refused naming the file, %d served"
            + " every read correctly (a flip below every read's reach); 0 wrong answers%n", images, BIT_STRIDE,
            refusedAtOpen, refusedReads, servedWhole);
    }

    /**
     * Reads every offset and searches every timestamp: each answer is the oracle's or a {@link CorruptLogException}
     * naming the damaged file, a position and an offset.
     *
     * @return how many answers were refused
     */
    private static int readsCorrectOrRefused(final Oracle oracle, final PartitionLog log, final String damagedFile,
                                             final String context) throws IOException {
        int refused = 0;
        for (final LogImage.Batch batch : oracle.image().batches) {
            for (long at = batch.baseOffset(); at <= batch.lastOffset(); at++) {
                try {
                    final LogSlice slice = log.read(at, 1, Long.MAX_VALUE, true);
                    assertEquals(batch.baseOffset(), slice.firstOffset(), context + ": the batch read at " + at);
                    assertArrayEquals(batch.bytes(), first(KafkaBatches.bytesOf(slice)), context + ": bytes at " + at);
                } catch (final CorruptLogException e) {
                    assertEquals(damagedFile, e.path().getFileName().toString(), context + ": " + e.getMessage());
                    assertTrue(e.position() >= 0 && e.getMessage().contains("offset"), context + ": " + e.getMessage());
                    refused++;
                } catch (final OffsetOutOfRangeException e) {
                    fail(context + ": offset " + at + " answered out of range: " + e.getMessage());
                }
            }
        }
        for (final long target : oracle.targets()) {
            try {
                assertEquals(oracle.offsetForTimestamp(target), log.offsetForTimestamp(target),
                    context + ": offsetForTimestamp(" + target + ")");
            } catch (final CorruptLogException e) {
                assertEquals(damagedFile, e.path().getFileName().toString(), context + ": " + e.getMessage());
                refused++;
            }
        }
        return refused;
    }

    @Test
    void underTheTruncatePolicyAMissingMiddleSegmentDropsTheLogFromThereAndSaysSo() throws IOException {
        final Oracle oracle = oracle();
        final List<Long> bases = oracle.image().segmentBases;
        final long missing = bases.get(1);
        final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
        files.remove(LogImage.logName(missing));
        final Path dir = tmp.resolve("truncate-gap");
        LogImage.write(files, dir);
        final LogConfig truncating = CONFIG.toBuilder().corruptionPolicy(io.seglog.storage.CorruptionPolicy.TRUNCATE)
            .build();
        try (PartitionLog log = PartitionLog.open(dir, truncating, FileIO.system(), new ManualClock(1_000),
            new SplittableRandom(1), new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
            assertEquals(missing, log.logEndOffset(), "the log ends where the missing segment began");
            assertEquals(bases.size() - 2, log.recoveryReport().deletedSegments().size(),
                "every segment after the gap is dropped and reported: " + log.recoveryReport());
            assertAnswers(oracle, log, 0, "truncated at the gap");
        }
    }

    @Test
    void anIndexFoundWrongByAReadIsDroppedAtCloseAndRebuiltAtTheNextOpen() throws IOException {
        final Oracle oracle = oracle();
        final String name = LogImage.logName(oracle.image().segmentBases.get(0)).replace(".log", ".index");
        final ByteBuffer index = ByteBuffer.wrap(oracle.image().files.get(name).clone());
        assertTrue(index.capacity() >= 24, "three entries at least");
        // Entry 0 points at entry 1's batch: a real batch start, but not the batch entry 0 names. The open's checks
        // (ascending entries, the last entry's batch) pass; only a read through entry 0 can tell.
        index.putInt(4, index.getInt(12));
        final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
        files.put(name, index.array());
        final Path dir = tmp.resolve("wrong-entry");
        LogImage.write(files, dir);
        try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
            assertTrue(log.recoveryReport().rebuiltIndexes().isEmpty(), "the open trusted the index");
            assertAnswers(oracle, log, 0, "entry 0 damaged");
        }
        assertTrue(!java.nio.file.Files.exists(dir.resolve(name)), "the wrong index went with the close");
        try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
            assertEquals(1, log.recoveryReport().rebuiltIndexes().size(), "rebuilt at the next open");
            assertArrayEquals(oracle.image().files.get(name), java.nio.file.Files.readAllBytes(dir.resolve(name)),
                "and equal to the index the log wrote");
            assertAnswers(oracle, log, 0, "after the rebuild");
        }
    }
}
