package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sticky assignment when all members subscribe to the same topics (Kafka's {@code ConstrainedAssignmentBuilder}):
 * with {@code P} partitions and {@code C} members, {@code P % C} members get {@code ceil(P/C)} and the rest
 * {@code floor(P/C)}. Each member first keeps what it validly owns, up to its quota (partitions ordered by number,
 * then topic); the remainder is dealt round-robin to the members still under quota, those under the minimum first.
 * Members are taken in id order where Kafka takes them in hash order (which decides, when more members own the
 * maximum than may keep it, who keeps it).
 */
final class ConstrainedStickyBuilder {
    private static final Comparator<TopicPartition> NUMBER_THEN_TOPIC =
        Comparator.comparingInt(TopicPartition::partition).thenComparing(TopicPartition::topic);

    private final GroupInput input;
    private final Ownership ownership;
    private final int minQuota;
    private final int maxQuota;
    private final int expectedOverMin;
    private int currentOverMin;
    private final Map<String, List<TopicPartition>> assignment;
    private final Map<TopicPartition, String> maybeRevoked = new HashMap<>();
    private final Set<TopicPartition> transferring = new HashSet<>();
    private final LinkedList<String> underMin = new LinkedList<>();
    private final LinkedList<String> exactlyMin = new LinkedList<>();

    ConstrainedStickyBuilder(final GroupInput input, final Ownership ownership) {
        this.input = input;
        this.ownership = ownership;
        int total = 0;
        for (final int count : input.partitionCounts.values()) {
            total += count;
        }
        final int members = input.members.size();
        minQuota = total / members;
        maxQuota = (total + members - 1) / members;
        expectedOverMin = total % members;
        assignment = input.emptyAssignment();
    }

    /** Builds the assignment, before any cooperative withholding. */
    Map<String, List<TopicPartition>> build() {
        final Set<TopicPartition> kept = new HashSet<>();
        keepOwnedPartitions(kept);
        final List<TopicPartition> unassigned = new ArrayList<>();
        input.partitionCounts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                final TopicPartition tp = new TopicPartition(topic, p);
                if (!kept.contains(tp)) {
                    unassigned.add(tp);
                }
            }
        });
        underMin.sort(null);
        exactlyMin.sort(null);
        dealRoundRobin(unassigned);
        return assignment;
    }

    /** The partitions handed to a member other than the one that must revoke them first (cooperative). */
    Set<TopicPartition> transferring() {
        return transferring;
    }

    private void keepOwnedPartitions(final Set<TopicPartition> kept) {
        for (final Member member : input.members) {
            final String id = member.memberId();
            final List<TopicPartition> owned = new ArrayList<>();
            for (final TopicPartition tp : input.owned.get(id)) {
                if (ownership.owns(id, tp)) {
                    owned.add(tp);
                }
            }
            owned.sort(NUMBER_THEN_TOPIC);
            final int keep;
            if (owned.size() < minQuota) {
                keep = owned.size();
                underMin.add(id);
            } else if (owned.size() >= maxQuota && currentOverMin < expectedOverMin) {
                keep = maxQuota;
                currentOverMin++;
                if (currentOverMin == expectedOverMin) {
                    exactlyMin.clear();
                }
            } else {
                keep = minQuota;
                if (currentOverMin < expectedOverMin) {
                    exactlyMin.add(id);
                }
            }
            assignment.get(id).addAll(owned.subList(0, keep));
            kept.addAll(owned.subList(0, keep));
            for (final TopicPartition tp : owned.subList(keep, owned.size())) {
                maybeRevoked.put(tp, id);
            }
        }
    }

    private void dealRoundRobin(final List<TopicPartition> unassigned) {
        Iterator<String> next = underMin.iterator();
        for (final TopicPartition tp : unassigned) {
            final String member;
            if (next.hasNext()) {
                member = next.next();
            } else if (underMin.isEmpty() && exactlyMin.isEmpty()) {
                throw new IllegalStateException("no member left under quota for partition=" + tp + " (minQuota="
                    + minQuota + " maxQuota=" + maxQuota + "): an assignor bug");
            } else if (underMin.isEmpty()) {
                member = exactlyMin.poll();
            } else {
                next = underMin.iterator();
                member = next.next();
            }
            final List<TopicPartition> partitions = assignment.get(member);
            partitions.add(tp);
            final String revokedFrom = maybeRevoked.get(tp);
            if (revokedFrom != null && !revokedFrom.equals(member) || ownership.multiplyClaimed.contains(tp)) {
                transferring.add(tp);
            }
            if (partitions.size() == minQuota) {
                next.remove();
                exactlyMin.add(member);
            } else if (partitions.size() == maxQuota) {
                currentOverMin++;
            }
        }
    }
}
