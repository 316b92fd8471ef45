package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kafka's round-robin assignor: the partitions of all subscribed topics, by topic then partition, dealt over the
 * members in {@link GroupInput#MEMBER_INFO_ORDER}, each partition to the next member that subscribes to its topic.
 * Kafka's throws on an empty group ("CircularIterator can only be used on non-empty lists"); this one returns an
 * empty assignment.
 */
final class RoundRobinAssignor implements Assignor {
    static final RoundRobinAssignor INSTANCE = new RoundRobinAssignor();

    private RoundRobinAssignor() {
    }

    @Override
    public String name() {
        return "roundrobin";
    }

    @Override
    public boolean cooperative() {
        return false;
    }

    @Override
    public GroupAssignment assign(final Map<String, Integer> partitionsPerTopic, final List<Member> members) {
        final GroupInput input = GroupInput.of(partitionsPerTopic, members);
        final Map<String, List<TopicPartition>> assignment = input.emptyAssignment();
        final List<Member> order = new ArrayList<>(input.members);
        order.sort(GroupInput.MEMBER_INFO_ORDER);
        int next = 0;
        for (final String topic : input.subscribedTopics()) {
            final int count = input.partitionCounts.get(topic);
            for (int p = 0; p < count; p++) {
                // A subscriber exists (the topic came from a subscription), so this loop ends within one turn.
                while (!input.subscribes(order.get(next).memberId(), topic)) {
                    next = (next + 1) % order.size();
                }
                assignment.get(order.get(next).memberId()).add(new TopicPartition(topic, p));
                next = (next + 1) % order.size();
            }
        }
        return new GroupAssignment(assignment);
    }
}
