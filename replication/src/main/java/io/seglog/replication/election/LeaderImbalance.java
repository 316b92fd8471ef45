package io.seglog.replication.election;

import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The automatic leader rebalance check of Kafka's controller ({@code checkAndTriggerAutoLeaderRebalance}), driven
 * by {@code leader.imbalance.per.broker.percentage} (default 10).
 *
 * <p>Partitions are grouped by their <em>preferred</em> replica (the head of the assignment), whether that broker is
 * alive or not. A broker's imbalance ratio is the share of its preferred partitions that currently have a known
 * leader other than it; partitions whose leadership is unknown (no state yet) count in the denominator only. When
 * the ratio is strictly greater than the percentage / 100, a preferred replica election is triggered for that
 * broker's imbalanced partitions whose preferred replica can lead now (live and in the ISR) and whose topic is not
 * being deleted.
 *
 * <p>Stateless and thread-safe.
 */
public final class LeaderImbalance {
    /** Kafka's default {@code leader.imbalance.per.broker.percentage}. */
    public static final int DEFAULT_PERCENTAGE = 10;

    private static final Comparator<TopicPartition> ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private LeaderImbalance() {
    }

    /**
     * One broker's imbalance.
     *
     * @param brokerId            the preferred replica
     * @param preferredPartitions how many partitions prefer it
     * @param notLedByPreferred   the partitions that prefer it but have a known leader other than it (sorted)
     */
    public record BrokerImbalance(int brokerId, int preferredPartitions, SortedSet<TopicPartition> notLedByPreferred) {
        /**
         * Copies.
         *
         * @param brokerId            the broker
         * @param preferredPartitions the denominator
         * @param notLedByPreferred   the numerator's partitions
         * @throws IllegalArgumentException when the counts are inconsistent
         */
        public BrokerImbalance {
            final SortedSet<TopicPartition> copy = new TreeSet<>(ORDER);
            copy.addAll(notLedByPreferred);
            notLedByPreferred = Collections.unmodifiableSortedSet(copy);
            if (preferredPartitions < notLedByPreferred.size() || preferredPartitions <= 0) {
                throw new IllegalArgumentException("preferredPartitions=" + preferredPartitions
                    + " must be positive and >= notLedByPreferred=" + notLedByPreferred.size());
            }
        }

        /**
         * The imbalance ratio, computed as Kafka computes it (a double division).
         *
         * @return notLedByPreferred / preferredPartitions, from 0 to 1
         */
        public double ratio() {
            return (double) notLedByPreferred.size() / preferredPartitions;
        }

        /**
         * Whether this broker exceeds the threshold.
         *
         * @param percentage {@code leader.imbalance.per.broker.percentage}
         * @return {@code true} when {@link #ratio()} is strictly greater than percentage / 100
         */
        public boolean exceeds(final int percentage) {
            return ratio() > percentage / 100.0;
        }
    }

    /**
     * Each preferred replica's imbalance.
     *
     * @param assignments the replica list of every partition considered (topics being deleted already left out);
     *                    partitions with an empty list are ignored
     * @param leadership  the current leader and ISR of partitions that have a state; others count as unknown
     * @return imbalance per preferred broker id, ordered by broker id
     */
    public static SortedMap<Integer, BrokerImbalance> byBroker(final Map<TopicPartition, List<Integer>> assignments,
        final Map<TopicPartition, LeaderAndIsr> leadership) {
        final SortedMap<Integer, Integer> totals = new TreeMap<>();
        final SortedMap<Integer, SortedSet<TopicPartition>> imbalanced = new TreeMap<>();
        for (final Map.Entry<TopicPartition, List<Integer>> e : assignments.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            final int preferred = e.getValue().get(0);
            totals.merge(preferred, 1, Integer::sum);
            final SortedSet<TopicPartition> set = imbalanced.computeIfAbsent(preferred, b -> new TreeSet<>(ORDER));
            final LeaderAndIsr state = leadership.get(e.getKey());
            if (state != null && state.leader() != preferred) {
                set.add(e.getKey());
            }
        }
        final SortedMap<Integer, BrokerImbalance> result = new TreeMap<>();
        totals.forEach((broker, total) -> result.put(broker, new BrokerImbalance(broker, total, imbalanced.get(broker))));
        return Collections.unmodifiableSortedMap(result);
    }

    /**
     * The partitions for which the controller should run a preferred replica election now.
     *
     * @param assignments        the replica list of every partition
     * @param leadership         the current leader and ISR of partitions that have a state
     * @param live               the live brokers
     * @param percentage         {@code leader.imbalance.per.broker.percentage}, zero or more
     * @param topicsBeingDeleted topics queued for deletion: never rebalanced
     * @return the partitions of every broker above the threshold whose preferred replica is live and in the ISR,
     *         sorted by topic and partition
     * @throws IllegalArgumentException when the percentage is negative
     */
    public static SortedSet<TopicPartition> partitionsToElect(final Map<TopicPartition, List<Integer>> assignments,
        final Map<TopicPartition, LeaderAndIsr> leadership, final Set<Integer> live, final int percentage,
        final Set<String> topicsBeingDeleted) {
        if (percentage < 0) {
            throw new IllegalArgumentException("leader.imbalance.per.broker.percentage=" + percentage + " must be >= 0");
        }
        final Map<TopicPartition, List<Integer>> considered = new TreeMap<>(ORDER);
        assignments.forEach((tp, replicas) -> {
            if (!topicsBeingDeleted.contains(tp.topic())) {
                considered.put(tp, replicas);
            }
        });
        final SortedSet<TopicPartition> result = new TreeSet<>(ORDER);
        for (final BrokerImbalance imbalance : byBroker(considered, leadership).values()) {
            if (!imbalance.exceeds(percentage)) {
                continue;
            }
            for (final TopicPartition tp : imbalance.notLedByPreferred()) {
                final LeaderAndIsr state = leadership.get(tp);
                if (LeaderElection.preferred(considered.get(tp), state.isr(), live).hasLeader()) {
                    result.add(tp);
                }
            }
        }
        return Collections.unmodifiableSortedSet(result);
    }
}
