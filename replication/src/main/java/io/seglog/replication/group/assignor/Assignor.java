package io.seglog.replication.group.assignor;

import java.util.List;
import java.util.Map;

/**
 * A partition assignor of Kafka's classic group protocol: the group leader's function from the members'
 * subscriptions (and, for the sticky assignors, what each member owned) to a partition list per member.
 *
 * <p>Every implementation is a pure, stateless function: the same input, in any member or topic order, gives the same
 * {@link GroupAssignment}; an empty group gives an empty assignment; a partition goes only to a member that subscribes
 * to its topic. Topics missing from {@code partitionsPerTopic} or with zero partitions are ignored (Kafka's leader
 * skips topics without metadata), as are owned partitions that no longer exist. None is rack aware: members' racks
 * are not part of the input (Kafka's rack-aware modes only apply when both members and replicas have racks).
 * Implementations are thread-safe.
 */
public interface Assignor {
    /**
     * Kafka's protocol name for the assignor, as a consumer sends it in JoinGroup.
     *
     * @return {@code "range"}, {@code "roundrobin"}, {@code "sticky"} or {@code "cooperative-sticky"}
     */
    String name();

    /**
     * Whether the assignor follows the cooperative protocol (KIP-429): a partition that changes owner is withheld
     * for one rebalance, so that its previous owner revokes it first.
     *
     * @return true for cooperative-sticky only
     */
    boolean cooperative();

    /**
     * Computes the assignment of one rebalance.
     *
     * @param partitionsPerTopic the partition count of each topic known to the leader
     * @param members            the group's members, each with a unique member id
     * @return every member's partitions, including members that get none
     * @throws IllegalArgumentException when an argument is null, a member id repeats (the message names it) or a
     *                                  partition count is negative (the message names the topic)
     */
    GroupAssignment assign(Map<String, Integer> partitionsPerTopic, List<Member> members);

    /**
     * Kafka's {@code RangeAssignor}: per topic, the subscribers in member order each take a contiguous range, the
     * first {@code P % C} one partition more.
     *
     * @return the range assignor
     */
    static Assignor range() {
        return RangeAssignor.INSTANCE;
    }

    /**
     * Kafka's {@code RoundRobinAssignor}: all partitions, sorted, dealt over the sorted members, skipping members
     * that do not subscribe to the partition's topic.
     *
     * @return the round-robin assignor
     */
    static Assignor roundRobin() {
        return RoundRobinAssignor.INSTANCE;
    }

    /**
     * Kafka's eager {@code StickyAssignor}: balanced, and keeping as many previously owned partitions as balance
     * allows.
     *
     * @return the sticky assignor
     */
    static Assignor sticky() {
        return StickyAssignor.EAGER;
    }

    /**
     * Kafka's {@code CooperativeStickyAssignor}: the sticky assignment, minus the partitions that would move straight
     * from one owner to another in this rebalance.
     *
     * @return the cooperative-sticky assignor
     */
    static Assignor cooperativeSticky() {
        return StickyAssignor.COOPERATIVE;
    }

    /**
     * The assignor with Kafka's protocol name.
     *
     * @param name one of the four names
     * @return the assignor
     * @throws IllegalArgumentException naming the value when it is none of them
     */
    static Assignor named(final String name) {
        for (final Assignor assignor : List.of(range(), roundRobin(), sticky(), cooperativeSticky())) {
            if (assignor.name().equals(name)) {
                return assignor;
            }
        }
        throw new IllegalArgumentException("assignor name=" + name
            + " is not one of range, roundrobin, sticky, cooperative-sticky");
    }
}
