package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.record.internal.MemoryRecords;
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
 * Kafka 4.4.0's full broker append path, {@code UnifiedLog.appendAsLeader} (CRC check, per-record
 * validation, in-place offset assignment, producer state, index maintenance, roll at 1 GiB) and
 * {@code appendAsFollower} (offsets kept), one call per batch, as a produce request or a fetch response
 * would. Scores are records/s ({@link BenchData#RECORDS_PER_OP} records per operation).
 *
 * <p>Each measurement iteration appends to a fresh log that is deleted afterwards.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class KafkaUnifiedLogAppendBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch (one append call per batch). */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private BenchData data;
    private ByteBuffer[] views;
    private MemoryRecords[] records;
    private KafkaScheduler scheduler;
    private Path dir;
    private UnifiedLog log;
    private int nextBatch;
    private long nextOffset;

    /** Builds the batches once. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        views = data.batchViews();
        records = new MemoryRecords[views.length];
        for (int b = 0; b < views.length; b++) {
            records[b] = MemoryRecords.readableRecords(views[b]);
            // appendAsFollower needs an epoch on the batch (the leader stamped it).
            views[b].putInt(KafkaLogs.PARTITION_LEADER_EPOCH_OFFSET, 0);
        }
        scheduler = KafkaLogs.startScheduler();
    }

    /** A fresh log per iteration. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws IOException {
        dir = BenchFiles.newDirectory("kafka-log");
        log = KafkaLogs.createLog(dir, scheduler);
        nextOffset = 0;
    }

    /** Closes and deletes the iteration's log. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        KafkaLogs.close(log);
        log = null;
        BenchFiles.deleteRecursively(dir);
    }

    /** Stops Kafka's scheduler. */
    @TearDown(Level.Trial)
    public void tearDownTrial() {
        KafkaLogs.shutdown(scheduler);
    }

    /**
     * Leader append of {@link BenchData#RECORDS_PER_OP} records.
     *
     * @return the log end offset, so the work is not dead code
     * @throws IOException from Kafka's log
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long appendAsLeader() throws IOException {
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = nextBatch;
            // A producer's batch carries baseOffset 0; the previous append rewrote it in place.
            views[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, 0L);
            log.appendAsLeader(records[b], 0);
            nextBatch = b + 1 == views.length ? 0 : b + 1;
        }
        return log.logEndOffset();
    }

    /**
     * Follower append of {@link BenchData#RECORDS_PER_OP} records whose offsets the leader assigned.
     *
     * @return the log end offset
     * @throws IOException from Kafka's log
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long appendAsFollower() throws IOException {
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = nextBatch;
            views[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, nextOffset);
            log.appendAsFollower(records[b], 0);
            nextOffset += data.recordsPerBatch;
            nextBatch = b + 1 == views.length ? 0 : b + 1;
        }
        return log.logEndOffset();
    }
}
