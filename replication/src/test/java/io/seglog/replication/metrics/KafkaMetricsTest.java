package io.seglog.replication.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The registry, its JMX attributes (Kafka's names), the meters' rates and the histograms' percentiles. */
class KafkaMetricsTest {
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private KafkaMetrics metrics() {
        return KafkaMetrics.manual(server, nanos::get);
    }

    @Test
    void namesAreKafkasObjectNamesWithTagsInOrder() throws Exception {
        assertEquals(new ObjectName("kafka.log:type=Log,name=LogEndOffset,topic=orders,partition=0"),
            MetricName.of("kafka.log", "Log", "LogEndOffset", "topic", "orders", "partition", "0").objectName());
        assertEquals("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,version=9",
            MetricName.of("kafka.network", "RequestMetrics", "RequestsPerSec", "request", "Produce", "version", "9")
                .toString());
        assertTrue(MetricName.of("kafka.log", "Log", "Size", "topic", "a,b").toString().contains("topic=\"a,b\""),
            "a value JMX cannot hold bare is quoted");
        assertThrows(IllegalArgumentException.class, () -> MetricName.of("d", "t", "n", "odd"));
    }

    @Test
    void gaugesAreReadWhenJmxAsks() throws Exception {
        try (KafkaMetrics metrics = metrics()) {
            final AtomicLong end = new AtomicLong(7);
            final MetricName name = MetricName.of("kafka.log", "Log", "LogEndOffset", "topic", "t", "partition", "0");
            metrics.gauge(name, end::get);
            assertEquals(7L, server.getAttribute(name.objectName(), "Value"));
            end.set(42);
            assertEquals(42L, server.getAttribute(name.objectName(), "Value"));
            assertEquals(42L, metrics.read(name));
            metrics.remove(name);
            assertFalse(server.isRegistered(name.objectName()));
            assertNull(metrics.read(name));
        }
    }

    @Test
    void aMeterCountsAndItsRatesMoveWithTheTicksAsYammersDo() throws Exception {
        try (KafkaMetrics metrics = metrics()) {
            final MetricName name = MetricName.of("kafka.server", "ReplicaManager", "IsrShrinksPerSec");
            final Meter meter = metrics.meter(name, "shrinks");
            assertSame(meter, metrics.meter(name, "shrinks"), "one meter per name");
            meter.mark(50);
            meter.mark();
            meter.mark(9);
            nanos.addAndGet(5_000_000_000L);
            metrics.tick();
            final ObjectName on = name.objectName();
            assertEquals(60L, server.getAttribute(on, "Count"));
            assertEquals("shrinks", server.getAttribute(on, "EventType"));
            assertEquals("SECONDS", server.getAttribute(on, "RateUnit"));
            assertEquals(12.0, (double) server.getAttribute(on, "OneMinuteRate"), 1e-9, "60 events in 5 s");
            assertEquals(12.0, (double) server.getAttribute(on, "MeanRate"), 1e-9);
            // Twelve idle ticks (a minute): the one-minute rate decays by e^-1, the fifteen-minute one much less.
            for (int i = 0; i < 12; i++) {
                metrics.tick();
            }
            assertEquals(12.0 * Math.exp(-1), meter.oneMinuteRate(), 1e-9);
            assertEquals(12.0 * Math.exp(-1.0 / 15), meter.fifteenMinuteRate(), 1e-9);
            assertThrows(IllegalArgumentException.class, () -> metrics.histogram(name), "a name keeps its kind");
        }
    }

    @Test
    void histogramPercentilesAreWithinABucketOfTheExactOnes() throws Exception {
        try (KafkaMetrics metrics = metrics()) {
            final MetricName name = MetricName.of("kafka.network", "RequestMetrics", "TotalTimeMs", "request",
                "Produce");
            final Histogram h = metrics.histogram(name);
            final SplittableRandom random = new SplittableRandom(7);
            final long[] values = new long[20_000];
            double sum = 0;
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextInt(4) == 0 ? random.nextLong(10_000) : random.nextLong(100);
                h.update(values[i]);
                sum += values[i];
            }
            final long[] sorted = values.clone();
            Arrays.sort(sorted);
            for (final double q : new double[] {0.5, 0.75, 0.95, 0.98, 0.99, 0.999}) {
                final long exact = sorted[(int) Math.ceil(q * sorted.length) - 1];
                final long got = h.percentile(q);
                assertTrue(got >= exact && got <= exact + Math.max(0, exact / 32), "q=" + q + " exact=" + exact
                    + " got=" + got);
            }
            final ObjectName on = name.objectName();
            assertEquals((long) values.length, server.getAttribute(on, "Count"));
            assertEquals((double) sorted[0], server.getAttribute(on, "Min"));
            assertEquals((double) sorted[sorted.length - 1], server.getAttribute(on, "Max"));
            assertEquals(sum / values.length, (double) server.getAttribute(on, "Mean"), 1e-6);
            assertEquals((double) h.percentile(0.99), server.getAttribute(on, "99thPercentile"));
        }
    }

    @Test
    void percentilesForgetValuesTwoWindowsOldButTheCountAndExtremesDoNot() {
        try (KafkaMetrics metrics = metrics()) {
            final Histogram h = metrics.histogram(MetricName.of("kafka.network", "RequestMetrics", "TotalTimeMs",
                "request", "Fetch"));
            h.update(5_000);
            final int ticksPerWindow = Histogram.WINDOW_SECONDS / Meter.TICK_SECONDS;
            for (int i = 0; i < ticksPerWindow; i++) {
                metrics.tick();
            }
            h.update(3);
            assertEquals(h.max(), h.percentile(0.99), "the previous window still counts");
            for (int i = 0; i < ticksPerWindow; i++) {
                metrics.tick();
            }
            assertEquals(3, h.percentile(0.99), "the old value is two windows old");
            for (int i = 0; i < ticksPerWindow; i++) {
                metrics.tick();
            }
            assertEquals(0, h.percentile(0.5), "nothing recent");
            assertEquals(2, h.count());
            assertEquals(5_000, h.max());
            assertEquals(3, h.min());
        }
    }

    @Test
    void bucketsCoverEveryLongAndBoundTheirValues() {
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 100_000; i++) {
            final long v = i < 200 ? i : random.nextLong(Long.MAX_VALUE) >>> random.nextInt(63);
            final int b = Histogram.bucket(v);
            assertTrue(b >= 0 && b < Histogram.BUCKETS, "v=" + v);
            assertTrue(Histogram.upperBound(b) >= v, "v=" + v + " bucket " + b);
            assertTrue(b == 0 || Histogram.upperBound(b - 1) < v, "v=" + v + " bucket " + b);
        }
        assertEquals(Long.MAX_VALUE, Histogram.upperBound(Histogram.bucket(Long.MAX_VALUE)));
    }

    @Test
    void aNameAlreadyInTheServerStaysInProcessAndCloseUnregistersTheRest() throws Exception {
        final MetricName name = MetricName.of("kafka.controller", "KafkaController", "ActiveControllerCount");
        try (KafkaMetrics first = metrics(); KafkaMetrics second = metrics()) {
            first.gauge(name, () -> 1);
            second.gauge(name, () -> 0);
            assertEquals(1L, server.getAttribute(name.objectName(), "Value"), "the first broker's stays exported");
            assertEquals(0L, second.read(name));
            second.close();
            assertTrue(server.isRegistered(name.objectName()), "the second never exported it");
        }
        assertFalse(server.isRegistered(name.objectName()));
    }

    @Test
    void aMeterOverACountKeptElsewhereReadsItAndRatesItsGrowth() throws Exception {
        try (KafkaMetrics metrics = metrics()) {
            final AtomicLong elections = new AtomicLong(3);
            final MetricName name = MetricName.of("kafka.controller", "ControllerStats", "UncleanLeaderElectionsPerSec");
            final Meter meter = metrics.meter(name, "elections", elections::get);
            metrics.tick();
            assertEquals(0.6, meter.oneMinuteRate(), 1e-9, "the count before the first tick counts in it");
            elections.addAndGet(10);
            metrics.tick();
            assertEquals(13L, server.getAttribute(name.objectName(), "Count"));
            assertEquals(0.6 + (2.0 - 0.6) * (1 - Math.exp(-5.0 / 60)), meter.oneMinuteRate(), 1e-9);
        }
    }
}
