package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kafka's range assignor: per topic, the subscribers in {@link GroupInput#MEMBER_INFO_ORDER} take contiguous ranges
 * of {@code P / C} partitions, the first {@code P % C} one more. Topics with the same subscribers and partition count
 * are thereby co-partitioned.
 */
final class RangeAssignor implements Assignor {
    static final RangeAssignor INSTANCE = new RangeAssignor();

    private RangeAssignor() {
    }

    @Override
    public String name() {
        return "range";
    }

    @Override
    public boolean cooperative() {
        return false;
    }

    @Override
    public GroupAssignment assign(final Map<String, Integer> partitionsPerTopic, final List<Member> members) {
        final GroupInput input = GroupInput.of(partitionsPerTopic, members);
        final Map<String, List<TopicPartition>> assignment = input.emptyAssignment();
        for (final Map.Entry<String, Integer> topic : input.partitionCounts.entrySet()) {
            final List<Member> subscribers = new ArrayList<>();
            for (final Member member : input.members) {
                if (input.subscribes(member.memberId(), topic.getKey())) {
                    subscribers.add(member);
                }
            }
            if (subscribers.isEmpty()) {
                continue;
            }
            subscribers.sort(GroupInput.MEMBER_INFO_ORDER);
            final int count = topic.getValue();
            final int each = count / subscribers.size();
            final int withExtra = count % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                final int take = each + (i < withExtra ? 1 : 0);
                final List<TopicPartition> list = assignment.get(subscribers.get(i).memberId());
                for (int p = next; p < next + take; p++) {
                    list.add(new TopicPartition(topic.getKey(), p));
                }
                next += take;
            }
        }
        return new GroupAssignment(assignment);
    }
}
