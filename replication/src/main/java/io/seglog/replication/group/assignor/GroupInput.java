package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An assignor's input checked and put in a canonical order, so that no result depends on the order of the caller's
 * list or map: members sorted by id, topics by name. Only topics some member subscribes to and with at least one
 * partition count as known; a
 * subscription's unknown topics and owned partitions that do not exist are kept out of {@link #subscribed} and
 * {@link #owned}.
 */
final class GroupInput {
    /** Kafka's {@code MemberInfo} order: static members first by instance id, then dynamic members by member id. */
    static final Comparator<Member> MEMBER_INFO_ORDER = (a, b) -> {
        if (a.groupInstanceId().isPresent() && b.groupInstanceId().isPresent()) {
            final int byInstance = a.groupInstanceId().get().compareTo(b.groupInstanceId().get());
            // Kafka leaves two members with one instance id in map order; the member id makes it total.
            return byInstance != 0 ? byInstance : a.memberId().compareTo(b.memberId());
        }
        if (a.groupInstanceId().isPresent() != b.groupInstanceId().isPresent()) {
            return a.groupInstanceId().isPresent() ? -1 : 1;
        }
        return a.memberId().compareTo(b.memberId());
    };

    /** The members by member id. */
    final List<Member> members;
    /** Known topics (subscribed by some member, one partition or more) to their partition counts, by name. */
    final SortedMap<String, Integer> partitionCounts;
    /** Member id to the known topics it subscribes to. */
    final Map<String, SortedSet<String>> subscribed;
    /** Member id to every topic named in its subscription, known or not (what Kafka compares). */
    final Map<String, SortedSet<String>> rawTopics;
    /** Member id to its owned partitions that exist, without repeats, in partition order. */
    final Map<String, List<TopicPartition>> owned;

    private GroupInput(final Map<String, Integer> partitionsPerTopic, final List<Member> input) {
        if (partitionsPerTopic == null) {
            throw new IllegalArgumentException("partitionsPerTopic=null");
        }
        if (input == null) {
            throw new IllegalArgumentException("members=null");
        }
        final TreeMap<String, Integer> counts = new TreeMap<>();
        partitionsPerTopic.forEach((topic, count) -> {
            if (topic == null || count == null) {
                throw new IllegalArgumentException("partitionsPerTopic has topic=" + topic + " count=" + count);
            }
            if (count < 0) {
                throw new IllegalArgumentException("partitionsPerTopic topic=" + topic + " count=" + count
                    + " (must be 0 or more)");
            }
            if (count > 0) {
                counts.put(topic, count);
            }
        });
        final List<Member> sorted = new ArrayList<>(input.size());
        for (final Member member : input) {
            if (member == null) {
                throw new IllegalArgumentException("members contains null");
            }
            sorted.add(member);
        }
        sorted.sort(Comparator.comparing(Member::memberId));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).memberId().equals(sorted.get(i - 1).memberId())) {
                throw new IllegalArgumentException("duplicate memberId=" + sorted.get(i).memberId()
                    + " (member ids are unique in a group)");
            }
        }
        members = Collections.unmodifiableList(sorted);
        // Like Kafka's leader, which asks the metadata only for subscribed topics and skips those without partitions.
        partitionCounts = new TreeMap<>();
        for (final Member member : sorted) {
            for (final String topic : member.topics()) {
                final Integer count = counts.get(topic);
                if (count != null) {
                    partitionCounts.put(topic, count);
                }
            }
        }
        subscribed = new HashMap<>();
        rawTopics = new HashMap<>();
        owned = new HashMap<>();
        for (final Member member : sorted) {
            final SortedSet<String> raw = new TreeSet<>(member.topics());
            final SortedSet<String> known = new TreeSet<>(raw);
            known.retainAll(partitionCounts.keySet());
            rawTopics.put(member.memberId(), raw);
            subscribed.put(member.memberId(), known);
            final TreeSet<TopicPartition> existing = new TreeSet<>(GroupAssignment.PARTITION_ORDER);
            for (final TopicPartition tp : member.ownedPartitions()) {
                if (exists(tp)) {
                    existing.add(tp);
                }
            }
            owned.put(member.memberId(), List.copyOf(existing));
        }
    }

    /**
     * Checks and orders an assignor's arguments.
     *
     * @param partitionsPerTopic topic partition counts
     * @param members            the members
     * @return the canonical input
     * @throws IllegalArgumentException as {@link Assignor#assign} documents
     */
    static GroupInput of(final Map<String, Integer> partitionsPerTopic, final List<Member> members) {
        return new GroupInput(partitionsPerTopic, members);
    }

    /** Whether the partition exists now (its topic known, its number below the count). */
    boolean exists(final TopicPartition tp) {
        final Integer count = partitionCounts.get(tp.topic());
        return count != null && tp.partition() < count;
    }

    /** Whether the member subscribes to the (known) topic. */
    boolean subscribes(final String memberId, final String topic) {
        return subscribed.get(memberId).contains(topic);
    }

    /** The known topics some member subscribes to, by name. */
    SortedSet<String> subscribedTopics() {
        final SortedSet<String> topics = new TreeSet<>();
        subscribed.values().forEach(topics::addAll);
        return topics;
    }

    /** An empty list per member, in member id order, for the assignors to fill. */
    Map<String, List<TopicPartition>> emptyAssignment() {
        final Map<String, List<TopicPartition>> assignment = new TreeMap<>();
        for (final Member member : members) {
            assignment.put(member.memberId(), new ArrayList<>());
        }
        return assignment;
    }

    /** The members' ids. */
    Set<String> memberIds() {
        return subscribed.keySet();
    }
}
