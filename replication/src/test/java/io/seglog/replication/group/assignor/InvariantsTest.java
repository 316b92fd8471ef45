package io.seglog.replication.group.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The invariant checker the oracle test relies on catches each kind of broken assignment. */
class InvariantsTest {
    private static TopicPartition tp(final String topic, final int partition) {
        return new TopicPartition(topic, partition);
    }

    private static String violations(final String assignor, final Map<String, Integer> topics,
                                     final List<Member> members, final Map<String, List<TopicPartition>> assignment) {
        return Invariants.violations(assignor, topics, members, new GroupAssignment(assignment)).toString();
    }

    @Test
    void acceptsAValidAssignment() {
        final List<Member> members = List.of(new Member("a", List.of("t")), new Member("b", List.of("t")));
        assertEquals("[]", violations("sticky", Map.of("t", 3), members,
            Map.of("a", List.of(tp("t", 0), tp("t", 1)), "b", List.of(tp("t", 2)))));
    }

    @Test
    void catchesEachKindOfViolation() {
        final Map<String, Integer> topics = Map.of("t", 4, "u", 1);
        final List<Member> members = List.of(new Member("a", List.of("t")), new Member("b", List.of("t")));
        assertTrue(violations("sticky", topics, members, Map.of("a", List.of())).contains("!= input"));
        assertTrue(violations("range", topics, members, Map.of("a", List.of(tp("t", 0), tp("t", 1), tp("t", 9)),
            "b", List.of(tp("t", 2), tp("t", 3)))).contains("does not exist"));
        assertTrue(violations("range", Map.of("t", 4, "u", 1), List.of(new Member("a", List.of("t")),
            new Member("b", List.of("t", "u"))), Map.of("a", List.of(tp("t", 0), tp("t", 1), tp("u", 0)),
            "b", List.of(tp("t", 2), tp("t", 3)))).contains("but subscribes to"));
        assertTrue(violations("roundrobin", topics, members, Map.of("a", List.of(tp("t", 0), tp("t", 1)),
            "b", List.of(tp("t", 1), tp("t", 2), tp("t", 3)))).contains("assigned to both"));
        assertTrue(violations("roundrobin", topics, members, Map.of("a", List.of(tp("t", 0)),
            "b", List.of(tp("t", 2)))).contains("assigned to nobody"));
        assertTrue(violations("range", topics, members, Map.of("a", List.of(tp("t", 0), tp("t", 1), tp("t", 2)),
            "b", List.of(tp("t", 3)))).contains("unbalanced"));
        assertTrue(violations("sticky", topics, members, Map.of("a", List.of(tp("t", 0), tp("t", 1), tp("t", 2)),
            "b", List.of(tp("t", 3)))).contains("could take"));
    }

    @Test
    void catchesALostPartitionAndACooperativeStraightMove() {
        final Map<String, Integer> topics = Map.of("t", 4);
        final List<Member> owners = List.of(new Member("a", List.of("t"), List.of(tp("t", 0), tp("t", 1)), 3),
            new Member("b", List.of("t"), List.of(tp("t", 2), tp("t", 3)), 3));
        assertTrue(violations("sticky", topics, owners, Map.of("a", List.of(tp("t", 0), tp("t", 2)),
            "b", List.of(tp("t", 1), tp("t", 3)))).contains("kept 1 of its 2"));
        assertTrue(violations("sticky", topics, owners, Map.of("a", List.of(tp("t", 0), tp("t", 2)),
            "b", List.of(tp("t", 1), tp("t", 3)))).contains("partitions of t swap between"));
        assertTrue(violations("cooperative-sticky", topics, owners, Map.of("a", List.of(tp("t", 0), tp("t", 2)),
            "b", List.of(tp("t", 3)))).contains("moves from its owner b straight to a"));
        final List<Member> alone = List.of(new Member("a", List.of("t"), List.of(tp("t", 0)), 3),
            new Member("b", List.of()));
        assertTrue(violations("cooperative-sticky", topics, alone, Map.of("a", List.of(tp("t", 1), tp("t", 2),
            tp("t", 3)), "b", List.of())).contains("its only subscriber"));
    }
}
