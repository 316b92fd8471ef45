package io.seglog.replication.group.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The key scenarios of Kafka's {@code RangeAssignorTest}, {@code RoundRobinAssignorTest} and
 * {@code AbstractStickyAssignorTest} (kafka-replication.md §6, "Tests to port"), written as our own tests; where
 * Kafka's answer is deterministic the test also checks that ours equals it.
 */
class AssignorScenariosTest {
    private static TopicPartition tp(final String topic, final int partition) {
        return new TopicPartition(topic, partition);
    }

    private static List<TopicPartition> tps(final String topic, final int... partitions) {
        final List<TopicPartition> out = new ArrayList<>();
        for (final int p : partitions) {
            out.add(tp(topic, p));
        }
        return out;
    }

    private static List<TopicPartition> concat(final List<TopicPartition> a, final List<TopicPartition> b) {
        final List<TopicPartition> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Ours, checked against the invariants and, given Kafka's members in this order, against Kafka. */
    private static GroupAssignment assign(final String name, final Map<String, Integer> topics,
                                          final List<Member> members) {
        final GroupAssignment ours = Assignor.named(name).assign(topics, members);
        assertEquals(List.of(), Invariants.violations(name, topics, members, ours), name);
        assertEquals(KafkaOracle.run(name, topics, members).assignment(), ours, name + " equals Kafka's");
        return ours;
    }

    @Test
    void rangeJavadocExampleIsCoPartitioned() {
        final GroupAssignment a = assign("range", Map.of("t0", 3, "t1", 3),
            List.of(new Member("C0", List.of("t0", "t1")), new Member("C1", List.of("t0", "t1"))));
        assertEquals(concat(tps("t0", 0, 1), tps("t1", 0, 1)), a.partitions("C0"));
        assertEquals(List.of(tp("t0", 2), tp("t1", 2)), a.partitions("C1"));
    }

    @Test
    void rangeMultipleConsumersMixedTopics() {
        final GroupAssignment a = assign("range", Map.of("t0", 3, "t1", 2), List.of(new Member("c0", List.of("t0")),
            new Member("c1", List.of("t0", "t1")), new Member("c2", List.of("t0"))));
        assertEquals(tps("t0", 0), a.partitions("c0"));
        assertEquals(concat(tps("t0", 1), tps("t1", 0, 1)), a.partitions("c1"));
        assertEquals(tps("t0", 2), a.partitions("c2"));
    }

    @Test
    void rangeTwoStaticConsumersTwoTopicsSixPartitionsPersistAfterMemberIdChanges() {
        final Map<String, Integer> topics = Map.of("t0", 3, "t1", 3);
        final List<String> both = List.of("t0", "t1");
        // Static members sort by instance id, before dynamic ones, whatever their member ids.
        final GroupAssignment first = assign("range", topics, List.of(
            new Member("z-1", Optional.of("instance-a"), both, List.of(), -1),
            new Member("a-2", Optional.of("instance-b"), both, List.of(), -1),
            new Member("0-dynamic", both)));
        assertEquals(List.of(tp("t0", 0), tp("t1", 0)), first.partitions("z-1"));
        assertEquals(List.of(tp("t0", 1), tp("t1", 1)), first.partitions("a-2"));
        assertEquals(List.of(tp("t0", 2), tp("t1", 2)), first.partitions("0-dynamic"));
        final GroupAssignment rejoined = assign("range", topics, List.of(
            new Member("b-7", Optional.of("instance-a"), both, List.of(), -1),
            new Member("a-8", Optional.of("instance-b"), both, List.of(), -1),
            new Member("0-dynamic", both)));
        assertEquals(first.partitions("z-1"), rejoined.partitions("b-7"));
        assertEquals(first.partitions("a-2"), rejoined.partitions("a-8"));
        for (final String name : List.of("roundrobin")) {
            final GroupAssignment before = assign(name, topics, List.of(
                new Member("z-1", Optional.of("instance-a"), both, List.of(), -1),
                new Member("a-2", Optional.of("instance-b"), both, List.of(), -1)));
            final GroupAssignment after = assign(name, topics, List.of(
                new Member("b-7", Optional.of("instance-a"), both, List.of(), -1),
                new Member("a-8", Optional.of("instance-b"), both, List.of(), -1)));
            assertEquals(before.partitions("z-1"), after.partitions("b-7"), name);
        }
    }

    @Test
    void roundRobinJavadocExamples() {
        final GroupAssignment equal = assign("roundrobin", Map.of("t0", 3, "t1", 3),
            List.of(new Member("C0", List.of("t0", "t1")), new Member("C1", List.of("t0", "t1"))));
        assertEquals(List.of(tp("t0", 0), tp("t0", 2), tp("t1", 1)), equal.partitions("C0"));
        assertEquals(List.of(tp("t0", 1), tp("t1", 0), tp("t1", 2)), equal.partitions("C1"));
        final GroupAssignment unequal = assign("roundrobin", Map.of("t0", 1, "t1", 2, "t2", 3), List.of(
            new Member("C0", List.of("t0")), new Member("C1", List.of("t0", "t1")),
            new Member("C2", List.of("t0", "t1", "t2"))));
        assertEquals(tps("t0", 0), unequal.partitions("C0"));
        assertEquals(tps("t1", 0), unequal.partitions("C1"));
        assertEquals(concat(tps("t1", 1), tps("t2", 0, 1, 2)), unequal.partitions("C2"));
    }

    @Test
    void addRemoveConsumerOneTopic() {
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final Map<String, Integer> topics = Map.of("t", 3);
            final GroupAssignment one = assign(name, topics, List.of(new Member("c1", List.of("t"))));
            assertEquals(tps("t", 0, 1, 2), one.partitions("c1"));
            final List<Member> two = List.of(new Member("c1", List.of("t"), one.partitions("c1"), 1),
                new Member("c2", List.of("t")));
            final GroupAssignment second = assign(name, topics, two);
            assertEquals(tps("t", 0, 1), second.partitions("c1"), name + " c1 keeps two");
            // Eager: c2 gets t-2 now; cooperative: t-2 is revoked from c1 first and handed out next round.
            assertEquals(name.equals("sticky") ? tps("t", 2) : List.of(), second.partitions("c2"), name);
            final GroupAssignment third = assign(name, topics, List.of(
                new Member("c2", List.of("t"), second.partitions("c2"), 2)));
            assertEquals(tps("t", 0, 1, 2), third.partitions("c2"), name);
        }
    }

