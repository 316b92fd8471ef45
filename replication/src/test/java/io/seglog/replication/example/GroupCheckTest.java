package io.seglog.replication.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.example.GroupCheck.Read;
import io.seglog.replication.example.GroupCheck.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The quickstart's consumer group rules, one case per rule and its neighbours. */
class GroupCheckTest {
    private static final int PARTITIONS = 4;
    private static final Map<String, Set<Integer>> SPLIT = Map.of("A", Set.of(0, 1), "B", Set.of(2, 3));

    /** Every partition ends at {@code end}. */
    private static Map<Integer, Long> all(final long end) {
        final Map<Integer, Long> out = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.put(p, end);
        }
        return out;
    }

    /** A read offsets 0..end-1 of partitions 0 and 1, B of 2 and 3. */
    private static List<Read> everyRecordOnce(final long end) {
        final List<Read> reads = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (long o = 0; o < end; o++) {
                reads.add(new Read(p < 2 ? "A" : "B", p, o));
            }
        }
        return reads;
    }

    @Test
    void aSplitWithEveryRecordReadOnceAndCommittedAtTheEndIsOk() {
        final Verdict v = GroupCheck.check(PARTITIONS, SPLIT, all(3), all(3), everyRecordOnce(3));
        assertEquals(new Verdict(Set.of(), Set.of(), Map.of(), 0, 0, 0, v.examples()), v);
        assertTrue(v.ok());
        assertEquals("", v.problems());
    }

    @Test
    void aPartitionOwnedByBothMembersIsShared() {
        final Verdict v = GroupCheck.check(PARTITIONS, Map.of("A", Set.of(0, 1, 2), "B", Set.of(2, 3)), all(3),
            all(3), everyRecordOnce(3));
        assertEquals(Set.of(2), v.shared());
        assertEquals(Set.of(), v.unowned());
        assertFalse(v.ok());
        assertTrue(v.problems().contains("partitions [2] owned by more than one member"), v.problems());
    }

    @Test
    void aPartitionOwnedByNoMemberIsUnowned() {
        final Verdict v = GroupCheck.check(PARTITIONS, Map.of("A", Set.of(0, 1), "B", Set.of(3)), all(3), all(3),
            everyRecordOnce(3));
        assertEquals(Set.of(2), v.unowned());
        assertEquals(Set.of(), v.shared());
        assertFalse(v.ok());
        assertTrue(v.problems().contains("partitions [2] owned by no member"), v.problems());
        // A member with nothing is a member, not an owner.
        assertEquals(Set.of(2, 3), GroupCheck.check(PARTITIONS, Map.of("A", Set.of(0, 1), "B", Set.of()), all(3),
            all(3), everyRecordOnce(3)).unowned());
    }

    @Test
    void aCommittedOffsetBehindOrAheadOfTheEndOrMissingIsWrong() {
        final Map<Integer, Long> committed = all(3);
        committed.put(0, 2L);
        committed.put(1, 4L);
        committed.remove(3);
        final Verdict v = GroupCheck.check(PARTITIONS, SPLIT, committed, all(3), everyRecordOnce(3));
        assertEquals(Map.of(0, 2L, 1, 4L, 3, -1L), v.committedWrong());
        assertFalse(v.ok());
        assertTrue(v.problems().contains("committed offsets differ from the end offsets (partition=committed, -1 for"
            + " none): {0=2, 1=4, 3=-1}"), v.problems());
        // An empty partition with no commit is at its end: nothing to commit.
        final Map<Integer, Long> ends = all(3);
        ends.put(3, 0L);
        final List<Read> reads = new ArrayList<>(everyRecordOnce(3));
        reads.removeIf(r -> r.partition() == 3);
        final Map<Integer, Long> withoutThree = all(3);
        withoutThree.remove(3);
        assertEquals(Map.of(3, -1L), GroupCheck.check(PARTITIONS, SPLIT, withoutThree, ends, reads).committedWrong(),
            "a partition with no commit differs even when empty: the group must commit what it owns");
    }

    @Test
    void anOffsetNoMemberReadIsMissed() {
        final List<Read> reads = everyRecordOnce(3);
        reads.remove(new Read("B", 2, 1));
        final Verdict v = GroupCheck.check(PARTITIONS, SPLIT, all(3), all(3), reads);
        assertEquals(1, v.missed());
        assertEquals(List.of("2@1"), v.examples().get("missed"));
        assertFalse(v.ok());
        assertTrue(v.problems().contains("1 records below the end offset read by no member (e.g. [2@1])"),
            v.problems());
    }

    @Test
    void anOffsetReadAgainBySameOrOtherMemberIsReadTwice() {
        final List<Read> reads = everyRecordOnce(3);
        // A read partition 2 before the rebalance, B again after it: the commit did not cover it.
        reads.add(new Read("A", 2, 0));
        reads.add(new Read("A", 0, 2));
        reads.add(new Read("A", 0, 2));
        final Verdict v = GroupCheck.check(PARTITIONS, SPLIT, all(3), all(3), reads);
        assertEquals(3, v.readTwice());
        assertEquals(0, v.missed());
        assertEquals(List.of("0@2", "2@0"), v.examples().get("readTwice"));
        assertFalse(v.ok());
        assertTrue(v.problems().contains("3 records read again"), v.problems());
    }

    @Test
    void aReadAtOrPastTheEndOrOfAnotherPartitionIsBeyondTheEnd() {
        final List<Read> reads = everyRecordOnce(3);
        reads.add(new Read("A", 1, 3));
        reads.add(new Read("B", PARTITIONS, 0));
        final Verdict v = GroupCheck.check(PARTITIONS, SPLIT, all(3), all(3), reads);
        assertEquals(2, v.beyondEnd());
        assertEquals(0, v.readTwice());
        assertFalse(v.ok());
        assertTrue(v.problems().contains("2 records read at or past their partition's end offset"), v.problems());
    }

    @Test
    void examplesAreBoundedAndEveryBrokenRuleIsNamed() {
        final Verdict v = GroupCheck.check(PARTITIONS, Map.of("A", Set.of(0, 1), "B", Set.of(1)), Map.of(), all(10),
            List.of());
        assertEquals(40, v.missed());
        assertEquals(GroupCheck.EXAMPLES, v.examples().get("missed").size());
        final String problems = v.problems();
        for (final String part : List.of("owned by more than one member", "owned by no member",
            "committed offsets differ", "read by no member")) {
            assertTrue(problems.contains(part), part + " in " + problems);
        }
    }
}
