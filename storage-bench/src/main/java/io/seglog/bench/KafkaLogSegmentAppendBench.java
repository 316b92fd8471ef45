package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogSegment;
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
 * Kafka 4.4.0's storage primitive, {@code LogSegment.append} (file append plus sparse offset/time index),
 * with offsets already assigned (stamped in place, outside the CRC) and no validation. A new segment is
 * opened when the current one passes Kafka's default 1 GiB, as the log would roll. Scores are records/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class KafkaLogSegmentAppendBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch (one append call per batch). */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private BenchData data;
    private ByteBuffer[] views;
    private MemoryRecords[] records;
    private LogConfig config;
    private Path dir;
    private final List<LogSegment> segments = new ArrayList<>();
    private LogSegment active;
    private int segmentBytes;
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
        }
        config = KafkaLogs.defaultConfig();
        segmentBytes = config.segmentSize();
    }

    /** A fresh segment per iteration. */
    @Setup(Level.Iteration)
    public void setUpIteration() throws IOException {
        dir = BenchFiles.newDirectory("kafka-segment");
        nextOffset = 0;
        roll();
    }

    private void roll() throws IOException {
        if (active != null) {
            active.onBecomeInactiveSegment();
        }
        active = LogSegment.open(dir.toFile(), nextOffset, config, Time.SYSTEM, 0, false);
        segments.add(active);
    }

    /** Closes and deletes the iteration's segments. */
    @TearDown(Level.Iteration)
    public void tearDownIteration() throws IOException {
        for (LogSegment segment : segments) {
            segment.close();
        }
        segments.clear();
        active = null;
        BenchFiles.deleteRecursively(dir);
    }

    /**
     * Segment append of {@link BenchData#RECORDS_PER_OP} records.
     *
     * @return the next offset
     * @throws IOException from Kafka's segment
     */
    @Benchmark
    @OperationsPerInvocation(BenchData.RECORDS_PER_OP)
    public long append() throws IOException {
        for (int i = 0; i < data.batchesPerOp; i++) {
            int b = nextBatch;
            if (active.size() > segmentBytes - views[b].capacity()) {
                roll();
            }
            views[b].putLong(KafkaLogs.BASE_OFFSET_OFFSET, nextOffset);
            nextOffset += data.recordsPerBatch;
            active.append(nextOffset - 1, records[b]);
            nextBatch = b + 1 == views.length ? 0 : b + 1;
        }
        return nextOffset;
    }
}
