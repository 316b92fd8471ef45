package io.seglog.replication.group.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** AS-04: bad input gives a clear error naming the culprit, or is ignored; never an NPE or a partition that does not exist. */
class BadInputTest {
    private static final List<Assignor> ALL = List.of(Assignor.range(), Assignor.roundRobin(), Assignor.sticky(),
        Assignor.cooperativeSticky());

    @Test
    void duplicateMemberIdIsRefusedNamingIt() {
        for (final Assignor assignor : ALL) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> assignor.assign(
                Map.of("t", 2), List.of(new Member("dup", List.of("t")), new Member("other", List.of("t")),
                    new Member("dup", List.of()))));
            assertTrue(e.getMessage().contains("duplicate memberId=dup"), assignor.name() + ": " + e.getMessage());
        }
    }

    @Test
    void nullArgumentsAndNegativeCountsAreRefusedNamingTheField() {
        for (final Assignor assignor : ALL) {
            assertEquals("partitionsPerTopic=null", assertThrows(IllegalArgumentException.class,
                () -> assignor.assign(null, List.of())).getMessage());
            assertEquals("members=null", assertThrows(IllegalArgumentException.class,
                () -> assignor.assign(Map.of(), null)).getMessage());
            assertEquals("members contains null", assertThrows(IllegalArgumentException.class,
                () -> assignor.assign(Map.of(), Arrays.asList(new Member("a", List.of()), null))).getMessage());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> assignor.assign(Map.of("t", -1),
                List.of(new Member("a", List.of("t"))))).getMessage().contains("topic=t count=-1"));
            final Map<String, Integer> nullCount = new HashMap<>();
            nullCount.put("t", null);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> assignor.assign(nullCount, List.of()))
                .getMessage().contains("topic=t count=null"));
        }
    }

    @Test
    void memberFieldsAreCheckedNamingTheMember() {
        assertEquals("memberId=null", assertThrows(IllegalArgumentException.class,
            () -> new Member(null, List.of())).getMessage());
        assertEquals("topics=null for memberId=m", assertThrows(IllegalArgumentException.class,
            () -> new Member("m", null)).getMessage());
        assertEquals("topics of memberId=m contains null", assertThrows(IllegalArgumentException.class,
            () -> new Member("m", Arrays.asList("t", null))).getMessage());
        assertEquals("ownedPartitions=null for memberId=m", assertThrows(IllegalArgumentException.class,
            () -> new Member("m", List.of(), null, 1)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> new Member("m", Optional.empty(), List.of(), List.of(), -2)).getMessage()
            .contains("generation=-2 for memberId=m"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> new Member("m", null, List.of(), List.of(), 1)).getMessage().contains("memberId=m"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Assignor.named("sticky2")).getMessage()
            .contains("name=sticky2"));
    }

    @Test
    void unknownTopicsZeroPartitionTopicsAndVanishedPartitionsAreIgnored() {
        final Map<String, Integer> topics = Map.of("t", 3, "empty", 0);
        final List<Member> members = List.of(
            new Member("a", List.of("t", "unknown", "empty"),
                List.of(new TopicPartition("t", 7), new TopicPartition("gone", 0), new TopicPartition("t", 0)), 3),
            new Member("b", List.of("unknown"), List.of(new TopicPartition("empty", 0)), 3),
            new Member("c", List.of("t"), List.of(new TopicPartition("t", 1)), 3));
        for (final Assignor assignor : ALL) {
            final GroupAssignment a = assignor.assign(topics, members);
            assertEquals(List.of(), Invariants.violations(assignor.name(), topics, members, a), assignor.name());
            assertEquals(List.of(), a.partitions("b"), assignor.name());
            final List<TopicPartition> all = new ArrayList<>(a.partitions("a"));
            all.addAll(a.partitions("c"));
            all.sort(GroupAssignment.PARTITION_ORDER);
            assertEquals(List.of(new TopicPartition("t", 0), new TopicPartition("t", 1), new TopicPartition("t", 2)),
                all, assignor.name());
        }
    }

    @Test
    void aMemberWithAnEmptySubscriptionNeverGetsPartitions() {
        for (final Assignor assignor : ALL) {
            final GroupAssignment a = assignor.assign(Map.of("t", 5),
                List.of(new Member("0-empty", List.of()), new Member("b", List.of("t"))));
            assertEquals(List.of(), a.partitions("0-empty"), assignor.name());
            assertEquals(5, a.partitions("b").size(), assignor.name());
        }
    }

    @Test
    void anAssignmentWithANullPartitionIsRefusedNamingTheMember() {
        assertEquals("null partition for memberId=a", assertThrows(IllegalArgumentException.class,
            () -> new GroupAssignment(Map.of("a", Arrays.asList(new TopicPartition("t", 0), null)))).getMessage());
        assertEquals("partitionsByMember=null", assertThrows(IllegalArgumentException.class,
            () -> new GroupAssignment(null)).getMessage());
    }

    @Test
    void theAssignmentIsImmutableAndAsksForKnownMembersOnly() {
        final GroupAssignment a = Assignor.range().assign(Map.of("t", 1), List.of(new Member("a", List.of("t"))));
        assertThrows(UnsupportedOperationException.class, () -> a.partitions("a").clear());
        assertThrows(UnsupportedOperationException.class, () -> a.partitionsByMember().clear());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> a.partitions("x")).getMessage()
            .contains("memberId=x"));
    }
}
