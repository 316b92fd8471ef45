package io.seglog.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.DocumentContext;
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
 * Chronicle Queue 2026.4 through its per-message API: one {@code writingDocument()} per record value (the
 * same value bytes the Kafka batches carry), default queue settings, no fsync. Chronicle has no batches, so
 * the score (records/s) stands beside every batch size of the same value size.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX, JvmFlags.NO_ANALYTICS, JvmFlags.OPEN_NIO_CH,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_LANG, JvmFlags.OPEN_NIO, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL,
    JvmFlags.EXPORT_REF, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_MISC})
@State(Scope.Thread)
public class ChronicleQueueAppendBench {

    /** Value bytes per record (message). */
    @Param({"100", "1024"})
    public int valueSize;

    private BenchData data;
    private BytesStore<?, ByteBuffer> values;
    private long valuesCount;
    private Path dir;
    private ChronicleQueue queue;
    private ExcerptAppender appender;
    private long nextValue;

    /** Builds the values (the same as in the Kafka batches of this value size). */
    @Setup(Level.Trial)
    public void setUpTrial() {
        data = new BenchData(valueSize, BenchData.RECORDS_PER_OP, System.currentTimeMillis());
        values = BytesStore.wrap(data.values);
        valuesCount = data.recordCount;
    }

    /** A fresh queue per iteration. */
    @Setup(Level.Iteration)
    public void setUpIteration() {
        dir = BenchFiles.newDirectory("chronicle");
        queue = ChronicleQueue.singleBuilder(dir).build();
        appender = queue.createAppender();
    }

    /** Closes and deletes the queue. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() {
        appender.close();
        queue.close();
        BenchFiles.deleteRecursively(dir);
    }

    /**
     * Writes {@link BenchData#RECORDS_PER_OP} messages.
     *
     * @return the next value's index (not {@code lastIndexAppended()}, which may scan the index)
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long append() {
        long v = nextValue;
        for (int i = 0; i < BenchData.RECORDS_PER_OP; i++) {
            try (DocumentContext dc = appender.writingDocument()) {
                dc.wire().bytes().write(values, v * valueSize, (long) valueSize);
            }
            v = v + 1 == valuesCount ? 0 : v + 1;
        }
        nextValue = v;
        return v;
    }
}
