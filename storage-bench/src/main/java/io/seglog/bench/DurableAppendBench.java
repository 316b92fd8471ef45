package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import io.seglog.storage.PartitionLog;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Durable append: each operation appends one batch as leader and waits until it is on disk
 * ({@code PartitionLog.awaitDurable}), by 1 thread (an fsync per append) and by 8 threads sharing one log
 * (group commit: one fsync covers every waiter). The baseline is the device: {@code FileChannel.write} of
 * 256 KiB of the same bytes followed by {@code force(false)} (fdatasync), into a fresh file. Records/s and
 * bytes/s come from {@link ReadCounters} (summed over threads). These runs write to the disk for real.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Benchmark)
public class DurableAppendBench {

    /** The group-commit interval of the device baseline (issue 4). */
    static final int SYNC_BYTES = 256 << 10;

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch (one append per batch). */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private Path dir;
    private PartitionLog log;
    private FileChannel raw;

    /**
     * A fresh log (and raw file) per iteration, shared by all threads.
     *
     * @throws IOException from the file system
     */
    @Setup(Level.Iteration)
    public void setUpIteration() throws IOException {
        dir = BenchFiles.newDirectory("durable");
        log = SeglogLogs.open(dir);
        raw = FileChannel.open(dir.resolve("raw.log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /**
     * Closes and deletes the iteration's files.
     *
     * @throws IOException from closing the raw file
     */
    @TearDown(Level.Iteration)
    public void tearDownIteration() throws IOException {
        try {
            raw.close();
        } finally {
            try {
                SeglogLogs.close(log);
            } finally {
                BenchFiles.deleteRecursively(dir);
            }
        }
    }

    /** One producer thread's own copy of the batches (appends stamp them in place). */
    @State(Scope.Thread)
    public static class Producer {
        BenchData data;
        ByteBuffer window;
        long rawPosition;
        int next;

        /**
         * Builds this thread's batches.
         *
         * @param params the benchmark's parameters
         */
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) {
            data = new BenchData(Integer.parseInt(params.getParam("valueSize")),
                Integer.parseInt(params.getParam("recordsPerBatch")), System.currentTimeMillis());
            window = data.batches.duplicate();
        }

        /** Restarts the raw file position with each fresh file. */
        @Setup(Level.Iteration)
        public void reset() {
            rawPosition = 0;
        }

        ByteBuffer nextBatch() {
            int b = next;
            next = b + 1 == data.batchCount ? 0 : b + 1;
            window.clear();
            window.putLong(data.batchPositions[b] + KafkaLogs.BASE_OFFSET_OFFSET, 0L);
            window.position(data.batchPositions[b]).limit(data.batchPositions[b + 1]);
            return window;
        }
    }

    private long appendDurably(Producer producer, ReadCounters counters) {
        ByteBuffer batch = producer.nextBatch();
        int bytes = batch.remaining();
        long last = log.appendAsLeader(batch, 0);
        log.awaitDurable(last).join();
        counters.records += producer.data.recordsPerBatch;
        counters.bytes += bytes;
        return last;
    }

    /**
     * One thread: append one batch, wait until it is durable (an fsync per append).
     *
     * @param producer this thread's batches
     * @param counters records and bytes made durable
     * @return the last offset
     */
    @Benchmark
    @Threads(1)
    public long seglog1Thread(Producer producer, ReadCounters counters) {
        return appendDurably(producer, counters);
    }

    /**
     * Eight threads on one log: append one batch each, wait until durable (group commit).
     *
     * @param producer this thread's batches
     * @param counters records and bytes made durable
     * @return the last offset
     */
    @Benchmark
    @Threads(8)
    public long seglog8Threads(Producer producer, ReadCounters counters) {
        return appendDurably(producer, counters);
    }

    /**
     * The device: write 256 KiB of the batches, then fdatasync.
     *
     * @param producer the batches
     * @param counters records and bytes made durable
     * @throws IOException from the file system
     */
    @Benchmark
    @Threads(1)
    public void rawWriteAndSync256KiB(Producer producer, ReadCounters counters) throws IOException {
        BenchData data = producer.data;
        int batches = Math.max(1, SYNC_BYTES / data.batchBytes(0));
        int written = 0;
        for (int i = 0; i < batches; i++) {
            ByteBuffer batch = producer.nextBatch();
            while (batch.hasRemaining()) {
                int n = raw.write(batch, producer.rawPosition);
                producer.rawPosition += n;
                written += n;
            }
        }
        raw.force(false);
        counters.records += (long) batches * data.recordsPerBatch;
        counters.bytes += written;
    }
}
