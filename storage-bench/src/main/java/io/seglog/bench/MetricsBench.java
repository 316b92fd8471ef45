package io.seglog.bench;

import com.yammer.metrics.core.MetricsRegistry;
import io.seglog.replication.metrics.Histogram;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.metrics.Meter;
import io.seglog.replication.metrics.MetricName;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a metric costs the request path: Seglog's meter mark and histogram update beside Kafka's own (Yammer 2.2, as
 * Kafka's broker records {@code MessagesInPerSec} and request times: a meter, and a biased histogram with its
 * exponentially decaying reservoir), on one thread and on two contending for the same metric. Run with
 * {@code -prof gc}: Seglog's allocate nothing per operation.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {JvmFlags.XMS, JvmFlags.XMX})
@State(Scope.Benchmark)
public class MetricsBench {
    private KafkaMetrics seglog;
    private Meter meter;
    private Histogram histogram;
    private MetricsRegistry yammer;
    private com.yammer.metrics.core.Meter yammerMeter;
    private com.yammer.metrics.core.Histogram yammerHistogram;

    /** Per thread: a cheap varying latency, so the histograms see a spread of values. */
    @State(Scope.Thread)
    public static class Values {
        private long x = 0x9E3779B97F4A7C15L;

        long next() {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            return (x >>> 1) % 2_000;
        }
    }

    /** Makes the metrics (no JMX: the update path is what is measured). */
    @Setup(Level.Trial)
    public void setUp() {
        seglog = KafkaMetrics.manual(null, System::nanoTime);
        meter = seglog.meter(MetricName.of("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec"), "messages");
        histogram = seglog.histogram(MetricName.of("kafka.network", "RequestMetrics", "TotalTimeMs", "request",
            "Produce"));
        yammer = new MetricsRegistry();
        yammerMeter = yammer.newMeter(MetricsBench.class, "MessagesInPerSec", "messages", TimeUnit.SECONDS);
        yammerHistogram = yammer.newHistogram(MetricsBench.class, "TotalTimeMs", true);
    }

    /** Stops Yammer's tick thread. */
    @TearDown(Level.Trial)
    public void tearDown() {
        yammer.shutdown();
        seglog.close();
    }

    /** Seglog: one meter mark. */
    @Benchmark
    public void seglogMeterMark() {
        meter.mark(3);
    }

    /** Kafka's Yammer meter. */
    @Benchmark
    public void kafkaMeterMark() {
        yammerMeter.mark(3);
    }

    /** Seglog: one histogram update. */
    @Benchmark
    public void seglogHistogramUpdate(final Values v) {
        histogram.update(v.next());
    }

    /** Kafka's biased Yammer histogram. */
    @Benchmark
    public void kafkaHistogramUpdate(final Values v) {
        yammerHistogram.update(v.next());
    }

    /** Seglog, two threads marking one meter. */
    @Benchmark
    @Threads(2)
    public void seglogMeterMarkContended() {
        meter.mark(3);
    }

    /** Kafka's, two threads. */
    @Benchmark
    @Threads(2)
    public void kafkaMeterMarkContended() {
        yammerMeter.mark(3);
    }

    /** Seglog, two threads updating one histogram. */
    @Benchmark
    @Threads(2)
    public void seglogHistogramUpdateContended(final Values v) {
        histogram.update(v.next());
    }

    /** Kafka's, two threads. */
    @Benchmark
    @Threads(2)
    public void kafkaHistogramUpdateContended(final Values v) {
        yammerHistogram.update(v.next());
    }
}
