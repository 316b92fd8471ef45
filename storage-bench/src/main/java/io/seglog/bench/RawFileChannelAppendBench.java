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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The file-system write limit: the same batch bytes as every log is fed, written with
 * {@code FileChannel.write} in {@link ChunkWriter#CHUNK_BYTES} chunks, either appended to a fresh file (pays page
 * allocation and ext4 block reservation) or written over a pre-written, fsynced and page-cache-resident
 * file of {@link #RECYCLED_FILE_BYTES} (a recycled segment: no page allocation). No fsync is timed. Scores
 * are records/s; this class is the baseline of the append workloads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class RawFileChannelAppendBench {

    /** 256 MiB (see {@link ReadLog#fileBytes()}): far larger than L3, small enough to prefault in a second. */
    static final long RECYCLED_FILE_BYTES = ReadLog.fileBytes();

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch: changes the bytes (batch headers), not the write pattern. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private BenchData data;
    private ChunkWriter fresh;
    private ChunkWriter recycled;
    private Path recycledDir;
    private FileChannel recycledChannel;
    private Path freshDir;
    private FileChannel freshChannel;

    /** Builds the data. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        fresh = new ChunkWriter(data, Long.MAX_VALUE);
        recycled = new ChunkWriter(data, RECYCLED_FILE_BYTES);
    }

    /**
     * A fresh file per iteration; the recycled file is prefaulted once, before the first iteration of the
     * benchmark that uses it.
     *
     * @param params which benchmark runs
     * @throws IOException from the file system
     */
    @Setup(Level.Iteration)
    public void setUpIteration(BenchmarkParams params) throws IOException {
        if (recycledChannel == null && params.getBenchmark().endsWith("recycledFile")) {
            prefault();
        }
        freshDir = BenchFiles.newDirectory("raw-fresh");
        freshChannel = FileChannel.open(freshDir.resolve("fresh.log"), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE);
        fresh.reset(freshChannel);
        if (recycledChannel != null) {
            recycled.reset(recycledChannel);
        }
    }

    /** Closes and deletes the fresh file. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() throws IOException {
        freshChannel.close();
        BenchFiles.deleteRecursively(freshDir);
    }

    /** Deletes the recycled file. */
    @TearDown(Level.Trial)
    public void tearDownTrial() throws IOException {
        if (recycledChannel != null) {
            recycledChannel.close();
        }
        BenchFiles.deleteRecursively(recycledDir);
    }

    private void prefault() throws IOException {
        recycledDir = BenchFiles.newDirectory("raw-recycled");
        recycledChannel = FileChannel.open(recycledDir.resolve("recycled.log"), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE, StandardOpenOption.READ);
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long position = 0; position < RECYCLED_FILE_BYTES; ) {
            zeros.clear();
            position += recycledChannel.write(zeros, position);
        }
        recycledChannel.force(true);
        recycled.reset(recycledChannel);
    }

    /**
     * Appends one operation's bytes to a fresh file (written when a chunk is full).
     *
     * @throws IOException from the file system
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public void freshFile() throws IOException {
        fresh.onOperation();
    }

    /**
     * Writes one operation's bytes over a page-cache-resident file (written when a chunk is full).
     *
     * @throws IOException from the file system
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public void recycledFile() throws IOException {
        recycled.onOperation();
    }
}
