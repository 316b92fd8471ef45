package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytes;
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
 * The memory-mapped write limit: the same batch bytes copied into a fresh file through Chronicle Bytes'
 * {@code MappedBytes} (64 MiB chunks), one copy per operation, no fsync. Each new page costs a page fault,
 * which is why mmap appends trail {@code FileChannel.write} on this VM (perf-anchors §4.2). Scores are
 * records/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX, JvmFlags.NO_ANALYTICS, JvmFlags.OPEN_NIO_CH,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_LANG, JvmFlags.OPEN_NIO, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL,
    JvmFlags.EXPORT_REF, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_MISC})
@State(Scope.Thread)
public class RawMappedAppendBench {

    /** Chronicle's mapping granularity: large, so remapping is rare. */
    private static final long CHUNK_BYTES = 64L << 20;

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch: changes the bytes, not the write pattern. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private BenchData data;
    private BytesStore<?, ByteBuffer> source;
    private Path dir;
    private MappedBytes mapped;
    private int nextGroup;

    /** Builds the data. */
    @Setup(Level.Trial)
    public void setUpTrial() {
        data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        source = BytesStore.wrap(data.batches);
    }

    /**
     * A fresh mapped file per iteration.
     *
     * @throws IOException from the file system
     */
    @Setup(Level.Iteration)
    public void setUpIteration() throws IOException {
        dir = BenchFiles.newDirectory("raw-mmap");
        mapped = MappedBytes.mappedBytes(dir.resolve("mapped.log").toFile(), CHUNK_BYTES);
    }

    /** Unmaps and deletes the iteration's file. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        mapped.releaseLast();
        BenchFiles.deleteRecursively(dir);
    }

    /**
     * Copies one operation's bytes into the mapping.
     *
     * @return the write position
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long append() {
        int g = nextGroup;
        int start = data.batchPositions[g * data.batchesPerOp];
        int end = data.batchPositions[(g + 1) * data.batchesPerOp];
        mapped.write(source, (long) start, (long) (end - start));
        nextGroup = g + 1 == data.groups ? 0 : g + 1;
        return mapped.writePosition();
    }
}
