package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Optional;

/**
 * One group member as the leader's assignor sees it: the JoinGroup member id and static instance id, the topics of
 * its subscription, and (for the sticky assignors) the partitions it reported owning and the generation in which it
 * owned them.
 *
 * @param memberId        the member id, unique in the group
 * @param groupInstanceId the static member's {@code group.instance.id}, or empty for a dynamic member
 * @param topics          the subscribed topics (order and repeats do not matter)
 * @param ownedPartitions the partitions the member owns (cooperative) or was last assigned (eager sticky)
 * @param generation      the generation of {@code ownedPartitions}, or {@link #NO_GENERATION}
 */
public record Member(String memberId, Optional<String> groupInstanceId, List<String> topics,
                     List<TopicPartition> ownedPartitions, int generation) {
    /** The generation of a member that reports none (Kafka's {@code DEFAULT_GENERATION}). */
    public static final int NO_GENERATION = -1;

    /**
     * Validates and copies.
     *
     * @param memberId        the member id
     * @param groupInstanceId the static instance id or empty
     * @param topics          the subscription
     * @param ownedPartitions the owned partitions
     * @param generation      the generation of the owned partitions, or {@link #NO_GENERATION}
     * @throws IllegalArgumentException naming the member and the field when a field or element is null or the
     *                                  generation is below {@link #NO_GENERATION}
     */
    public Member {
        if (memberId == null) {
            throw new IllegalArgumentException("memberId=null");
        }
        if (groupInstanceId == null) {
            throw new IllegalArgumentException("groupInstanceId=null for memberId=" + memberId + " (use Optional.empty())");
        }
        topics = copy(topics, "topics", memberId);
        ownedPartitions = copy(ownedPartitions, "ownedPartitions", memberId);
        if (generation < NO_GENERATION) {
            throw new IllegalArgumentException("generation=" + generation + " for memberId=" + memberId
                + " (must be " + NO_GENERATION + " for none, or more)");
        }
    }

    /**
     * A dynamic member that owns nothing yet.
     *
     * @param memberId the member id
     * @param topics   the subscription
     */
    public Member(final String memberId, final List<String> topics) {
        this(memberId, Optional.empty(), topics, List.of(), NO_GENERATION);
    }

    /**
     * A dynamic member that owned partitions in a generation.
     *
     * @param memberId        the member id
     * @param topics          the subscription
     * @param ownedPartitions the owned partitions
     * @param generation      their generation
     */
    public Member(final String memberId, final List<String> topics, final List<TopicPartition> ownedPartitions,
                  final int generation) {
        this(memberId, Optional.empty(), topics, ownedPartitions, generation);
    }

    private static <T> List<T> copy(final List<T> list, final String field, final String memberId) {
        if (list == null) {
            throw new IllegalArgumentException(field + "=null for memberId=" + memberId);
        }
        for (final T element : list) {
            if (element == null) {
                throw new IllegalArgumentException(field + " of memberId=" + memberId + " contains null");
            }
        }
        return List.copyOf(list);
    }
}