    @Test
    void cooperativeFollowUpRebalanceHandsOutWhatWasRevoked() {
        final Map<String, Integer> topics = Map.of("t", 4);
        final List<Member> join = List.of(new Member("c1", List.of("t"), tps("t", 0, 1, 2, 3), 1),
            new Member("c2", List.of("t")));
        final GroupAssignment first = assign("cooperative-sticky", topics, join);
        assertEquals(tps("t", 0, 1), first.partitions("c1"));
        assertEquals(List.of(), first.partitions("c2"));
        final GroupAssignment second = assign("cooperative-sticky", topics, List.of(
            new Member("c1", List.of("t"), first.partitions("c1"), 2), new Member("c2", List.of("t"), List.of(), 2)));
        assertEquals(tps("t", 0, 1), second.partitions("c1"));
        assertEquals(tps("t", 2, 3), second.partitions("c2"));
    }

    @Test
    void stickinessWhenAMemberLeaves() {
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final Map<String, Integer> topics = Map.of("t0", 5, "t1", 4);
            final List<String> both = List.of("t0", "t1");
            final List<Member> four = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                four.add(new Member("c" + i, both));
            }
            final GroupAssignment before = assign(name, topics, four);
            final List<Member> three = new ArrayList<>();
            for (int i = 1; i < 4; i++) {
                three.add(new Member("c" + i, both, before.partitions("c" + i), 1));
            }
            final GroupAssignment after = assign(name, topics, three);
            for (int i = 1; i < 4; i++) {
                assertTrue(after.partitions("c" + i).containsAll(before.partitions("c" + i)), name + " c" + i
                    + " keeps " + before.partitions("c" + i) + ": " + after);
            }
        }
    }

    @Test
    void ownedPartitionsAreInvalidatedForConsumerWithStaleGeneration() {
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final Map<String, Integer> topics = Map.of("t0", 3, "t1", 3);
            final List<String> both = List.of("t0", "t1");
            final List<TopicPartition> claimed = List.of(tp("t0", 0), tp("t0", 2), tp("t1", 1));
            final GroupAssignment a = assign(name, topics, List.of(new Member("c1", both, claimed, 2),
                new Member("c2", both, claimed, 1)));
            assertEquals(List.of(tp("t0", 0), tp("t0", 2), tp("t1", 1)), a.partitions("c1"), name);
            assertEquals(List.of(tp("t0", 1), tp("t1", 0), tp("t1", 2)), a.partitions("c2"), name);
        }
    }

    @Test
    void ensurePartitionsAssignedToHighestGeneration() {
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final Map<String, Integer> topics = Map.of("t0", 3, "t1", 3, "t2", 3);
            final List<String> all = List.of("t0", "t1", "t2");
            final List<Member> members = List.of(
                new Member("c1", all, List.of(tp("t0", 0), tp("t1", 0), tp("t2", 0)), 3),
                new Member("c2", all, List.of(tp("t0", 0), tp("t1", 1), tp("t2", 1)), 2),
                new Member("c3", all, List.of(tp("t0", 0), tp("t1", 0), tp("t2", 2), tp("t0", 2)), 1));
            final GroupAssignment a = assign(name, topics, members);
            assertEquals(List.of(tp("t0", 0), tp("t1", 0), tp("t2", 0)), a.partitions("c1"), name);
            assertTrue(a.partitions("c2").containsAll(List.of(tp("t1", 1), tp("t2", 1))), name + ": " + a);
            assertTrue(a.partitions("c3").containsAll(List.of(tp("t2", 2), tp("t0", 2))), name + ": " + a);
        }
    }

    @Test
    void doubleClaimInOneGenerationIsDroppedFromBoth() {
        final Map<String, Integer> topics = Map.of("t", 4);
        final List<Member> members = List.of(new Member("c1", List.of("t"), tps("t", 0, 1), 5),
            new Member("c2", List.of("t"), tps("t", 1, 2), 5), new Member("c3", List.of("t"), List.of(), 5));
        final GroupAssignment eager = assign("sticky", topics, members);
        // Nobody validly owns t-1: c1 keeps t-0, c2 keeps t-2, and t-1 and t-3 are dealt to the members under quota.
        assertEquals(tps("t", 0), eager.partitions("c1").subList(0, 1), eager.toString());
        assertTrue(eager.partitions("c2").contains(tp("t", 2)), eager.toString());
        final List<Integer> sizes = new ArrayList<>();
        eager.partitionsByMember().values().forEach(l -> sizes.add(l.size()));
        sizes.sort(null);
        assertEquals(List.of(1, 1, 2), sizes, eager.toString());
        final GroupAssignment cooperative = assign("cooperative-sticky", topics, members);
        for (final List<TopicPartition> partitions : cooperative.partitionsByMember().values()) {
            assertTrue(!partitions.contains(tp("t", 1)), "t-1 is withheld this round: " + cooperative);
        }
    }

    @Test
    void consumerOwningMinQuotaWhileMaxQuotaIsExpected() {
        final Map<String, Integer> topics = Map.of("t1", 2, "t2", 3);
        final List<String> both = List.of("t1", "t2");
        final GroupAssignment a = assign("sticky", topics, List.of(
            new Member("c1", both, List.of(tp("t1", 0), tp("t2", 1)), 1),
            new Member("c2", both, List.of(tp("t1", 1), tp("t2", 0)), 1)));
        assertEquals(List.of(tp("t1", 0), tp("t2", 1), tp("t2", 2)), a.partitions("c1"));
        assertEquals(List.of(tp("t1", 1), tp("t2", 0)), a.partitions("c2"));
    }

    @Test
    void allConsumersAreUnderMinQuota() {
        final Map<String, Integer> topics = Map.of("t1", 2, "t2", 3);
        final List<String> both = List.of("t1", "t2");
        final GroupAssignment a = assign("sticky", topics, List.of(
            new Member("c1", both, List.of(tp("t1", 0)), 1),
            new Member("c2", both, List.of(tp("t1", 1)), 1)));
        assertTrue(a.partitions("c1").contains(tp("t1", 0)));
        assertTrue(a.partitions("c2").contains(tp("t1", 1)));
        assertEquals(5, a.partitions("c1").size() + a.partitions("c2").size());
    }

    @Test
    void poorRoundRobinAssignmentScenarioIsBalancedBySticky() {
        // Unequal subscriptions where round-robin is badly unbalanced; sticky's general builder balances.
        final Map<String, Integer> topics = new TreeMap<>(Map.of("t1", 2, "t2", 1, "t3", 2, "t4", 1, "t5", 2));
        final List<Member> members = List.of(new Member("c1", List.of("t1", "t2", "t3", "t4")),
            new Member("c2", List.of("t1", "t3", "t5")), new Member("c3", List.of("t1", "t3", "t5")),
            new Member("c4", List.of("t1", "t2", "t3", "t4", "t5")));
        final GroupAssignment a = assign("sticky", topics, members);
        final Set<Integer> sizes = new HashSet<>();
        a.partitionsByMember().values().forEach(l -> sizes.add(l.size()));
        assertEquals(Set.of(2), sizes, a.toString());
    }

    @Test
    void memberDataWithEmptyPartitionsAndHigherGeneration() {
        final Map<String, Integer> topics = Map.of("t", 3);
        final GroupAssignment a = assign("cooperative-sticky", topics, List.of(
            new Member("c1", List.of("t"), List.of(), 5), new Member("c2", List.of("t"), tps("t", 0, 1, 2), 4)));
        assertEquals(tps("t", 0, 1), a.partitions("c2"));
        assertEquals(List.of(), a.partitions("c1"), "t-2, which c2 still owns, is withheld rather than moved");
    }

    @Test
    void largeGroupWithRandomSubscriptionsHoldsTheInvariantsOverGenerations() {
        // Kafka's testReassignmentWithRandomSubscriptionsAndChanges, at a size where the general builder works hard.
        final java.util.Random random = new java.util.Random(14);
        final Map<String, Integer> topics = new TreeMap<>();
        for (int t = 0; t < 40; t++) {
            topics.put("topic" + t, 1 + random.nextInt(12));
        }
        final List<String> names = new ArrayList<>(topics.keySet());
        List<Member> members = new ArrayList<>();
        for (int m = 0; m < 60; m++) {
            final List<String> subscription = new ArrayList<>();
            names.forEach(n -> {
                if (random.nextInt(3) == 0) {
                    subscription.add(n);
                }
            });
            members.add(new Member("member" + m, subscription));
        }
        for (int generation = 1; generation <= 3; generation++) {
            for (final String name : List.of("sticky", "cooperative-sticky")) {
                final GroupAssignment a = Assignor.named(name).assign(topics, members);
                assertEquals(List.of(), Invariants.violations(name, topics, members, a), name + " generation "
                    + generation);
            }
            final GroupAssignment eager = Assignor.sticky().assign(topics, members);
            final List<Member> next = new ArrayList<>();
            for (final Member m : members) {
                if (random.nextInt(10) != 0) {
                    next.add(new Member(m.memberId(), m.topics(), eager.partitions(m.memberId()), generation));
                }
            }
            members = next;
        }
    }

    @Test
    void largeUniformGroupStaysBalancedAndSticky() {
        final Map<String, Integer> topics = new TreeMap<>();
        final List<String> names = new ArrayList<>();
        for (int t = 0; t < 200; t++) {
            topics.put("topic" + t, 10);
            names.add("topic" + t);
        }
        final List<Member> members = new ArrayList<>();
        for (int m = 0; m < 300; m++) {
            members.add(new Member("member" + m, names));
        }
        final GroupAssignment first = Assignor.sticky().assign(topics, members);
        assertEquals(List.of(), Invariants.violations("sticky", topics, members, first));
        final List<Member> next = new ArrayList<>();
        for (int m = 1; m < 300; m++) {
            next.add(new Member("member" + m, names, first.partitions("member" + m), 1));
        }
        next.add(new Member("newcomer", names));
        final GroupAssignment second = Assignor.cooperativeSticky().assign(topics, next);
        assertEquals(List.of(), Invariants.violations("cooperative-sticky", topics, next, second));
    }
}
