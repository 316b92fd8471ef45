package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.inspect.LogVerifier;
import io.seglog.storage.inspect.Problem;
import io.seglog.storage.inspect.VerifyReport;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogVerifier} on real directories: logs Seglog and Kafka's {@code UnifiedLog} wrote pass and are left byte
 * for byte as they were; each kind of damage is reported once, naming its file, position and offset. Batch positions
 * come from Kafka's {@code FileRecords}, not from the code under test.
 */
class LogVerifierTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final LogConfig CONFIG = LogConfig.builder().segmentBytes(2_048).indexIntervalBytes(128).build();
    private static final int RECORDS = 60;

    @TempDir
    Path root;

    /** A log directory holding one closed Seglog partition "orders-0" of several segments, epochs 1 then 2. */
    private Path seglogDir() {
        final Path logDir = root.resolve("seglog");
        try (PartitionLog log = PartitionLog.open(logDir.resolve("orders-0"), CONFIG, FileIO.system(),
            new ManualClock(T0))) {
            for (int i = 0; i < RECORDS; i++) {
                log.appendAsLeader(batch(0, T0 + i), i < RECORDS / 2 ? 1 : 2);
            }
            assertTrue(log.segmentCount() >= 3, "segments: " + log.segmentCount());
        }
        return logDir;
    }

    private static VerifyReport verify(final Path dir) throws IOException {
        final List<String> progress = new ArrayList<>();
        final VerifyReport report = LogVerifier.verify(dir, progress::add);
        assertEquals(report.segments(), progress.size(), "one progress line per segment: " + progress);
        return report;
    }

    /** Every file's bytes and modification time. */
    private static Map<Path, String> snapshot(final Path dir) throws IOException, NoSuchAlgorithmException {
        final Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.put(f, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)))
                    + "@" + Files.getLastModifiedTime(f).toMillis());
            }
        }
        return out;
    }

    /** Batch positions and base offsets of a segment, read by Kafka's FileRecords. */
    private static List<long[]> batches(final Path segment) throws IOException {
        final List<long[]> out = new ArrayList<>();
        try (FileRecords records = FileRecords.open(segment.toFile())) {
            for (final FileChannelRecordBatch b : records.batches()) {
                out.add(new long[] {b.position(), b.baseOffset(), b.sizeInBytes()});
            }
        }
        return out;
    }

    private static List<Path> files(final Path dir, final String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    private Path copy(final Path source, final String name) throws IOException {
        final Path target = root.resolve(name);
        try (Stream<Path> files = Files.walk(source)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                final Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    private static void write(final Path file, final long position, final byte[] bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            f.write(bytes);
        }
    }

    private static Problem only(final VerifyReport report) {
        assertEquals(1, report.problems().size(), "problems: " + report.problems());
        return report.problems().get(0);
    }

    // ------------------------------------------------------------------------------------------------ healthy

    @Test
    void aSeglogLogDirectoryPassesAndIsLeftExactlyAsItWas() throws Exception {
        final Path dir = seglogDir();
        final Map<Path, String> before = snapshot(dir);
        final VerifyReport report = verify(dir);
        assertTrue(report.healthy(), "problems: " + report.problems());
        assertEquals(1, report.partitions());
        assertEquals(files(dir.resolve("orders-0"), ".log").size(), report.segments());
        assertEquals(RECORDS, report.batches());
        assertEquals(before, snapshot(dir), "not a byte or a modification time changed");

        final VerifyReport partition = verify(dir.resolve("orders-0"));
        assertTrue(partition.healthy(), "a partition directory alone: " + partition.problems());
        assertEquals(RECORDS, partition.batches());
    }

    @Test
    void aLogWrittenByKafkasUnifiedLogPasses() throws Exception {
        final Path dir = root.resolve("kafka").resolve("orders-0");
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(dir.toFile(),
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of("internal.segment.bytes", 2 * 1024,
                    "index.interval.bytes", 256)), 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM, 300_000,
                new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
                Optional.of(Uuid.randomUuid()));
            for (int b = 0; b < 80; b++) {
                kafka.appendAsLeader(MemoryRecords.readableRecords(batch(0, T0 + b, T0 + b + 1)), b < 40 ? 3 : 4);
            }
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }
        final List<Path> snapshots = files(dir, ".snapshot");
        assertTrue(!snapshots.isEmpty(), "Kafka wrote producer snapshots at its rolls");
        final Map<Path, String> before = snapshot(dir);
        final VerifyReport report = verify(dir);
        assertTrue(report.healthy(), "problems: " + report.problems());
        assertEquals(80, report.batches());
        assertTrue(report.segments() >= 3, "segments: " + report.segments());
        assertEquals(before, snapshot(dir));

        // A flipped bit in a snapshot (Kafka's are empty here: no idempotent producer) breaks its entry count.
        final Path damaged = snapshots.get(0);
        final byte[] bytes = Files.readAllBytes(damaged);
        bytes[bytes.length - 1] ^= 1;
        Files.write(damaged, bytes);
        final Problem p = only(verify(dir));
        assertEquals(damaged, p.file());
        assertTrue(p.message().contains("entryCount expected 0"), p.message());
    }

    @Test
    void aLogHeldOpenWithItsPreallocatedIndexesPassesAndAClosedCopyOfItsActiveFilesToo() throws Exception {
        // A running broker's partition: the active segment's index files are preallocated (zero entries after the
        // written ones), an empty partition's hold no entry at all, and the data file may end in zeros.
        final Path logDir = root.resolve("live");
        try (PartitionLog empty = PartitionLog.open(logDir.resolve("empty-0"), CONFIG, FileIO.system(),
                 new ManualClock(T0));
             PartitionLog log = PartitionLog.open(logDir.resolve("orders-0"), CONFIG, FileIO.system(),
                 new ManualClock(T0))) {
            for (int i = 0; i < RECORDS; i++) {
                log.appendAsLeader(batch(0, T0 + i), 1);
            }
            final Path active = files(logDir.resolve("orders-0"), ".index").get(files(logDir.resolve("orders-0"),
                ".index").size() - 1);
            assertTrue(Files.size(active) > 8L * 100, "the active index is preallocated: " + Files.size(active));
            final VerifyReport report = verify(logDir);
            assertTrue(report.healthy(), "problems: " + report.problems());
            assertEquals(2, report.partitions());
            assertEquals(RECORDS, report.batches());
            // The same files copied away (no writer holds them: an image of a crashed broker) pass too: a
            // preallocated index is not damage, live or not.
            final Path copy = copy(logDir, "crashed");
            Files.deleteIfExists(copy.resolve("orders-0/.lock"));
            Files.deleteIfExists(copy.resolve("empty-0/.lock"));
            final VerifyReport crashed = verify(copy);
            assertTrue(crashed.healthy(), "problems: " + crashed.problems());
        }
    }

    @Test
    void aBatchBeingWrittenAtTheEndOfALiveLogIsNotDamageButTheSameBytesInAClosedLogAre() throws Exception {
        final Path logDir = root.resolve("writing");
        try (PartitionLog log = PartitionLog.open(logDir.resolve("orders-0"), CONFIG, FileIO.system(),
            new ManualClock(T0))) {
            for (int i = 0; i < 10; i++) {
                log.appendAsLeader(batch(0, T0 + i), 1);
            }
            final Path active = files(logDir.resolve("orders-0"), ".log").get(0);
            // Half a batch after the last one, as a reader may see a write in progress.
            final ByteBuffer half = batch(0, T0 + 99);
            final byte[] bytes = new byte[half.remaining() / 2];
            half.get(bytes);
            write(active, Files.size(active), bytes);
            assertTrue(verify(logDir).healthy(), "a live log's tail being written");
            final Path copy = copy(logDir, "torn");
            Files.deleteIfExists(copy.resolve("orders-0/.lock"));
            assertEquals(1, verify(copy).problems().size(), "the same tail with no writer is a torn tail");
        }
    }

    // ------------------------------------------------------------------------------------------------ damage

    @Test
    void aFlippedByteInABatchIsACrcMismatchAtThatBatch() throws Exception {
        final Path dir = copy(seglogDir(), "flipped").resolve("orders-0");
        final Path segment = files(dir, ".log").get(1);
        final long[] third = batches(segment).get(2);
        write(segment, third[0] + third[2] - 1, new byte[] {(byte) 0x5A});
        final Problem p = only(verify(dir));
        assertEquals(segment, p.file());
        assertEquals(third[0], p.position());
        assertEquals(third[1], p.offset());
        assertTrue(p.message().startsWith("CRC-32C"), p.message());
    }

    @Test
    void aTornTailIsReportedWhereItStarts() throws Exception {
        final Path dir = copy(seglogDir(), "torn").resolve("orders-0");
        final List<Path> logs = files(dir, ".log");
        final Path last = logs.get(logs.size() - 1);
        final List<long[]> batches = batches(last);
        final long[] tail = batches.get(batches.size() - 1);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(tail[0] + tail[2] - 3);
        }
        final VerifyReport report = verify(dir);
        assertEquals(2, report.problems().size(), "problems: " + report.problems());
        final Problem p = report.problems().get(0);
        assertEquals(last, p.file());
        assertEquals(tail[0], p.position());
        assertEquals(tail[1], p.offset());
        assertTrue(p.message().contains("runs past the end of the file"), p.message());
        final Problem snapshot = report.problems().get(1);
        assertEquals(tail[1] + 1, snapshot.offset());
        assertTrue(snapshot.message().contains("a producer snapshot past the log end offset " + tail[1]),
            "the close's snapshot now describes offsets the log no longer has: " + snapshot);
    }

    @Test
    void anIndexEntryThatPointsInsideABatchIsReported() throws Exception {
        final Path dir = copy(seglogDir(), "index").resolve("orders-0");
        final Path index = files(dir, ".index").get(0);
        assertTrue(Files.size(index) >= 16, "the index has at least two entries");
        final ByteBuffer entry = ByteBuffer.wrap(Files.readAllBytes(index), 8, 8);
        write(index, 12, ByteBuffer.allocate(4).putInt(entry.getInt(12) + 1).array());
        final Problem p = only(verify(dir));
        assertEquals(index, p.file());
        assertEquals(8, p.position());
        assertTrue(p.message().contains("is not the start of a batch"), p.message());
    }

    @Test
    void aTimeIndexThatGoesBackIsReported() throws Exception {
        final Path dir = copy(seglogDir(), "timeindex").resolve("orders-0");
        final Path index = files(dir, ".timeindex").get(0);
        assertTrue(Files.size(index) >= 24, "the time index has at least two entries");
        write(index, 12, ByteBuffer.allocate(8).putLong(T0 - 1).array());
        final Problem p = only(verify(dir));
        assertEquals(index, p.file());
        assertEquals(12, p.position());
        assertTrue(p.message().contains("goes back"), p.message());
    }

    @Test
    void aLeaderEpochCheckpointThatDisagreesWithTheBatchesIsReportedAtTheFirstBatchItMisplaces() throws Exception {
        final Path dir = copy(seglogDir(), "epochs").resolve("orders-0");
        // Epoch 2 began at offset RECORDS / 2; the checkpoint now says one offset later.
        Files.writeString(dir.resolve("leader-epoch-checkpoint"), "0\n2\n1 0\n2 " + (RECORDS / 2 + 1) + "\n",
            StandardCharsets.UTF_8);
        final Problem p = only(verify(dir));
        assertEquals(RECORDS / 2, p.offset());
        assertTrue(p.message().contains("leader epoch 2 but the leader-epoch checkpoint gives epoch 1"), p.message());
    }

    @Test
    void aRecoveryPointPastTheLogEndIsReported() throws Exception {
        final Path logDir = copy(seglogDir(), "checkpoint");
        Files.writeString(logDir.resolve("recovery-point-offset-checkpoint"), "0\n1\norders 0 " + (RECORDS + 5)
            + "\n", StandardCharsets.UTF_8);
        final Problem p = only(verify(logDir));
        assertEquals(RECORDS + 5, p.offset());
        assertTrue(p.message().contains("recovery point is past the log end offset " + RECORDS), p.message());
    }

    @Test
    void aSegmentOverlappingThePreviousOneIsReported() throws Exception {
        final Path dir = copy(seglogDir(), "overlap").resolve("orders-0");
        final List<Path> logs = files(dir, ".log");
        final long[] first = batches(logs.get(1)).get(0);
        // The second segment's first batch claims an offset the first segment already holds.
        final byte[] batch = new byte[(int) first[2]];
        try (RandomAccessFile f = new RandomAccessFile(logs.get(1).toFile(), "r")) {
            f.readFully(batch);
        }
        ByteBuffer.wrap(batch).putLong(0, 0L);
        write(logs.get(1), 0, batch);
        final VerifyReport report = verify(dir);
        assertTrue(report.problems().stream().anyMatch(p -> p.file().equals(logs.get(1)) && p.position() == 0
            && p.message().contains("below the segment's base offset")), "problems: " + report.problems());
    }

    // --------------------------------------------------------------------------- the losses an open refuses

    @Test
    void aLogCutExactlyAtItsLastIndexEntryIsReportedAtThatEntry() throws Exception {
        final Path dir = copy(seglogDir(), "cut").resolve("orders-0");
        final Path segment = files(dir, ".log").get(0);
        final Path index = files(dir, ".index").get(0);
        final byte[] entries = Files.readAllBytes(index);
        final int lastPosition = ByteBuffer.wrap(entries).getInt(entries.length - 4);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.setLength(lastPosition);
        }
        final VerifyReport report = verify(dir);
        assertTrue(report.problems().stream().anyMatch(p -> p.file().equals(index)
            && p.position() == entries.length - 8 && p.message().contains("is not the start of a batch")),
            "problems: " + report.problems());
    }

    @Test
    void aDataFileDeletedWithItsIndexFilesLeftIsReportedOnTheIndexFiles() throws Exception {
        final Path source = seglogDir();
        for (final int which : new int[] {0, -1}) { // the first segment, the active one
            final Path logDir = copy(source, "deleted" + which);
            final Path dir = logDir.resolve("orders-0");
            final List<Path> logs = files(dir, ".log");
            final Path gone = logs.get(which < 0 ? logs.size() - 1 : which);
            Files.delete(gone);
            final String stem = gone.getFileName().toString().replace(".log", "");
            final VerifyReport report = verify(dir);
            for (final String suffix : new String[] {".index", ".timeindex"}) {
                assertTrue(report.problems().stream().anyMatch(p -> p.file().equals(dir.resolve(stem + suffix))
                    && p.message().contains("without its data file")), which + ": problems: " + report.problems());
            }
        }
    }

    @Test
    void aCheckpointedLogStartBelowTheFirstSegmentIsReported() throws Exception {
        final Path logDir = copy(seglogDir(), "start");
        final Path dir = logDir.resolve("orders-0");
        final List<Path> logs = files(dir, ".log");
        final long second = Long.parseLong(logs.get(1).getFileName().toString().substring(0, 20));
        Files.writeString(logDir.resolve("log-start-offset-checkpoint"), "0\n1\norders 0 7\n", StandardCharsets.UTF_8);
        // Every file of the first segment gone: only the checkpoint can tell.
        for (final Path f : files(dir, "")) {
            if (f.getFileName().toString().startsWith(logs.get(0).getFileName().toString().substring(0, 20))) {
                Files.delete(f);
            }
        }
        final Problem p = only(verify(logDir));
        assertEquals(logDir.resolve("log-start-offset-checkpoint"), p.file());
        assertEquals(7, p.offset());
        assertTrue(p.message().contains("below the first segment, at " + second), p.message());
    }

    @Test
    void aFlippedBaseOffsetInTheMiddleOfASegmentIsReported() throws Exception {
        final Path dir = copy(seglogDir(), "flip").resolve("orders-0");
        for (final Path segment : List.of(files(dir, ".log").get(1), files(dir, ".log").get(
            files(dir, ".log").size() - 1))) {
            final List<long[]> batches = batches(segment);
            final long[] middle = batches.get(batches.size() / 2);
            final byte[] base = new byte[1];
            try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
                f.seek(middle[0] + 1);
                f.readFully(base);
                f.seek(middle[0] + 1);
                f.write(base[0] ^ 0x22); // the issue's flip: far above its place
            }
            final VerifyReport report = verify(dir);
            assertTrue(report.problems().stream().anyMatch(p -> p.file().equals(segment)
                && p.position() >= middle[0]), segment + ": problems: " + report.problems());
            try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
                f.seek(middle[0] + 1);
                f.write(base[0]);
            }
        }
    }

    @Test
    void aSegmentsLastBatchMovedIntoTheNextSegmentIsReportedOnItself() throws Exception {
        final Path dir = copy(seglogDir(), "moved").resolve("orders-0");
        final Path segment = files(dir, ".log").get(0);
        final List<long[]> batches = batches(segment);
        final long[] last = batches.get(batches.size() - 1);
        write(segment, last[0] + 7, new byte[] {(byte) (last[1] + 2)}); // up by 2: into the next segment
        final VerifyReport report = verify(dir);
        assertTrue(report.problems().stream().anyMatch(p -> p.file().equals(segment) && p.position() == last[0]
            && p.message().contains("reaches the next segment's base offset")), "problems: " + report.problems());
    }

    @Test
    void zeroBytesAfterTheLastBatchArePreallocatedSpaceButAnythingElseThereIsReported() throws Exception {
        final Path dir = copy(seglogDir(), "preallocated").resolve("orders-0");
        final List<Path> logs = files(dir, ".log");
        final Path last = logs.get(logs.size() - 1);
        final long end = Files.size(last);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(end + 64 * 1024); // what an active segment's mapped appends leave on disk
        }
        final VerifyReport report = verify(dir);
        assertTrue(report.healthy(), "problems: " + report.problems());
        assertEquals(RECORDS, report.batches());

        write(last, end + 1000, new byte[] {1});
        final Problem p = only(verify(dir));
        assertEquals(last, p.file());
        assertEquals(end, p.position());
        assertTrue(p.message().contains("batch length 0"), p.message());
    }
}
