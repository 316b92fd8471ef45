package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The result of one assignment: every input member's partitions, sorted by topic then partition; a member that
 * gets nothing maps to an empty list. Immutable.
 *
 * @param partitionsByMember member id to its partitions, in member id order
 */
public record GroupAssignment(Map<String, List<TopicPartition>> partitionsByMember) {
    /** Kafka's {@code TopicPartitionComparator} order: topic name, then partition number. */
    static final Comparator<TopicPartition> PARTITION_ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /**
     * Copies, sorting each list and the members.
     *
     * @param partitionsByMember member id to its partitions
     * @throws IllegalArgumentException when the map, a list or an element is null
     */
    public GroupAssignment {
        if (partitionsByMember == null) {
            throw new IllegalArgumentException("partitionsByMember=null");
        }
        final TreeMap<String, List<TopicPartition>> sorted = new TreeMap<>();
        partitionsByMember.forEach((member, partitions) -> {
            if (member == null || partitions == null) {
                throw new IllegalArgumentException("null member id or list for memberId=" + member);
            }
            final List<TopicPartition> list = new ArrayList<>(partitions);
            // Not partitions.contains(null): immutable lists throw NullPointerException for it.
            for (final TopicPartition tp : list) {
                if (tp == null) {
                    throw new IllegalArgumentException("null partition for memberId=" + member);
                }
            }
            list.sort(PARTITION_ORDER);
            sorted.put(member, List.copyOf(list));
        });
        partitionsByMember = Collections.unmodifiableMap(sorted);
    }

    /**
     * The member ids.
     *
     * @return the members, sorted
     */
    public Set<String> members() {
        return partitionsByMember.keySet();
    }

    /**
     * One member's partitions.
     *
     * @param memberId the member id
     * @return its partitions, sorted; empty for a member that got none
     * @throws IllegalArgumentException naming the member when it was not in the input
     */
    public List<TopicPartition> partitions(final String memberId) {
        final List<TopicPartition> partitions = partitionsByMember.get(memberId);
        if (partitions == null) {
            throw new IllegalArgumentException("memberId=" + memberId + " is not in this assignment");
        }
        return partitions;
    }
}
