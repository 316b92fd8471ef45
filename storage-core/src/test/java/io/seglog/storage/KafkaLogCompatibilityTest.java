package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.io.FileIO;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Byte compatibility with Kafka 4.4.0's storage classes, both ways: a log Seglog wrote opens in Kafka's
 * LogSegment/FileRecords with identical records, index answers and index files; a log Kafka's UnifiedLog
 * wrote opens in Seglog with identical records, positions and timestamp answers.
 */
class KafkaLogCompatibilityTest {
    private static final long SEED = 4_400L;
    private static final int INDEX_INTERVAL_BYTES = 1_024;
    private static final int SEGMENT_INDEX_BYTES = 1 << 20;
    private static final int[] BATCH_RECORDS = {1, 2, 10, 50, 200, 500};

    @TempDir
    Path dir;

    private static String describe(final long offset, final long timestamp, final ByteBuffer key, final ByteBuffer value,
                                   final Header[] headers) {
        final StringBuilder s = new StringBuilder().append(offset).append('|').append(timestamp).append('|')
            .append(hex(key)).append('|').append(hex(value));
        for (final Header h : headers) {
            s.append('|').append(h.key()).append('=').append(h.value() == null ? "null" : HexFormat.of().formatHex(h.value()));
        }
        return s.toString();
    }

