package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

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
 * A plain zero-copy read loop: {@code FileChannel.transferTo} of batch-aligned 1 MiB fetches from a
 * page-cache-resident file of the same batches into a loopback socket drained by another thread. The reference of
 * the sequential-read workloads, named "plain transferTo loop": not a ceiling of the machine (the drain thread and
 * the page cache make it swing, and Kafka's fetch path has beaten it by 1.7-3.75x in runs here); records/s and
 * bytes/s come from {@link ReadCounters}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class RawTransferToBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private FetchPlan plan;
    private Path dir;
    private FileChannel file;
    private LoopbackSink sink;
    private int nextFetch;

    /**
     * Writes the file (page-cache resident afterwards) and connects the socket.
     *
     * @throws IOException from the file system or the socket
     */
    @Setup(Level.Trial)
    public void setUpTrial() throws IOException {
        BenchData data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        ReadLog log = new ReadLog(data);
        plan = new FetchPlan(data, log.logBytes);
        dir = BenchFiles.newDirectory("raw-transferto");
        file = FileChannel.open(dir.resolve("00000000000000000000.log"), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE);
        for (int copy = 0; copy < log.copies; copy++) {
            log.prepareCopy(copy);
            ByteBuffer bytes = data.batches.duplicate();
            while (bytes.hasRemaining()) {
                file.write(bytes);
            }
        }
        sink = new LoopbackSink();
    }

    /**
     * Closes the socket and deletes the file.
     *
     * @throws IOException from closing
     */
    @TearDown(Level.Trial)
    public void tearDownTrial() throws IOException {
        try {
            sink.close();
        } finally {
            try {
                file.close();
            } finally {
                BenchFiles.deleteRecursively(dir);
            }
        }
    }

    /**
     * One fetch: {@code transferTo} of whole batches, at most 1 MiB.
     *
     * @param counters records and bytes sent
     * @return bytes sent
     * @throws IOException from the file or the socket
     */
    @Benchmark
    public long transferTo(ReadCounters counters) throws IOException {
        int fetch = nextFetch;
        long position = plan.start(fetch);
        long remaining = plan.bytesPerFetch;
        while (remaining > 0) {
            long sent = file.transferTo(position, remaining, sink.sender());
            position += sent;
            remaining -= sent;
        }
        nextFetch = fetch + 1 == plan.fetches ? 0 : fetch + 1;
        counters.records += plan.recordsPerFetch;
        counters.bytes += plan.bytesPerFetch;
        return position;
    }
}
