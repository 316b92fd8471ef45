package io.seglog.replication.group.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Each place where kafka-clients 4.4's assignors are not correct, shown with Kafka's own classes beside ours
 * (issue 14, "Assignors"; AS-01, AS-02, AS-04).
 */
class KafkaDivergenceTest {
    private static TopicPartition tp(final String topic, final int partition) {
        return new TopicPartition(topic, partition);
    }

    @Test
    void emptyGroupGetsAnEmptyAssignmentWhereKafkaThrows() {
        final Map<String, Integer> topics = Map.of("t0", 3);
        final KafkaOracle.Answer roundRobin = KafkaOracle.run("roundrobin", topics, List.of());
        assertInstanceOf(IllegalArgumentException.class, roundRobin.failure());
        assertTrue(roundRobin.failure().getMessage().contains("CircularIterator can only be used on non-empty lists"),
            roundRobin.failure().getMessage());
        for (final String sticky : List.of("sticky", "cooperative-sticky")) {
            final KafkaOracle.Answer kafka = KafkaOracle.run(sticky, topics, List.of());
            assertInstanceOf(ArithmeticException.class, kafka.failure(), sticky);
            assertEquals("/ by zero", kafka.failure().getMessage());
        }
        for (final String name : List.of("range", "roundrobin", "sticky", "cooperative-sticky")) {
            assertEquals(Map.of(), Assignor.named(name).assign(topics, List.of()).partitionsByMember(), name);
        }
    }

