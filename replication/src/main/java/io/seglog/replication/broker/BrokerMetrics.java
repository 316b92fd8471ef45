package io.seglog.replication.broker;

import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.metrics.Meter;
import io.seglog.replication.metrics.MetricName;
import io.seglog.replication.replica.LeadershipListener;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.SegmentInfo;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The broker's gauges and meters under Kafka's names: the replica manager's ({@code kafka.server:type=ReplicaManager}:
 * {@code PartitionCount}, {@code LeaderCount}, {@code UnderReplicatedPartitions}, {@code UnderMinIsrPartitionCount},
 * {@code AtMinIsrPartitionCount}, {@code IsrShrinksPerSec}, {@code IsrExpandsPerSec}), the controller's
 * ({@code kafka.controller:type=KafkaController,name=ActiveControllerCount},
 * {@code kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec}), the broker's state
 * ({@code kafka.server:type=KafkaServer,name=BrokerState}, 3 = running) and each hosted partition's log
 * ({@code kafka.log:type=Log,name=LogEndOffset|LogStartOffset|NumLogSegments|Size,topic=...,partition=...}, from its
 * first role here until it is stopped). Gauges are read when asked.
 */
final class BrokerMetrics implements LeadershipListener {
    /** Kafka's BrokerState value of a running broker. */
    static final int RUNNING = 3;

    private final KafkaMetrics metrics;
    private final ReplicaManager replicas;

    BrokerMetrics(final KafkaMetrics metrics, final ReplicaManager replicas) {
        this.metrics = metrics;
        this.replicas = replicas;
        count("PartitionCount", p -> true);
        count("LeaderCount", Partition::isLeader);
        count("UnderReplicatedPartitions", Partition::underReplicated);
        count("UnderMinIsrPartitionCount", Partition::underMinIsr);
        count("AtMinIsrPartitionCount", Partition::atMinIsr);
        final Meter shrinks = metrics.meter(MetricName.of("kafka.server", "ReplicaManager", "IsrShrinksPerSec"),
            "shrinks");
        final Meter expands = metrics.meter(MetricName.of("kafka.server", "ReplicaManager", "IsrExpandsPerSec"),
            "expands");
        replicas.addIsrChangeListener((tp, before, after) -> {
            if (after.size() < before.size()) {
                shrinks.mark();
            } else if (after.size() > before.size()) {
                expands.mark();
            }
        });
        metrics.gauge(MetricName.of("kafka.server", "KafkaServer", "BrokerState"), () -> RUNNING);
    }

    /**
     * Registers the controller's metrics, once the controller (built after the replica layer) exists.
     *
     * @param activeController whether this broker is the active controller
     * @param uncleanElections the unclean leader elections this broker's controller made
     */
    void controller(final BooleanSupplier activeController, final LongSupplier uncleanElections) {
        metrics.gauge(MetricName.of("kafka.controller", "KafkaController", "ActiveControllerCount"),
            () -> activeController.getAsBoolean() ? 1 : 0);
        metrics.meter(MetricName.of("kafka.controller", "ControllerStats", "UncleanLeaderElectionsPerSec"), "elections",
            uncleanElections);
    }

    private void count(final String name, final Predicate<Partition> which) {
        metrics.gauge(MetricName.of("kafka.server", "ReplicaManager", name),
            () -> replicas.partitions().stream().filter(which).count());
    }

    private static MetricName logMetric(final TopicPartition tp, final String name) {
        return MetricName.of("kafka.log", "Log", name, "topic", tp.topic(), "partition",
            Integer.toString(tp.partition()));
    }

    private void register(final TopicPartition tp) {
        final Optional<Partition> partition = replicas.partition(tp);
        if (partition.isEmpty()) {
            return;
        }
        final PartitionLog log = partition.get().log();
        metrics.gauge(logMetric(tp, "LogEndOffset"), log::logEndOffset);
        metrics.gauge(logMetric(tp, "LogStartOffset"), log::logStartOffset);
        metrics.gauge(logMetric(tp, "NumLogSegments"), log::segmentCount);
        metrics.gauge(logMetric(tp, "Size"), () -> {
            final List<SegmentInfo> segments = log.segments();
            return segments.stream().mapToLong(SegmentInfo::sizeInBytes).sum();
        });
    }

    @Override
    public void onBecomeLeader(final TopicPartition tp, final int leaderEpoch) {
        register(tp);
    }

    @Override
    public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int leaderEpoch) {
        register(tp);
    }

    @Override
    public void onStopped(final TopicPartition tp, final boolean deleted) {
        for (final String name : List.of("LogEndOffset", "LogStartOffset", "NumLogSegments", "Size")) {
            metrics.remove(logMetric(tp, name));
        }
    }
}
