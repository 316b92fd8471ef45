package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Test support for the cleaner proofs: seeded compact-topic input (keys that repeat, about 15% tombstones, lz4 and
 * uncompressed batches built by Kafka's own builder), the same log opened by Kafka 4.4's UnifiedLog, and the
 * records each side serves, described as {@code offset|timestamp|key|value|headers} strings.
 */
final class CompactedLogs {
    /** Record timestamps start here; the clocks of both sides start a little later. */
    static final long T0 = 1_700_000_000_000L;

    private CompactedLogs() {
    }

    /** A batch to append: its codec and records (offsets are the leader's). */
    record Input(Compression compression, SimpleRecord[] records) {
        ByteBuffer bytes() {
            return KafkaBatches.batch(0, compression, records);
        }
    }

    /** Kafka's {@link Time} driven by the test (Kafka's MockTime lives in a test jar that is not on the path). */
    static final class TestTime implements Time {
        private long ms;

        TestTime(final long ms) {
            this.ms = ms;
        }

        void set(final long nowMs) {
            this.ms = nowMs;
        }

        @Override
        public synchronized long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }

        @Override
        public void sleep(final long sleepMs) {
            throw new UnsupportedOperationException("the cleaner proofs never sleep: " + sleepMs + " ms");
        }
    }

    /**
     * {@code batches} batches of 1 to 8 records, keys {@code k0..k<keys-1>}, about 15% tombstones, values of 10 to
     * 200 bytes, about half of the batches lz4, timestamps increasing by one per record from {@code firstTs}.
     */
    static List<Input> input(final SplittableRandom random, final int batches, final int keys, final long firstTs) {
        final List<Input> out = new ArrayList<>();
        long ts = firstTs;
        for (int b = 0; b < batches; b++) {
            final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(8)];
            for (int i = 0; i < records.length; i++) {
                final byte[] key = ("k" + random.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
                byte[] value = null;
                if (random.nextInt(100) >= 15) {
                    value = new byte[10 + random.nextInt(190)];
                    for (int j = 0; j < value.length; j++) {
                        value[j] = (byte) ('a' + random.nextInt(4)); // compressible, as real values often are
                    }
                }
                records[i] = new SimpleRecord(ts++, key, value);
            }
            out.add(new Input(random.nextBoolean() ? Compression.lz4().build() : Compression.NONE, records));
        }
        return out;
    }

    /** Kafka's properties matching a Seglog {@link LogConfig} built by {@link #seglogConfig}. */
    static org.apache.kafka.storage.internals.log.LogConfig kafkaConfig(final int segmentBytes,
                                                                        final long deleteRetentionMs) {
        return kafkaConfig(segmentBytes, deleteRetentionMs, 4096, 10 * 1024 * 1024);
    }

    /** As {@link #kafkaConfig(int, long)} with {@code index.interval.bytes} and {@code segment.index.bytes}. */
    static org.apache.kafka.storage.internals.log.LogConfig kafkaConfig(final int segmentBytes,
                                                                        final long deleteRetentionMs,
                                                                        final int indexIntervalBytes,
                                                                        final int segmentIndexBytes) {
        final Map<String, Object> props = new HashMap<>();
        props.put("index.interval.bytes", indexIntervalBytes);
        props.put("segment.index.bytes", segmentIndexBytes);
        props.put("cleanup.policy", "compact");
        props.put("internal.segment.bytes", segmentBytes); // segment.bytes has a 1 MiB floor since Kafka 4.0
        props.put("segment.ms", Long.MAX_VALUE / 4);
        props.put("delete.retention.ms", deleteRetentionMs);
        props.put("min.compaction.lag.ms", 0L);
        props.put("min.cleanable.dirty.ratio", 0.01);
        props.put("file.delete.delay.ms", 0L);
        props.put("message.timestamp.before.max.ms", Long.MAX_VALUE);
        return new org.apache.kafka.storage.internals.log.LogConfig(props);
    }

    /** A compacted Seglog configuration: Kafka's defaults for the index, small segments, no time roll. */
    static LogConfig seglogConfig(final int segmentBytes, final long deleteRetentionMs) {
        return seglogConfig(segmentBytes, deleteRetentionMs, 4096, 10 * 1024 * 1024);
    }

    /** As {@link #seglogConfig(int, long)} with {@code index.interval.bytes} and {@code segment.index.bytes}. */
    static LogConfig seglogConfig(final int segmentBytes, final long deleteRetentionMs, final int indexIntervalBytes,
                                  final int segmentIndexBytes) {
        return LogConfig.builder().indexIntervalBytes(indexIntervalBytes).segmentIndexBytes(segmentIndexBytes)
            .cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(segmentBytes)
            .segmentMs(Long.MAX_VALUE / 4).minCleanableDirtyRatio(0.01).minCompactionLagMs(0)
            .deleteRetentionMs(deleteRetentionMs).fileDeleteDelayMs(0).build();
    }

    /**
     * Opens {@code partitionDir} with Kafka's UnifiedLog; {@code clean=false} with recovery point 0 makes Kafka's
     * LogLoader recover every segment (CRC of every batch, indexes rebuilt).
     */
    static UnifiedLog openKafka(final Path partitionDir, final org.apache.kafka.storage.internals.log.LogConfig config,
                                final Scheduler scheduler, final Time time, final boolean clean) throws IOException {
        return UnifiedLog.create(partitionDir.toFile(), config, 0L, 0L, scheduler, new BrokerTopicStats(), time,
            300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), clean,
            Optional.of(Uuid.randomUuid()));
    }

    /** One record as {@code offset|timestamp|key|value|headers}, key and value in hex (value "null" if none). */
    static String describe(final Record r) {
        final StringBuilder s = new StringBuilder().append(r.offset()).append('|').append(r.timestamp()).append('|')
            .append(hex(r.key())).append('|').append(hex(r.value()));
        for (final Header h : r.headers()) {
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

    /** Every record Seglog serves through {@link PartitionLog#read}, from the log start to the log end. */
    static List<String> served(final PartitionLog log) throws IOException {
        final List<String> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            final LogSlice slice = log.read(next, 1 << 20, Long.MAX_VALUE, true);
            if (slice.isEmpty()) {
                break;
            }
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream(slice.sizeInBytes());
            try (WritableByteChannel channel = Channels.newChannel(bytes)) {
                slice.transferTo(channel);
            }
            final long before = next;
            for (final RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes.toByteArray())).batches()) {
                batch.ensureValid();
                for (final Record r : batch) {
                    out.add(describe(r));
                }
                next = batch.nextOffset();
            }
            assertTrue(next > before, "read from " + before + " made no progress in " + log.dir());
        }
        return out;
    }

    /**
     * Every record of Kafka's segments, after checking each batch's CRC ({@code ensureValid}) and each segment's
     * offset and time index ({@code sanityCheck}).
     */
    static List<String> readByKafka(final UnifiedLog log) throws IOException {
        final List<String> out = new ArrayList<>();
        for (final LogSegment segment : log.logSegments()) {
            segment.offsetIndex().sanityCheck();
            segment.timeIndex().sanityCheck();
            for (final RecordBatch batch : segment.log().batches()) {
                batch.ensureValid();
                for (final Record r : batch) {
                    out.add(describe(r));
                }
            }
        }
        return out;
    }

    /** The bytes of every {@code .log}, {@code .index} and {@code .timeindex} file of a partition, by name. */
    static Map<String, byte[]> segmentFiles(final Path partitionDir) throws IOException {
        final Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            for (final Path file : files.toList()) {
                final String name = file.getFileName().toString();
                if (name.endsWith(".log") || name.endsWith(".index") || name.endsWith(".timeindex")) {
                    out.put(name, Files.readAllBytes(file));
                }
            }
        }
        return out;
    }
}
