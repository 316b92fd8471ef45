package io.seglog.bench.cluster;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.zk.EmbeddedZooKeeper;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * Three {@link SeglogBroker}s and an embedded ZooKeeper in this JVM, each broker with its own log directory under
 * {@code dir} and the {@linkplain VersusKafkaBench#commonBrokerSettings() settings shared with Kafka}; everything
 * else (network threads, replica fetchers) at Seglog's defaults.
 *
 * <p>Not thread-safe.
 */
final class SeglogZkCluster implements BenchCluster {
    private final EmbeddedZooKeeper zk;
    private final List<SeglogBroker> brokers = new ArrayList<>();

    SeglogZkCluster(final Path dir) {
        this.zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"));
        try {
            for (int id = 1; id <= 3; id++) {
                final Map<String, Object> props = new HashMap<>(VersusKafkaBench.commonBrokerSettings());
                props.put("broker.id", id);
                props.put("listeners", "PLAINTEXT://127.0.0.1:0");
                props.put("log.dirs", dir.resolve("broker-" + id).toString());
                props.put("zookeeper.connect", zk.connectString());
                final SeglogBroker broker = SeglogBroker.start(SeglogBrokerConfig.fromProperties(props));
                brokers.add(broker);
                broker.awaitRegistered(30_000);
            }
        } catch (final Exception e) {
            close();
            throw new IllegalStateException("Seglog cluster did not start under " + dir, e);
        }
    }

    @Override
    public String system() {
        return "Seglog";
    }

    @Override
    public String bootstrap() {
        return brokers.stream().map(b -> "127.0.0.1:" + b.boundAddress().getPort()).collect(Collectors.joining(","));
    }

    @Override
    public void createTopic(final String topic, final int replicationFactor) throws Exception {
        final List<Integer> replicas = replicationFactor == 1 ? List.of(1) : List.of(1, 2, 3);
        brokers.get(0).admin().createTopic(topic, Map.of(0, replicas));
        final TopicPartition tp = new TopicPartition(topic, 0);
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            for (final SeglogBroker b : brokers) {
                final boolean full = b.partition(tp).map(p -> p.isLeader() && p.isr().size() == replicationFactor)
                    .orElse(false);
                if (full) {
                    return;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        throw new IllegalStateException("Seglog " + tp + " not led with an ISR of " + replicationFactor
            + " within a minute");
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (int i = brokers.size() - 1; i >= 0; i--) {
            try {
                brokers.get(i).close();
            } catch (final RuntimeException e) {
                failure = keep(failure, e);
            }
        }
        brokers.clear();
        try {
            zk.close();
        } catch (final RuntimeException e) {
            failure = keep(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    static RuntimeException keep(final RuntimeException first, final RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
