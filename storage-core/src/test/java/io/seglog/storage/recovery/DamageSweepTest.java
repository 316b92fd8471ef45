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
    private static final LogConfig CONFIG = LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(600)
        .indexIntervalBytes(60).segmentIndexBytes(1024).build();

    DamageSweepTest() {
        super("damage");
    }

    /** What the undamaged log answers, computed by walking every record, not through any index. */
    private record Oracle(LogImage image, long end, TreeMap<Long, Long> firstOffsetAtOrAfterTimestamp,
                          List<Long> targets) {
        long offsetForTimestamp(final long target) {
            final Map.Entry<Long, Long> e = firstOffsetAtOrAfterTimestamp.ceilingEntry(target);
            return e == null ? -1 : e.getValue();
        }
    }

    private Oracle oracle() throws IOException {
        final LogImage image = LogImage.build(tmp.resolve("original"), CONFIG, 77L, 60, true);
        assertTrue(image.segmentBases.size() >= 3, "several segments: " + image.segmentBases);
        final TreeMap<Long, Long> first = new TreeMap<>();
        final TreeSet<Long> targets = new TreeSet<>();
        try (PartitionLog log = open(tmp.resolve("original"), RecoveryOptions.afterCrash(0))) {
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
            return new Oracle(image, log.logEndOffset(), first, List.copyOf(targets));
        }
    }

    private static PartitionLog open(final Path dir, final RecoveryOptions options) {
        return PartitionLog.open(dir, CONFIG, FileIO.system(), new ManualClock(1_000), new SplittableRandom(1), options);
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
    void everyDeletedSegmentFileIsRebuiltRefusedOrOutOfRange() throws IOException {
        final Oracle oracle = oracle();
        final List<Long> bases = oracle.image().segmentBases;
        for (final String name : oracle.image().files.keySet()) {
            if (!name.matches("\\d{20}\\..*")) {
                continue; // checkpoints: their loss is covered by the checkpoint tests
            }
            final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
            files.remove(name);
            final Path dir = tmp.resolve("deleted-" + name);
            LogImage.write(files, dir);
            final long base = Long.parseLong(name.substring(0, 20));
            final boolean data = name.endsWith(".log");
            final boolean readOnlyOpened = readOnlyAnswersOrRefuses(oracle, files, dir,
                new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE), data ? bases.get(1) : 0, name + " deleted");
            // As a log manager opens it after a clean shutdown: the recovery point is the log end at close.
            try (PartitionLog log = open(dir, new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
                assertTrue(readOnlyOpened, name + " deleted: the writable open served it, the read-only one refused");
                if (data && base != bases.get(0)) {
                    fail(name + " deleted: a missing segment in the middle or at the end must be refused");
                }
                final long from = data ? bases.get(1) : 0;
                assertAnswers(oracle, log, from, name + " deleted");
                if (data) {
                    assertEquals(from, log.logStartOffset(), "the log starts at the first segment left");
                    try {
                        log.read(0, 1, Long.MAX_VALUE, true);
                        fail("a read below the first segment left must be out of range");
                    } catch (final OffsetOutOfRangeException expected) {
                        // the lost first segment reads as data that is gone, never as other data
                    }
                }
            } catch (final CorruptLogException e) {
                assertTrue(data && base != bases.get(0), name + " deleted: refused without reason: " + e);
                assertFalse(readOnlyOpened, name + " deleted: the read-only open served what the writable refused");
                assertNamesAFile(e, name);
            }
            FastDirs.deleteTree(dir);
        }
    }

    @Test
    @Timeout(300)
    void everyLogCutAtAnIndexEntryIsRefusedOrServesWhatIsLeft() throws IOException {
        final Oracle oracle = oracle();
        int cuts = 0;
        int blindSpots = 0;
        for (final String name : oracle.image().files.keySet()) {
            if (!name.endsWith(".index")) {
                continue;
            }
            final ByteBuffer index = ByteBuffer.wrap(oracle.image().files.get(name));
            final String logName = name.replace(".index", ".log");
            final byte[] data = oracle.image().files.get(logName);
            for (int entry = 0; entry + 8 <= index.capacity(); entry += 8) {
                final int position = index.getInt(entry + 4);
                for (final int cutAt : new int[] {position, Math.max(0, position - 1)}) {
                    final Map<String, byte[]> files = new TreeMap<>(oracle.image().files);
                    files.put(logName, java.util.Arrays.copyOf(data, cutAt));
                    final Path dir = tmp.resolve("cut-" + cuts++);
                    LogImage.write(files, dir);
                    final String context = logName + " cut at " + cutAt;
                    final List<Long> bases = oracle.image().segmentBases;
                    final long segmentBase = Long.parseLong(logName.substring(0, 20));
                    final boolean last = segmentBase == bases.get(bases.size() - 1);
                    // The documented blind spot (docs/recovery.md): a segment that is not the last, cut at a batch
                    // boundary after its last offset-index entry, leaves one witness at most (offset gaps are legal
                    // under every policy). Served, it must lose only the cut batches: a read there answers the next
                    // segment's first batch, never another record.
                    final boolean blindSpot = !last && cutAt == position && entry + 8 >= index.capacity();
                    final long lostTo = last ? Long.MAX_VALUE : bases.get(bases.indexOf(segmentBase) + 1);
                    final long lostFrom = firstBatchAtOrAfter(oracle, segmentBase, cutAt);
                    if (blindSpot) {
                        blindSpots += servedWithLoss(oracle, dir, lostFrom, lostTo, context);
                        FastDirs.deleteTree(dir);
                        continue;
                    }
                    final boolean readOnlyOpened = readOnlyAnswersOrRefuses(oracle, files, dir,
                        RecoveryOptions.clean(), 0, context);
                    // Without a recovery point (a standalone embedder after a clean close): what is left is served.
                    try (PartitionLog log = open(dir, RecoveryOptions.clean())) {
                        assertTrue(readOnlyOpened, context + ": the writable open served it, the read-only refused");
                        assertTrue(last, context + ": a cut segment that is not the last lost data and must be"
                            + " refused (its indexes are the witnesses)");
                        assertAnswers(oracle, log, 0, context);
                    } catch (final StorageException e) {
                        // Refused: data lost behind the indexes, or a cut inside a batch of a log that closed cleanly.
                        assertFalse(readOnlyOpened, context + ": the read-only open served what the writable refused");
                        assertNamesAFile(e, context);
                    }
                    // With the recovery point a log manager keeps, the lost flushed data is refused.
                    try (PartitionLog log = open(dir, new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
                        fail(context + ": flushed data is missing; the open must refuse (end " + log.logEndOffset()
                            + ")");
                    } catch (final StorageException e) {
                        assertNamesAFile(e, context);
                    }
                    FastDirs.deleteTree(dir);
                }
            }
        }
        assertTrue(cuts > 10, "cuts=" + cuts);
        // One blind spot per segment but the last, at most.
        assertTrue(blindSpots < oracle.image().segmentBases.size(), "blind spots served=" + blindSpots);
        System.out.printf("DamageSweepTest: %d cuts, %d in the blind spot served with only the cut batches lost%n",
            cuts, blindSpots);
    }

    /** The base offset of the first batch of the segment at or after a byte position in it. */
    private static long firstBatchAtOrAfter(final Oracle oracle, final long segmentBase, final int position) {
        final int segment = oracle.image().segmentBases.indexOf(segmentBase);
        for (final LogImage.Batch batch : oracle.image().batches) {
            if (batch.segment() == segment && batch.position() >= position) {
                return batch.baseOffset();
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * A blind-spot image: every open refuses naming a file, or serves it losing only {@code [lostFrom, lostTo)}:
     * every other offset answers its own batch, and one in the lost range answers the first batch at or after
     * {@code lostTo}, never a lower offset.
     *
     * @return 1 when an open served it
     */
    private static int servedWithLoss(final Oracle oracle, final Path dir, final long lostFrom, final long lostTo,
                                      final String context) throws IOException {
        int served = 0;
        for (final RecoveryOptions options : List.of(RecoveryOptions.clean(),
            new RecoveryOptions(true, oracle.end(), Long.MAX_VALUE))) {
            try (PartitionLog log = open(dir, options)) {
                served = 1;
                for (final LogImage.Batch batch : oracle.image().batches) {
                    for (long at = batch.baseOffset(); at <= batch.lastOffset(); at++) {
                        final LogSlice slice = log.read(at, 1, Long.MAX_VALUE, true);
                        if (at >= lostFrom && at < lostTo) {
                            assertTrue(slice.firstOffset() >= lostTo, context + ": a read at " + at + " in the lost"
                                + " range answered " + slice.firstOffset());
                        } else {
                            assertEquals(batch.baseOffset(), slice.firstOffset(), context + ": the batch read at "
                                + at);
                        }
                    }
                }
            } catch (final StorageException e) {
                assertNamesAFile(e, context);
            }
        }
        return served;
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
