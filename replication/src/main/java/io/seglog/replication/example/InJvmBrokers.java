package io.seglog.replication.example;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.metrics.KafkaMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.agrona.CloseHelper;

/**
 * The quickstart's brokers inside the demo's JVM ({@code --in-process}): each a {@link SeglogBroker} with its own log
 * directory and listener. A kill closes the broker without a controlled shutdown: its ZooKeeper session ends at once,
 * so the election follows without waiting for a session timeout.
 *
 * <p>Not thread-safe. The brokers' threads come from named, non-daemon factories and end when they close.
 */
final class InJvmBrokers implements QuickstartBrokers {
    private final Path dir;
    private final String connect;
    private final Map<Integer, SeglogBroker> running = new TreeMap<>();
    private final Map<Integer, MBeanServer> servers = new TreeMap<>();
    private final Map<Integer, KafkaMetrics> registries = new TreeMap<>();
    private final Map<Integer, Integer> ports = new TreeMap<>();
    private final AtomicInteger threadIds = new AtomicInteger();

    InJvmBrokers(final Path dir, final String connect) {
        this.dir = dir;
        this.connect = connect;
    }

    @Override
    public void start(final int id) {
        final Map<String, Object> props = QuickstartBrokers.config(id, ports.getOrDefault(id, 0),
            dir.resolve("broker-" + id), connect);
        final SeglogBroker b;
        try {
            // Each broker's metrics in an MBean server of its own: the three share this JVM's platform one otherwise.
            final MBeanServer server = servers.computeIfAbsent(id, i -> MBeanServerFactory.newMBeanServer());
            final KafkaMetrics registry = KafkaMetrics.jmx(server);
            final KafkaMetrics previous = registries.put(id, registry);
            if (previous != null) {
                previous.close();
            }
            b = SeglogBroker.start(SeglogBrokerConfig.fromProperties(props), SeglogBroker.options()
                .threadFactory(r -> new Thread(r, "quickstart-broker" + id + "-" + threadIds.incrementAndGet()))
                .metrics(registry));
        } catch (final RuntimeException e) {
            throw new DemoFailure("step 'quickstart: start three brokers': broker " + id
                + " could not start against ZooKeeper " + connect + ": " + e, e);
        }
        running.put(id, b);
        ports.put(id, b.boundAddress().getPort());
    }

    @Override
    public void awaitReady(final int id, final Deadline deadline) throws Exception {
        try {
            running.get(id).awaitRegistered(deadline.remainingMs());
        } catch (final java.util.concurrent.TimeoutException e) {
            throw deadline.timeout("broker " + id + " registered in ZooKeeper " + connect);
        }
    }

    @Override
    public String kill(final int id, final Deadline deadline) {
        running.remove(id).close();
        return "closed broker " + id + " in this JVM without a controlled shutdown";
    }

    @Override
    public String where(final int id) {
        return "in this JVM";
    }

    @Override
    public Number metric(final int id, final String objectName, final String attribute) throws Exception {
        return (Number) servers.get(id).getAttribute(new ObjectName(objectName), attribute);
    }

    @Override
    public String metricsAt(final int id) {
        return "its own MBean server in this JVM";
    }

    @Override
    public String bootstrap() {
        return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        final List<AutoCloseable> all = new ArrayList<>(running.values());
        running.clear();
        all.addAll(registries.values());
        registries.clear();
        CloseHelper.closeAll(all);
    }
}
