package io.seglog.bench;

import java.util.concurrent.TimeUnit;

import io.seglog.storage.format.RecordView;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import org.agrona.concurrent.UnsafeBuffer;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The per-record CPU of the batch codec alone, without files: the leader's validation ({@code CLIENT} rules),
 * the follower's ({@code REPLICATION}), the CRC-32C alone, and the record iteration of
 * {@link SeglogReadBench#iterate}, over the same {@link BenchData} batches {@link SeglogAppendBench} appends.
 * Scores are nanoseconds per record: one operation is {@link BenchData#RECORDS_PER_OP} records (one or more
 * batches), cycling through the data set so that the bytes come from L3/DRAM as they would on a busy append
 * path, not from L1.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class CodecBench {

    /** Value bytes per record. */
    @Param({"100"})
    public int valueSize;

    /** Records per v2 batch. */
    @Param({"100"})
    public int recordsPerBatch;

    private BenchData data;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private RecordBatchValidator client;
    private RecordBatchValidator replication;
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private int nextBatch;

    /** Builds the batches once. */
    @Setup(Level.Trial)
    public void setUp() {
        data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        view.wrap(data.batches, 0, data.totalBytes());
        client = new RecordBatchValidator(1 << 20, RecordBatchValidator.Origin.CLIENT);
        replication = new RecordBatchValidator(1 << 20, RecordBatchValidator.Origin.REPLICATION);
    }

    private int next() {
        int b = nextBatch;
        nextBatch = b + 1 == data.batchCount ? 0 : b + 1;
        return b;
    }

    private int validate(RecordBatchValidator validator) {
        int total = 0;
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = next();
            int position = data.batchPositions[b];
            int size = validator.checkBatch(view, position, data.batchPositions[b + 1] - position);
            if (size < 0) {
                throw new IllegalStateException(validator.lastField() + ": " + validator.lastDetail());
            }
            total += size;
        }
        return total;
    }

    /**
     * Leader validation of {@link BenchData#RECORDS_PER_OP} records: header, CRC, every record.
     *
     * @return the bytes validated
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public int validateClient() {
        return validate(client);
    }

    /**
     * Follower validation of {@link BenchData#RECORDS_PER_OP} records.
     *
     * @return the bytes validated
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public int validateReplication() {
        return validate(replication);
    }

    /**
     * The CRC-32C of the batches holding {@link BenchData#RECORDS_PER_OP} records, nothing else.
     *
     * @return the xor of the CRCs
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long crcOnly() {
        long crc = 0;
        for (int i = 0; i < data.batchesPerOp; i++) {
            int position = data.batchPositions[next()];
            crc ^= batch.wrap(view, position).computeCrc();
        }
        return crc;
    }

    /**
     * Iterates {@link BenchData#RECORDS_PER_OP} records as {@link SeglogReadBench#iterate} does: the offset
     * and the value's last byte of each.
     *
     * @param blackhole sink for the record fields
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public void iterate(Blackhole blackhole) {
        for (int i = 0; i < data.batchesPerOp; i++) {
            batch.wrap(view, data.batchPositions[next()]);
            while (batch.nextRecord(record)) {
                blackhole.consume(record.offset());
                blackhole.consume(view.getByte(record.valueOffset() + record.valueLength() - 1));
            }
        }
    }
}
