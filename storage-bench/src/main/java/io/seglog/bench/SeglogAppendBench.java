package io.seglog.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
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
 * Seglog's {@code PartitionLog.appendAsLeader} (validation, in-place offset and epoch stamping, index
 * maintenance, roll at 1 GiB) and {@code appendAsFollower} (validation, offsets kept), one call per batch,
 * on exactly the bytes {@link KafkaUnifiedLogAppendBench} gives Kafka. Scores are records/s.
 *
 * <p>Each measurement iteration appends to a fresh log that is deleted afterwards.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class SeglogAppendBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch (one append call per batch). */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    /**
     * {@code seglog.mapped.append.max.bytes} for the A/B of the mapped tail: "default" keeps the engine's default,
     * a number sets it (0 writes every append with a write call, the path before the mapped tail).
     */
    @Param({"default"})
    public String mappedAppendMaxBytes;

    private BenchData data;
    private ByteBuffer[] views;
    /** One buffer over all batches whose window moves, like an embedder's reused receive buffer. */
    private ByteBuffer window;
    private Path dir;
    private PartitionLog log;
    private int nextBatch;
    private long nextOffset;

    /** Builds the batches once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        views = data.batchViews();
        for (ByteBuffer view : views) {
            view.putInt(KafkaLogs.PARTITION_LEADER_EPOCH_OFFSET, 0);
        }
        window = data.batches.duplicate();
    }

    /**
     * Points the reused buffer at batch {@code b}. The log reads {@code [position, limit)}; a new ByteBuffer
     * object per call would instead cost the log one 64 B view per call (its CRC view is cached per buffer).
     */
    private ByteBuffer window(int b) {
        window.clear();
        window.position(data.batchPositions[b]).limit(data.batchPositions[b + 1]);
        return window;
    }

    /** A fresh log per iteration. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        dir = BenchFiles.newDirectory("seglog-append");
        log = "default".equals(mappedAppendMaxBytes) ? SeglogLogs.open(dir)
            : SeglogLogs.open(dir, LogConfig.builder().mappedAppendMaxBytes(Integer.parseInt(mappedAppendMaxBytes))
                .build());
        nextOffset = 0;
    }

    /** Closes and deletes the iteration's log. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        try {
            SeglogLogs.close(log);
        } finally {
            log = null;
            BenchFiles.deleteRecursively(dir);
        }
    }

    /**
     * Leader append of {@link BenchData#RECORDS_PER_OP} records.
     *
     * @return the last offset assigned
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long appendAsLeader() {
        long last = -1;
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = nextBatch;
            // The producer's bytes, as Kafka gets them: baseOffset 0 (the previous append stamped it).
            views[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, 0L);
            last = log.appendAsLeader(window(b), 0);
            nextBatch = b + 1 == views.length ? 0 : b + 1;
        }
        return last;
    }

    /**
     * Follower append of {@link BenchData#RECORDS_PER_OP} records whose offsets the leader assigned.
     *
     * @return the last offset appended
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long appendAsFollower() {
        long last = -1;
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = nextBatch;
            views[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, nextOffset);
            last = log.appendAsFollower(window(b));
            nextOffset += data.recordsPerBatch;
            nextBatch = b + 1 == views.length ? 0 : b + 1;
        }
        return last;
    }
}
