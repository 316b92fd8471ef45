package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A leader's append of compressed batches, against Kafka 4.4.0's {@code UnifiedLog.appendAsLeader} as the oracle:
 * the same producer batches (some with a header max timestamp that understates their records) give the same
 * {@code .log} bytes, byte for byte, so offsets are assigned in the header only and nothing is re-compressed, as
 * Kafka's {@code LogValidator} does for a topic with {@code compression.type=producer}. Kafka's one-batch rule,
 * the decompression bound, timestamp bounds and log-append time on compressed batches are checked too.
 */
@Timeout(120)
class CompressedAppendTest {
    private static final long SEED = 1_202L;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void compressedLeaderAppendsWriteKafkasBytes(final String codec) throws Exception {
        final long now = System.currentTimeMillis();
        final List<ByteBuffer> batches = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int b = 0; b < 30; b++) {
            final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(200)];
            for (int i = 0; i < records.length; i++) {
                records[i] = KafkaBatches.randomRecord(random, now - 60_000 + b * 100L);
            }
            final ByteBuffer batch = KafkaBatches.batch(0, KafkaBatches.compression(codec), records);
            if (b % 5 == 4) {
                // A producer whose header understates the records' maximum: both logs correct it (and the CRC).
                final long max = batch.getLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET);
                MemoryRecords.readableRecords(batch.duplicate()).batches().iterator().next().setMaxTimestamp(
                    org.apache.kafka.common.record.TimestampType.CREATE_TIME, max - 1_000);
            }
            batches.add(batch);
        }

        final File kafkaDir = Files.createDirectories(dir.resolve("kafka-0")).toFile();
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(kafkaDir, new org.apache.kafka.storage.internals.log.LogConfig(
                    Map.of()), 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM, 300_000,
                new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
                Optional.of(Uuid.randomUuid()));
            for (final ByteBuffer batch : batches) {
                kafka.appendAsLeader(MemoryRecords.readableRecords(batch.duplicate()), 3);
            }
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }

        final Path ours = dir.resolve("seglog-0");
        final List<Long> lastOffsets = new ArrayList<>();
        try (PartitionLog log = PartitionLog.open(ours, LogConfig.builder().build(), FileIO.system(),
            new ManualClock(now))) {
            for (final ByteBuffer batch : batches) {
                lastOffsets.add(log.appendAsLeader(batch.duplicate(), 3));
            }
            long expectedEnd = 0;
            for (final ByteBuffer batch : batches) {
                expectedEnd += batch.getInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET);
            }
            assertEquals(expectedEnd, log.logEndOffset());
            assertEquals(expectedEnd - 1, lastOffsets.get(lastOffsets.size() - 1));
            // And our own reader decompresses what we stored.
            long next = 0;
            for (final LogRecord record : Records.of(log, 0, log.logEndOffset())) {
                assertEquals(next++, record.offset());
            }
            assertEquals(expectedEnd, next);
        }
        final String name = String.format("%020d.log", 0);
        final byte[] kafkaBytes = Files.readAllBytes(kafkaDir.toPath().resolve(name));
        final byte[] ourBytes = Files.readAllBytes(ours.resolve(name));
        assertEquals(kafkaBytes.length, ourBytes.length, codec);
        assertArrayEquals(kafkaBytes, ourBytes, codec + ": the .log files differ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void recoveryOfCompressedBatchesTruncatesATornTailAsKafkasDoes(final String codec) throws Exception {
        final Path ours = dir.resolve("rec-0");
        final SplittableRandom random = new SplittableRandom(SEED + 7);
        final List<Long> ends = new ArrayList<>();
        try (PartitionLog log = PartitionLog.open(ours, LogConfig.builder().build(), FileIO.system(),
            new ManualClock(2_000_000))) {
            for (int b = 0; b < 20; b++) {
                final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(50)];
                for (int i = 0; i < records.length; i++) {
                    records[i] = KafkaBatches.randomRecord(random, 2_000_000);
                }
                log.appendAsLeader(KafkaBatches.batch(0, KafkaBatches.compression(codec), records), 1);
                ends.add(log.logEndOffset());
            }
        }
        final Path logFile = ours.resolve(String.format("%020d.log", 0));
        final long size = Files.size(logFile);
        // Tear the last batch: a crash in the middle of its write.
        try (var channel = java.nio.channels.FileChannel.open(logFile, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(size - 7);
        }
        final Path kafkaCopy = Files.createDirectories(dir.resolve("kafkarec-0"));
        Files.copy(logFile, kafkaCopy.resolve(logFile.getFileName()));
        final long expectedEnd = ends.get(ends.size() - 2);
        try (PartitionLog log = PartitionLog.open(ours, LogConfig.builder().build(), FileIO.system(),
            new ManualClock(2_000_000), new SplittableRandom(1), RecoveryOptions.afterCrash(0))) {
            assertEquals(expectedEnd, log.logEndOffset(), codec);
            long next = 0;
            for (final LogRecord record : Records.of(log, 0, log.logEndOffset())) {
                assertEquals(next++, record.offset());
            }
            assertEquals(expectedEnd, next);
        }
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(kafkaCopy.toFile(),
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of()), 0L, 0L, scheduler,
                new BrokerTopicStats(), Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false),
                600_000, new LogDirFailureChannel(10), false, Optional.empty());
            assertEquals(expectedEnd, kafka.logEndOffset(), codec);
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }
        assertArrayEquals(Files.readAllBytes(kafkaCopy.resolve(logFile.getFileName())), Files.readAllBytes(logFile),
            codec + ": Kafka's recovery and ours leave different .log bytes");
    }

    @Test
    void aCompressedBatchMustBeTheOnlyOneOfItsAppend() throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED);
        final ByteBuffer first = KafkaBatches.batch(0, KafkaBatches.compression("lz4"),
            KafkaBatches.randomRecord(random, 1_000_000));
        final ByteBuffer second = KafkaBatches.batch(0, KafkaBatches.randomRecord(random, 1_000_000));
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.builder().build(), FileIO.system(),
            new ManualClock(1_000_000))) {
            for (final ByteBuffer append : List.of(KafkaBatches.concat(first, second),
                KafkaBatches.concat(second, first))) {
                final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                    () -> log.appendAsLeader(append, 0));
                assertEquals("compressionCodec", e.field());
                assertEquals(0, log.logEndOffset());
            }
            assertEquals(0, log.appendAsLeader(first.duplicate(), 0));
            assertEquals(1, log.appendAsLeader(second.duplicate(), 0));
        }
    }

    @Test
    void aBatchThatDecompressesPastTheBoundIsRefusedAndNothingIsAppended() throws Exception {
        // 64 records of 1.5 MiB of zeros: a few kilobytes of zstd that would take 96 MiB, past the 64 MiB bound.
        final SimpleRecord[] records = new SimpleRecord[64];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(1_000L, null, new byte[3 << 19]);
        }
        final ByteBuffer bomb = KafkaBatches.batch(0, KafkaBatches.compression("zstd"), records);
        assertTrue(bomb.remaining() < 64 * 1024, "compressed to " + bomb.remaining());
        try (PartitionLog log = PartitionLog.open(dir.resolve("b-0"), LogConfig.builder().build(), FileIO.system(),
            new ManualClock(1_000))) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(bomb, 0));
            assertEquals("records", e.field());
            assertEquals(0, log.logEndOffset());
        }
    }

    @Test
    void compressedRecordsOutsideTheTimestampBoundsAreRefused() throws Exception {
        final ByteBuffer old = KafkaBatches.batch(0, KafkaBatches.compression("gzip"),
            new SimpleRecord(1_000_000L, null, new byte[8]), new SimpleRecord(10L, null, new byte[8]));
        try (PartitionLog log = PartitionLog.open(dir.resolve("ts-0"), LogConfig.builder()
            .messageTimestampBeforeMaxMs(60_000).build(), FileIO.system(), new ManualClock(1_000_000))) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(old, 0));
            assertEquals("timestamp", e.field());
            assertEquals(10L, e.value());
            assertEquals(0, log.logEndOffset());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void logAppendTimeStampsACompressedBatchWithoutTouchingItsRecords(final String codec) throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED);
        final SimpleRecord[] records = new SimpleRecord[20];
        for (int i = 0; i < records.length; i++) {
            records[i] = KafkaBatches.randomRecord(random, 5_000);
        }
        final ByteBuffer batch = KafkaBatches.batch(0, KafkaBatches.compression(codec), records);
        final byte[] payload = new byte[batch.remaining() - RecordBatchDescriptor.RECORDS_OFFSET];
        batch.duplicate().position(RecordBatchDescriptor.RECORDS_OFFSET).get(payload);
        try (PartitionLog log = PartitionLog.open(dir.resolve("lat-0"), LogConfig.builder()
            .messageTimestampType(TimestampType.LOG_APPEND_TIME).build(), FileIO.system(), new ManualClock(777_000))) {
            log.appendAsLeader(batch.duplicate(), 0);
            log.updateHighWatermark(log.logEndOffset());
            final ByteBuffer stored = KafkaBatches.bytesOf(log.read(0, 1 << 20, Long.MAX_VALUE, true));
            final org.apache.kafka.common.record.internal.RecordBatch kafkaView =
                KafkaBatches.batches(stored.duplicate()).get(0);
            kafkaView.ensureValid();
            assertEquals(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, kafkaView.timestampType());
            assertEquals(777_000L, kafkaView.maxTimestamp());
            final byte[] storedPayload = new byte[payload.length];
            stored.duplicate().order(ByteOrder.BIG_ENDIAN).position(RecordBatchDescriptor.RECORDS_OFFSET)
                .get(storedPayload);
            assertArrayEquals(payload, storedPayload, "the compressed records were rewritten");
            for (final LogRecord record : Records.of(log, 0, log.logEndOffset())) {
                assertEquals(777_000L, record.timestamp());
            }
        }
    }
}
