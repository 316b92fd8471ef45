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
    void theWindowIsFilledWithZerosByWriteCallsBeforeItIsMapped() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("fill-0");
        try (PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, new ManualClock(0))) {
            final int journalAtOpen = io.journal().size();
            log.appendAsLeader(KafkaBatches.batch(0, 1_000L), 1);
            final String logFile = logDir.resolve("00000000000000000000.log").toAbsolutePath().toString();
            final List<String> calls = io.journal().subList(journalAtOpen, io.journal().size()).stream()
                .filter(l -> l.contains(logFile)).toList();
            // Blocks are reserved (a full disk fails a write call, not a page fault with SIGBUS) before the map.
            final int firstMap = calls.indexOf(calls.stream().filter(l -> l.startsWith("MAP ")).findFirst()
                .orElseThrow());
            long zeroBytes = 0;
            for (final String call : calls.subList(0, firstMap)) {
                assertTrue(call.startsWith("WRITE "), call);
                zeroBytes += Long.parseLong(call.substring(call.lastIndexOf(' ') + 1));
            }
            assertEquals(calls.get(firstMap), "MAP " + logFile + " 0+" + (4 << 20));
            assertEquals(4 << 20, zeroBytes, "the whole window past the data (position 0) is written: " + calls);
            assertEquals(4 << 20, Files.size(logDir.resolve("00000000000000000000.log")));
            assertEquals(0, calls.subList(firstMap + 1, calls.size()).size(), "the append itself is a copy");
        }
    }

    @Test
    void aFailedZeroFillTakesTheLogOfflineAndPublishesNothing() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final Path logDir = dir.resolve("fill-1");
        final PartitionLog log = PartitionLog.open(logDir, LogConfig.defaults(), io, new ManualClock(0));
        io.failNext(FaultInjectingFileIO.Op.WRITE); // the first chunk of the window's zero fill
        final StorageException e = assertThrows(StorageException.class,
            () -> log.appendAsLeader(KafkaBatches.batch(0, 1_000L), 1));
        assertTrue(e.getMessage().contains("injected fault: WRITE"), e.getMessage());
        assertEquals(0, log.logEndOffset());
        assertEquals(0, io.count(FaultInjectingFileIO.Op.MAP) - mapsOfIndexes(io), "never mapped");
        assertThrows(StorageException.class, () -> log.appendAsLeader(KafkaBatches.batch(0, 1_001L), 1));
        log.close();
    }

    private static long mapsOfIndexes(final FaultInjectingFileIO io) {
        return io.journal().stream().filter(l -> l.startsWith("MAP ") && l.contains("index")).count();
    }

    @Test
    void rejectsNegativeLimit() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.builder().mappedAppendMaxBytes(-1).build());
        assertTrue(e.getMessage().contains(LogConfig.MAPPED_APPEND_MAX_BYTES_CONFIG), e.getMessage());
    }
}
