package io.seglog.replication.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeaderImbalanceTest {
    private static TopicPartition tp(final int p) {
        return new TopicPartition("t", p);
    }

    /**
     * Broker 1 is preferred for {@code total} partitions of which {@code moved} are led by broker 2 (in sync);
     * the rest are led by broker 1.
     */
    @ParameterizedTest(name = "{1}/{0} moved at {2}% -> ratio {3}, elect {4}")
    @CsvSource(delimiter = '|', value = {
        // total | moved | percentage | ratio | partitions elected
        "10      | 0     | 10         | 0.0   | 0",
        "10      | 1     | 10         | 0.1   | 0",   // equal to the threshold: not greater, nothing happens
        "10      | 2     | 10         | 0.2   | 2",
        "20      | 3     | 10         | 0.15  | 3",
        "3       | 1     | 0          | 0.3333333333333333 | 1",   // 0% rebalances on any imbalance
        "4       | 4     | 100        | 1.0   | 0",   // 100% never triggers
        "4       | 3     | 50         | 0.75  | 3",
        "2       | 1     | 50         | 0.5   | 0",
        // Kafka compares ratio > pct / 100.0; "ratio * 100 > pct" would wrongly trigger on these (7/100 * 100 > 7).
        "100     | 7     | 7          | 0.07  | 0",
        "25      | 7     | 28         | 0.28  | 0",
        "20      | 11    | 55         | 0.55  | 0",
    })
    void ratioAndThreshold(final int total, final int moved, final int percentage, final double ratio,
        final int elected) {
        final Map<TopicPartition, List<Integer>> assignments = new HashMap<>();
        final Map<TopicPartition, LeaderAndIsr> leadership = new HashMap<>();
        for (int p = 0; p < total; p++) {
            assignments.put(tp(p), List.of(1, 2));
            leadership.put(tp(p), new LeaderAndIsr(p < moved ? 2 : 1, 3, List.of(1, 2), 0));
        }
        final var imbalance = LeaderImbalance.byBroker(assignments, leadership).get(1);
        assertEquals(ratio, imbalance.ratio(), 0.0);
        assertEquals(total, imbalance.preferredPartitions());
        final Set<TopicPartition> toElect =
            LeaderImbalance.partitionsToElect(assignments, leadership, Set.of(1, 2), percentage, Set.of());
        assertEquals(elected, toElect.size());
        final Set<TopicPartition> expected = new TreeSet<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        for (int p = 0; p < elected; p++) {
            expected.add(tp(p));
        }
        assertEquals(expected, toElect);
    }

    @Test
    void groupsByPreferredReplicaAndCountsUnknownLeadershipOnlyInTheDenominator() {
        final Map<TopicPartition, List<Integer>> assignments = Map.of(
            tp(0), List.of(1, 2, 3), tp(1), List.of(2, 3, 1), tp(2), List.of(3, 1, 2), tp(3), List.of(1, 3, 2),
            tp(4), List.of(1, 2, 3), tp(5), List.of());
        final Map<TopicPartition, LeaderAndIsr> leadership = Map.of(
            tp(0), new LeaderAndIsr(2, 1, List.of(1, 2, 3), 0),       // preferred 1, led by 2
            tp(1), new LeaderAndIsr(2, 0, List.of(2, 3, 1), 0),       // balanced
            tp(2), new LeaderAndIsr(-1, 4, List.of(3), 0),            // preferred 3, leaderless: counts as imbalanced
            tp(3), new LeaderAndIsr(1, 0, List.of(1, 3), 0));         // tp(4) has no state: unknown
        final var byBroker = LeaderImbalance.byBroker(assignments, leadership);
        assertEquals(List.of(1, 2, 3), List.copyOf(byBroker.keySet()));
        assertEquals(3, byBroker.get(1).preferredPartitions());
        assertEquals(Set.of(tp(0)), byBroker.get(1).notLedByPreferred());
        assertEquals(1.0 / 3, byBroker.get(1).ratio(), 0.0);
        assertEquals(0.0, byBroker.get(2).ratio(), 0.0);
        assertEquals(1.0, byBroker.get(3).ratio(), 0.0);
        assertTrue(byBroker.get(3).exceeds(10));
        assertFalse(byBroker.get(2).exceeds(0));
    }

    @Test
    void electsOnlyWherePreferredCanLeadAndSkipsDeletedTopics() {
        final TopicPartition gone = new TopicPartition("deleting", 0);
        final Map<TopicPartition, List<Integer>> assignments = Map.of(
            tp(0), List.of(1, 2), tp(1), List.of(1, 2), tp(2), List.of(1, 2), tp(3), List.of(1, 2), gone, List.of(1, 2));
        final Map<TopicPartition, LeaderAndIsr> leadership = Map.of(
            tp(0), new LeaderAndIsr(2, 1, List.of(2, 1), 0),          // can move back
            tp(1), new LeaderAndIsr(2, 1, List.of(2), 0),             // preferred out of sync: no
            tp(2), new LeaderAndIsr(2, 1, List.of(1, 2), 0),          // can move back
            tp(3), new LeaderAndIsr(1, 1, List.of(1, 2), 0),
            gone, new LeaderAndIsr(2, 1, List.of(1, 2), 0));
        assertEquals(Set.of(tp(0), tp(2)),
            LeaderImbalance.partitionsToElect(assignments, leadership, Set.of(1, 2), 10, Set.of("deleting")));
        // Broker 1 dead: nothing can move back to it.
        assertEquals(Set.of(),
            LeaderImbalance.partitionsToElect(assignments, leadership, Set.of(2), 10, Set.of("deleting")));
    }

    @Test
    void rejectsNegativePercentage() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LeaderImbalance.partitionsToElect(Map.of(), Map.of(), Set.of(), -1, Set.of()));
        assertEquals("leader.imbalance.per.broker.percentage=-1 must be >= 0", e.getMessage());
    }
}
