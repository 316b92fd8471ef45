package io.seglog.replication.metrics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.NotCompliantMBeanException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's metrics under Kafka's names ({@link MetricName}), exported over JMX with Kafka's attribute names so that
 * Kafka dashboards and the Prometheus JMX exporter's Kafka rules read them unchanged: a gauge's {@code Value}; a
 * meter's {@code Count}, {@code EventType}, {@code RateUnit}, {@code MeanRate} and one-, five- and fifteen-minute
 * rates; a histogram's {@code Count}, {@code Min}, {@code Max}, {@code Mean}, {@code StdDev} and percentiles.
 * Embedders that use Micrometer bind the same metrics to their registry ({@link MicrometerMetrics}).
 *
 * <p>Gauges are read when asked (a log's end offset costs the broker nothing until a scrape); meters and histograms
 * are updated without locks or allocation. One daemon thread ticks the meters' rates every five seconds and turns the
 * histograms' windows every thirty; a registry built with {@link #manual} has no thread, and its owner calls
 * {@link #tick} (a simulation on its own clock).
 *
 * <p>Registering a name twice returns the existing metric (a meter, histogram) or replaces the gauge. When the
 * MBean server already holds a name (two brokers in one JVM sharing the platform server), the metric works in
 * process and is not exported; give each broker its own server to export both.
 *
 * <p>Thread-safe.
 */
public final class KafkaMetrics implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaMetrics.class);

    private final MBeanServer server;
    private final LongSupplier nanoClock;
    private final ScheduledExecutorService ticker;
    private final Map<MetricName, Object> metrics = new ConcurrentHashMap<>();
    private final Map<MetricName, Boolean> exported = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private long ticks;

    private KafkaMetrics(final MBeanServer server, final LongSupplier nanoClock, final boolean thread) {
        this.server = server;
        this.nanoClock = nanoClock;
        if (thread) {
            ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                final Thread t = new Thread(r, "seglog-metrics-ticker");
                t.setDaemon(true);
                return t;
            });
            ticker.scheduleAtFixedRate(this::tick, Meter.TICK_SECONDS, Meter.TICK_SECONDS, TimeUnit.SECONDS);
        } else {
            ticker = null;
        }
    }

    /**
     * Metrics exported to the platform MBean server (what {@code jconsole}, a JMX agent or the Prometheus JMX
     * exporter attached to the JVM reads).
     *
     * @return the registry
     */
    public static KafkaMetrics jmx() {
        return jmx(ManagementFactory.getPlatformMBeanServer());
    }

    /**
     * Metrics exported to a given MBean server.
     *
     * @param server the server, or null for none (in process only)
     * @return the registry
     */
    public static KafkaMetrics jmx(final MBeanServer server) {
        return new KafkaMetrics(server, System::nanoTime, true);
    }

    /**
     * Metrics without a ticker thread, on a given clock: the owner calls {@link #tick} every five seconds of that
     * clock.
     *
     * @param server    the MBean server, or null for none
     * @param nanoClock the clock of mean rates
     * @return the registry
     */
    public static KafkaMetrics manual(final MBeanServer server, final LongSupplier nanoClock) {
        return new KafkaMetrics(server, nanoClock, false);
    }

    /**
     * A gauge read when asked.
     *
     * @param name  its name
     * @param value what it reads
     */
    public void gauge(final MetricName name, final LongSupplier value) {
        put(name, new LongGauge(value));
    }

    /**
     * A gauge of a fractional value.
     *
     * @param name  its name
     * @param value what it reads
     */
    public void doubleGauge(final MetricName name, final DoubleSupplier value) {
        put(name, new DoubleGauge(value));
    }

    /**
     * The meter of this name, created at the first call.
     *
     * @param name      its name
     * @param eventType what it counts ("requests", "bytes", "messages")
     * @return the meter
     */
    public Meter meter(final MetricName name, final String eventType) {
        return getOrCreate(name, Meter.class, () -> new Meter(eventType, nanoClock.getAsLong()));
    }

    /**
     * A meter over a count a component keeps itself (a controller's elections): its rates follow that count's growth.
     *
     * @param name      its name
     * @param eventType what it counts
     * @param count     the count, read at each tick and when asked
     * @return the meter
     */
    public Meter meter(final MetricName name, final String eventType, final LongSupplier count) {
        return getOrCreate(name, Meter.class, () -> new Meter(eventType, nanoClock.getAsLong(), count));
    }

    /**
     * The histogram of this name, created at the first call.
     *
     * @param name its name
     * @return the histogram
     */
    public Histogram histogram(final MetricName name) {
        return getOrCreate(name, Histogram.class, Histogram::new);
    }

    private <T> T getOrCreate(final MetricName name, final Class<T> type, final java.util.function.Supplier<T> make) {
        final Object existing = metrics.get(name);
        if (existing != null) {
            return cast(name, type, existing);
        }
        synchronized (this) {
            final Object again = metrics.get(name);
            if (again != null) {
                return cast(name, type, again);
            }
            final T made = make.get();
            put(name, made);
            return made;
        }
    }

    private static <T> T cast(final MetricName name, final Class<T> type, final Object metric) {
        if (!type.isInstance(metric)) {
            throw new IllegalArgumentException(name + " is a " + metric.getClass().getSimpleName() + ", not a "
                + type.getSimpleName());
        }
        return type.cast(metric);
    }

    /** Told of each metric added and removed (a binder to another metrics library). */
    interface Listener {
        void added(MetricName name, Object metric);

        void removed(MetricName name);
    }

    /** Adds a listener and tells it of every metric already registered. */
    synchronized void listen(final Listener listener) {
        listeners.add(listener);
        metrics.forEach(listener::added);
    }

    /** Removes a listener. */
    synchronized void unlisten(final Listener listener) {
        listeners.remove(listener);
    }

    private synchronized void put(final MetricName name, final Object metric) {
        final Object previous = metrics.put(name, metric);
        for (final Listener l : listeners) {
            if (previous != null) {
                l.removed(name);
            }
            l.added(name, metric);
        }
        if (server == null) {
            return;
        }
        try {
            if (previous != null && Boolean.TRUE.equals(exported.get(name))) {
                server.unregisterMBean(name.objectName());
            }
            server.registerMBean(new MetricMBean(name, metric, nanoClock), name.objectName());
            exported.put(name, true);
        } catch (final InstanceAlreadyExistsException e) {
            exported.put(name, false);
            LOG.debug("{} is already registered in this MBean server (another broker in the JVM); not exported", name);
        } catch (final MBeanRegistrationException | NotCompliantMBeanException | InstanceNotFoundException e) {
            exported.put(name, false);
            LOG.warn("cannot export {} over JMX: {}", name, e.toString());
        }
    }

    /**
     * Removes a metric (a partition that left the broker).
     *
     * @param name its name
     */
    public synchronized void remove(final MetricName name) {
        final boolean had = metrics.containsKey(name);
        if (had) {
            listeners.forEach(l -> l.removed(name));
        }
        if (metrics.remove(name) != null && Boolean.TRUE.equals(exported.remove(name))) {
            try {
                server.unregisterMBean(name.objectName());
            } catch (final InstanceNotFoundException | MBeanRegistrationException e) {
                LOG.debug("{} was already unregistered: {}", name, e.toString());
            }
        }
    }

    /**
     * The names registered.
     *
     * @return a copy
     */
    public List<MetricName> names() {
        return new ArrayList<>(metrics.keySet());
    }

    /**
     * A metric, for in-process readers and tests.
     *
     * @param name its name
     * @return the gauge's value (a {@link Number}), the {@link Meter} or the {@link Histogram}, or null
     */
    public Object read(final MetricName name) {
        final Object m = metrics.get(name);
        if (m instanceof LongGauge g) {
            return g.value().getAsLong();
        }
        if (m instanceof DoubleGauge g) {
            return g.value().getAsDouble();
        }
        return m;
    }

    /**
     * Ticks the meters' rates and, every sixth tick, turns the histograms' windows. Called by the ticker thread, or by
     * the owner of a {@link #manual} registry every five seconds.
     */
    public synchronized void tick() {
        ticks++;
        final boolean rotate = ticks % (Histogram.WINDOW_SECONDS / Meter.TICK_SECONDS) == 0;
        for (final Object m : metrics.values()) {
            if (m instanceof Meter meter) {
                meter.tick();
            } else if (rotate && m instanceof Histogram histogram) {
                histogram.rotate();
            }
        }
    }

    /** Stops the ticker and unregisters every exported metric. */
    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        for (final MetricName name : List.copyOf(metrics.keySet())) {
            remove(name);
        }
    }

    /** A gauge of a long value. */
    record LongGauge(LongSupplier value) {
    }

    /** A gauge of a double value. */
    record DoubleGauge(DoubleSupplier value) {
    }
}
