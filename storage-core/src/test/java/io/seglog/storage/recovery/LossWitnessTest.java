package io.seglog.storage.recovery;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.CleanupPolicy;
import io.seglog.storage.CorruptLogException;
import io.seglog.storage.CorruptionPolicy;
import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.ManualClock;
import io.seglog.storage.ManualScheduler;
import io.seglog.storage.OffsetOutOfRangeException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The losses an open must not take silently (docs/recovery.md, "Witnesses"), each as first found from outside and
 * its siblings: a {@code .log} cut exactly at its last offset-index entry; the active segment's data file deleted
 * before a crash; the first segment's data file deleted; a base offset flipped (the one batch field no CRC covers);
 * and a standalone reopen that deleted a cleanly closed segment far above the log end. Each is refused under the
 * {@code fail} policy naming a file, writable and read-only, and opened with the loss reported under
 * {@code truncate}; what is not lost is never deleted.
 */
class LossWitnessTest extends ScratchDirTest {
    private static final long T0 = 1_700_000_000_000L;
    /** Dense offset indexes and small segments: a few dozen batches make several segments. */
    private static final LogConfig CONFIG = LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(600)
        .indexIntervalBytes(60).segmentIndexBytes(1024).build();
    private static final LogConfig TRUNCATING = CONFIG.toBuilder().corruptionPolicy(CorruptionPolicy.TRUNCATE).build();
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);

    LossWitnessTest() {
        super("witness");
    }

    private static PartitionLog open(final Path dir, final LogConfig config, final RecoveryOptions options) {
        return PartitionLog.open(dir, config, FileIO.system(), new ManualClock(1_000), new SplittableRandom(1), options);
    }

    private static PartitionLog openReadOnly(final Path dir, final LogConfig config, final RecoveryOptions options) {
        return PartitionLog.openReadOnly(dir, config, FileIO.system(), new ManualClock(1_000), options);
    }

    private static boolean isIndex(final String name) {
        return name.endsWith(".index") || name.endsWith(".timeindex");
    }

    /** Refused, writable and read-only, naming a file; the directory left as it was (see below for indexes). */
    private static CorruptLogException assertRefused(final Map<String, byte[]> files, final Path dir,
                                                     final RecoveryOptions options, final String context)
        throws IOException {
        final CorruptLogException readOnly = assertThrows(CorruptLogException.class,
            () -> openReadOnly(dir, CONFIG, options).close(), context + ", read-only");
        assertNotNull(readOnly.path(), context);
        LogImage.assertHolds(files, dir, context + ", read-only");
        final CorruptLogException writable = assertThrows(CorruptLogException.class,
            () -> open(dir, CONFIG, options).close(), context);
        assertNotNull(writable.path(), context);
        assertEquals(readOnly.field(), writable.field(), context + ": the same finding both ways");
        // A refused writable open changes no data file, checkpoint, snapshot or stray file (the witnesses stay for
        // the next open); index files it found wrong may have been rebuilt from the data already.
        final Map<String, byte[]> withoutIndexes = new TreeMap<>(files);
        withoutIndexes.keySet().removeIf(LossWitnessTest::isIndex);
        final Map<String, byte[]> found = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (final Path p : (Iterable<Path>) list::iterator) {
                if (!isIndex(p.getFileName().toString()) && !p.getFileName().toString().equals(".lock")) {
                    found.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        withoutIndexes.remove(".lock");
        assertEquals(withoutIndexes.keySet(), found.keySet(), context + ": files of a refused open");
        for (final Map.Entry<String, byte[]> e : withoutIndexes.entrySet()) {
            assertArrayEquals(e.getValue(), found.get(e.getKey()), context + ": " + e.getKey() + " changed");
        }
        for (final String name : files.keySet()) {
            if (isIndex(name)) {
                assertTrue(Files.exists(dir.resolve(name)), context + ": " + name + " (a witness) was deleted");
            }
        }
        return writable;
    }

    // ------------------------------------------------------------------------------------------------- item 1

    @Test
    void aLogCutExactlyAtItsLastIndexEntryIsRefusedAndUnderTruncateDroppedFromThere() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        assertTrue(original.segmentBases.size() >= 4, "several segments: " + original.segmentBases);
        final long base = original.segmentBases.get(1);
        final String log = LogImage.logName(base);
        final byte[] index = original.files.get(log.replace(".log", ".index"));
        final int lastEntry = ByteBuffer.wrap(index).getInt(index.length - 4);
        final long lostFrom = firstBatchAt(original, 1, lastEntry).baseOffset();
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        files.put(log, java.util.Arrays.copyOf(files.get(log), lastEntry));
        // As in the case first found, the time index ends below the cut (the cut batches held no new largest
        // timestamp): its entries at or past the cut are dropped, so the offset-index entry is the only witness.
        final String timeIndex = log.replace(".log", ".timeindex");
        final ByteBuffer entries = ByteBuffer.wrap(files.get(timeIndex));
        int keep = 0;
        while (keep + 12 <= entries.capacity() && base + entries.getInt(keep + 8) < lostFrom) {
            keep += 12;
        }
        assertTrue(keep < entries.capacity(), "the time index named a cut batch");
        files.put(timeIndex, java.util.Arrays.copyOf(files.get(timeIndex), keep));
        // Without and with the recovery point a log manager keeps: the index entry alone is the witness.
        for (final RecoveryOptions options : List.of(RecoveryOptions.clean(),
            new RecoveryOptions(true, original.logEndOffset(), Long.MAX_VALUE))) {
            final Path dir = tmp.resolve("cut-" + options.recoveryPoint());
            LogImage.write(files, dir);
            final CorruptLogException e = assertRefused(files, dir, options, "cut at the last entry");
            assertEquals("lastOffset", e.field(), e.getMessage());
            assertEquals(log, e.path().getFileName().toString(), e.getMessage());
            // Under truncate: what is left of the segment stays, everything after it goes, and the open says so.
            try (PartitionLog opened = open(dir, TRUNCATING, options)) {
                assertEquals(lostFrom, opened.logEndOffset(), "the log ends where the cut batches began");
                original.assertServes(opened, lostFrom, "truncated at the cut");
                final RecoveryReport report = opened.recoveryReport();
                assertTrue(report.droppedData(), report.toString());
                assertEquals(RecoveryReport.Reason.CORRUPTION, report.truncations().get(0).reason(), report.toString());
                assertEquals(original.segmentBases.size() - 2, report.deletedSegments().size(), report.toString());
            }
        }
    }

    @Test
    void aTimeIndexEntryNamingALostBatchIsAWitnessOnItsOwn() throws IOException {
        // No offset index at all (a huge index interval): the time index's entry for the segment's newest timestamp,
        // written at the roll, is the only claim. Its offset and its timestamp both lie past the cut data: refused.
        final LogConfig sparse = CONFIG.toBuilder().indexIntervalBytes(1 << 20).build();
        final LogImage original = LogImage.build(tmp.resolve("original"), sparse, 5L, 60, true);
        final String log = LogImage.logName(original.segmentBases.get(1));
        final LogImage.Batch lastOfSegment = lastBatchOf(original, 1);
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        files.put(log, java.util.Arrays.copyOf(files.get(log), lastOfSegment.position()));
        final Path dir = tmp.resolve("cut");
        LogImage.write(files, dir);
        final CorruptLogException e = assertThrows(CorruptLogException.class,
            () -> open(dir, sparse, RecoveryOptions.clean()).close());
        assertEquals("lastOffset", e.field(), e.getMessage());
        assertTrue(e.getMessage().contains("time index"), e.getMessage());
    }

    // ------------------------------------------------------------------------------------------------- item 2

    @Test
    void theActiveSegmentDeletedBeforeACrashIsRefusedAndUnderTruncateReported() throws IOException {
        final Path logs = tmp.resolve("logs");
        final long end = fillAndClose(logs, CONFIG, 0);
        final Path partition = logs.resolve("orders-0");
        final long[] bases = SegmentsOf.bases(partition);
        final long lastBase = bases[bases.length - 1];
        // A crash (no marker), and the active segment's data file gone; its index files stay, as in the issue.
        Files.delete(logs.resolve(".kafka_cleanshutdown"));
        Files.delete(partition.resolve(LogImage.logName(lastBase)));
        try (LogManager m = openManager(logs, CONFIG)) {
            assertTrue(m.log(ORDERS).isEmpty(), "refused");
            final StorageException why = m.openFailure(ORDERS).orElseThrow();
            assertTrue(why instanceof CorruptLogException, why.toString());
            assertEquals("logEndOffset", ((CorruptLogException) why).field(), why.getMessage());
            assertTrue(why.getMessage().contains("recovery point " + end), why.getMessage());
        }
        // The witnesses are still there for the next open (nothing was tidied away).
        assertTrue(Files.exists(partition.resolve(LogImage.logName(lastBase).replace(".log", ".index"))));
        // Read-only, as a tool opens it with the checkpoint's recovery point.
        assertThrows(CorruptLogException.class, () -> openReadOnly(partition, CONFIG,
            RecoveryOptions.afterCrash(end)).close());
        // Under truncate the log opens at what is left, and the loss is reported with its witness.
        try (LogManager m = openManager(logs, TRUNCATING)) {
            final PartitionLog log = m.log(ORDERS).orElseThrow();
            assertEquals(lastBase, log.logEndOffset());
            final RecoveryReport.Loss loss = log.recoveryReport().losses().get(0);
            assertEquals(lastBase, loss.fromOffset());
            assertEquals(end, loss.toOffset());
            assertEquals("logEndOffset", loss.field());
            assertTrue(log.recoveryReport().droppedData());
        }
    }

    @Test
    void theActiveSegmentDeletedAfterACleanShutdownIsRefusedEvenWithoutARecoveryPoint() throws IOException {
        // A standalone embedder passes clean() and no recovery point: the producer snapshot taken at close and the
        // index files left behind are the witnesses.
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        final String last = LogImage.logName(original.segmentBases.get(original.segmentBases.size() - 1));
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        files.remove(last);
        final Path dir = tmp.resolve("gone");
        LogImage.write(files, dir);
        assertRefused(files, dir, RecoveryOptions.clean(), "last .log deleted");
        // And with its index files deleted too, the snapshot alone still refuses it.
        final Map<String, byte[]> bare = new TreeMap<>(files);
        bare.remove(last.replace(".log", ".index"));
        bare.remove(last.replace(".log", ".timeindex"));
        final Path bareDir = tmp.resolve("bare");
        LogImage.write(bare, bareDir);
        final CorruptLogException e = assertRefused(bare, bareDir, RecoveryOptions.clean(), "last segment deleted");
        assertTrue(e.getMessage().contains(".snapshot"), e.getMessage());
    }

    @Test
    void aCrashDuringAFollowerTruncationNeverReopensAsLostFlushedData() throws IOException {
        // The recovery point is lowered on disk before any file shrinks: whichever step a crash interrupts, the
        // reopened log never ends below its checkpointed recovery point.
        int cases = 0;
        for (final FaultInjectingFileIO.Op op : List.of(FaultInjectingFileIO.Op.FORCE,
            FaultInjectingFileIO.Op.DELETE, FaultInjectingFileIO.Op.FSYNC_DIRECTORY, FaultInjectingFileIO.Op.WRITE,
            FaultInjectingFileIO.Op.ATOMIC_MOVE)) {
            for (int nth = 1; nth <= 5; nth++) {
                final Path logs = tmp.resolve("truncate-" + op + "-" + nth);
                final long end = fillAndClose(logs, CONFIG, 0);
                final FaultInjectingFileIO io = new FaultInjectingFileIO();
                final ManualClock clock = new ManualClock(T0);
                final long target = end / 3;
                final LogManager m = LogManager.open(LogManagerConfig.builder().logDirs(logs).logConfig(CONFIG).build(),
                    io, new ManualScheduler(clock), clock);
                final PartitionLog log = m.log(ORDERS).orElseThrow();
                io.failOnCall(op, io.count(op) + nth);
                try {
                    log.truncateTo(target);
                    log.truncateFullyAndStartAt(end + 10);
                } catch (final StorageException expected) {
                    // the crash being tested
                }
                try {
                    m.close();
                } catch (final StorageException ignored) {
                    // an offline directory fails to close cleanly; the crash is what is tested
                }
                Files.deleteIfExists(logs.resolve(".kafka_cleanshutdown"));
                try (LogManager reopened = openManager(logs, CONFIG)) {
                    final String context = op + " #" + nth;
                    assertTrue(reopened.log(ORDERS).isPresent(), context + ": refused: "
                        + reopened.openFailure(ORDERS).map(Throwable::getMessage).orElse(""));
                }
                cases++;
            }
        }
        assertEquals(25, cases);
    }

    // ------------------------------------------------------------------------------------------------- item 3

    @Test
    void theFirstSegmentDeletedIsRefusedByTheLogStartCheckpointAfterACleanShutdownOrACrash() throws IOException {
        final Path logs = tmp.resolve("logs");
        fillAndClose(logs, CONFIG, 7);
        final Path partition = logs.resolve("orders-0");
        final long[] bases = SegmentsOf.bases(partition);
        assertEquals(0, bases[0]);
        final byte[] marker = Files.readAllBytes(logs.resolve(".kafka_cleanshutdown"));
        // Only the data file (its index files stay), then every file of the segment: the checkpoint refuses both.
        Files.delete(partition.resolve(LogImage.logName(0)));
        assertFirstSegmentLossRefused(logs, marker, "first .log deleted");
        Files.delete(partition.resolve("00000000000000000000.index"));
        Files.delete(partition.resolve("00000000000000000000.timeindex"));
        assertFirstSegmentLossRefused(logs, marker, "every file of the first segment deleted");
        // After a crash too: retention moves the checkpoint before it deletes, so nothing explains it.
        assertFirstSegmentLossRefused(logs, null, "after a crash");
        // Under truncate the log starts at the first segment left, and the loss is reported.
        try (LogManager m = openManager(logs, TRUNCATING)) {
            final PartitionLog log = m.log(ORDERS).orElseThrow();
            assertEquals(bases[1], log.logStartOffset());
            final RecoveryReport.Loss loss = log.recoveryReport().losses().get(0);
            assertEquals(7, loss.fromOffset());
            assertEquals(bases[1], loss.toOffset());
            assertEquals("logStartOffset", loss.field());
            assertTrue(loss.witness().getFileName().toString().equals("log-start-offset-checkpoint"), loss.toString());
        }
    }

    private void assertFirstSegmentLossRefused(final Path logs, final byte[] marker, final String context)
        throws IOException {
        if (marker != null) {
            Files.write(logs.resolve(".kafka_cleanshutdown"), marker); // each open consumes it
        }
        try (LogManager m = openManager(logs, CONFIG)) {
            assertEquals(marker != null, m.hadCleanShutdown(logs), context);
            assertTrue(m.log(ORDERS).isEmpty(), context + ": refused");
            final StorageException why = m.openFailure(ORDERS).orElseThrow();
            assertTrue(why instanceof CorruptLogException, context + ": " + why);
            assertNotNull(why.path(), context);
        }
    }

    @Test
    void retentionFollowedByACrashAtAnyMomentIsNotTakenForALoss() throws IOException {
        // Retention deletes segments with the log-start checkpoint moved first: a crash image taken while the deleted
        // segments are renamed .deleted, and one after they are unlinked, both open with the new log start.
        final Path logs = tmp.resolve("logs");
        fillAndClose(logs, CONFIG, 0);
        final ManualClock clock = new ManualClock(T0);
        final ManualScheduler scheduler = new ManualScheduler(clock);
        try (LogManager m = LogManager.open(LogManagerConfig.builder().logDirs(logs).logConfig(CONFIG).build(),
            FileIO.system(), scheduler, clock)) {
            final PartitionLog log = m.log(ORDERS).orElseThrow();
            final long[] bases = SegmentsOf.bases(logs.resolve("orders-0"));
            log.updateHighWatermark(log.logEndOffset());
            log.deleteRecordsBefore(bases[2]);
            assertEquals(bases[2], log.logStartOffset());
            final Path renamed = crashImage(logs, "renamed");
            scheduler.advanceMs(5 * 60_000); // past file.delete.delay.ms: the .deleted files are unlinked
            final Path unlinked = crashImage(logs, "unlinked");
            for (final Path image : List.of(renamed, unlinked)) {
                try (LogManager reopened = openManager(image, CONFIG)) {
                    final PartitionLog after = reopened.log(ORDERS).orElseThrow(() -> new AssertionError(image + ": "
                        + reopened.openFailure(ORDERS).map(Throwable::getMessage).orElse("")));
                    assertEquals(bases[2], after.logStartOffset(), image.toString());
                    assertFalse(after.recoveryReport().droppedData(), after.recoveryReport().toString());
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- item 4

    @Test
    void aFlippedBaseOffsetIsRefusedAtReadAndAtOpenNamingFilePositionAndOffset() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        // A batch in the middle of a middle segment, its base offset's second byte flipped (XOR 0x22): far above its
        // place, but within the 32-bit relative offsets of no segment.
        final LogImage.Batch victim = middleBatchOf(original, 1);
        final String log = LogImage.logName(original.segmentBases.get(1));
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final byte[] damaged = files.get(log).clone();
        damaged[victim.position() + 1] ^= 0x22;
        files.put(log, damaged);
        final Path dir = tmp.resolve("flipped");
        LogImage.write(files, dir);
        // After a clean shutdown no batch is read at open: the read refuses, naming the file, position and offset.
        for (final boolean readOnly : new boolean[] {true, false}) {
            try (PartitionLog opened = readOnly ? openReadOnly(dir, CONFIG, RecoveryOptions.clean())
                : open(dir, CONFIG, RecoveryOptions.clean())) {
                for (long at = victim.baseOffset(); at <= victim.lastOffset(); at++) {
                    final long offset = at;
                    final CorruptLogException e = assertThrows(CorruptLogException.class,
                        () -> opened.read(offset, 1, Long.MAX_VALUE, true), "read at " + at);
                    assertEquals(log, e.path().getFileName().toString(), e.getMessage());
                    assertTrue(e.position() == victim.position() || e.position() > victim.position(), e.getMessage());
                }
                // The batches before it still read as they were.
                final LogImage.Batch first = original.batches.get(0);
                assertEquals(first.baseOffset(), opened.read(first.baseOffset(), 1, Long.MAX_VALUE, true)
                    .firstOffset());
            }
        }
        // A scan (after a crash, or asked for) refuses it at open, on the damaged batch.
        final CorruptLogException e = assertThrows(CorruptLogException.class, () -> open(dir, CONFIG,
            RecoveryOptions.afterCrash(original.logEndOffset()).scanningFrom(0)).close());
        assertEquals(victim.position(), e.position(), e.getMessage());
        assertEquals(victim.baseOffset(), e.offset(), e.getMessage());
    }

    @Test
    void theLastBatchOfASegmentMovedIntoTheNextSegmentIsRefusedOnItself() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        final LogImage.Batch victim = lastBatchOf(original, 1);
        final String log = LogImage.logName(original.segmentBases.get(1));
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final byte[] damaged = files.get(log).clone();
        damaged[victim.position() + 7] ^= 0x04; // up by 4, into the next segment's offsets
        files.put(log, damaged);
        final Path dir = tmp.resolve("moved");
        LogImage.write(files, dir);
        final CorruptLogException e = assertThrows(CorruptLogException.class, () -> open(dir, CONFIG,
            RecoveryOptions.afterCrash(original.logEndOffset()).scanningFrom(0)).close());
        assertEquals(log, e.path().getFileName().toString(), e.getMessage());
        assertEquals(victim.position(), e.position(), e.getMessage());
        assertEquals("lastOffset", e.field(), e.getMessage());
    }

    @Test
    void theLogsLastBatchMovedUpIsRefusedAfterACleanShutdownByTheRecoveryPoint() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        final int lastSegment = original.segmentBases.size() - 1;
        final LogImage.Batch victim = lastBatchOf(original, lastSegment);
        final String log = LogImage.logName(original.segmentBases.get(lastSegment));
        final Map<String, byte[]> files = new TreeMap<>(original.files);
        final byte[] damaged = files.get(log).clone();
        damaged[victim.position() + 6] ^= 0x01; // up by 256: no neighbour and no segment bound contradicts it
        files.put(log, damaged);
        final Path dir = tmp.resolve("moved");
        LogImage.write(files, dir);
        final CorruptLogException e = assertRefused(files, dir,
            new RecoveryOptions(true, original.logEndOffset(), Long.MAX_VALUE), "the log's last batch moved up");
        assertEquals("logEndOffset", e.field(), e.getMessage());
    }

    // ------------------------------------------------------------------------------------------------- item 5

    @Test
    void aStandaloneReopenKeepsACleanlyClosedSegmentFarAboveTheLogEnd() throws IOException {
        final LogConfig compacted = CONFIG.toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        final Path dir = tmp.resolve("orders-0");
        final ByteBuffer far = KafkaBatches.batchAtOffsets(3, 3_000_000_000L, 3_000_000_001L);
        final byte[] written = new byte[far.remaining()];
        far.duplicate().get(written);
        try (PartitionLog log = PartitionLog.open(dir, compacted, FileIO.system(), new ManualClock(T0))) {
            log.appendAsFollower(far);
            assertEquals(3_000_000_002L, log.logEndOffset());
        }
        final Path segment = dir.resolve("00000000003000000000.log");
        assertTrue(Files.exists(segment));
        // The simple open cannot tell a clean close from a crash, so it scans: the gap is legal and nothing says the
        // first segment held more, so the valid segment stays.
        try (PartitionLog readOnly = PartitionLog.openReadOnly(dir, compacted, FileIO.system(), new ManualClock(T0))) {
            assertEquals(3_000_000_002L, readOnly.logEndOffset());
            assertTrue(readOnly.recoveryReport().deletedSegments().isEmpty(), readOnly.recoveryReport().toString());
        }
        for (final LogConfig config : List.of(compacted, compacted.toBuilder()
            .corruptionPolicy(CorruptionPolicy.TRUNCATE).build())) {
            try (PartitionLog log = PartitionLog.open(dir, config, FileIO.system(), new ManualClock(T0))) {
                assertTrue(log.recoveryReport().deletedSegments().isEmpty(), log.recoveryReport().toString());
                assertFalse(log.recoveryReport().droppedData(), log.recoveryReport().toString());
                assertEquals(3_000_000_002L, log.logEndOffset());
                final LogSlice slice = log.read(3_000_000_000L, 1 << 16, Long.MAX_VALUE, true);
                assertEquals(3_000_000_000L, slice.firstOffset());
                final ByteBuffer bytes = KafkaBatches.bytesOf(slice);
                final byte[] read = new byte[bytes.remaining()];
                bytes.get(read);
                assertEquals(written.length, read.length);
                // The leader epoch was stamped by the follower append as the leader assigned it: byte-identical.
                assertArrayEquals(written, read);
            }
            assertTrue(Files.exists(segment), "never deleted");
        }
    }

    @Test
    void aGapAfterACrashIsKeptUnlessAWitnessSaysTheSegmentBeforeItLostItsTail() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), CONFIG, 5L, 60, true);
        final String log = LogImage.logName(original.segmentBases.get(1));
        final LogImage.Batch last = lastBatchOf(original, 1);
        // A power loss that kept the next segment but cut this one at a batch boundary (a whole batch lost).
        final Map<String, byte[]> cut = new TreeMap<>(original.files);
        cut.put(log, java.util.Arrays.copyOf(cut.get(log), last.position()));
        // With its witnesses (the index files' claims; the snapshot taken at the roll, at the next segment's base),
        // the later segments go, as after a torn tail, and the loss is reported.
        final Path witnessed = tmp.resolve("witnessed");
        LogImage.write(cut, witnessed);
        try (PartitionLog opened = open(witnessed, CONFIG, RecoveryOptions.afterCrash(0))) {
            assertEquals(last.baseOffset(), opened.logEndOffset());
            final RecoveryReport report = opened.recoveryReport();
            assertEquals(original.segmentBases.size() - 2, report.deletedSegments().size(), report.toString());
            assertTrue(report.truncations().get(0).detail().contains("lost its tail")
                || report.truncations().get(0).detail().contains("lost in the crash"), report.toString());
        }
        // Without any (index files and snapshots gone): a gap is legal, so the valid later segments stay.
        final Map<String, byte[]> bare = new TreeMap<>(cut);
        bare.keySet().removeIf(name -> name.endsWith(".index") || name.endsWith(".timeindex")
            || name.endsWith(".snapshot"));
        final Path kept = tmp.resolve("kept");
        LogImage.write(bare, kept);
        try (PartitionLog opened = open(kept, CONFIG, RecoveryOptions.afterCrash(0))) {
            assertEquals(original.logEndOffset(), opened.logEndOffset());
            assertTrue(opened.recoveryReport().deletedSegments().isEmpty(), opened.recoveryReport().toString());
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Fills orders-0 under a log manager over several segments, raises its log start, and closes cleanly. */
    private static long fillAndClose(final Path logs, final LogConfig config, final long logStart) {
        final ManualClock clock = new ManualClock(T0);
        try (LogManager m = LogManager.open(LogManagerConfig.builder().logDirs(logs).logConfig(config).build(),
            FileIO.system(), new ManualScheduler(clock), clock)) {
            final PartitionLog log = m.getOrCreate(ORDERS);
            for (int i = 0; i < 80; i++) {
                log.appendAsLeader(batch(0, T0 + i, T0 + i), 1 + i / 30);
            }
            log.updateHighWatermark(log.logEndOffset());
            if (logStart > 0) {
                log.deleteRecordsBefore(logStart);
            }
            return log.logEndOffset();
        }
    }

    /**
     * A log manager over {@code logs} and a second, empty directory: a refused partition takes its directory offline,
     * and a manager with every directory offline does not start (Kafka's rule), so the second one keeps it up.
     */
    private LogManager openManager(final Path logs, final LogConfig config) {
        final ManualClock clock = new ManualClock(T0);
        return LogManager.open(LogManagerConfig.builder().logDirs(logs, tmp.resolve("spare-" + logs.getFileName()))
            .logConfig(config).build(), FileIO.system(), new ManualScheduler(clock), clock);
    }

    /** A copy of a live log directory as a crash would leave it (no clean-shutdown marker, no lock held). */
    private Path crashImage(final Path logs, final String name) throws IOException {
        final Path image = tmp.resolve(name);
        final List<Path> all = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(logs)) {
            walk.forEach(all::add);
        }
        for (final Path p : all) {
            final Path target = image.resolve(logs.relativize(p).toString());
            if (Files.isDirectory(p)) {
                Files.createDirectories(target);
            } else if (!p.getFileName().toString().equals(".lock")) {
                Files.copy(p, target);
            }
        }
        Files.deleteIfExists(image.resolve(".kafka_cleanshutdown"));
        return image;
    }

    private static LogImage.Batch firstBatchAt(final LogImage image, final int segment, final int position) {
        for (final LogImage.Batch b : image.batches) {
            if (b.segment() == segment && b.position() >= position) {
                return b;
            }
        }
        throw new AssertionError("no batch at " + position);
    }

    private static LogImage.Batch lastBatchOf(final LogImage image, final int segment) {
        LogImage.Batch last = null;
        for (final LogImage.Batch b : image.batches) {
            if (b.segment() == segment) {
                last = b;
            }
        }
        return last;
    }

    private static LogImage.Batch middleBatchOf(final LogImage image, final int segment) {
        final List<LogImage.Batch> of = new ArrayList<>();
        for (final LogImage.Batch b : image.batches) {
            if (b.segment() == segment) {
                of.add(b);
            }
        }
        assertTrue(of.size() >= 3, "segment " + segment + " holds several batches");
        return of.get(of.size() / 2);
    }

    /** The base offsets of a partition directory's segments. */
    private static final class SegmentsOf {
        static long[] bases(final Path partition) throws IOException {
            try (Stream<Path> list = Files.list(partition)) {
                return list.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{20}\\.log"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, 20))).sorted().toArray();
            }
        }
    }
}
