package io.seglog.replication.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The Micrometer binding: every kind of metric, metrics added and removed later, and closing the binding. */
class MicrometerMetricsTest {
    @Test
    void everyMetricReachesTheRegistryWithItsTagsAndFollowsLaterChanges() {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KafkaMetrics metrics = KafkaMetrics.manual(null, System::nanoTime)) {
            final AtomicLong under = new AtomicLong(2);
            metrics.gauge(MetricName.of("kafka.server", "ReplicaManager", "UnderReplicatedPartitions"), under::get);
            final Meter in = metrics.meter(MetricName.of("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec",
                "topic", "orders"), "messages");
            in.mark(5);
            try (MicrometerMetrics binding = MicrometerMetrics.bind(metrics, registry)) {
                final Gauge gauge = registry.get("kafka.server.ReplicaManager.UnderReplicatedPartitions").gauge();
                assertEquals(2.0, gauge.value());
                under.set(0);
                assertEquals(0.0, gauge.value(), "read when asked");
                final FunctionCounter counter = registry.get("kafka.server.BrokerTopicMetrics.MessagesInPerSec")
                    .tag("topic", "orders").functionCounter();
                in.mark(3);
                assertEquals(8.0, counter.count());
                assertEquals("messages", counter.getId().getBaseUnit());

                // Added after the binding: bound as it comes, and removed with its metric.
                final MetricName end = MetricName.of("kafka.log", "Log", "LogEndOffset", "topic", "orders",
                    "partition", "0");
                metrics.gauge(end, () -> 42);
                assertEquals(42.0, registry.get("kafka.log.Log.LogEndOffset").tag("partition", "0").gauge().value());
                final Histogram time = metrics.histogram(MetricName.of("kafka.network", "RequestMetrics",
                    "TotalTimeMs", "request", "Produce"));
                time.update(3);
                time.update(7);
                final FunctionTimer timer = registry.get("kafka.network.RequestMetrics.TotalTimeMs")
                    .tag("request", "Produce").functionTimer();
                assertEquals(2.0, timer.count());
                assertEquals(10.0, timer.totalTime(TimeUnit.MILLISECONDS));
                assertEquals(7.0, registry.get("kafka.network.RequestMetrics.TotalTimeMs.percentile")
                    .tag("quantile", "0.99").gauge().value());
                metrics.remove(end);
                assertNull(registry.find("kafka.log.Log.LogEndOffset").gauge());
            }
            assertNull(registry.find("kafka.server.ReplicaManager.UnderReplicatedPartitions").gauge(),
                "closing the binding removes its meters");
        }
    }
}
