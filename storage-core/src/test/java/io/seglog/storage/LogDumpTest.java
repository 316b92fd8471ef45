package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.inspect.LogDump;
import io.seglog.storage.inspect.LogDump.Decoder;
import io.seglog.storage.inspect.LogDump.Options;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogDump} prints what Kafka's {@code kafka-dump-log} prints: the expected lines are built from Kafka's own
 * {@code FileRecords} reading the same file, in the format of Kafka's {@code DumpLogSegments} (batch line, record
 * lines with the "|" indent, transaction markers, keys and payloads, trailing invalid bytes).
 */
class LogDumpTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final byte[] GARBAGE = {1, 2, 3, 4, 5, 6, 7};

    @TempDir
    Path dir;

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A segment of Kafka-built batches: plain with headers and a null key, gzip idempotent across the sequence
     * wrap, transactional, a commit marker; then 7 bytes of garbage. */
    private Path segment() throws IOException {
        final Header[] headers = {new RecordHeader("trace", utf8("t-1")), new RecordHeader("origin", utf8("eu"))};
        final List<ByteBuffer> parts = List.of(
            MemoryRecords.withRecords(100L, Compression.NONE, 3, new SimpleRecord(T0, utf8("k0"), utf8("v0"), headers),
                new SimpleRecord(T0 + 1, null, utf8("no key"))).buffer(),
            MemoryRecords.withIdempotentRecords(102L, Compression.gzip().build(), 7L, (short) 1, Integer.MAX_VALUE - 1,
                3, new SimpleRecord(T0 + 2, utf8("k2"), utf8("v2")), new SimpleRecord(T0 + 3, utf8("k3"), null),
                new SimpleRecord(T0 + 4, utf8("k4"), utf8("v4"))).buffer(),
            MemoryRecords.withTransactionalRecords(105L, Compression.NONE, 7L, (short) 1, 2, 3,
                new SimpleRecord(T0 + 5, utf8("k5"), utf8("v5"))).buffer(),
            MemoryRecords.withEndTransactionMarker(106L, T0 + 6, 3, 7L, (short) 1,
                new EndTransactionMarker(ControlRecordType.COMMIT, 5)).buffer(),
            ByteBuffer.wrap(GARBAGE));
        final ByteBuffer all = ByteBuffer.allocate(parts.stream().mapToInt(ByteBuffer::remaining).sum());
        parts.forEach(all::put);
        final Path file = dir.resolve("00000000000000000100.log");
        Files.write(file, all.array());
        return file;
    }

    /** Kafka's DumpLogSegments lines for this file, from Kafka's FileRecords. */
    private static List<String> kafkaLines(final Path file, final boolean deep, final boolean data)
        throws IOException {
        final List<String> lines = new ArrayList<>();
        lines.add("Dumping " + file);
        lines.add("Log starting offset: " + Long.parseLong(file.getFileName().toString().substring(0, 20)));
        long validBytes = 0;
        try (FileRecords records = FileRecords.open(file.toFile())) {
            for (final FileChannelRecordBatch b : records.batches()) {
                lines.add("baseOffset: " + b.baseOffset() + " lastOffset: " + b.lastOffset() + " count: "
                    + b.countOrNull() + " baseSequence: " + b.baseSequence() + " lastSequence: " + b.lastSequence()
                    + " producerId: " + b.producerId() + " producerEpoch: " + b.producerEpoch()
                    + " partitionLeaderEpoch: " + b.partitionLeaderEpoch() + " isTransactional: "
                    + b.isTransactional() + " isControl: " + b.isControlBatch() + " deleteHorizonMs: "
                    + b.deleteHorizonMs() + " position: " + validBytes + " " + b.timestampType() + ": "
                    + b.maxTimestamp() + " size: " + b.sizeInBytes() + " magic: " + b.magic() + " compresscodec: "
                    + b.compressionType().name + " crc: " + b.checksum() + " isvalid: " + b.isValid());
                if (deep || data) {
                    for (final Record r : b) {
                        final StringBuilder line = new StringBuilder("| offset: " + r.offset() + " "
                            + b.timestampType() + ": " + r.timestamp() + " keySize: " + r.keySize() + " valueSize: "
                            + r.valueSize() + " sequence: " + r.sequence() + " headerKeys: "
                            + Arrays.stream(r.headers()).map(Header::key).collect(Collectors.joining(",", "[", "]")));
                        if (b.isControlBatch()) {
                            final EndTransactionMarker marker = EndTransactionMarker.deserialize(r);
                            line.append(" endTxnMarker: ").append(marker.controlType()).append(" coordinatorEpoch: ")
                                .append(marker.coordinatorEpoch());
                        } else if (data) {
                            if (r.hasKey()) {
                                line.append(" key: ").append(StandardCharsets.UTF_8.decode(r.key()));
                            }
                            if (r.hasValue()) {
                                line.append(" payload: ").append(StandardCharsets.UTF_8.decode(r.value()));
                            }
                        }
                        lines.add(line.toString());
                    }
                }
                validBytes += b.sizeInBytes();
            }
        }
        if (Files.size(file) > validBytes) {
            lines.add("Found " + (Files.size(file) - validBytes) + " invalid bytes at the end of " + file.getFileName());
        }
        return lines;
    }

    private record Dumped(boolean clean, List<String> out, String err) {
    }

    private static Dumped dump(final List<Path> paths, final Options options) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final boolean clean = LogDump.dump(paths, options, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Dumped(clean, out.toString().lines().toList(), err.toString());
    }

    @Test
    void batchesAreThoseKafkasToolPrints() throws IOException {
        final Path file = segment();
        final Dumped d = dump(List.of(file), Options.batches());
        assertEquals(kafkaLines(file, false, false), d.out());
        assertFalse(d.clean(), "7 invalid bytes at the end");
    }

    @Test
    void deepIterationPrintsEachRecordAndTheMarkerAsKafkasToolDoes() throws IOException {
        final Path file = segment();
        final Dumped d = dump(List.of(file), new Options(true, false, Decoder.STRING, 1 << 20));
        assertEquals(kafkaLines(file, true, false), d.out());
        assertTrue(d.out().stream().anyMatch(l -> l.contains("sequence: 0 ")), "the sequence wraps past MAX_VALUE");
    }

    @Test
    void printDataAddsKeysAndPayloads() throws IOException {
        final Path file = segment();
        final Dumped d = dump(List.of(file), new Options(false, true, Decoder.STRING, 1 << 20));
        assertEquals(kafkaLines(file, true, true), d.out());

        final Dumped hex = dump(List.of(file), new Options(false, true, Decoder.HEX, 1 << 20));
        assertTrue(hex.out().stream().anyMatch(l -> l.endsWith(" key: 6b30 payload: 7630")), String.join("\n",
            hex.out()));
    }

    @Test
    void aBatchLargerThanTheLimitIsShownWithoutItsRecords() throws IOException {
        final Path file = segment();
        final Dumped d = dump(List.of(file), new Options(true, false, Decoder.STRING, 64));
        assertTrue(d.out().stream().anyMatch(l -> l.contains("records not shown") && l.contains("64-byte limit")),
            String.join("\n", d.out()));
        assertEquals(kafkaLines(file, false, false).size(), d.out().stream().filter(l -> !l.startsWith("|")).count());
    }

    @Test
    void aPartitionDirectoryDumpsEveryFileItKnowsInNameOrder() throws IOException {
        final Path partition = dir.resolve("orders-0");
        try (PartitionLog log = PartitionLog.open(partition, LogConfig.builder().segmentBytes(1_024)
            .indexIntervalBytes(64).build(), FileIO.system(), new ManualClock(T0))) {
            for (int i = 0; i < 30; i++) {
                log.appendAsLeader(KafkaBatches.batch(0, T0 + i), i < 15 ? 1 : 2);
            }
        }
        final Dumped d = dump(List.of(partition), new Options(false, false, Decoder.STRING, 1 << 20));
        assertTrue(d.clean(), d.err());
        final List<String> dumping = d.out().stream().filter(l -> l.startsWith("Dumping ")).toList();
        try (var files = Files.list(partition)) {
            final List<String> expected = files.filter(Files::isRegularFile).sorted()
                .filter(f -> !f.getFileName().toString().startsWith("."))
                .map(f -> "Dumping " + f).toList();
            assertEquals(expected, dumping, "every file but the directory lock");
        }
        assertTrue(d.out().contains("epoch: 1 startOffset: 0"), String.join("\n", d.out()));
        assertTrue(d.out().contains("epoch: 2 startOffset: 15"), String.join("\n", d.out()));
        // Each offset index line names a batch start that the batch lines show at that offset and position.
        final List<String> batchLines = d.out().stream().filter(l -> l.startsWith("baseOffset: ")).toList();
        final List<String> indexLines = d.out().stream().filter(l -> l.startsWith("offset: ")).toList();
        assertFalse(indexLines.isEmpty());
        for (final String entry : indexLines) {
            final String[] f = entry.split(" ");
            assertTrue(batchLines.stream().anyMatch(b -> b.contains("lastOffset: " + f[1] + " ")
                && b.contains(" position: " + f[3] + " ")), entry);
        }
    }

    @Test
    void aDirectoryKafkasUnifiedLogWroteDumpsAsKafkasToolWouldPrintIt() throws Exception {
        final Path partition = dir.resolve("kafka").resolve("orders-0");
        final org.apache.kafka.server.util.KafkaScheduler scheduler = new org.apache.kafka.server.util.KafkaScheduler(1);
        scheduler.startup();
        try {
            final org.apache.kafka.storage.internals.log.UnifiedLog kafka =
                org.apache.kafka.storage.internals.log.UnifiedLog.create(partition.toFile(),
                    new org.apache.kafka.storage.internals.log.LogConfig(java.util.Map.of("internal.segment.bytes",
                        2 * 1024, "index.interval.bytes", 256)), 0L, 0L, scheduler,
                    new org.apache.kafka.storage.log.metrics.BrokerTopicStats(),
                    org.apache.kafka.common.utils.Time.SYSTEM, 300_000,
                    new org.apache.kafka.storage.internals.log.ProducerStateManagerConfig(86_400_000, false), 600_000,
                    new org.apache.kafka.storage.internals.log.LogDirFailureChannel(10), true,
                    java.util.Optional.of(org.apache.kafka.common.Uuid.randomUuid()));
            for (int b = 0; b < 60; b++) {
                kafka.appendAsLeader(MemoryRecords.withIdempotentRecords(0L, Compression.NONE, 9L, (short) 2, 3 * b, 5,
                    new SimpleRecord(T0 + b, utf8("k" + b), utf8("v" + b)), new SimpleRecord(T0 + b, null,
                        utf8("w" + b)), new SimpleRecord(T0 + b, utf8("x"), null)), 5);
            }
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }
        final Dumped d = dump(List.of(partition), new Options(false, true, Decoder.STRING, 1 << 20));
        assertTrue(d.clean(), d.err());
        final List<String> expected = new ArrayList<>();
        try (var files = Files.list(partition)) {
            for (final Path f : files.filter(x -> x.toString().endsWith(".log")).sorted().toList()) {
                expected.addAll(kafkaLines(f, true, true));
            }
        }
        final List<String> logLines = new ArrayList<>();
        boolean inLog = false;
        for (final String line : d.out()) {
            if (line.startsWith("Dumping ")) {
                inLog = line.endsWith(".log");
            }
            if (inLog) {
                logLines.add(line);
            }
        }
        assertEquals(expected, logLines);
        assertTrue(d.out().contains("epoch: 5 startOffset: 0"), String.join("\n", d.out()));
        assertTrue(d.out().stream().anyMatch(l -> l.startsWith("producerId: 9 producerEpoch: 2 ")
            && l.contains(" firstSequence: ")), "Kafka's producer snapshots: " + String.join("\n", d.out()));
    }
}
