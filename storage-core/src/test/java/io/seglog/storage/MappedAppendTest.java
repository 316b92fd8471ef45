package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code seglog.mapped.append.max.bytes}: small appends copied through a mapping of the segment tail read back
 * byte for byte like written ones, mixed with appends too large for it; rolls and close trim the zeros the
 * mapping leaves past the data, so closed files are exactly the batches and a clean reopen continues; a crash
 * image taken while the mapping is live (a zero tail) recovers every batch and truncates only the zeros.
 */
class MappedAppendTest {
    private static final LogConfig MAPPED = LogConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(512)
        .segmentIndexBytes(16 * 1024).mappedAppendMaxBytes(1_024).build();

    @TempDir
    Path dir;

    private final List<byte[]> written = new ArrayList<>();

    private PartitionLog open(final Path logDir) {
        return PartitionLog.open(logDir, MAPPED, FileIO.system(), new ManualClock(0));
    }

    /** Mostly small batches (mapped), now and then one above the 1 KiB limit (written). */
    private void appendRandom(final PartitionLog log, final SplittableRandom random, final int batches) {
        for (int b = 0; b < batches; b++) {
            final boolean large = b < batches - 1 && random.nextInt(10) == 0; // the last one mapped
            final SimpleRecord[] records = new SimpleRecord[large ? 20 : 1 + random.nextInt(3)];
            for (int r = 0; r < records.length; r++) {
                final byte[] value = new byte[large ? 100 : random.nextInt(200)];
                random.nextBytes(value);
                records[r] = new SimpleRecord(1_000L + b, null, value);
            }
            final ByteBuffer batch = KafkaBatches.batch(0, records);
            log.appendAsLeader(batch, 1);
            final byte[] bytes = new byte[batch.remaining()];
            batch.duplicate().get(bytes);
            written.add(bytes);
        }
    }

    private void assertReadsBack(final PartitionLog log) throws IOException {
        long offset = log.logStartOffset();
        for (final byte[] expected : written) {
            final LogSlice slice = log.read(offset, 1, Long.MAX_VALUE, true);
            final ByteBuffer actual = KafkaBatches.bytesOf(slice);
            final byte[] bytes = new byte[expected.length];
            actual.get(bytes);
            assertArrayEquals(expected, bytes, "batch at offset " + offset);
            offset = KafkaBatches.batches(ByteBuffer.wrap(bytes)).get(0).nextOffset();
        }
        assertEquals(log.logEndOffset(), offset);
    }

