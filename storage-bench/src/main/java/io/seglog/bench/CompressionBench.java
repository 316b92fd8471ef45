package io.seglog.bench;

import io.seglog.storage.PartitionLog;
import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.format.RecordView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Compressed batches, Seglog beside Kafka 4.4.0 on the same bytes in the same run: the leader append
 * ({@code PartitionLog.appendAsLeader} vs {@code UnifiedLog.appendAsLeader}, both decompressing every record to
 * validate it and assigning offsets in the header) and the iteration of every record of a batch
 * ({@link BatchRecordReader} vs Kafka's {@code streamingIterator} with a reused {@code BufferSupplier}, as its
 * consumer reads fetched batches). The batches are Kafka's {@code MemoryRecordsBuilder} output: 100 records of
 * JSON-like 100-byte values (about 3x compressible), 10 or 100 records per batch. Scores are records/s;
 * {@code -prof gc}'s {@code gc.alloc.rate.norm} divided by 100 is bytes allocated per record.
 *
 * <p>Run: {@code java -jar storage-bench/target/benchmarks.jar CompressionBench -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class CompressionBench {
    /** Records per benchmark operation. */
    static final int RECORDS_PER_OP = 100;
    private static final int DISTINCT_BATCHES = 256;

    /** Kafka's codec name. */
    @Param({"lz4", "zstd"})
    public String codec;

    /** Records per batch. */
    @Param({"10", "100"})
    public int recordsPerBatch;

    private ByteBuffer[] batches;
    private MemoryRecords[] kafkaRecords;
    private MutableRecordBatch[] kafkaBatches;
    private RecordBatch[] seglogBatches;
    private int batchesPerOp;
    private int nextBatch;

    private final RecordView record = new RecordView();
    private BatchRecordReader reader;
    private final BufferSupplier bufferSupplier = BufferSupplier.create();

    private KafkaScheduler scheduler;
    private Path dir;
    private UnifiedLog kafkaLog;
    private PartitionLog seglogLog;

    /** Builds the batches once, with Kafka's builder. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        batchesPerOp = RECORDS_PER_OP / recordsPerBatch;
        final Compression compression = "lz4".equals(codec) ? Compression.lz4().build() : Compression.zstd().build();
        final SplittableRandom random = new SplittableRandom(42);
        final long now = System.currentTimeMillis();
        batches = new ByteBuffer[DISTINCT_BATCHES];
        kafkaRecords = new MemoryRecords[DISTINCT_BATCHES];
        kafkaBatches = new MutableRecordBatch[DISTINCT_BATCHES];
        seglogBatches = new RecordBatch[DISTINCT_BATCHES];
        for (int b = 0; b < DISTINCT_BATCHES; b++) {
            final MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocateDirect(recordsPerBatch * 200
                + 512), compression, TimestampType.CREATE_TIME, 0L);
            for (int i = 0; i < recordsPerBatch; i++) {
                builder.append(now + i, null, value(random));
            }
            final ByteBuffer batch = builder.build().buffer();
            batch.putInt(KafkaLogs.PARTITION_LEADER_EPOCH_OFFSET, 0);
            batches[b] = batch;
            kafkaRecords[b] = MemoryRecords.readableRecords(batch);
            kafkaBatches[b] = kafkaRecords[b].batches().iterator().next();
            seglogBatches[b] = new RecordBatch().wrap(new UnsafeBuffer(batch, 0, batch.remaining()), 0);
        }
        reader = new BatchRecordReader(RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES);
        scheduler = KafkaLogs.startScheduler();
    }

    /** A JSON-like value of about 100 bytes that compresses roughly 3 to 1. */
    private static byte[] value(final SplittableRandom random) {
        final String json = "{\"order\":" + random.nextInt(1_000_000) + ",\"customer\":\"customer-"
            + random.nextInt(5_000) + "\",\"amount\":" + random.nextInt(100_000) / 100.0 + ",\"currency\":\"EUR\","
            + "\"status\":\"" + (random.nextBoolean() ? "PAID" : "OPEN") + "\"}";
        final byte[] bytes = new byte[100];
        final byte[] text = json.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, bytes, 0, Math.min(text.length, bytes.length));
        return bytes;
    }

    /** Fresh logs per iteration. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws IOException {
        dir = BenchFiles.newDirectory("compression");
        kafkaLog = KafkaLogs.createLog(dir.resolve("kafka"), scheduler);
        seglogLog = SeglogLogs.open(dir.resolve("seglog"));
    }

    /** Closes and deletes the iteration's logs. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        try {
            KafkaLogs.close(kafkaLog);
            SeglogLogs.close(seglogLog);
        } finally {
            kafkaLog = null;
            seglogLog = null;
            BenchFiles.deleteRecursively(dir);
        }
    }

    /** Stops Kafka's scheduler and frees the reader. */
    @TearDown(Level.Trial)
    public void tearDownTrial() {
        reader.close();
        KafkaLogs.shutdown(scheduler);
    }

    /**
     * Seglog's leader append of {@link #RECORDS_PER_OP} records.
     *
     * @return the last offset
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_OP)
    public long seglogAppendAsLeader() {
        long last = -1;
        for (int i = 0; i < batchesPerOp; i++) {
            final ByteBuffer batch = next();
            batch.putLong(KafkaLogs.BASE_OFFSET_OFFSET, 0L);
            last = seglogLog.appendAsLeader(batch.clear(), 0);
        }
        return last;
    }

    /**
     * Kafka's leader append of the same records.
     *
     * @return the log end offset
     * @throws IOException from Kafka's log
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_OP)
    public long kafkaAppendAsLeader() throws IOException {
        for (int i = 0; i < batchesPerOp; i++) {
            final int b = nextBatch;
            next();
            batches[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, 0L);
            kafkaLog.appendAsLeader(kafkaRecords[b], 0);
        }
        return kafkaLog.logEndOffset();
    }

    /**
     * Seglog reads every record of the batches: offset, timestamp and value position.
     *
     * @return a sum over the records, so the work is not dead code
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_OP)
    public long seglogIterate() {
        long sum = 0;
        for (int i = 0; i < batchesPerOp; i++) {
            final int b = nextBatch;
            next();
            reader.open(seglogBatches[b]);
            while (reader.next(record)) {
                sum += record.offset() + record.timestamp() + record.valueLength() + reader.buffer().getByte(
                    record.valueOffset());
            }
        }
        return sum;
    }

    /**
     * Kafka reads every record of the same batches with its consumer's iterator.
     *
     * @return a sum over the records
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS_PER_OP)
    public long kafkaIterate() {
        long sum = 0;
        for (int i = 0; i < batchesPerOp; i++) {
            final int b = nextBatch;
            next();
            try (CloseableIterator<Record> records = kafkaBatches[b].streamingIterator(bufferSupplier)) {
                while (records.hasNext()) {
                    final Record r = records.next();
                    sum += r.offset() + r.timestamp() + r.valueSize() + r.value().get(0);
                }
            }
        }
        return sum;
    }

    private ByteBuffer next() {
        final ByteBuffer batch = batches[nextBatch];
        nextBatch = nextBatch + 1 == DISTINCT_BATCHES ? 0 : nextBatch + 1;
        return batch;
    }
}
