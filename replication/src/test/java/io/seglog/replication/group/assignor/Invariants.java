package io.seglog.replication.group.assignor;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The properties every assignment must have, checked on ours and on Kafka's alike (AS-01, AS-02): every member
 * present; only existing partitions, each to at most one member and only to a subscriber; every partition of a
 * subscribed topic assigned (cooperative: unless it is being revoked from its owner); range balanced within one per
 * topic; round-robin and sticky balanced within one for equal subscriptions; sticky's general rule (a member with two
 * more than another holds nothing the other could take); stickiness (a member keeps its valid partitions up to the
 * minimum quota; no two partitions of a topic trading places between two members); cooperative: no partition goes
 * straight from its valid owner to another member.
 */
final class Invariants {
    private Invariants() {
    }

    /** The violations, empty when there are none. */
    static List<String> violations(final String assignor, final Map<String, Integer> partitionsPerTopic,
                                   final List<Member> members, final GroupAssignment assignment) {
        final List<String> out = new ArrayList<>();
        final GroupInput input = GroupInput.of(partitionsPerTopic, members);
        final boolean cooperative = assignor.equals("cooperative-sticky");
        final boolean sticky = assignor.endsWith("sticky");
        if (!assignment.members().equals(input.memberIds())) {
            out.add("members " + assignment.members() + " != input " + input.memberIds());
            return out;
        }
        final Map<TopicPartition, String> holder = new HashMap<>();
        assignment.partitionsByMember().forEach((member, partitions) -> {
            for (final TopicPartition tp : partitions) {
                if (!input.exists(tp)) {
                    out.add(member + " got " + tp + ", which does not exist or nobody subscribes to");
                } else if (!input.subscribes(member, tp.topic())) {
                    out.add(member + " got " + tp + " but subscribes to " + input.subscribed.get(member));
                }
                final String other = holder.put(tp, member);
                if (other != null) {
                    out.add(tp + " assigned to both " + other + " and " + member);
                }
            }
        });
        final Ownership ownership = new Ownership(input);
        input.partitionCounts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                final TopicPartition tp = new TopicPartition(topic, p);
                if (!holder.containsKey(tp) && !(cooperative && ownership.claimants.containsKey(tp))) {
                    out.add(tp + " is assigned to nobody");
                }
            }
        });
        if (cooperative) {
            // A partition with one subscriber cannot be moving to another member, so it is withheld only from a
            // different owner.
            input.partitionCounts.forEach((topic, count) -> {
                final List<String> subscribers = new ArrayList<>();
                input.members.forEach(m -> {
                    if (input.subscribes(m.memberId(), topic)) {
                        subscribers.add(m.memberId());
                    }
                });
                for (int p = 0; p < count && subscribers.size() == 1; p++) {
                    final TopicPartition tp = new TopicPartition(topic, p);
                    final String owner = ownership.owner.get(tp);
                    if (!holder.containsKey(tp) && (owner == null ? !ownership.multiplyClaimed.contains(tp)
                        : owner.equals(subscribers.get(0)))) {
                        out.add(tp + " withheld from " + subscribers.get(0) + ", its only subscriber");
                    }
                }
            });
            holder.forEach((tp, member) -> {
                final String owner = ownership.owner.get(tp);
                if (owner != null && !owner.equals(member)) {
                    out.add(tp + " moves from its owner " + owner + " straight to " + member);
                } else if (owner == null && ownership.multiplyClaimed.contains(tp)
                    && !ownership.claimants.get(tp).contains(member)) {
                    out.add(tp + " claimed by " + ownership.claimants.get(tp) + " goes straight to " + member);
                }
            });
        }
        if (assignor.equals("range")) {
            for (final String topic : input.partitionCounts.keySet()) {
                final List<Integer> counts = new ArrayList<>();
                for (final Member m : input.members) {
                    if (input.subscribes(m.memberId(), topic)) {
                        counts.add((int) assignment.partitions(m.memberId()).stream()
                            .filter(tp -> tp.topic().equals(topic)).count());
                    }
                }
                if (!counts.isEmpty() && maxMinusMin(counts) > 1) {
                    out.add("topic " + topic + " unbalanced over its subscribers: " + counts);
                }
            }
        }
        final boolean equalSubscriptions = new HashSet<>(input.subscribed.values()).size() <= 1;
        if (!cooperative && !assignor.equals("range") && equalSubscriptions) {
            final List<Integer> counts = new ArrayList<>();
            assignment.partitionsByMember().values().forEach(l -> counts.add(l.size()));
            if (!counts.isEmpty() && maxMinusMin(counts) > 1) {
                out.add("equal subscriptions but unbalanced: " + counts);
            }
        }
        if (sticky && !cooperative) {
            checkGeneralBalance(input, assignment, out);
        }
        if (sticky) {
            checkNoSwaps(ownership, holder, out);
        }
        // Stickiness as the constrained builder promises it, when the subscriptions are equal as named (Kafka's general
        // builder, which also runs when they differ only in unknown topics, balances first and is checked as above).
        final boolean rawEqual = new HashSet<>(input.rawTopics.values()).size() <= 1;
        if (sticky && rawEqual && !input.members.isEmpty()) {
            int total = 0;
            for (final int c : input.partitionCounts.values()) {
                total += c;
            }
            final int minQuota = total / input.members.size();
            for (final Member m : input.members) {
                final Set<TopicPartition> got = new HashSet<>(assignment.partitions(m.memberId()));
                int valid = 0;
                int kept = 0;
                for (final TopicPartition tp : input.owned.get(m.memberId())) {
                    if (ownership.owns(m.memberId(), tp) && input.subscribes(m.memberId(), tp.topic())) {
                        valid++;
                        kept += got.contains(tp) ? 1 : 0;
                    }
                }
                if (kept < Math.min(valid, minQuota)) {
                    out.add(m.memberId() + " kept " + kept + " of its " + valid + " partitions, quota " + minQuota);
                }
            }
        }
        return out;
    }

    /** Kafka's {@code verifyValidityAndBalance}: if a has two more than b, a holds nothing of b's topics. */
    private static void checkGeneralBalance(final GroupInput input, final GroupAssignment assignment,
                                            final List<String> out) {
        final Map<String, List<TopicPartition>> byMember = new TreeMap<>(assignment.partitionsByMember());
        for (final String a : byMember.keySet()) {
            for (final String b : byMember.keySet()) {
                if (byMember.get(a).size() > byMember.get(b).size() + 1) {
                    final Set<String> bTopics = new TreeSet<>(input.subscribed.get(b));
                    for (final TopicPartition tp : byMember.get(a)) {
                        if (bTopics.contains(tp.topic())) {
                            out.add(a + " has " + byMember.get(a).size() + " including " + tp + " which " + b
                                + " (with " + byMember.get(b).size() + ") could take");
                            return;
                        }
                    }
                }
            }
        }
    }

    /**
     * Kafka's {@code isSticky}: no two partitions of one topic trade places between a pair of members in one
     * rebalance (one moving from a to b, another from b to a), which would be movement for nothing.
     */
    private static void checkNoSwaps(final Ownership ownership, final Map<TopicPartition, String> holder,
                                     final List<String> out) {
        final Set<String> moves = new HashSet<>();
        holder.forEach((tp, member) -> {
            final String owner = ownership.owner.get(tp);
            if (owner != null && !owner.equals(member)) {
                moves.add(tp.topic() + "|" + owner + "|" + member);
            }
        });
        for (final String move : moves) {
            final String[] parts = move.split("\\|");
            if (moves.contains(parts[0] + "|" + parts[2] + "|" + parts[1])) {
                out.add("partitions of " + parts[0] + " swap between " + parts[1] + " and " + parts[2]);
                return;
            }
        }
    }

    private static int maxMinusMin(final List<Integer> counts) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (final int c : counts) {
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        return max - min;
    }
}
