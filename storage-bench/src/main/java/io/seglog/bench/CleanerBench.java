package io.seglog.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.seglog.storage.BenchCleaning;
import io.seglog.storage.CleanupPolicy;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.io.FileIO;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Cleaning throughput: one operation compacts a fresh copy of the same generated log (about 64 MiB below the active
 * segment in 16 MiB segments, batches of 10 records with 16-byte keys and 200-byte values of 16 random letters,
 * every key written exactly twice so half of the records are superseded, no tombstones; uncompressed or lz4) in one cleaning round. Seglog: {@code
 * LogCleaner.cleanOnce()}; Kafka 4.4: {@code Cleaner.doClean(new LogToClean(log, 0, activeBase, false), now)}.
 * Both with a 32 MiB offset map at load factor 0.9, 256 KiB read and write buffers, no throttle, one thread. Each
 * system writes its own copy of the input in the trial setup (the files are byte-identical: see
 * KafkaOpensCompactedLogTest); each invocation copies that prepared directory and opens it as after a clean
 * shutdown (no recovery scan), outside the measured time. Files are page-cache resident: this measures the
 * cleaner's CPU and copying, not the disk. Bytes/s = the bytes below the active segment (printed at setup) / the
 * time per operation.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class CleanerBench {
    private static final int SEGMENT_BYTES = 16 << 20;
    private static final int DEDUPE_BYTES = 32 << 20;
    private static final int IO_BUFFER_BYTES = 256 << 10;
    private static final double LOAD_FACTOR = 0.9;
    private static final int RECORDS_PER_BATCH = 10;
    private static final int VALUE_BYTES = 200;
    private static final TopicPartition TP = new TopicPartition("bench", 0);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    /** Bytes of input written (the active segment gets what is past the last full segment). */
    @Param({"67108864"})
    public long logBytes;

    /** Batch codec: {@code none} or {@code lz4}. */
    @Param({"none", "lz4"})
    public String codec;

    private boolean kafkaRun;
    private Path prepared;
    private Path work;
    private final List<Path> works = new java.util.ArrayList<>();
    private KafkaScheduler scheduler;
    private UnifiedLog kafkaLog;
    private Cleaner kafkaCleaner;
    private long activeBase;
    private PartitionLog seglogLog;
    private LogCleaner seglogCleaner;

    private static LogConfig seglogConfig() {
        return LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(SEGMENT_BYTES)
            .fileDeleteDelayMs(0).build();
    }

    private static org.apache.kafka.storage.internals.log.LogConfig kafkaConfig() {
        return new org.apache.kafka.storage.internals.log.LogConfig(Map.of("cleanup.policy", "compact",
            "segment.bytes", SEGMENT_BYTES, "file.delete.delay.ms", 0L));
    }

    private static UnifiedLog openKafka(Path partitionDir, KafkaScheduler scheduler) throws IOException {
        return UnifiedLog.create(partitionDir.toFile(), kafkaConfig(), 0L, 0L, scheduler, new BrokerTopicStats(),
            Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
            new LogDirFailureChannel(10), true, Optional.of(TOPIC_ID));
    }

    /** The input batches: record i has key {@code i mod (n/2)}, so every key is written twice. */
    private ByteBuffer batch(long first, long records, long now) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(RECORDS_PER_BATCH * (VALUE_BYTES + 64)
            + 128), "lz4".equals(codec) ? Compression.lz4().build() : Compression.NONE, TimestampType.CREATE_TIME, 0);
        byte[] value = new byte[VALUE_BYTES];
        java.util.SplittableRandom random = new java.util.SplittableRandom(first);
        for (int i = 0; i < RECORDS_PER_BATCH; i++) {
            long n = first + i;
            long key = n % (records / 2);
            for (int j = 0; j < value.length; j++) {
                value[j] = (byte) ('a' + random.nextInt(16)); // 4 bits of entropy a byte: lz4 saves some, not all
            }
            builder.append(now, String.format("key-%012d", key).getBytes(), value);
        }
        return builder.build().buffer();
    }

    /**
     * Writes the input with the system under test into a prepared directory.
     *
     * @param params which benchmark runs
     * @throws IOException from Kafka's log
     */
    @Setup(Level.Trial)
    public void setUpTrial(BenchmarkParams params) throws IOException {
        kafkaRun = params.getBenchmark().endsWith("kafka");
        prepared = BenchFiles.newDirectory("cleaner-prepared");
        long recordBytes = 0;
        long now = System.currentTimeMillis();
        // Sized from one batch of this codec, so that both codecs write about logBytes.
        final long records = logBytes / batch(0, 2, now).remaining() * RECORDS_PER_BATCH;
        if (kafkaRun) {
            scheduler = KafkaLogs.startScheduler();
            UnifiedLog log = openKafka(prepared.resolve("bench-0"), scheduler);
            try {
                for (long n = 0; n < records; n += RECORDS_PER_BATCH) {
                    log.appendAsLeader(MemoryRecords.readableRecords(batch(n, records, now)), 0);
                }
            } finally {
                KafkaLogs.close(log);
            }
        } else {
            try (PartitionLog log = PartitionLog.open(prepared.resolve("bench-0"), seglogConfig(), FileIO.system(),
                InstantSource.system())) {
                for (long n = 0; n < records; n += RECORDS_PER_BATCH) {
                    log.appendAsLeader(batch(n, records, now), 0);
                }
            }
        }
        try (Stream<Path> files = Files.list(prepared.resolve("bench-0"))) {
            List<Path> logs = files.filter(p -> p.toString().endsWith(".log")).sorted().toList();
            for (int i = 0; i < logs.size() - 1; i++) {
                recordBytes += Files.size(logs.get(i));
            }
            System.out.println("CleanerBench " + (kafkaRun ? "kafka" : "seglog") + " codec=" + codec + " records="
                + records + " segments=" + logs.size() + " cleanableBytes=" + recordBytes);
        }
    }

    /**
     * A fresh copy of the prepared log, opened, with its high watermark at the log end, and a fresh cleaner.
     *
     * @throws IOException from the copy or Kafka's log
     */
    @Setup(Level.Invocation)
    public void setUpInvocation() throws IOException {
        // A new directory each time: Kafka's scheduler may still be unlinking the last copy's .deleted files.
        work = BenchFiles.newDirectory("cleaner-work");
        works.add(work);
        Path dir = work.resolve("bench-0");
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(prepared.resolve("bench-0"))) {
            for (Path file : files.toList()) {
                Files.copy(file, dir.resolve(file.getFileName()));
            }
        }
        if (kafkaRun) {
            kafkaLog = openKafka(dir, scheduler);
            kafkaLog.updateHighWatermark(kafkaLog.logEndOffset());
            List<LogSegment> segments = kafkaLog.logSegments();
            activeBase = segments.get(segments.size() - 1).baseOffset();
            try {
                kafkaCleaner = new Cleaner(0, new SkimpyOffsetMap(DEDUPE_BYTES), IO_BUFFER_BYTES, 1_048_588,
                    LOAD_FACTOR, new Throttler(Double.MAX_VALUE, 300, "cleaner-io", "bytes", Time.SYSTEM),
                    Time.SYSTEM, tp -> { });
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        } else {
            seglogLog = PartitionLog.open(dir, seglogConfig(), FileIO.system(), InstantSource.system(), 0,
                true);
            seglogLog.updateHighWatermark(seglogLog.logEndOffset());
            seglogCleaner = new LogCleaner(new LogCleaner.Settings(1, DEDUPE_BYTES, LOAD_FACTOR, IO_BUFFER_BYTES,
                Double.MAX_VALUE, 15_000), List.of(work), () -> List.of(BenchCleaning.of(seglogLog, TP)),
                FileIO.system(), InstantSource.system());
        }
    }

    /** Closes the invocation's log and cleaner. */
    @TearDown(Level.Invocation)
    public void tearDownInvocation() {
        if (seglogCleaner != null) {
            seglogCleaner.close();
            seglogCleaner = null;
        }
        SeglogLogs.close(seglogLog);
        seglogLog = null;
        KafkaLogs.close(kafkaLog);
        kafkaLog = null;
    }

    /** Deletes the directories and stops Kafka's scheduler. */
    @TearDown(Level.Trial)
    public void tearDownTrial() {
        KafkaLogs.shutdown(scheduler);
        works.forEach(BenchFiles::deleteRecursively);
        BenchFiles.deleteRecursively(prepared);
    }

    /**
     * Seglog: one cleaning round.
     *
     * @return whether a log was cleaned
     */
    @Benchmark
    public boolean seglog() {
        if (!seglogCleaner.cleanOnce() || !seglogCleaner.uncleanablePartitions().isEmpty()) {
            throw new IllegalStateException("the Seglog round did not clean " + seglogLog.dir());
        }
        return true;
    }

    /**
     * Kafka 4.4: one {@code doClean} of everything below the active segment.
     *
     * @return the new first dirty offset
     */
    @Benchmark
    public long kafka() {
        try {
            long end = kafkaCleaner.doClean(new LogToClean(kafkaLog, 0, activeBase, false),
                System.currentTimeMillis()).getKey();
            if (end != activeBase) {
                throw new IllegalStateException("Kafka cleaned up to " + end + ", not to " + activeBase);
            }
            return end;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }
}