    private static long logFileBytes(final Path logDir) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(logDir)) {
            for (final Path p : (Iterable<Path>) files::iterator) {
                if (p.getFileName().toString().endsWith(".log")) {
                    total += Files.size(p);
                }
            }
        }
        return total;
    }

    private static String sizes(final Path logDir) throws IOException {
        final StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(logDir).sorted()) {
            for (final Path p : (Iterable<Path>) files::iterator) {
                sb.append(p.getFileName()).append('=').append(Files.size(p)).append(' ');
            }
        }
        return sb.toString();
    }

    private long writtenBytes() {
        return written.stream().mapToLong(b -> b.length).sum();
    }

    @Test
    void mappedAppendsReadBackTrimOnRollAndCloseAndReopen() throws IOException {
        final Path logDir = dir.resolve("mapped-0");
        final SplittableRandom random = new SplittableRandom(5);
        try (PartitionLog log = open(logDir)) {
            appendRandom(log, random, 2_000);
            assertTrue(log.segmentCount() > 3, "rolled: " + log.segmentCount());
            assertReadsBack(log);
            // The active segment's file is longer than its data while its window is mapped.
            assertTrue(logFileBytes(logDir) > writtenBytes(), "zero tail while mapped: " + logFileBytes(logDir) + " vs " + writtenBytes() + " " + sizes(logDir));
        }
        assertEquals(writtenBytes(), logFileBytes(logDir), "close trims every data file to its batches");
        try (PartitionLog log = open(logDir)) {
            assertFalse(log.recoveryReport().droppedData(), "a closed mapped log has nothing to truncate");
            assertReadsBack(log);
            appendRandom(log, random, 300);
            assertReadsBack(log);
        }
        assertEquals(writtenBytes(), logFileBytes(logDir));
    }

    @Test
    void crashImageWithAZeroTailRecoversEveryBatch() throws IOException {
        final Path logDir = dir.resolve("mapped-0");
        final Path image = dir.resolve("image-0");
        final SplittableRandom random = new SplittableRandom(9);
        try (PartitionLog log = open(logDir)) {
            appendRandom(log, random, 500);
            log.flush();
            // What a power loss after the flush could leave: the files as they are now, mapped tail included.
            Files.createDirectories(image);
            try (Stream<Path> files = Files.list(logDir)) {
                for (final Path p : (Iterable<Path>) files::iterator) {
                    Files.copy(p, image.resolve(p.getFileName()));
                }
            }
        }
        assertTrue(logFileBytes(image) > writtenBytes(), "the image has the zero tail");
        try (PartitionLog log = open(image)) {
            final RecoveryReport report = log.recoveryReport();
            assertTrue(report.droppedData(), "the zero tail is truncated: " + report);
            assertReadsBack(log);
        }
        assertEquals(writtenBytes(), logFileBytes(image));
    }

    @Test
    void everyPageIsZeroFilledByAWriteCallBeforeTheCopyReachesIt() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("fill-0");
        final String logFile = logDir.resolve("00000000000000000000.log").toAbsolutePath().toString();
        try (PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, new ManualClock(0))) {
            final int journalAtOpen = io.journal().size();
            log.appendAsLeader(KafkaBatches.batch(0, 1_000L), 1);
            final List<String> first = callsOn(io, logFile, journalAtOpen);
            // The window is mapped (sparse), then the first 128 KiB past the data are written with zeros.
            assertEquals(List.of("MAP " + logFile + " 0+" + (4 << 20), "WRITE " + logFile + " 65536",
                "WRITE " + logFile + " 65536"), first);
            final SplittableRandom random = new SplittableRandom(3);
            long remaps = 1;
            while (log.segments().get(0).sizeInBytes() < 9 << 20) { // across two window boundaries
                final byte[] value = new byte[500 + random.nextInt(3_000)];
                log.appendAsLeader(KafkaBatches.batch(0, new SimpleRecord(1_000L, null, value)), 1);
                final List<String> calls = callsOn(io, logFile, journalAtOpen);
                remaps = calls.stream().filter(l -> l.startsWith("MAP ")).count();
                final long filled = calls.stream().filter(l -> l.startsWith("WRITE "))
                    .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
                final long dataEnd = log.segments().get(0).sizeInBytes();
                // Fills are contiguous from 0 (a remap may refill less than one append); the copy never passes
                // them, and they stay within two chunks of it rather than filling the whole window.
                assertTrue(filled >= dataEnd, "filled=" + filled + " dataEnd=" + dataEnd);
                assertTrue(filled <= dataEnd + 2 * 65_536 + remaps * 4_096, "filled=" + filled + " dataEnd=" + dataEnd);
            }
            assertEquals(3, remaps, "two window boundaries crossed");
        }
        assertEquals(List.of(), io.journal().stream().filter(l -> l.endsWith("FAILED")).toList());
    }

    private static List<String> callsOn(final FaultInjectingFileIO io, final String file, final int from) {
        final List<String> journal = io.journal();
        return journal.subList(from, journal.size()).stream()
            .filter(l -> l.contains(file) && !l.startsWith("FORCE ") && !l.startsWith("OPEN ")).toList();
    }

    @Test
    void aFailedZeroFillTakesTheLogOfflineAndPublishesNothing() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("fill-1");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, new ManualClock(0));
        io.failNext(FaultInjectingFileIO.Op.WRITE); // the first chunk of the zero fill, before the first copy
        final StorageException e = assertThrows(StorageException.class,
            () -> log.appendAsLeader(KafkaBatches.batch(0, 1_000L), 1));
        assertTrue(e.getMessage().contains("injected fault: WRITE"), e.getMessage());
        assertEquals(0, log.logEndOffset());
        assertThrows(StorageException.class, () -> log.appendAsLeader(KafkaBatches.batch(0, 1_001L), 1));
        log.close();
    }


    @Test
    void flushAndAwaitDurableForceTheMappedPagesAndSurviveAPowerLoss() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("durable-0");
        final SplittableRandom random = new SplittableRandom(11);
        final PartitionLog log = PartitionLog.open(logDir, MAPPED, io, new ManualClock(0));
        appendRandom(log, random, 50);
        final long forcesBefore = dataFileForces(io);
        final long end = log.logEndOffset();
        // A standalone log runs the group-commit fsync in the waiter's thread.
        assertEquals(end, log.awaitDurable(end - 1).join());
        assertEquals(end, log.flushedOffset());
        assertTrue(dataFileForces(io) > forcesBefore, "the data file written through the mapping was fsynced");
        appendRandom(log, random, 20);
        log.flush();
        assertEquals(log.logEndOffset(), log.flushedOffset());
        // The power loss: the process dies (files closed without a clean shutdown), unsynced bytes are lost.
        log.appendAsLeader(KafkaBatches.batch(0, 5_000L), 1); // not flushed
        final long flushedEnd = log.flushedOffset();
        io.failFromCall(FaultInjectingFileIO.Op.FORCE, io.count(FaultInjectingFileIO.Op.FORCE) + 1);
        assertThrows(StorageException.class, log::flush); // the crash: no further fsync reaches the disk
        log.close();
        io.loseUnsyncedData();
        written.remove(written.size() - 1); // the unflushed batch may or may not survive; compare the flushed ones
        try (PartitionLog reopened = PartitionLog.open(logDir, MAPPED, FileIO.system(), new ManualClock(0), 0,
            false)) {
            assertTrue(reopened.logEndOffset() >= flushedEnd, "every flushed offset survives: "
                + reopened.logEndOffset() + " < " + flushedEnd);
            final LogSlice slice = reopened.read(reopened.logStartOffset(), Integer.MAX_VALUE, flushedEnd, true);
            final ByteBuffer bytes = KafkaBatches.bytesOf(slice);
            for (final byte[] expected : written) {
                final byte[] actual = new byte[expected.length];
                bytes.get(actual);
                assertArrayEquals(expected, actual);
            }
        }
    }

    @Test
    void truncationReleasesTheWindowAndCutsTheFileToTheData() throws IOException {
        final Path logDir = dir.resolve("truncate-0");
        final Path file = logDir.resolve("00000000000000000000.log");
        try (PartitionLog log = open(logDir)) {
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(KafkaBatches.batch(0, 1_000L + i), 1);
            }
            assertTrue(Files.size(file) > log.segments().get(0).sizeInBytes(), "mapped: the file runs past the data");
            assertEquals(2, log.truncateTo(2));
            assertEquals(log.segments().get(0).sizeInBytes(), Files.size(file), "unmapped and cut to the data");
            assertEquals(2, log.appendAsLeader(KafkaBatches.batch(0, 2_000L), 1));
            assertTrue(Files.size(file) > log.segments().get(0).sizeInBytes(), "a new window after the cut");
            assertEquals(3, log.read(0, 1 << 20, Long.MAX_VALUE, true).sizeInBytes()
                / KafkaBatches.batch(0, 1_000L).remaining());
        }
        assertEquals(3L * KafkaBatches.batch(0, 1_000L).remaining(), Files.size(file));
    }

    private static long dataFileForces(final FaultInjectingFileIO io) {
        return io.journal().stream().filter(l -> l.startsWith("FORCE ") && l.endsWith(".log")).count();
    }

    @Test
    void rejectsNegativeLimit() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.builder().mappedAppendMaxBytes(-1).build());
        assertTrue(e.getMessage().contains(LogConfig.MAPPED_APPEND_MAX_BYTES_CONFIG), e.getMessage());
    }
}
