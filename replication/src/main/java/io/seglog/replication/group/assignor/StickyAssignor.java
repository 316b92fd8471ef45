package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;

/**
 * Kafka's sticky assignors ({@code StickyAssignor}, {@code CooperativeStickyAssignor} and their
 * {@code AbstractStickyAssignor}), eager or cooperative. When every member names the same topics the
 * {@link ConstrainedStickyBuilder} runs (balanced within one, maximally sticky); otherwise the
 * {@link GeneralStickyBuilder} (balancing moves that keep stickiness). The cooperative variant then withholds each
 * partition that would go straight from one owner to another: its owner revokes it and the follow-up rebalance hands
 * it out.
 *
 * <p>Kafka's versions walk {@code HashMap}s where the order decides the answer (about one output in twenty differs
 * when only the member or topic names' hashes change); these walk members and partitions in sorted order, so the
 * result depends only on the input's content.
 */
final class StickyAssignor implements Assignor {
    static final StickyAssignor EAGER = new StickyAssignor(false);
    static final StickyAssignor COOPERATIVE = new StickyAssignor(true);

    private final boolean cooperative;

    private StickyAssignor(final boolean cooperative) {
        this.cooperative = cooperative;
    }

    @Override
    public String name() {
        return cooperative ? "cooperative-sticky" : "sticky";
    }

    @Override
    public boolean cooperative() {
        return cooperative;
    }

    @Override
    public GroupAssignment assign(final Map<String, Integer> partitionsPerTopic, final List<Member> members) {
        final GroupInput input = GroupInput.of(partitionsPerTopic, members);
        if (input.members.isEmpty()) {
            return new GroupAssignment(Map.of());
        }
        final Ownership ownership = new Ownership(input);
        final Map<String, List<TopicPartition>> assignment;
        final Set<TopicPartition> withheld;
        if (allSubscriptionsEqual(input)) {
            final ConstrainedStickyBuilder builder = new ConstrainedStickyBuilder(input, ownership);
            assignment = builder.build();
            withheld = builder.transferring();
        } else {
            assignment = new GeneralStickyBuilder(input, ownership).build();
            withheld = cooperative ? transferring(assignment, ownership) : Set.of();
        }
        if (cooperative) {
            for (final List<TopicPartition> partitions : assignment.values()) {
                partitions.removeAll(withheld);
            }
        }
        return new GroupAssignment(assignment);
    }

    /**
     * Whether every member names the same topics. Kafka compares the raw subscriptions too (unknown topics
     * included), but restarts its comparison at each empty one, so that a member with an empty subscription first in
     * map order joins the others' "equal" group and is handed their partitions; here an empty subscription is just
     * different.
     */
    private static boolean allSubscriptionsEqual(final GroupInput input) {
        SortedSet<String> first = null;
        for (final Member member : input.members) {
            final SortedSet<String> topics = input.rawTopics.get(member.memberId());
            if (first == null) {
                first = topics;
            } else if (!first.equals(topics)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The general builder's partitions that would move straight from one owner to another: given to a member that is
     * not their valid owner while another member validly owns them, or, when their claim is void, given to a member
     * that did not claim them. Kafka compares with each member's raw claims instead, so that a stale-generation member
     * that once owned a partition gets it back while its current owner still holds it.
     */
    private static Set<TopicPartition> transferring(final Map<String, List<TopicPartition>> assignment,
                                                    final Ownership ownership) {
        final Set<TopicPartition> transferring = new HashSet<>();
        for (final Map.Entry<String, List<TopicPartition>> entry : assignment.entrySet()) {
            for (final TopicPartition tp : entry.getValue()) {
                final String owner = ownership.owner.get(tp);
                if (owner != null ? !owner.equals(entry.getKey())
                    : ownership.multiplyClaimed.contains(tp) && !ownership.claimants.get(tp).contains(entry.getKey())) {
                    transferring.add(tp);
                }
            }
        }
        return transferring;
    }

    /** A fresh mutable copy of a partition list. */
    static List<TopicPartition> copyOf(final List<TopicPartition> partitions) {
        return new ArrayList<>(partitions);
    }
}
