package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogReader;
import io.seglog.storage.PartitionLog;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
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

/**
 * A {@code read_committed} fetch against a {@code read_uncommitted} one, same log, same run: a log of transactions
 * (four producers interleaved, five batches each, one in four aborted, 64 MiB segments; 64 MiB of them, or
 * {@code -Dseglog.bench.fileMiB}), read 1 MiB at a time
 * from offsets cycling through it and sent zero-copy to a loopback socket. The committed fetch also takes the last
 * stable offset and the aborted transactions its answer overlaps, from the segments' {@code .txnindex}; run with
 * {@code -prof gc} to see both allocate nothing per fetch.
 */
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class ReadCommittedBench {
    private static final int FETCH_BYTES = 1 << 20;
    private static final int PRODUCERS = 4;
    private static final int BATCHES_PER_TRANSACTION = 5;

    /** Records per batch (100-byte values). */
    @Param({"10"})
    public int recordsPerBatch;

    private Path dir;
    private PartitionLog log;
    private LoopbackSink sink;
    private LogReader reader;
    private long[] starts;
    private int next;
    private long aborted;
    private final LogReader.AbortedTransactionSink abortedSink = (producerId, firstOffset) -> aborted++;

    /**
     * Writes the transactions and their markers.
     *
     * @throws IOException from the socket
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchFiles.newDirectory("seglog-read-committed");
        log = SeglogLogs.open(dir, LogConfig.defaults().toBuilder().segmentBytes(64 << 20).build());
        final SimpleRecord[] records = new SimpleRecord[recordsPerBatch];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, new byte[100]);
        }
        final int[] sequences = new int[PRODUCERS];
        final long bytes = Math.min(ReadLog.fileBytes(), 64L << 20);
        final long transactions = Math.max(PRODUCERS, bytes / ((long) BATCHES_PER_TRANSACTION * recordsPerBatch * 110));
        for (long t = 0; t < transactions; t += PRODUCERS) {
            for (int b = 0; b < BATCHES_PER_TRANSACTION; b++) {
                for (int p = 0; p < PRODUCERS; p++) {
                    final MemoryRecords batch = MemoryRecords.withTransactionalRecords(Compression.NONE, 100 + p,
                        (short) 0, sequences[p], records);
                    sequences[p] += recordsPerBatch;
                    log.appendAsLeader(ByteBuffer.allocate(batch.sizeInBytes()).put(batch.buffer()).flip(), 0);
                }
            }
            for (int p = 0; p < PRODUCERS; p++) {
                log.appendTransactionMarker(100 + p, (short) 0, 0, (t / PRODUCERS + p) % 4 != 0, 0);
            }
        }
        log.updateHighWatermark(log.logEndOffset());
        if (log.lastStableOffset() != log.logEndOffset()) {
            throw new IllegalStateException("LSO " + log.lastStableOffset() + " below the end " + log.logEndOffset());
        }
        starts = new long[64];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = log.logEndOffset() * i / starts.length;
        }
        reader = log.reader();
        reader.read(0, FETCH_BYTES, log.lastStableOffset(), true);
        if (reader.abortedTransactions(abortedSink) == 0) {
            throw new IllegalStateException("the first fetch overlaps no aborted transaction");
        }
        sink = new LoopbackSink();
    }

    /**
     * Closes the socket and deletes the log.
     *
     * @throws IOException from the socket
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
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

    private long nextStart() {
        final long start = starts[next];
        next = (next + 1) % starts.length;
        return start;
    }

    /**
     * A {@code read_committed} fetch: below the last stable offset, with its aborted transactions, sent zero-copy.
     *
     * @return bytes sent
     * @throws IOException from the socket
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long readCommitted() throws IOException {
        reader.read(nextStart(), FETCH_BYTES, log.lastStableOffset(), true);
        reader.abortedTransactions(abortedSink);
        return reader.transferTo(sink.sender());
    }

    /**
     * A {@code read_uncommitted} fetch of the same offsets: below the high watermark, sent zero-copy (the baseline).
     *
     * @return bytes sent
     * @throws IOException from the socket
     */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long readUncommitted() throws IOException {
        reader.read(nextStart(), FETCH_BYTES, log.highWatermark(), true);
        return reader.transferTo(sink.sender());
    }
}
