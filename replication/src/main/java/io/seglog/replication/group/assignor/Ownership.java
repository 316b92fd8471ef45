package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who owns what before a sticky rebalance, from the members' claims. A partition claimed by several members goes to
 * the one with the highest generation; if two or more share that generation the claim is void for all of them (Kafka's
 * {@code partitionsWithMultiplePreviousOwners}, KAFKA-12984). Kafka resolves claims pairwise in map order, so that
 * its answer for three claimants can depend on the order; this rule does not.
 */
final class Ownership {
    /** Each validly owned partition's owner. */
    final Map<TopicPartition, String> owner = new HashMap<>();
    /** Partitions whose highest-generation claim is shared by two or more members: owned by nobody. */
    final Set<TopicPartition> multiplyClaimed = new HashSet<>();
    /** Each claimed partition's claimants, any generation. */
    final Map<TopicPartition, Set<String>> claimants = new HashMap<>();
    /** The highest generation any member reports, or {@link Member#NO_GENERATION}. */
    final int maxGeneration;

    Ownership(final GroupInput input) {
        final Map<TopicPartition, Integer> topGeneration = new HashMap<>();
        int max = Member.NO_GENERATION;
        for (final Member member : input.members) {
            max = Math.max(max, member.generation());
            for (final TopicPartition tp : input.owned.get(member.memberId())) {
                claimants.computeIfAbsent(tp, k -> new TreeSet<>()).add(member.memberId());
                final Integer top = topGeneration.get(tp);
                if (top == null || member.generation() > top) {
                    topGeneration.put(tp, member.generation());
                    owner.put(tp, member.memberId());
                    multiplyClaimed.remove(tp);
                } else if (member.generation() == top) {
                    owner.remove(tp);
                    multiplyClaimed.add(tp);
                }
            }
        }
        maxGeneration = max;
    }

    /** Whether a member's valid ownership includes the partition. */
    boolean owns(final String memberId, final TopicPartition tp) {
        return memberId.equals(owner.get(tp));
    }
}
