package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The sticky assignment when subscriptions differ (Kafka's {@code GeneralAssignmentBuilder}): each member keeps what
 * it validly owns of its subscribed topics; each unassigned partition (topics with the fewest subscribers first) goes
 * to the least-loaded subscriber; then partitions move from a member to one that has at least two fewer and could
 * take them, preferring the partition's previous (stale-generation) owner, until no member with two more holds a
 * partition the lighter one could take. {@link PartitionMovements} keeps moves from going back and forth between a
 * pair of members. A balancing that does not lower the sum of pairwise load differences is undone.
 *
 * <p>Differences from Kafka: a stale-generation member is a move target only for topics it still subscribes to
 * (Kafka would hand back partitions of a topic it left), and ties Kafka breaks by hash order are broken by name.
 */
final class GeneralStickyBuilder {
    private final GroupInput input;
    private final Ownership ownership;
    /** Topic to its subscribers, by member id. */
    private final Map<String, List<String>> topicSubscribers = new HashMap<>();
    private final Map<String, List<TopicPartition>> current;
    private final Map<TopicPartition, String> currentOwner = new HashMap<>();
    private final List<TopicPartition> sortedAllPartitions = new ArrayList<>();
    /** Members by load then id; a member is taken out before its load changes and put back after. */
    private final TreeSet<String> byLoad;
    private final Map<TopicPartition, PreviousOwner> previousOwners = new HashMap<>();
    private final PartitionMovements movements = new PartitionMovements();
    private boolean revocationRequired;

    /** A stale-generation member's claim: who, and in which generation. */
    private record PreviousOwner(String memberId, int generation) {
    }

    GeneralStickyBuilder(final GroupInput input, final Ownership ownership) {
        this.input = input;
        this.ownership = ownership;
        for (final String topic : input.partitionCounts.keySet()) {
            topicSubscribers.put(topic, new ArrayList<>());
        }
        for (final Member member : input.members) {
            for (final String topic : input.subscribed.get(member.memberId())) {
                topicSubscribers.get(topic).add(member.memberId());
            }
        }
        current = new TreeMap<>();
        final List<String> topics = new ArrayList<>(input.partitionCounts.keySet());
        topics.sort(Comparator.<String>comparingInt(t -> topicSubscribers.get(t).size()).thenComparing(t -> t));
        for (final String topic : topics) {
            for (int p = 0; p < input.partitionCounts.get(topic); p++) {
                sortedAllPartitions.add(new TopicPartition(topic, p));
            }
        }
        byLoad = new TreeSet<>(Comparator.<String>comparingInt(m -> current.get(m).size()).thenComparing(m -> m));
    }

    /** Builds the assignment, before any cooperative withholding. */
    Map<String, List<TopicPartition>> build() {
        recordPreviousOwners();
        final Set<TopicPartition> assigned = keepOwnedPartitions();
        final List<TopicPartition> unassigned = new ArrayList<>();
        for (final TopicPartition tp : sortedAllPartitions) {
            if (!assigned.contains(tp)) {
                unassigned.add(tp);
            }
        }
        byLoad.addAll(current.keySet());
        balance(unassigned);
        return current;
    }

    /**
     * Claims of members behind the highest generation, the highest generation winning, for moving a partition back
     * to where it was when its current holder is overloaded. Only for topics the member still subscribes to.
     */
    private void recordPreviousOwners() {
        for (final Member member : input.members) {
            if (member.generation() >= ownership.maxGeneration) {
                continue;
            }
            for (final TopicPartition tp : input.owned.get(member.memberId())) {
                if (!input.subscribes(member.memberId(), tp.topic())) {
                    continue;
                }
                final PreviousOwner previous = previousOwners.get(tp);
                if (previous == null || member.generation() > previous.generation()) {
                    previousOwners.put(tp, new PreviousOwner(member.memberId(), member.generation()));
                }
            }
        }
    }

    private Set<TopicPartition> keepOwnedPartitions() {
        final Set<TopicPartition> assigned = new HashSet<>();
        for (final Member member : input.members) {
            final String id = member.memberId();
            final List<TopicPartition> partitions = new ArrayList<>();
            for (final TopicPartition tp : input.owned.get(id)) {
                if (!ownership.owns(id, tp)) {
                    continue;
                }
                if (input.subscribes(id, tp.topic())) {
                    partitions.add(tp);
                    currentOwner.put(tp, id);
                    assigned.add(tp);
                } else {
                    revocationRequired = true;
                }
            }
            current.put(id, partitions);
        }
        return assigned;
    }

    private void balance(final List<TopicPartition> unassigned) {
        final boolean initializing = current.get(byLoad.last()).isEmpty();
        for (final TopicPartition tp : unassigned) {
            for (final String member : byLoad) {
                if (input.subscribes(member, tp.topic())) {
                    moveTo(tp, member);
                    break;
                }
            }
        }
        // Topics with one subscriber or none cannot move; neither can a member that holds all it could and nothing
        // of a topic that has another subscriber.
        final Set<String> fixedTopics = new HashSet<>();
        topicSubscribers.forEach((topic, subscribers) -> {
            if (subscribers.size() < 2) {
                fixedTopics.add(topic);
            }
        });
        sortedAllPartitions.removeIf(tp -> fixedTopics.contains(tp.topic()));
        unassigned.removeIf(tp -> fixedTopics.contains(tp.topic()));
        final Map<String, List<TopicPartition>> fixedMembers = new TreeMap<>();
        for (final Member member : input.members) {
            final String id = member.memberId();
            if (!canParticipate(id)) {
                byLoad.remove(id);
                fixedMembers.put(id, current.remove(id));
            }
        }
        final Map<String, List<TopicPartition>> before = deepCopy(current);
        final Map<TopicPartition, String> ownersBefore = new HashMap<>(currentOwner);
        if (!revocationRequired) {
            performReassignments(unassigned);
        }
        final boolean reassigned = performReassignments(sortedAllPartitions);
        if (!initializing && reassigned && balanceScore(current) >= balanceScore(before)) {
            current.clear();
            current.putAll(before);
            currentOwner.clear();
            currentOwner.putAll(ownersBefore);
        }
        current.putAll(fixedMembers);
    }

    /** Gives an unassigned partition to a member, keeping {@link #byLoad} ordered. */
    private void moveTo(final TopicPartition tp, final String member) {
        byLoad.remove(member);
        current.get(member).add(tp);
        currentOwner.put(tp, member);
        byLoad.add(member);
    }

    private int maxAssignmentSize(final String member) {
        int size = 0;
        for (final String topic : input.subscribed.get(member)) {
            size += input.partitionCounts.get(topic);
        }
        return size;
    }

    private boolean canParticipate(final String member) {
        final List<TopicPartition> partitions = current.get(member);
        if (partitions.size() < maxAssignmentSize(member)) {
            return true;
        }
        for (final TopicPartition tp : partitions) {
            if (topicSubscribers.get(tp.topic()).size() >= 2) {
                return true;
            }
        }
        return false;
    }

    private boolean performReassignments(final List<TopicPartition> reassignable) {
        boolean reassigned = false;
        boolean modified;
        do {
            modified = false;
            for (final TopicPartition tp : reassignable) {
                if (isBalanced()) {
                    break;
                }
                final String holder = currentOwner.get(tp);
                final int load = current.get(holder).size();
                final PreviousOwner previous = previousOwners.get(tp);
                if (previous != null && load > current.get(previous.memberId()).size() + 1) {
                    reassign(tp, previous.memberId());
                    reassigned = true;
                    modified = true;
                    continue;
                }
                for (final String other : topicSubscribers.get(tp.topic())) {
                    if (load > current.get(other).size() + 1) {
                        reassign(tp, leastLoadedSubscriber(tp.topic()));
                        reassigned = true;
                        modified = true;
                        break;
                    }
                }
            }
        } while (modified);
        return reassigned;
    }

    private String leastLoadedSubscriber(final String topic) {
        for (final String member : byLoad) {
            if (input.subscribes(member, topic)) {
                return member;
            }
        }
        throw new IllegalStateException("no subscriber for topic=" + topic + " among the movable members: an assignor bug");
    }

    /**
     * Whether no member could take a partition from one holding at least two more: either all loads are within
     * one, or every member below that either holds all it could or could take nothing from a heavier member.
     */
    private boolean isBalanced() {
        final int min = current.get(byLoad.first()).size();
        final int max = current.get(byLoad.last()).size();
        if (min >= max - 1) {
            return true;
        }
        for (final String member : byLoad) {
            final List<TopicPartition> partitions = current.get(member);
            final int load = partitions.size();
            if (load == maxAssignmentSize(member)) {
                continue;
            }
            final Set<TopicPartition> own = new HashSet<>(partitions);
            for (final String topic : input.subscribed.get(member)) {
                for (int p = 0; p < input.partitionCounts.get(topic); p++) {
                    final TopicPartition tp = new TopicPartition(topic, p);
                    final String other = own.contains(tp) ? null : currentOwner.get(tp);
                    if (other != null && current.containsKey(other) && load + 1 < current.get(other).size()) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private void reassign(final TopicPartition tp, final String newOwner) {
        final TopicPartition moved = movements.partitionToMove(tp, currentOwner.get(tp), newOwner);
        final String oldOwner = currentOwner.get(moved);
        byLoad.remove(oldOwner);
        byLoad.remove(newOwner);
        movements.record(moved, oldOwner, newOwner);
        current.get(oldOwner).remove(moved);
        current.get(newOwner).add(moved);
        currentOwner.put(moved, newOwner);
        byLoad.add(newOwner);
        byLoad.add(oldOwner);
    }

    private static int balanceScore(final Map<String, List<TopicPartition>> assignment) {
        final List<Integer> sizes = new ArrayList<>();
        assignment.values().forEach(list -> sizes.add(list.size()));
        int score = 0;
        for (int i = 0; i < sizes.size(); i++) {
            for (int j = i + 1; j < sizes.size(); j++) {
                score += Math.abs(sizes.get(i) - sizes.get(j));
            }
        }
        return score;
    }

    private static Map<String, List<TopicPartition>> deepCopy(final Map<String, List<TopicPartition>> assignment) {
        final Map<String, List<TopicPartition>> copy = new TreeMap<>();
        assignment.forEach((member, partitions) -> copy.put(member, new ArrayList<>(partitions)));
        return copy;
    }
}
