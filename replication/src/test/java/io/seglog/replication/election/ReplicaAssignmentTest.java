package io.seglog.replication.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ReplicaAssignmentTest {
    private static final Random UNUSED = new Random(0);

    private static Map<Integer, Optional<String>> noRacks(final int brokers) {
        final Map<Integer, Optional<String>> m = new TreeMap<>();
        for (int i = 0; i < brokers; i++) {
            m.put(i, Optional.empty());
        }
        return m;
    }

    private static Map<Integer, Optional<String>> racks(final Map<Integer, String> racks) {
        final Map<Integer, Optional<String>> m = new HashMap<>();
        racks.forEach((id, rack) -> m.put(id, Optional.of(rack)));
        return m;
    }

    @Test
    void rackUnawareMatchesKafkasTestReplicaAssignment() {
        // AdminRackAwareTest.testReplicaAssignment: 5 brokers, 10 partitions, RF 3, fixed start index 0.
        final Map<Integer, List<Integer>> expected = Map.of(
            0, List.of(0, 1, 2), 1, List.of(1, 2, 3), 2, List.of(2, 3, 4), 3, List.of(3, 4, 0), 4, List.of(4, 0, 1),
            5, List.of(0, 2, 3), 6, List.of(1, 3, 4), 7, List.of(2, 4, 0), 8, List.of(3, 0, 1), 9, List.of(4, 1, 2));
        assertEquals(expected, ReplicaAssignment.assign(noRacks(5), 10, 3, 0, -1, UNUSED));
    }

    @Test
    void rackUnawareUsesBrokerIdOrderNotMapOrder() {
        final Map<Integer, Optional<String>> brokers = new HashMap<>();
        for (final int id : new int[] {30, 10, 20}) {
            brokers.put(id, Optional.empty());
        }
        assertEquals(Map.of(0, List.of(10, 20), 1, List.of(20, 30), 2, List.of(30, 10)),
            ReplicaAssignment.assign(brokers, 3, 2, 0, 0, UNUSED));
    }

    @Test
    void addedPartitionsContinueTheLeaderRoundRobinButRestartTheShift() {
        final Map<Integer, List<Integer>> all = ReplicaAssignment.assign(noRacks(5), 10, 3, 0, 0, UNUSED);
        final Map<Integer, List<Integer>> tail = ReplicaAssignment.assign(noRacks(5), 4, 3, 0, 6, UNUSED);
        assertEquals(List.of(6, 7, 8, 9), List.copyOf(tail.keySet()));
        tail.forEach((p, replicas) -> assertEquals(all.get(p).get(0), replicas.get(0), "leader of partition " + p));
        // As in Kafka, the follower shift only grows inside one call, so added partitions start from the given shift.
        assertEquals(Map.of(6, List.of(1, 2, 3), 7, List.of(2, 3, 4), 8, List.of(3, 4, 0), 9, List.of(4, 0, 1)), tail);
    }

    @Test
    void addPartitionsStartsAtPartitionZerosPreferredBrokerAsKafkaDoes() {
        final Map<Integer, List<Integer>> existing = ReplicaAssignment.assign(noRacks(5), 3, 2, 0, 0, UNUSED);
        assertEquals(List.of(0, 1), existing.get(0));
        // rf from partition 0, ids from 3, start index = position of broker 0, shift restarts at 0.
        assertEquals(Map.of(3, List.of(3, 4), 4, List.of(4, 0)),
            ReplicaAssignment.addPartitions(noRacks(5), existing, 5));

        final Map<Integer, Optional<String>> odd = new HashMap<>();
        for (final int id : new int[] {1, 3, 5}) {
            odd.put(id, Optional.empty());
        }
        // Partition 0 prefers broker 2, which is gone: the first broker with id >= 2 is 3, at index 1.
        final Map<Integer, List<Integer>> added =
            ReplicaAssignment.addPartitions(odd, Map.of(0, List.of(2, 1), 1, List.of(1, 5)), 4);
        // Start index 1 is also the initial shift; the shift grows at partition 3 (3 % 3 brokers == 0).
        assertEquals(Map.of(2, List.of(1, 5), 3, List.of(3, 5)), added);
        // No broker id >= the preferred replica: index 0.
        assertEquals(Map.of(1, List.of(3, 5)), ReplicaAssignment.addPartitions(odd, Map.of(0, List.of(9, 1)), 2));
    }

    @Test
    void addPartitionsRejectsShrinkingAndMissingPartitionZero() {
        assertEquals("totalPartitions=2 must be larger than the current partitions=2",
            assertThrows(IllegalArgumentException.class, () -> ReplicaAssignment.addPartitions(noRacks(3),
                Map.of(0, List.of(0), 1, List.of(1)), 2)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReplicaAssignment.addPartitions(noRacks(3),
            Map.of(1, List.of(1)), 3)).getMessage().contains("partition 0"));
        assertThrows(IllegalArgumentException.class, () -> ReplicaAssignment.addPartitions(noRacks(1),
            Map.of(0, List.of(0, 1)), 3));
    }

    @Test
    void rackAlternatedListMatchesKafka() {
        final Map<Integer, String> rackMap = Map.of(0, "rack1", 1, "rack3", 2, "rack3", 3, "rack2", 4, "rack2", 5, "rack1");
        assertEquals(List.of(0, 3, 1, 5, 4, 2), ReplicaAssignment.rackAlternatedBrokerList(rackMap));
        final Map<Integer, String> without5 = new HashMap<>(rackMap);
        without5.remove(5);
        assertEquals(List.of(0, 3, 1, 4, 2), ReplicaAssignment.rackAlternatedBrokerList(without5));
    }

    @Test
    void rackAwareMatchesKafkasDocumentedExample() {
        // AdminUtils javadoc and AdminRackAwareTest: 7 partitions, RF 3, fixed start index 0; partition 6 is shifted.
        final Map<Integer, String> rackMap = Map.of(0, "rack1", 1, "rack3", 2, "rack3", 3, "rack2", 4, "rack2", 5, "rack1");
        final Map<Integer, List<Integer>> expected = Map.of(
            0, List.of(0, 3, 1), 1, List.of(3, 1, 5), 2, List.of(1, 5, 4), 3, List.of(5, 4, 2), 4, List.of(4, 2, 0),
            5, List.of(2, 0, 3), 6, List.of(0, 4, 2));
        assertEquals(expected, ReplicaAssignment.assign(racks(rackMap), 7, 3, 0, 0, UNUSED));
    }

    @Test
    void rejectsInvalidRequestsNamingTheValues() {
        assertEquals("replicationFactor=6 larger than available brokers=5", assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(noRacks(5), 10, 6, 0, 0, UNUSED)).getMessage());
        assertEquals("replicationFactor=0 must be larger than 0", assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(noRacks(5), 10, 0, 0, 0, UNUSED)).getMessage());
        assertEquals("replicationFactor=-1 must be larger than 0", assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(noRacks(5), 10, -1, 0, 0, UNUSED)).getMessage());
        assertEquals("partitions=0 must be larger than 0", assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(noRacks(5), 0, 1, 0, 0, UNUSED)).getMessage());
        assertEquals("partitions=-3 must be larger than 0", assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(noRacks(5), -3, 1, 0, 0, UNUSED)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReplicaAssignment.assign(Map.of(), 1, 1, 0, 0, UNUSED));
        final Map<Integer, Optional<String>> mixed = new HashMap<>(noRacks(3));
        mixed.put(0, Optional.of("r1"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ReplicaAssignment.assign(mixed, 3, 2, 0, 0, UNUSED));
        assertTrue(e.getMessage().startsWith("brokersWithRack=1 of brokers=3"), e.getMessage());
    }

    @Test
    void randomStartIsReproducibleWithTheSameSeed() {
        final var a = ReplicaAssignment.assign(noRacks(7), 20, 3, -1, 0, new SplittableRandom(42));
        final var b = ReplicaAssignment.assign(noRacks(7), 20, 3, -1, 0, new SplittableRandom(42));
        assertEquals(a, b);
    }

    /** Seeded property check over many cluster shapes, with and without racks, fixed and random starts. */
    @Test
    void seededPropertiesHoldForManyShapes() {
        final SplittableRandom rnd = new SplittableRandom(20261129L);
        for (int trial = 0; trial < 2000; trial++) {
            final int brokers = 1 + rnd.nextInt(12);
            final int rackCount = rnd.nextInt(5);                 // 0 = no racks
            final int rf = 1 + rnd.nextInt(Math.min(brokers, 4));
            final int partitions = 1 + rnd.nextInt(60);
            final int fixedStart = rnd.nextBoolean() ? -1 : rnd.nextInt(brokers * 2);
            final int startPartition = rnd.nextBoolean() ? 0 : rnd.nextInt(50);
            final Map<Integer, Optional<String>> cluster = new HashMap<>();
            for (int b = 0; b < brokers; b++) {
                final int id = b * 3 + 1;                         // non-contiguous ids
                cluster.put(id, rackCount == 0 ? Optional.empty() : Optional.of("rack-" + rnd.nextInt(rackCount)));
            }
            final String shape = "trial=" + trial + " brokers=" + cluster + " rf=" + rf + " partitions=" + partitions
                + " fixedStart=" + fixedStart + " startPartition=" + startPartition;
            final Map<Integer, List<Integer>> assignment = ReplicaAssignment.assign(cluster, partitions, rf,
                fixedStart, startPartition, new SplittableRandom(trial));

            assertEquals(partitions, assignment.size(), shape);
            final Map<Integer, Integer> leaders = new HashMap<>();
            cluster.keySet().forEach(id -> leaders.put(id, 0));
            final int racksInCluster = (int) cluster.values().stream().distinct().count();
            int expectedPartition = startPartition;
            for (final Map.Entry<Integer, List<Integer>> e : assignment.entrySet()) {
                assertEquals(expectedPartition++, e.getKey(), shape);
                final List<Integer> replicas = e.getValue();
                assertEquals(rf, replicas.size(), shape);
                assertEquals(rf, new HashSet<>(replicas).size(), "distinct replicas " + shape);
                assertTrue(cluster.keySet().containsAll(replicas), shape);
                leaders.merge(replicas.get(0), 1, Integer::sum);
                if (rackCount > 0) {
                    final Set<String> spanned = new HashSet<>();
                    replicas.forEach(r -> spanned.add(cluster.get(r).orElseThrow()));
                    assertEquals(Math.min(rf, racksInCluster), spanned.size(), "racks spanned " + shape);
                }
            }
            final int maxLeaders = leaders.values().stream().max(Integer::compare).orElseThrow();
            final int minLeaders = leaders.values().stream().min(Integer::compare).orElseThrow();
            assertTrue(maxLeaders - minLeaders <= 1, "leaders spread evenly " + leaders + " " + shape);
        }
    }

    @Test
    void rackUnawareSpreadsEveryReplicaEvenlyOverWholeRounds() {
        for (int brokers = 2; brokers <= 9; brokers++) {
            for (int rf = 1; rf <= brokers; rf++) {
                final Map<Integer, List<Integer>> a = ReplicaAssignment.assign(noRacks(brokers), brokers * 4, rf,
                    brokers - 1, 0, UNUSED);
                final Map<Integer, Integer> counts = new HashMap<>();
                a.values().forEach(rs -> rs.forEach(r -> counts.merge(r, 1, Integer::sum)));
                assertEquals(Set.of(4 * rf), new HashSet<>(counts.values()), "brokers=" + brokers + " rf=" + rf);
            }
        }
    }
}