    @Test
    void memberWithEmptySubscriptionFirstInMapOrderGetsNoPartitionsWhereKafkaGivesItSome() {
        final Map<String, Integer> topics = Map.of("t0", 4);
        // Kafka walks the subscriptions in map order and restarts its "all equal" test at an empty one.
        final List<Member> emptyFirst = List.of(new Member("a", List.of()), new Member("b", List.of("t0")),
            new Member("c", List.of("t0")));
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final GroupAssignment kafka = KafkaOracle.run(name, topics, emptyFirst).assignment();
            assertEquals(List.of(tp("t0", 0), tp("t0", 3)), kafka.partitions("a"), name + " (Kafka) gives a partitions");
            final GroupAssignment ours = Assignor.named(name).assign(topics, emptyFirst);
            assertEquals(List.of(), ours.partitions("a"), name);
            assertEquals(List.of(tp("t0", 0), tp("t0", 2)), ours.partitions("b"), name);
            assertEquals(List.of(tp("t0", 1), tp("t0", 3)), ours.partitions("c"), name);
            // With the empty subscription last Kafka agrees with us: its answer depended on the order.
            final List<Member> emptyLast = List.of(emptyFirst.get(1), emptyFirst.get(2), emptyFirst.get(0));
            assertEquals(ours, KafkaOracle.run(name, topics, emptyLast).assignment(), name);
        }
    }

    @Test
    void staleMemberThatUnsubscribedDoesNotGetTheTopicBack() {
        final Map<String, Integer> topics = Map.of("t0", 2, "t1", 4);
        final List<TopicPartition> all = List.of(tp("t1", 0), tp("t1", 1), tp("t1", 2), tp("t1", 3));
        final List<Member> members = List.of(
            new Member("holder", List.of("t1"), all, 2),
            // Owned t1-0 in generation 1, missed generation 2, and now subscribes to t0 only.
            new Member("stale", List.of("t0"), List.of(tp("t1", 0)), 1),
            new Member("xnew", List.of("t0", "t1")));
        final GroupAssignment kafka = KafkaOracle.run("sticky", topics, members).assignment();
        assertTrue(kafka.partitions("stale").contains(tp("t1", 0)), "Kafka hands t1-0 back: " + kafka);
        final GroupAssignment ours = Assignor.sticky().assign(topics, members);
        assertEquals(List.of(tp("t0", 0)), ours.partitions("stale"));
        assertEquals(List.of(), Invariants.violations("sticky", topics, members, ours));
        assertTrue(Invariants.violations("sticky", topics, members, kafka).toString().contains("subscribes to"));
    }

    @Test
    void stickyOutputDependsOnHashOrderInKafkaButNotInOurs() {
        // Three members own the maximum quota but only one may keep it: Kafka keeps whoever its HashMap yields first.
        final List<String> both = List.of("t0", "t1");
        final List<Member> members = List.of(
            new Member("m0", both, List.of(tp("t0", 1), tp("t0", 2), tp("t0", 3)), 4),
            new Member("m1", both, List.of(tp("t0", 0), tp("t0", 4), tp("t1", 2)), 4),
            new Member("m2", both),
            new Member("m3", both, List.of(tp("t1", 0), tp("t1", 3), tp("t1", 5)), 4),
            new Member("m4", both, List.of(tp("t1", 1), tp("t1", 4)), 4));
        final Map<String, Integer> topics = Map.of("t0", 5, "t1", 6);
        final GroupAssignment ours = Assignor.sticky().assign(topics, members);
        final Set<GroupAssignment> kafkaAnswers = new HashSet<>();
        final Random random = new Random(42);
        for (int i = 0; i < 40; i++) {
            final List<Member> order = new ArrayList<>(members);
            Collections.shuffle(order, random);
            kafkaAnswers.add(KafkaOracle.run("sticky", topics, order, new Random(random.nextLong())).assignment());
            assertEquals(ours, Assignor.sticky().assign(topics, order));
        }
        assertTrue(kafkaAnswers.size() > 1, "Kafka gave one answer: " + kafkaAnswers);
        assertTrue(kafkaAnswers.contains(ours), "ours is one of Kafka's possible answers");
        // The first member in id order that owns the maximum keeps it.
        assertEquals(List.of(tp("t0", 1), tp("t0", 2), tp("t0", 3)), ours.partitions("m0"));
    }

    @Test
    void ownedPartitionsThatNoLongerExistAreIgnoredWhereKafkaAssignsThem() {
        // t0 shrank from 6 partitions to 3 (or was recreated) while m0 still claims t0-5.
        final Map<String, Integer> topics = Map.of("t0", 3);
        final List<Member> members = List.of(new Member("m0", List.of("t0"), List.of(tp("t0", 5)), 1),
            new Member("m1", List.of("t0"), List.of(tp("t0", 0)), 1));
        for (final String name : List.of("sticky", "cooperative-sticky")) {
            final KafkaOracle.Answer kafka = KafkaOracle.run(name, topics, members);
            assertNotNull(kafka.assignment(), name);
            assertTrue(kafka.assignment().partitions("m0").contains(tp("t0", 5)), name + " Kafka: " + kafka);
            final GroupAssignment ours = Assignor.named(name).assign(topics, members);
            assertEquals(List.of(tp("t0", 1)), ours.partitions("m0"), name);
            assertEquals(List.of(tp("t0", 0), tp("t0", 2)), ours.partitions("m1"), name);
        }
    }

    @Test
    void staticMembersWithOneInstanceIdAreOrderedByMemberId() {
        // Kafka's MemberInfo order leaves them in map order; ours breaks the tie by member id.
        final Map<String, Integer> topics = Map.of("t0", 3);
        final List<Member> members = List.of(
            new Member("b", Optional.of("same"), List.of("t0"), List.of(), Member.NO_GENERATION),
            new Member("a", Optional.of("same"), List.of("t0"), List.of(), Member.NO_GENERATION));
        for (final String name : List.of("range", "roundrobin")) {
            final GroupAssignment ours = Assignor.named(name).assign(topics, members);
            assertEquals(ours, Assignor.named(name).assign(topics, List.of(members.get(1), members.get(0))), name);
            assertEquals(2, ours.partitions("a").size(), name);
        }
    }
}
