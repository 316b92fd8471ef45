package io.seglog.replication.wire;

import io.seglog.replication.metrics.Histogram;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.metrics.Meter;
import io.seglog.replication.metrics.MetricName;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Kafka's {@code kafka.network:type=RequestMetrics} metrics of the requests a listener serves:
 * {@code RequestsPerSec} per API and version ({@code request=Produce,version=9}) and {@code TotalTimeMs} per API, from
 * the request's decoding to its response's write. Each metric is made at its first request; after that recording is
 * an array read and a lock-free update.
 */
public final class RequestMetrics {
    /** Metrics that record nothing. */
    static final RequestMetrics NONE = new RequestMetrics(null);

    private static final int APIS = maxApiId() + 1;
    private static final int VERSIONS = 64;

    private final KafkaMetrics metrics;
    private final AtomicReferenceArray<Meter> requests = new AtomicReferenceArray<>(APIS * VERSIONS);
    private final AtomicReferenceArray<Histogram> totalTime = new AtomicReferenceArray<>(APIS);

    /**
     * Metrics in this registry.
     *
     * @param metrics the registry, or null for none
     */
    public RequestMetrics(final KafkaMetrics metrics) {
        this.metrics = metrics;
    }

    private static int maxApiId() {
        int max = 0;
        for (final ApiKeys k : ApiKeys.values()) {
            max = Math.max(max, k.id);
        }
        return max;
    }

    /**
     * A request arrived.
     *
     * @param api     its API
     * @param version its version
     */
    void received(final ApiKeys api, final short version) {
        if (metrics == null || api.id >= APIS || version < 0 || version >= VERSIONS) {
            return;
        }
        final int slot = api.id * VERSIONS + version;
        Meter meter = requests.get(slot);
        if (meter == null) {
            meter = metrics.meter(MetricName.of("kafka.network", "RequestMetrics", "RequestsPerSec", "request",
                api.name, "version", Short.toString(version)), "requests");
            requests.set(slot, meter);
        }
        meter.mark();
    }

    /**
     * A request's response was written.
     *
     * @param api          its API
     * @param receivedNanos when it was decoded ({@link System#nanoTime})
     * @param nowNanos     now
     */
    void answered(final ApiKeys api, final long receivedNanos, final long nowNanos) {
        if (metrics == null || api.id >= APIS) {
            return;
        }
        Histogram h = totalTime.get(api.id);
        if (h == null) {
            h = metrics.histogram(MetricName.of("kafka.network", "RequestMetrics", "TotalTimeMs", "request",
                api.name));
            totalTime.set(api.id, h);
        }
        h.update(TimeUnit.NANOSECONDS.toMillis(nowNanos - receivedNanos));
    }
}
