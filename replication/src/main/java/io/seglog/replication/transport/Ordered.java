package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Immutable copies of the control requests' maps and sets that iterate in the same order in every JVM: partitions by
 * topic then number, brokers by id. {@code Map.copyOf} and {@code Set.copyOf} iterate in an order salted per JVM, and
 * a broker acts on a request's partitions in the order it iterates them, so a replayed simulation seed would take
 * another path in another JVM.
 */
final class Ordered {
    /** Partitions by topic, then by number. */
    static final Comparator<TopicPartition> BY_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private Ordered() {
    }

    /**
     * Copies a map keyed by partition.
     *
     * @param map the map (no null key or value)
     * @param <V> the value type
     * @return an unmodifiable copy in partition order
     */
    static <V> Map<TopicPartition, V> byPartition(final Map<TopicPartition, V> map) {
        final Map<TopicPartition, V> copy = new TreeMap<>(BY_PARTITION);
        map.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "partition"), Objects.requireNonNull(v, "value")));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Copies a map keyed by broker id.
     *
     * @param map the map (no null key or value)
     * @param <V> the value type
     * @return an unmodifiable copy in id order
     */
    static <V> Map<Integer, V> byId(final Map<Integer, V> map) {
        final Map<Integer, V> copy = new TreeMap<>();
        map.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "broker id"), Objects.requireNonNull(v, "value")));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Copies a set of partitions.
     *
     * @param set the set (no null element)
     * @return an unmodifiable copy in partition order
     */
    static Set<TopicPartition> partitions(final Set<TopicPartition> set) {
        final Set<TopicPartition> copy = new TreeSet<>(BY_PARTITION);
        set.forEach(tp -> copy.add(Objects.requireNonNull(tp, "partition")));
        return Collections.unmodifiableSet(copy);
    }
}
