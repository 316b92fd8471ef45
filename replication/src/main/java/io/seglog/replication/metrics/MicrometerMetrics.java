package io.seglog.replication.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Carries a broker's metrics into a Micrometer registry, the JVM's common metrics facade, beside (not instead of) their
 * JMX export. Each metric becomes meters named {@code <domain>.<type>.<name>} (e.g.
 * {@code kafka.server.ReplicaManager.UnderReplicatedPartitions}) with the Kafka name's tags ({@code topic},
 * {@code partition}, {@code request}, ...): a gauge is a {@link Gauge}; a meter a {@link FunctionCounter} of its count
 * (base unit = its event type); a histogram a {@link FunctionTimer} in milliseconds plus gauges of its 50th, 99th
 * and 99.9th percentiles (tag {@code quantile}). Metrics added later (a partition arriving) are bound as they come,
 * and removed ones leave the registry. Micrometer is an optional dependency: only this class needs it.
 */
public final class MicrometerMetrics implements AutoCloseable {
    private static final double[] QUANTILES = {0.5, 0.99, 0.999};

    private final KafkaMetrics metrics;
    private final MeterRegistry registry;
    private final Map<MetricName, List<io.micrometer.core.instrument.Meter>> bound = new ConcurrentHashMap<>();
    private final KafkaMetrics.Listener listener = new KafkaMetrics.Listener() {
        @Override
        public void added(final MetricName name, final Object metric) {
            bind(name, metric);
        }

        @Override
        public void removed(final MetricName name) {
            unbind(name);
        }
    };

    private MicrometerMetrics(final KafkaMetrics metrics, final MeterRegistry registry) {
        this.metrics = metrics;
        this.registry = registry;
    }

    /**
     * Binds every metric of a registry, now and as they come, until closed.
     *
     * @param metrics  the broker's metrics
     * @param registry the Micrometer registry
     * @return the binding; closing it removes the meters it added
     */
    public static MicrometerMetrics bind(final KafkaMetrics metrics, final MeterRegistry registry) {
        final MicrometerMetrics binding = new MicrometerMetrics(metrics, registry);
        metrics.listen(binding.listener);
        return binding;
    }

    /**
     * The Micrometer name of a metric.
     *
     * @param name the Kafka name
     * @return {@code domain.type.name}
     */
    public static String meterName(final MetricName name) {
        return name.domain() + "." + name.type() + "." + name.name();
    }

    private void bind(final MetricName name, final Object metric) {
        final List<Tag> tags = new ArrayList<>();
        name.tags().forEach((k, v) -> tags.add(Tag.of(k, v)));
        final String meterName = meterName(name);
        final List<io.micrometer.core.instrument.Meter> meters = new ArrayList<>();
        if (metric instanceof KafkaMetrics.LongGauge g) {
            meters.add(Gauge.builder(meterName, g.value(), v -> v.getAsLong()).tags(tags).register(registry));
        } else if (metric instanceof KafkaMetrics.DoubleGauge g) {
            meters.add(Gauge.builder(meterName, g.value(), v -> v.getAsDouble()).tags(tags).register(registry));
        } else if (metric instanceof Meter m) {
            meters.add(FunctionCounter.builder(meterName, m, Meter::count).baseUnit(m.eventType()).tags(tags)
                .register(registry));
        } else if (metric instanceof Histogram h) {
            meters.add(FunctionTimer.builder(meterName, h, Histogram::count, Histogram::sum, TimeUnit.MILLISECONDS)
                .tags(tags).register(registry));
            for (final double q : QUANTILES) {
                meters.add(Gauge.builder(meterName + ".percentile", h, x -> x.percentile(q)).tags(tags)
                    .tag("quantile", Double.toString(q)).baseUnit("milliseconds").register(registry));
            }
        }
        bound.put(name, meters);
    }

    private void unbind(final MetricName name) {
        final List<io.micrometer.core.instrument.Meter> meters = bound.remove(name);
        if (meters != null) {
            meters.forEach(registry::remove);
        }
    }

    /** Stops following the metrics and removes every meter this binding added. */
    @Override
    public void close() {
        metrics.unlisten(listener);
        for (final MetricName name : List.copyOf(bound.keySet())) {
            unbind(name);
        }
    }
}
