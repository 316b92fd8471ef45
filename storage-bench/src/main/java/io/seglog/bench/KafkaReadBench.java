package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Kafka 4.4.0's read paths on a 256 MiB {@code UnifiedLog} of the shared batches (HW = LEO):
 * a broker fetch ({@code read} + {@code FileRecords.writeTo}, i.e. {@code transferTo} into a loopback
 * socket), consumer-style iteration ({@code readInto} a buffer, then every record of
 * {@code MemoryRecords}), random-offset read latency (index lookup + slice, no bytes copied) and
 * {@code fetchOffsetByTimestamp} latency.
 */
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class KafkaReadBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private FetchPlan plan;
    private ReadLog readLog;
    private KafkaScheduler scheduler;
    private Path dir;
    private UnifiedLog log;
    private LoopbackSink sink;
    private SocketTransferableChannel channel;
    private ByteBuffer consumerBuffer;
    private ReadTargets targets;

    /**
     * Fills the log (follower appends of the stamped batches), sets HW = LEO, connects the socket.
     *
     * @throws IOException from Kafka's log or the socket
     */
    @Setup(Level.Trial)
    public void setUpTrial() throws IOException {
        BenchData data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        readLog = new ReadLog(data);
        plan = new FetchPlan(data, readLog.logBytes);
        scheduler = KafkaLogs.startScheduler();
        dir = BenchFiles.newDirectory("kafka-read");
        log = KafkaLogs.createLog(dir, scheduler);
        for (int copy = 0; copy < readLog.copies; copy++) {
            readLog.prepareCopy(copy);
            log.appendAsFollower(MemoryRecords.readableRecords(data.batches.duplicate()), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        if (log.logEndOffset() != readLog.recordCount) {
            throw new IllegalStateException("log end offset " + log.logEndOffset() + ", expected " + readLog.recordCount);
        }
        sink = new LoopbackSink();
        channel = new SocketTransferableChannel(sink.sender());
        consumerBuffer = ByteBuffer.allocateDirect(FetchPlan.FETCH_BYTES);
        targets = new ReadTargets(readLog, plan);
    }

    /**
     * Closes everything and deletes the log.
     *
     * @throws IOException from closing the socket
     */
    @TearDown(Level.Trial)
    public void tearDownTrial() throws IOException {
        try {
            sink.close();
        } finally {
            KafkaLogs.close(log);
            KafkaLogs.shutdown(scheduler);
            BenchFiles.deleteRecursively(dir);
        }
    }

    /**
     * One broker fetch of at most 1 MiB sent with zero copy.
     *
     * @param counters records (whole batches) and bytes sent
     * @return bytes sent
     * @throws IOException from the log or the socket
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long transferTo(ReadCounters counters) throws IOException {
        FetchDataInfo info = log.read(targets.nextFetchOffset(), FetchPlan.FETCH_BYTES, FetchIsolation.HIGH_WATERMARK, true);
        FileRecords records = (FileRecords) info.records;
        int size = records.sizeInBytes();
        int sent = 0;
        while (sent < size) {
            sent += records.writeTo(channel, sent, size - sent);
        }
        // Kafka cuts at 1 MiB, mid-batch; the consumer drops the partial batch and fetches it again.
        counters.records += (long) (size / plan.batchBytes) * recordsPerBatch;
        counters.bytes += sent;
        return sent;
    }

    /**
     * One consumer-style fetch: the bytes copied into a buffer, then every record visited.
     *
     * @param counters records and bytes read
     * @param blackhole sink for the record fields
     * @throws IOException from the log
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void iterate(ReadCounters counters, Blackhole blackhole) throws IOException {
        FetchDataInfo info = log.read(targets.nextFetchOffset(), FetchPlan.FETCH_BYTES, FetchIsolation.HIGH_WATERMARK, true);
        consumerBuffer.clear();
        ((FileRecords) info.records).readInto(consumerBuffer, 0);
        long records = 0;
        for (RecordBatch batch : MemoryRecords.readableRecords(consumerBuffer).batches()) {
            for (Record record : batch) {
                blackhole.consume(record.offset());
                blackhole.consume(record.value().get(record.valueSize() - 1));
                records++;
            }
        }
        counters.records += records;
        counters.bytes += consumerBuffer.limit();
    }

    /**
     * Index lookup and slice at a random offset, no bytes read.
     *
     * @return the slice size
     * @throws IOException from the log
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int randomRead() throws IOException {
        return log.read(targets.nextRandomOffset(), FetchPlan.FETCH_BYTES, FetchIsolation.HIGH_WATERMARK, true).records.sizeInBytes();
    }

    /**
     * The first offset whose timestamp is at least a random target.
     *
     * @return the offset found
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long offsetForTimestamp() {
        return log.fetchOffsetByTimestamp(targets.nextRandomTimestamp(), Optional.empty())
            .timestampAndOffsetOpt().map(found -> found.offset).orElse(-1L);
    }

    /**
     * {@link #randomRead()}'s call, {@value ReadTargets#ALLOCATION_CALLS} times per invocation, for its allocation
     * only, measured as for Seglog ({@link ThreadAllocation}).
     *
     * @param allocation the per-thread counter
     * @return the sum of the slice sizes
     * @throws IOException from the log
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(ReadTargets.ALLOCATION_CALLS)
    public long randomReadAllocation(ThreadAllocation allocation) throws IOException {
        long start = allocation.start();
        long sum = 0;
        for (int i = 0; i < ReadTargets.ALLOCATION_CALLS; i++) {
            sum += randomRead();
        }
        allocation.add(start, ReadTargets.ALLOCATION_CALLS);
        return sum;
    }

    /**
     * {@link #offsetForTimestamp()}'s call, {@value ReadTargets#ALLOCATION_CALLS} times per invocation, for its
     * allocation only.
     *
     * @param allocation the per-thread counter
     * @return the sum of the offsets found
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(ReadTargets.ALLOCATION_CALLS)
    public long offsetForTimestampAllocation(ThreadAllocation allocation) {
        long start = allocation.start();
        long sum = 0;
        for (int i = 0; i < ReadTargets.ALLOCATION_CALLS; i++) {
            sum += offsetForTimestamp();
        }
        allocation.add(start, ReadTargets.ALLOCATION_CALLS);
        return sum;
    }
}
