package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogReader;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.format.RecordBatch;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Seglog's read paths on a 256 MiB log of the same bytes {@link KafkaReadBench} reads: a fetch
 * ({@code read} with a reused {@link LogReader} + {@code transferTo} a loopback socket), iteration
 * ({@code readInto} a buffer, then every record through the {@link RecordBatch}/{@link RecordView} flyweights),
 * random-offset read latency (index lookup + slice, no bytes copied) and {@code offsetForTimestamp} latency.
 */
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class SeglogReadBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    /**
     * {@code seglog.read.mapped}: batch headers read through a mapping of the segment (the default) or with a
     * {@code pread} each; {@code -p readMapped=true,false} compares both in one run.
     */
    @Param({"true"})
    public boolean readMapped;

    private FetchPlan plan;
    private ReadLog readLog;
    private Path dir;
    private PartitionLog log;
    private LoopbackSink sink;
    private LogReader reader;
    private ByteBuffer consumerBuffer;
    private final UnsafeBuffer consumerView = new UnsafeBuffer(0, 0);
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private ReadTargets targets;

    /**
     * Fills the log (follower appends of the stamped batches) and connects the socket.
     *
     * @throws IOException from the socket
     */
    @Setup(Level.Trial)
    public void setUpTrial() throws IOException {
        BenchData data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        readLog = new ReadLog(data);
        plan = new FetchPlan(data, readLog.logBytes);
        dir = BenchFiles.newDirectory("seglog-read");
        log = SeglogLogs.open(dir, LogConfig.defaults().toBuilder().readMapped(readMapped).build());
        reader = log.reader();
        for (int copy = 0; copy < readLog.copies; copy++) {
            readLog.prepareCopy(copy);
            log.appendAsFollower(data.batches.duplicate());
        }
        if (log.logEndOffset() != readLog.recordCount) {
            throw new IllegalStateException("log end offset " + log.logEndOffset() + ", expected " + readLog.recordCount);
        }
        sink = new LoopbackSink();
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
            try {
                SeglogLogs.close(log);
            } finally {
                BenchFiles.deleteRecursively(dir);
            }
        }
    }

    private LogReader nextFetch() {
        reader.read(targets.nextFetchOffset(), FetchPlan.FETCH_BYTES, Long.MAX_VALUE, true);
        return reader;
    }

    /**
     * One fetch of at most 1 MiB of whole batches, sent with zero copy.
     *
     * @param counters records and bytes sent
     * @return bytes sent
     * @throws IOException from the log or the socket
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long transferTo(ReadCounters counters) throws IOException {
        LogReader fetched = nextFetch();
        long sent = fetched.transferTo(sink.sender());
        if (sent != fetched.sizeInBytes()) {
            throw new IllegalStateException("sent " + sent + " of " + fetched);
        }
        counters.records += (long) (fetched.sizeInBytes() / plan.batchBytes) * recordsPerBatch;
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
        LogReader fetched = nextFetch();
        consumerBuffer.clear();
        fetched.readInto(consumerBuffer);
        int size = fetched.sizeInBytes();
        consumerView.wrap(consumerBuffer, 0, size);
        long records = 0;
        for (int position = 0; position < size; position += batch.sizeInBytes()) {
            batch.wrap(consumerView, position);
            while (batch.nextRecord(record)) {
                blackhole.consume(record.offset());
                blackhole.consume(consumerView.getByte(record.valueOffset() + record.valueLength() - 1));
                records++;
            }
        }
        counters.records += records;
        counters.bytes += size;
    }

    /**
     * Index lookup and slice at a random offset, no bytes read.
     *
     * @return the slice size
     */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int randomRead() {
        reader.read(targets.nextRandomOffset(), FetchPlan.FETCH_BYTES, Long.MAX_VALUE, true);
        return reader.sizeInBytes();
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
        // The allocation-free form an embedder uses on a hot path: a reused LogReader carries the scan scratch.
        return reader.offsetForTimestamp(targets.nextRandomTimestamp(), Long.MAX_VALUE);
    }

    /**
     * {@link #randomRead()}'s call, {@value ReadTargets#ALLOCATION_CALLS} times per invocation, for its allocation
     * only: the benchmark thread's own allocation counter around the calls ({@link ThreadAllocation}); the
     * latency figure comes from {@link #randomRead()}.
     *
     * @param allocation the per-thread counter
     * @return the sum of the slice sizes
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(ReadTargets.ALLOCATION_CALLS)
    public long randomReadAllocation(ThreadAllocation allocation) {
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
     * allocation only (see {@link #randomReadAllocation}).
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
