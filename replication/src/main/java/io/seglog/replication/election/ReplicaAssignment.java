package io.seglog.replication.election;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Replica assignment for new topics and partitions: Kafka's {@code AdminUtils.assignReplicasToBrokers}, rack-unaware
 * and rack-aware, reproduced so that the same inputs give the same assignment as Kafka.
 *
 * <p>Goals (Kafka's): spread replicas evenly over brokers; spread the other replicas of one broker's partitions
 * over the other brokers; with racks, put each partition's replicas on distinct racks where possible.
 * <ul>
 *   <li><b>Rack-unaware</b> (no broker has a rack), brokers sorted by id: the first replica of partition {@code p}
 *       goes round-robin from a start index, {@code (p + startIndex) % n}; the others follow at an increasing shift
 *       ({@code 1 + (shift + j) % (n - 1)} places after the first), and the shift grows by one every {@code n}
 *       partitions so that successive rounds do not repeat the same replica sets.</li>
 *   <li><b>Rack-aware</b> (every broker has a rack): the same round-robin over a rack-alternated broker list (racks
 *       sorted by name, brokers of each rack sorted by id, taken one per rack in turn); each further replica is
 *       the next broker in the shifted order whose rack has no replica yet (until every rack has one) and which has
 *       no replica yet (until every broker has one).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe (the random generator, when used, is the caller's).
 */
public final class ReplicaAssignment {
    private ReplicaAssignment() {
    }

    /**
     * Assigns replicas for {@code partitions} partitions numbered from {@code startPartitionId}.
     *
     * @param brokerRacks       every available broker and its rack; either all brokers have a rack or none has
     * @param partitions        how many partitions to assign, at least 1
     * @param replicationFactor replicas per partition, from 1 to the number of brokers
     * @param fixedStartIndex   the start index and initial replica shift, or a negative value to draw both from
     *                          {@code random} (as Kafka does, so that topics do not all start on the same broker)
     * @param startPartitionId  the first partition id (for added partitions); a negative value means 0
     * @param random            the source of the random start, used only when {@code fixedStartIndex} is negative
     * @return replica list per partition id, ordered by partition; the first replica is the preferred leader
     * @throws IllegalArgumentException naming the values when partitions or the replication factor is not positive,
     *                                  the replication factor exceeds the broker count, a broker id is negative, or
     *                                  only some brokers have a rack
     */
    public static Map<Integer, List<Integer>> assign(final Map<Integer, Optional<String>> brokerRacks,
        final int partitions, final int replicationFactor, final int fixedStartIndex, final int startPartitionId,
        final RandomGenerator random) {
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions=" + partitions + " must be larger than 0");
        }
        if (replicationFactor <= 0) {
            throw new IllegalArgumentException("replicationFactor=" + replicationFactor + " must be larger than 0");
        }
        if (replicationFactor > brokerRacks.size()) {
            throw new IllegalArgumentException("replicationFactor=" + replicationFactor
                + " larger than available brokers=" + brokerRacks.size());
        }
        if (startPartitionId > Integer.MAX_VALUE - partitions) {
            throw new IllegalArgumentException("startPartitionId=" + startPartitionId + " + partitions=" + partitions
                + " overflows the partition id");
        }
        final SortedMap<Integer, String> racks = new TreeMap<>();
        int withRack = 0;
        for (final Map.Entry<Integer, Optional<String>> e : brokerRacks.entrySet()) {
            if (e.getKey() == null || e.getKey() < 0) {
                throw new IllegalArgumentException("broker id=" + e.getKey() + " must be >= 0");
            }
            if (e.getValue().isPresent()) {
                withRack++;
            }
            racks.put(e.getKey(), e.getValue().orElse(null));
        }
        if (withRack > 0 && withRack < racks.size()) {
            throw new IllegalArgumentException("brokersWithRack=" + withRack + " of brokers=" + racks.size()
                + ": not all brokers have rack information for rack-aware assignment");
        }
        final List<Integer> brokers = withRack == 0
            ? new ArrayList<>(racks.keySet())
            : rackAlternatedBrokerList(Collections.unmodifiableMap(racks));
        final int n = brokers.size();
        // Kafka draws the start index first, then the shift.
        final int startIndex = fixedStartIndex >= 0 ? fixedStartIndex : random.nextInt(n);
        final int initialShift = fixedStartIndex >= 0 ? fixedStartIndex : random.nextInt(n);
        final int numRacks = withRack == 0 ? 0 : new HashSet<>(racks.values()).size();

        final SortedMap<Integer, List<Integer>> result = new TreeMap<>();
        int partitionId = Math.max(0, startPartitionId);
        int shift = initialShift;
        for (int i = 0; i < partitions; i++, partitionId++) {
            if (partitionId > 0 && partitionId % n == 0) {
                shift++;
            }
            final int first = (int) (((long) partitionId + startIndex) % n);
            final List<Integer> replicas = withRack == 0
                ? rackUnaware(brokers, first, shift, replicationFactor)
                : rackAware(brokers, racks, numRacks, first, shift, replicationFactor);
            result.put(partitionId, List.copyOf(replicas));
        }
        return Collections.unmodifiableSortedMap(result);
    }

    /**
     * Assigns replicas for partitions added to an existing topic, as Kafka's ZooKeeper-mode
     * {@code AdminZkClient.createNewPartitionsAssignment} does: the replication factor is partition 0's, the new
     * partitions are numbered from the current count, and the start index is fixed (not random) at the position of
     * the first broker, in id order, whose id is at least partition 0's preferred replica, so that the new leaders
     * continue the round-robin where partition 0 put it.
     *
     * @param brokerRacks        every available broker and its rack (all or none with a rack)
     * @param existingAssignment the topic's current replica lists, which must include partition 0
     * @param totalPartitions    the partition count wanted, more than the current count
     * @return replica list per new partition id, ordered by partition
     * @throws IllegalArgumentException naming the values when partition 0 is missing, the count does not grow, or
     *                                  the assignment is otherwise impossible (see {@link #assign})
     */
    public static Map<Integer, List<Integer>> addPartitions(final Map<Integer, Optional<String>> brokerRacks,
        final Map<Integer, List<Integer>> existingAssignment, final int totalPartitions) {
        final List<Integer> partition0 = existingAssignment.get(0);
        if (partition0 == null || partition0.isEmpty()) {
            throw new IllegalArgumentException("existing assignment=" + existingAssignment
                + " has no replicas for partition 0");
        }
        final int toAdd = totalPartitions - existingAssignment.size();
        if (toAdd <= 0) {
            throw new IllegalArgumentException("totalPartitions=" + totalPartitions
                + " must be larger than the current partitions=" + existingAssignment.size());
        }
        // Kafka takes this index in the id-sorted broker list even when the rack-aware path then indexes the
        // rack-alternated list with it; reproduced as is so both give the same assignment.
        final List<Integer> sorted = new ArrayList<>(new TreeMap<>(brokerRacks).keySet());
        int startIndex = 0;
        for (int i = 0; i < sorted.size(); i++) {
            if (sorted.get(i) >= partition0.get(0)) {
                startIndex = i;
                break;
            }
        }
        return assign(brokerRacks, toAdd, partition0.size(), startIndex, existingAssignment.size(), null);
    }

    /**
     * Kafka's rack-alternated broker list: racks sorted by name, brokers within a rack sorted by id, then one
     * broker from each rack in turn. For {@code 0->rack1, 1->rack3, 2->rack3, 3->rack2, 4->rack2, 5->rack1} it is
     * {@code 0, 3, 1, 5, 4, 2}.
     *
     * @param brokerRacks each broker's rack
     * @return the alternated list
     */
    public static List<Integer> rackAlternatedBrokerList(final Map<Integer, String> brokerRacks) {
        final SortedMap<String, List<Integer>> byRack = new TreeMap<>();
        new TreeMap<>(brokerRacks).forEach((id, rack) -> byRack.computeIfAbsent(rack, r -> new ArrayList<>()).add(id));
        final List<Iterator<Integer>> iterators = new ArrayList<>();
        byRack.values().forEach(ids -> iterators.add(ids.iterator()));
        final List<Integer> result = new ArrayList<>(brokerRacks.size());
        int rack = 0;
        while (result.size() < brokerRacks.size()) {
            final Iterator<Integer> it = iterators.get(rack);
            if (it.hasNext()) {
                result.add(it.next());
            }
            rack = (rack + 1) % iterators.size();
        }
        return result;
    }

    private static List<Integer> rackUnaware(final List<Integer> brokers, final int first, final int shift,
        final int replicationFactor) {
        final List<Integer> replicas = new ArrayList<>(replicationFactor);
        replicas.add(brokers.get(first));
        for (int j = 0; j < replicationFactor - 1; j++) {
            replicas.add(brokers.get(replicaIndex(first, shift, j, brokers.size())));
        }
        return replicas;
    }

    private static List<Integer> rackAware(final List<Integer> brokers, final Map<Integer, String> racks,
        final int numRacks, final int first, final int shift, final int replicationFactor) {
        final int n = brokers.size();
        final int leader = brokers.get(first);
        final List<Integer> replicas = new ArrayList<>(replicationFactor);
        replicas.add(leader);
        final Set<String> racksUsed = new HashSet<>();
        racksUsed.add(racks.get(leader));
        final Set<Integer> brokersUsed = new HashSet<>();
        brokersUsed.add(leader);
        int k = 0;
        for (int j = 0; j < replicationFactor - 1; j++) {
            // Terminates: k walks every other position of the list, and rf <= n leaves an unused broker.
            while (true) {
                final int broker = brokers.get(replicaIndex(first, (long) shift * numRacks, k, n));
                final String rack = racks.get(broker);
                k++;
                final boolean rackOk = !racksUsed.contains(rack) || racksUsed.size() == numRacks;
                final boolean brokerOk = !brokersUsed.contains(broker) || brokersUsed.size() == n;
                if (rackOk && brokerOk) {
                    replicas.add(broker);
                    racksUsed.add(rack);
                    brokersUsed.add(broker);
                    break;
                }
            }
        }
        return replicas;
    }

    /** Position of a follower: {@code 1 + (shift + j) % (n - 1)} places after the first replica, never on it. */
    private static int replicaIndex(final int first, final long shift, final int j, final int n) {
        final long offset = 1 + (shift + j) % (n - 1);
        return (int) ((first + offset) % n);
    }
}
