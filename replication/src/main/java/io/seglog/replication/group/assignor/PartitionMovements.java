package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The moves one general sticky balancing has made, per topic and (from, to) member pair, so that a move from B to A
 * after one from A to B moves that same partition back rather than a second one (Kafka's {@code PartitionMovements},
 * which keeps a partition's net move only). Where Kafka takes "any" partition of a pair from a {@code HashSet}, this
 * takes the lowest-numbered one.
 */
final class PartitionMovements {
    private record Pair(String from, String to) {
    }

    private final Map<TopicPartition, Pair> moves = new HashMap<>();
    private final Map<String, Map<Pair, TreeSet<TopicPartition>>> byTopic = new HashMap<>();

    /** The partition to move when {@code tp} would go from {@code from} to {@code to}. */
    TopicPartition partitionToMove(final TopicPartition tp, final String from, final String to) {
        final Map<Pair, TreeSet<TopicPartition>> topicMoves = byTopic.get(tp.topic());
        if (topicMoves == null) {
            return tp;
        }
        final Pair earlier = moves.get(tp);
        final String origin = earlier != null ? earlier.from() : from;
        final TreeSet<TopicPartition> reverse = topicMoves.get(new Pair(to, origin));
        return reverse == null ? tp : reverse.first();
    }

    /** Records that the partition moved, keeping only its net move. */
    void record(final TopicPartition tp, final String from, final String to) {
        final Pair earlier = moves.containsKey(tp) ? remove(tp) : null;
        if (earlier == null) {
            add(tp, new Pair(from, to));
        } else if (!earlier.from().equals(to)) {
            add(tp, new Pair(earlier.from(), to));
        }
    }

    private Pair remove(final TopicPartition tp) {
        final Pair pair = moves.remove(tp);
        final Map<Pair, TreeSet<TopicPartition>> topicMoves = byTopic.get(tp.topic());
        final TreeSet<TopicPartition> set = topicMoves.get(pair);
        set.remove(tp);
        if (set.isEmpty()) {
            topicMoves.remove(pair);
        }
        if (topicMoves.isEmpty()) {
            byTopic.remove(tp.topic());
        }
        return pair;
    }

    private void add(final TopicPartition tp, final Pair pair) {
        moves.put(tp, pair);
        byTopic.computeIfAbsent(tp.topic(), t -> new HashMap<>())
            .computeIfAbsent(pair, p -> new TreeSet<>(GroupAssignment.PARTITION_ORDER)).add(tp);
    }
}
