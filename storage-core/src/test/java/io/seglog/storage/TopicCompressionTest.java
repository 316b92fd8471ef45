package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic codec ({@code compression.type} other than {@code producer}), against Kafka 4.4.0's
 * {@code UnifiedLog.appendAsLeader} with the same setting: every producer codec is stored in the topic's codec with
 * the same records, offsets, timestamps, producer fields and the same batch header Kafka writes (the compressed
 * bytes themselves may differ: two compressors); a batch already in the topic's codec is stored as it came; an
 * append that must be re-compressed holds one batch, as in Kafka.
 */
@Timeout(120)
class TopicCompressionTest {
    private static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    @TempDir
    Path dir;

    @Test
    void everyProducerCodecIsStoredInTheTopicCodecAsKafkaStoresIt() throws Exception {
        final long now = System.currentTimeMillis();
        final SplittableRandom random = new SplittableRandom(77);
        for (final String topic : new String[] {"uncompressed", "gzip", "snappy", "lz4", "zstd"}) {
            final List<ByteBuffer> batches = new ArrayList<>();
            for (final String producer : CODECS) {
                final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(60)];
                for (int i = 0; i < records.length; i++) {
                    records[i] = KafkaBatches.randomRecord(random, now - 1_000);
                }
                batches.add(KafkaBatches.batch(0, KafkaBatches.compression(producer), records));
            }
            final List<RecordBatch> kafka = kafkaAppends(topic, batches);
            final Path ours = dir.resolve("seglog-" + topic + "-0");
            try (PartitionLog log = PartitionLog.open(ours, LogConfig.fromProperties(Map.of("compression.type", topic)),
                FileIO.system(), new ManualClock(now))) {
                for (final ByteBuffer batch : batches) {
                    log.appendAsLeader(batch.duplicate(), 4);
                }
            }
            final List<RecordBatch> seglog = new ArrayList<>();
            try (FileRecords file = FileRecords.open(ours.resolve(String.format("%020d.log", 0)).toFile())) {
                for (final FileChannelRecordBatch batch : file.batches()) {
                    batch.ensureValid();
                    seglog.add(batch);
                }
                assertEquals(kafka.size(), seglog.size(), topic);
                for (int b = 0; b < kafka.size(); b++) {
                    final String context = "topic " + topic + ", producer " + CODECS[b];
                    final RecordBatch theirs = kafka.get(b);
                    final RecordBatch mine = seglog.get(b);
                    assertEquals(theirs.compressionType(), mine.compressionType(), context);
                    assertEquals(theirs.baseOffset(), mine.baseOffset(), context);
                    assertEquals(theirs.lastOffset(), mine.lastOffset(), context);
                    assertEquals(theirs.partitionLeaderEpoch(), mine.partitionLeaderEpoch(), context);
                    assertEquals(theirs.maxTimestamp(), mine.maxTimestamp(), context);
                    assertEquals(theirs.timestampType(), mine.timestampType(), context);
                    assertEquals(theirs.producerId(), mine.producerId(), context);
                    assertEquals(theirs.baseSequence(), mine.baseSequence(), context);
                    assertEquals(describe(theirs), describe(mine), context);
                    if (CODECS[b].equals(topic) || CODECS[b].equals("none") && topic.equals("uncompressed")) {
                        // Already in the topic's codec: stored as it came, as Kafka stores it.
                        assertEquals(theirs.sizeInBytes(), mine.sizeInBytes(), context);
                        assertEquals(theirs.checksum(), mine.checksum(), context);
                    }
                }
            }
        }
    }

    @Test
    void anAppendToBeRecompressedMustBeOneBatch() throws Exception {
        final SplittableRandom random = new SplittableRandom(5);
        final ByteBuffer two = KafkaBatches.concat(KafkaBatches.batch(0, KafkaBatches.randomRecord(random, 1_000_000)),
            KafkaBatches.batch(0, KafkaBatches.randomRecord(random, 1_000_000)));
        try (PartitionLog log = PartitionLog.open(dir.resolve("one-0"), LogConfig.builder()
            .compressionType(TopicCompression.ZSTD).build(), FileIO.system(), new ManualClock(1_000_000))) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(two, 0));
            assertEquals("batchCount", e.field());
            assertEquals(0, log.logEndOffset());
        }
        // Uncompressed into an uncompressed topic: several batches are fine.
        try (PartitionLog log = PartitionLog.open(dir.resolve("plain-0"), LogConfig.builder()
            .compressionType(TopicCompression.UNCOMPRESSED).build(), FileIO.system(), new ManualClock(1_000_000))) {
            assertEquals(1, log.appendAsLeader(KafkaBatches.concat(
                KafkaBatches.batch(0, KafkaBatches.randomRecord(random, 1_000_000)),
                KafkaBatches.batch(0, KafkaBatches.randomRecord(random, 1_000_000))), 0));
        }
    }

    @Test
    void logAppendTimeOnARecompressedBatchIsStampedInTheCallersHeaderToo() throws Exception {
        final SplittableRandom random = new SplittableRandom(9);
        final ByteBuffer batch = KafkaBatches.batch(0, KafkaBatches.compression("gzip"),
            KafkaBatches.randomRecord(random, 1_000), KafkaBatches.randomRecord(random, 1_000));
        try (PartitionLog log = PartitionLog.open(dir.resolve("lat-0"), LogConfig.builder()
            .compressionType(TopicCompression.LZ4).messageTimestampType(TimestampType.LOG_APPEND_TIME).build(),
            FileIO.system(), new ManualClock(424_242))) {
            log.appendAsLeader(batch, 0);
            assertEquals(424_242L, batch.getLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET));
            log.updateHighWatermark(log.logEndOffset());
            final RecordBatch stored = KafkaBatches.batches(KafkaBatches.bytesOf(log.read(0, 1 << 20,
                Long.MAX_VALUE, true))).get(0);
            stored.ensureValid();
            assertEquals(424_242L, stored.maxTimestamp());
            assertEquals("lz4", stored.compressionType().name);
        }
    }

    private List<RecordBatch> kafkaAppends(final String topic, final List<ByteBuffer> batches) throws Exception {
        final Path kafkaDir = Files.createDirectories(dir.resolve("kafka-" + topic + "-0"));
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(kafkaDir.toFile(),
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of("compression.type", topic)), 0L, 0L,
                scheduler, new BrokerTopicStats(), Time.SYSTEM, 300_000,
                new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
                Optional.of(Uuid.randomUuid()));
            for (final ByteBuffer batch : batches) {
                kafka.appendAsLeader(MemoryRecords.readableRecords(batch.duplicate()), 4);
            }
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }
        final byte[] bytes = Files.readAllBytes(kafkaDir.resolve(String.format("%020d.log", 0)));
        return KafkaBatches.batches(ByteBuffer.wrap(bytes));
    }

    private static List<String> describe(final RecordBatch batch) {
        final List<String> out = new ArrayList<>();
        for (final Record r : batch) {
            final byte[] value = new byte[r.valueSize() < 0 ? 0 : r.valueSize()];
            if (r.hasValue()) {
                r.value().duplicate().get(value);
            }
            final byte[] key = new byte[r.keySize() < 0 ? 0 : r.keySize()];
            if (r.hasKey()) {
                r.key().duplicate().get(key);
            }
            out.add(r.offset() + "@" + r.timestamp() + " k=" + java.util.HexFormat.of().formatHex(key) + " v="
                + java.util.HexFormat.of().formatHex(value) + " h=" + r.headers().length);
        }
        return out;
    }

    @Test
    void aRecompressedLogReadsBackInOrder() throws Exception {
        final SplittableRandom random = new SplittableRandom(3);
        try (PartitionLog log = PartitionLog.open(dir.resolve("read-0"), LogConfig.builder()
            .compressionType(TopicCompression.SNAPPY).build(), FileIO.system(), new ManualClock(1_000_000))) {
            final List<byte[]> values = new ArrayList<>();
            for (int b = 0; b < 10; b++) {
                final SimpleRecord record = KafkaBatches.randomRecord(random, 1_000_000);
                final byte[] value = new byte[record.value() == null ? 0 : record.value().remaining()];
                if (record.value() != null) {
                    record.value().duplicate().get(value);
                }
                values.add(record.value() == null ? null : value);
                log.appendAsLeader(KafkaBatches.batch(0, KafkaBatches.compression(b % 2 == 0 ? "zstd" : "none"),
                    record), 0);
            }
            int i = 0;
            for (final LogRecord record : Records.of(log, 0, log.logEndOffset())) {
                final byte[] expected = values.get(i);
                if (expected == null) {
                    assertEquals(null, record.value());
                } else {
                    final byte[] actual = new byte[record.value().remaining()];
                    record.value().duplicate().get(actual);
                    assertArrayEquals(expected, actual);
                }
                i++;
            }
            assertEquals(10, i);
        }
    }
}
