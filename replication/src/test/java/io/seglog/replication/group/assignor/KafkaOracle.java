package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;

/**
 * Runs kafka-clients 4.4's own assignors on our input, as a consumer group leader would: topics restricted to the
 * subscribed ones with partitions (what {@code AbstractPartitionAssignor.assign(Cluster, ...)} asks the metadata for),
 * a fresh assignor per call (they keep state), eager sticky claims in the assignor's own userData (through
 * {@code onAssignment} and {@code subscriptionUserData}), cooperative ones as owned partitions plus generation.
 * Names can be relabelled (random names that keep their sort order but not their hashes) and the subscriptions
 * inserted in any order, which is how order dependence in Kafka's answers is found.
 */
final class KafkaOracle {
    private KafkaOracle() {
    }

    /** Kafka's answer, or the exception it threw. */
    record Answer(GroupAssignment assignment, RuntimeException failure) {
    }

    static AbstractPartitionAssignor kafkaAssignor(final String name) {
        return switch (name) {
            case "range" -> new RangeAssignor();
            case "roundrobin" -> new RoundRobinAssignor();
            case "sticky" -> new StickyAssignor();
            case "cooperative-sticky" -> new CooperativeStickyAssignor();
            default -> throw new IllegalArgumentException("assignor=" + name);
        };
    }

    /** Kafka's answer with names as given and subscriptions in the given order. */
    static Answer run(final String assignor, final Map<String, Integer> partitionsPerTopic, final List<Member> members) {
        return run(assignor, partitionsPerTopic, members, null);
    }

    /**
     * Kafka's answer with the subscriptions inserted in the list's order and, when {@code relabel} is given, every
     * member id, instance id and topic name replaced by a random name that sorts the same way among its kind (so that
     * only hash orders change); the answer is mapped back to the original names.
     */
    static Answer run(final String assignor, final Map<String, Integer> partitionsPerTopic, final List<Member> order,
                      final Random relabel) {
        final List<Member> members = order;
        final Map<String, String> names = new HashMap<>();
        if (relabel != null) {
            final TreeSet<String> memberIds = new TreeSet<>();
            final TreeSet<String> instanceIds = new TreeSet<>();
            final TreeSet<String> topicNames = new TreeSet<>(partitionsPerTopic.keySet());
            for (final Member m : members) {
                memberIds.add(m.memberId());
                m.groupInstanceId().ifPresent(instanceIds::add);
                topicNames.addAll(m.topics());
                m.ownedPartitions().forEach(tp -> topicNames.add(tp.topic()));
            }
            relabelInOrder("m:", memberIds, relabel, names);
            relabelInOrder("i:", instanceIds, relabel, names);
            relabelInOrder("t:", topicNames, relabel, names);
        }
        final Map<String, String> topicBack = new HashMap<>();
        final UnaryOperator<String> in = s -> names.getOrDefault("m:" + s, s);
        final UnaryOperator<String> inInstance = s -> names.getOrDefault("i:" + s, s);
        final UnaryOperator<String> inTopic = s -> {
            final String renamed = names.getOrDefault("t:" + s, s);
            topicBack.put(renamed, s);
            return renamed;
        };
        final Map<String, Integer> topics = new TreeMap<>();
        final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        for (final Member member : order) {
            for (final String topic : member.topics()) {
                final Integer count = partitionsPerTopic.get(topic);
                if (count != null && count > 0) {
                    topics.put(inTopic.apply(topic), count);
                }
            }
            subscriptions.put(in.apply(member.memberId()), subscription(assignor, member, in, inInstance, inTopic));
        }
        try {
            final Map<String, List<org.apache.kafka.common.TopicPartition>> raw =
                kafkaAssignor(assignor).assign(topics, subscriptions);
            final Map<String, List<TopicPartition>> back = new TreeMap<>();
            for (final Member member : members) {
                final List<TopicPartition> list = new ArrayList<>();
                for (final org.apache.kafka.common.TopicPartition tp
                    : raw.getOrDefault(in.apply(member.memberId()), List.of())) {
                    list.add(new TopicPartition(topicBack.get(tp.topic()), tp.partition()));
                }
                if (new HashSet<>(list).size() != list.size()) {
                    return new Answer(null, new IllegalStateException("Kafka assigned a partition twice to one member"));
                }
                back.put(member.memberId(), list);
            }
            if (raw.size() != back.size()) {
                return new Answer(null, new IllegalStateException("Kafka answered for unknown members " + raw.keySet()));
            }
            return new Answer(new GroupAssignment(back), null);
        } catch (final RuntimeException e) {
            return new Answer(null, e);
        }
    }

    /** Maps each name to a random one of 8 to 12 letters, the new names sorting as the old ones do. */
    private static void relabelInOrder(final String kind, final TreeSet<String> sorted, final Random random,
                                       final Map<String, String> names) {
        final TreeSet<String> fresh = new TreeSet<>();
        while (fresh.size() < sorted.size()) {
            final StringBuilder name = new StringBuilder();
            final int length = 8 + random.nextInt(5);
            for (int i = 0; i < length; i++) {
                name.append((char) ('a' + random.nextInt(26)));
            }
            fresh.add(name.toString());
        }
        final Iterator<String> next = fresh.iterator();
        for (final String old : sorted) {
            names.put(kind + old, next.next());
        }
    }

    private static Subscription subscription(final String assignor, final Member member, final UnaryOperator<String> in,
                                             final UnaryOperator<String> inInstance,
                                             final UnaryOperator<String> inTopic) {
        final List<String> topics = new ArrayList<>();
        member.topics().forEach(t -> topics.add(inTopic.apply(t)));
        final List<org.apache.kafka.common.TopicPartition> owned = new ArrayList<>();
        member.ownedPartitions().forEach(tp -> owned.add(new org.apache.kafka.common.TopicPartition(
            inTopic.apply(tp.topic()), tp.partition())));
        final Subscription subscription;
        switch (assignor) {
            case "sticky" -> {
                // Eager: the consumer revoked everything before joining; its claim travels in the sticky userData.
                ByteBuffer userData = null;
                if (member.generation() != Member.NO_GENERATION || !owned.isEmpty()) {
                    final StickyAssignor encoder = new StickyAssignor();
                    encoder.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("g", member.generation(),
                        in.apply(member.memberId()), Optional.empty()));
                    userData = encoder.subscriptionUserData(new HashSet<>(topics));
                }
                subscription = new Subscription(topics, userData, List.of(), member.generation(), Optional.empty());
            }
            case "cooperative-sticky" ->
                subscription = new Subscription(topics, null, owned, member.generation(), Optional.empty());
            default -> subscription = new Subscription(topics);
        }
        subscription.setGroupInstanceId(member.groupInstanceId().map(inInstance));
        return subscription;
    }
}