    private static String hex(final ByteBuffer b) {
        if (b == null) {
            return "null";
        }
        final byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static String describe(final Record r) {
        return describe(r.offset(), r.timestamp(), r.key(), r.value(), r.headers());
    }

    private static SimpleRecord[] randomBatch(final SplittableRandom random, final long baseTs) {
        final SimpleRecord[] records = new SimpleRecord[BATCH_RECORDS[random.nextInt(BATCH_RECORDS.length)]];
        for (int i = 0; i < records.length; i++) {
            records[i] = KafkaBatches.randomRecord(random, baseTs);
        }
        return records;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void aLogWrittenBySeglogOpensInKafka(final String codec) throws IOException {
        System.out.println("KafkaLogCompatibilityTest seed=" + SEED + " codec=" + codec);
        final SplittableRandom random = new SplittableRandom(SEED);
        final Path ours = dir.resolve("seglog-0");
        final LogConfig config = LogConfig.builder().segmentBytes(128 * 1024).indexIntervalBytes(INDEX_INTERVAL_BYTES)
            .segmentIndexBytes(SEGMENT_INDEX_BYTES).build();
        final List<String> expected = new ArrayList<>();
        final List<long[]> timestamps = new ArrayList<>();
        final long[] bases;
        try (PartitionLog log = PartitionLog.open(ours, config, FileIO.system(), new ManualClock(0))) {
            for (int b = 0; b < 40; b++) {
                final SimpleRecord[] records = randomBatch(random, 1_000_000 + b * 1_000L);
                final long base = log.logEndOffset();
                log.appendAsLeader(KafkaBatches.batch(0, KafkaBatches.compression(codec), records), 5);
                for (int i = 0; i < records.length; i++) {
                    expected.add(describe(base + i, records[i].timestamp(), records[i].key(), records[i].value(),
                        records[i].headers()));
                    timestamps.add(new long[] {base + i, records[i].timestamp()});
                }
            }
            bases = log.segmentBaseOffsets();
        }
        assertTrue(bases.length >= 3, "segments=" + bases.length);
        final Map<String, byte[]> ourIndexes = new TreeMap<>();
        for (final long base : bases) {
            for (final String suffix : new String[] {".index", ".timeindex"}) {
                final String name = String.format("%020d", base) + suffix;
                ourIndexes.put(name, Files.readAllBytes(ours.resolve(name)));
            }
        }

        final org.apache.kafka.storage.internals.log.LogConfig kafkaConfig =
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of(
                "index.interval.bytes", INDEX_INTERVAL_BYTES, "segment.index.bytes", SEGMENT_INDEX_BYTES));
        final List<String> readByKafka = new ArrayList<>();
        final Map<Long, long[]> kafkaPositions = new TreeMap<>(); // offset -> {segment base, position}
        final Map<Long, Long> kafkaTimeAnswers = new TreeMap<>();
        // A sample of record timestamps (and one past each): Kafka's search decodes whole 500-record batches.
        final TreeSet<Long> targets = new TreeSet<>();
        for (int i = 0; i < timestamps.size(); i += 13) {
            targets.add(timestamps.get(i)[1]);
            targets.add(timestamps.get(i)[1] + 1);
        }
        targets.add(0L); // below every timestamp (negative targets are ListOffsets special values)
        targets.add(Long.MAX_VALUE);
        final List<LogSegment> kafkaSegments = new ArrayList<>();
        try {
            for (final long base : bases) {
                final LogSegment segment = LogSegment.open(ours.toFile(), base, kafkaConfig, Time.SYSTEM, true, 0, false, "");
                kafkaSegments.add(segment);
                segment.offsetIndex().sanityCheck();
                segment.timeIndex().sanityCheck();
                for (final FileChannelRecordBatch batch : segment.log().batches()) {
                    batch.ensureValid();
                    assertEquals(5, batch.partitionLeaderEpoch());
                    for (final Record r : batch) {
                        readByKafka.add(describe(r));
                        // Kafka's read path (index lookup + header scan) for this offset.
                        final int position = segment.read(r.offset(), 1).fetchOffsetMetadata.relativePositionInSegment;
                        assertEquals(batch.position(), position, "Kafka's read of offset " + r.offset());
                        kafkaPositions.put(r.offset(), new long[] {base, position});
                    }
                }
            }
            for (final long target : targets) {
                long answer = -1;
                for (final LogSegment segment : kafkaSegments) {
                    if (segment.maxTimestampSoFar() >= target) {
                        answer = segment.findOffsetByTimestamp(target, 0, Integer.MAX_VALUE).map(t -> t.offset).orElse(-1L);
                        break;
                    }
                }
                kafkaTimeAnswers.put(target, answer);
            }
            // Kafka's own index lookups agree with ours on the same files.
            for (final LogSegment segment : kafkaSegments) {
                final long base = segment.baseOffset();
                try (OffsetIndex offsetIndex = OffsetIndex.open(FileIO.system(),
                         ours.resolve(String.format("%020d.index", base)), base, SEGMENT_INDEX_BYTES);
                     TimeIndex timeIndex = TimeIndex.open(FileIO.system(),
                         ours.resolve(String.format("%020d.timeindex", base)), base, SEGMENT_INDEX_BYTES)) {
                    assertEquals(segment.offsetIndex().entries(), offsetIndex.entries());
                    for (final Map.Entry<Long, long[]> e : kafkaPositions.entrySet()) {
                        if (e.getValue()[0] == base) {
                            assertEquals(segment.offsetIndex().lookup(e.getKey()).position(),
                                offsetIndex.lookupPosition(e.getKey()), "offset index lookup of " + e.getKey());
                        }
                    }
                    for (final long target : targets) {
                        assertEquals(segment.timeIndex().lookup(target).offset(), timeIndex.lookupOffset(target),
                            "time index lookup of " + target);
                    }
                }
            }
        } finally {
            for (final LogSegment segment : kafkaSegments) {
                segment.close();
            }
        }
        assertEquals(expected, readByKafka);

        // Kafka's LogSegment.append applies the index rule to the same batches: the index files match byte for byte.
        final Path kafkaDir = Files.createDirectories(dir.resolve("kafka-rebuilt-0"));
        for (final long base : bases) {
            final LogSegment rebuilt = LogSegment.open(kafkaDir.toFile(), base, kafkaConfig, Time.SYSTEM, 0, false);
            try (FileRecords source = FileRecords.open(ours.resolve(String.format("%020d.log", base)).toFile())) {
                for (final FileChannelRecordBatch batch : source.batches()) {
                    final ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                    source.readInto(bytes, batch.position());
                    assertEquals(batch.sizeInBytes(), bytes.remaining());
                    rebuilt.append(batch.lastOffset(), MemoryRecords.readableRecords(bytes)); // readInto flips
                }
            }
            rebuilt.onBecomeInactiveSegment();
            rebuilt.close();
            for (final String suffix : new String[] {".index", ".timeindex"}) {
                final String name = String.format("%020d", base) + suffix;
                assertArrayEquals(Files.readAllBytes(kafkaDir.resolve(name)), ourIndexes.get(name), name);
            }
        }

        // And Seglog, reopened, gives Kafka's answers.
        try (PartitionLog log = PartitionLog.open(ours, config, FileIO.system(), new ManualClock(0))) {
            for (final Map.Entry<Long, long[]> e : kafkaPositions.entrySet()) {
                final LogSlice slice = log.read(e.getKey(), 1, Long.MAX_VALUE, true);
                assertEquals(e.getValue()[0], slice.segmentBaseOffset(), "segment of " + e.getKey());
                assertEquals(e.getValue()[1], slice.position(), "position of " + e.getKey());
            }
            for (final Map.Entry<Long, Long> e : kafkaTimeAnswers.entrySet()) {
                assertEquals(e.getValue(), log.offsetForTimestamp(e.getKey()), "timestamp " + e.getKey());
            }
        }
    }

    @Test
    @Timeout(120)
    void aLogWrittenByKafkasUnifiedLogOpensInSeglog() throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED + 1);
        final File kafkaDir = dir.resolve("kafka-0").toFile();
        final org.apache.kafka.storage.internals.log.LogConfig kafkaConfig =
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of("internal.segment.bytes", 96 * 1024,
                "index.interval.bytes", INDEX_INTERVAL_BYTES, "segment.index.bytes", SEGMENT_INDEX_BYTES));
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(kafkaDir, kafkaConfig, 0L, 0L, scheduler, new BrokerTopicStats(),
                Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
                new LogDirFailureChannel(10), true, Optional.of(Uuid.randomUuid()));
            for (int b = 0; b < 40; b++) {
                kafka.appendAsLeader(MemoryRecords.readableRecords(KafkaBatches.batch(0, randomBatch(random, 2_000_000 + b * 1_000L))), 2);
            }
            kafka.prepareActiveSegmentForClose();
            kafka.flush(true);
            // Stop the scheduler first: a roll's asynchronous flush must not run against a closed log.
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }

        // Ground truth from Kafka's own files: every record, and the segment and position of its batch.
        final List<String> records = new ArrayList<>();
        final List<long[]> timestamps = new ArrayList<>();
        final Map<Long, long[]> positions = new TreeMap<>();
        final List<Long> kafkaBases = new ArrayList<>();
        try (var files = Files.list(kafkaDir.toPath())) {
            for (final Path file : (Iterable<Path>) files.sorted()::iterator) {
                final String name = file.getFileName().toString();
                if (!name.endsWith(".log")) {
                    continue;
                }
                final long base = Long.parseLong(name.substring(0, 20));
                kafkaBases.add(base);
                try (FileRecords fileRecords = FileRecords.open(file.toFile())) {
                    for (final FileChannelRecordBatch batch : fileRecords.batches()) {
                        for (final Record r : batch) {
                            records.add(describe(r));
                            timestamps.add(new long[] {r.offset(), r.timestamp()});
                            positions.put(r.offset(), new long[] {base, batch.position()});
                        }
                    }
                }
            }
        }
        assertTrue(kafkaBases.size() >= 3, "Kafka segments=" + kafkaBases);

        final LogConfig config = LogConfig.builder().segmentBytes(96 * 1024).indexIntervalBytes(INDEX_INTERVAL_BYTES)
            .segmentIndexBytes(SEGMENT_INDEX_BYTES).build();
        try (PartitionLog log = PartitionLog.open(kafkaDir.toPath(), config, FileIO.system(), new ManualClock(0))) {
            assertEquals(kafkaBases, boxed(log.segmentBaseOffsets()));
            assertEquals(records.size(), log.logEndOffset());
            final List<String> readBySeglog = new ArrayList<>();
            long offset = 0;
            while (offset < log.logEndOffset()) {
                final LogSlice slice = log.read(offset, 64 * 1024, Long.MAX_VALUE, true);
                for (final RecordBatch batch : KafkaBatches.batches(KafkaBatches.bytesOf(slice))) {
                    for (final Record r : batch) {
                        readBySeglog.add(describe(r));
                    }
                    offset = batch.lastOffset() + 1;
                }
            }
            assertEquals(records, readBySeglog);
            for (final Map.Entry<Long, long[]> e : positions.entrySet()) {
                final LogSlice slice = log.read(e.getKey(), 1, Long.MAX_VALUE, true);
                assertEquals(e.getValue()[0], slice.segmentBaseOffset(), "segment of " + e.getKey());
                assertEquals(e.getValue()[1], slice.position(), "position of " + e.getKey());
            }
            final TreeSet<Long> targets = new TreeSet<>();
            timestamps.forEach(t -> {
                targets.add(t[1]);
                targets.add(t[1] + 1);
            });
            for (final long target : targets) {
                long expected = -1;
                for (final long[] t : timestamps) {
                    if (t[1] >= target) {
                        expected = t[0];
                        break;
                    }
                }
                assertEquals(expected, log.offsetForTimestamp(target), "timestamp " + target);
            }
            // Seglog appends continue the Kafka log.
            assertEquals(records.size(), log.appendAsLeader(KafkaBatches.batch(0, 5L), 3));
        }
    }

    private static List<Long> boxed(final long[] values) {
        final List<Long> out = new ArrayList<>();
        for (final long v : values) {
            out.add(v);
        }
        return out;
    }
}
