package io.seglog.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.io.FileIO;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.UnifiedLog;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Recovery scan after a crash: one operation opens a 256 MiB log of the shared batches as after an unclean
 * shutdown with recovery point 0 (every batch CRC-checked, every index rebuilt) and closes it again. Seglog:
 * {@code PartitionLog.open(..., recoveryPoint 0, hadCleanShutdown false)}; Kafka: {@code UnifiedLog.create(...,
 * lastShutdownClean false)} with recovery point 0. The files are page-cache resident, so this measures the
 * scan, not the disk. Records/s and bytes/s come from {@link ReadCounters}.
 *
 * <p>Equal work, checked against Kafka 4.4's {@code LogLoader.recoverLog}/{@code LogSegment.recover}: with
 * {@code hadCleanShutdown=false} and recovery point 0 Kafka recovers every segment from offset 0 (the one
 * segment here: 1 GiB segments), CRC-checks every batch ({@code ensureValid}), resets and rebuilds the offset
 * and time indexes and the leader epochs, and takes a producer snapshot (no producer ids here, so no
 * producer state). Seglog does the same checks plus the offset/epoch continuity checks, and fsyncs the
 * rebuilt segment before returning (Kafka does not). Both close the log after the open.
 *
 * <p>{@link #seglogParallel} lends the scan one executor thread ({@code RecoveryOptions.verifyingOn}), as a
 * log manager lends its {@code num.recovery.threads.per.data.dir} pool; Kafka recovers one segment on one
 * thread whatever that setting says, so it has no such variant.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Thread)
public class RecoveryBench {

    /** Value bytes per record. */
    @Param({"100", "1024"})
    public int valueSize;

    /** Records per v2 batch. */
    @Param({"1", "10", "100"})
    public int recordsPerBatch;

    private ReadLog readLog;
    private Path dir;
    private KafkaScheduler scheduler;
    private ExecutorService verifyPool;

    /**
     * Writes the log with the system under test, closed cleanly (the scan is forced by the open).
     *
     * @param params which benchmark runs
     * @throws IOException from Kafka's log
     */
    @Setup(Level.Trial)
    public void setUpTrial(BenchmarkParams params) throws IOException {
        BenchData data = new BenchData(valueSize, recordsPerBatch, System.currentTimeMillis());
        readLog = new ReadLog(data);
        dir = BenchFiles.newDirectory("recovery");
        if (params.getBenchmark().endsWith("kafka")) {
            scheduler = KafkaLogs.startScheduler();
            UnifiedLog log = KafkaLogs.createLog(dir, scheduler);
            try {
                for (int copy = 0; copy < readLog.copies; copy++) {
                    readLog.prepareCopy(copy);
                    log.appendAsFollower(MemoryRecords.readableRecords(data.batches.duplicate()), 0);
                }
            } finally {
                KafkaLogs.close(log);
            }
        } else {
            if (params.getBenchmark().endsWith("Parallel")) {
                verifyPool = Executors.newFixedThreadPool(1, r -> {
                    Thread t = new Thread(r, "recovery-bench-verify");
                    t.setDaemon(true);
                    return t;
                });
            }
            PartitionLog log = SeglogLogs.open(dir);
            try {
                for (int copy = 0; copy < readLog.copies; copy++) {
                    readLog.prepareCopy(copy);
                    log.appendAsFollower(data.batches.duplicate());
                }
            } finally {
                log.close();
            }
        }
    }

    /** Deletes the log. */
    @TearDown(Level.Trial)
    public void tearDownTrial() {
        KafkaLogs.shutdown(scheduler);
        if (verifyPool != null) {
            verifyPool.shutdownNow();
        }
        BenchFiles.deleteRecursively(dir);
    }

    /**
     * Seglog: open with a full recovery scan, then close.
     *
     * @param counters records and bytes scanned
     * @return the log end offset found
     */
    @Benchmark
    public long seglog(ReadCounters counters) {
        return openSeglog(counters, RecoveryOptions.afterCrash(0));
    }

    /**
     * Seglog: open with a full recovery scan whose CRC checks also run on one executor thread, then close.
     *
     * @param counters records and bytes scanned
     * @return the log end offset found
     */
    @Benchmark
    public long seglogParallel(ReadCounters counters) {
        return openSeglog(counters, RecoveryOptions.afterCrash(0).verifyingOn(verifyPool, 1));
    }

    private long openSeglog(ReadCounters counters, RecoveryOptions options) {
        long end;
        try (PartitionLog log = PartitionLog.open(dir.resolve("bench-0"), LogConfig.defaults(), FileIO.system(),
            InstantSource.system(), new SplittableRandom(), options)) {
            end = log.logEndOffset();
            if (!log.recoveryReport().recovered() || end != readLog.recordCount
                || log.recoveryReport().bytesScanned() != readLog.logBytes) {
                throw new IllegalStateException("no full recovery: end=" + end + " " + log.recoveryReport());
            }
        }
        counters.records += readLog.recordCount;
        counters.bytes += readLog.logBytes;
        return end;
    }

    /**
     * Kafka: open after an unclean shutdown (recovery point 0), then close.
     *
     * @param counters records and bytes scanned
     * @return the log end offset found
     * @throws IOException from Kafka's log
     */
    @Benchmark
    public long kafka(ReadCounters counters) throws IOException {
        UnifiedLog log = KafkaLogs.openLog(dir, scheduler, false);
        long end;
        try {
            end = log.logEndOffset();
            if (end != readLog.recordCount) {
                throw new IllegalStateException("kafka recovered to " + end + ", expected " + readLog.recordCount);
            }
        } finally {
            KafkaLogs.close(log);
        }
        counters.records += readLog.recordCount;
        counters.bytes += readLog.logBytes;
        return end;
    }
}
