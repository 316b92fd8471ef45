package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ChurnChecker} passes a correct history and names each kind of bad one, so the churn test can fail. */
class ChurnCheckerTest {
    /** Ten records on partition 0 (values 100..109) and five on partition 1 (values 200..204). */
    private static ChurnChecker produced() {
        final ChurnChecker c = new ChurnChecker();
        for (int i = 0; i < 10; i++) {
            c.produced(0, i, 100 + i);
        }
        for (int i = 0; i < 5; i++) {
            c.produced(1, i, 200 + i);
        }
        return c;
    }

    private static void poll(final ChurnChecker c, final String member, final int generation, final int partition,
                             final long from, final long to) {
        for (long o = from; o < to; o++) {
            c.polled(member, generation, partition, o, (partition == 0 ? 100 : 200) + o);
        }
    }

    private static final Map<Integer, Long> ENDS = Map.of(0, 10L, 1, 5L);

    /** A hands partition 0 over to B after committing 6; B resumes at 6 and both finish with commits at the end. */
    private static ChurnChecker goodHistory() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0, 1);
        poll(c, "a", 1, 0, 0, 8);
        c.commitSent("a", 1, 1, Map.of(0, 6L));
        c.commitDone("a", 1, true);
        c.commitSent("a", 2, 1, Map.of(0, 8L));
        c.commitDone("a", 2, false); // refused: not in force
        c.revoked("a", 1, 0, 1);
        c.assigned("a", 2, 1);
        c.assigned("b", 2, 0);
        poll(c, "b", 2, 0, 6, 10); // 6 and 7 again: within the uncommitted window
        poll(c, "a", 2, 1, 0, 5);
        c.commitSent("b", 1, 2, Map.of(0, 10L));
        c.commitSent("a", 3, 2, Map.of(1, 5L));
        c.commitDone("a", 3, true);
        c.commitDone("b", 1, true);
        return c;
    }

    @Test
    void passesACorrectHistory() {
        final ChurnChecker c = goodHistory();
        assertEquals(List.of(), c.check(ENDS, Map.of(0, 10L, 1, 5L)));
        assertEquals(Map.of(0, 10L, 1, 5L), c.acknowledgedCommits());
    }

    @Test
    void staticMemberIncarnationsShareAGeneration() {
        final ChurnChecker c = produced();
        c.member("s1.1", "s1");
        c.member("s1.2", "s1");
        c.assigned("s1.1", 3, 0);
        poll(c, "s1.1", 3, 0, 0, 4);
        c.commitSent("s1.1", 1, 3, Map.of(0, 4L));
        c.commitDone("s1.1", 1, true);
        c.closed("s1.1");
        c.assigned("s1.2", 3, 0); // replaced without a rebalance: same generation, same member
        poll(c, "s1.2", 3, 0, 4, 10);
        assertEquals(List.of(), c.check(null, null).stream().filter(v -> !v.contains("never consumed")).toList());
    }

    private static void assertOne(final List<String> violations, final String expected) {
        assertTrue(violations.stream().anyMatch(v -> v.contains(expected)), "expected a violation with '" + expected
            + "' among " + violations);
    }

    @Test
    void aCommitWithoutAnAnswerMayBeWhereTheNextOwnerStarts() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0);
        poll(c, "a", 1, 0, 0, 7);
        c.commitSent("a", 1, 1, Map.of(0, 4L));
        c.commitDone("a", 1, true);
        c.commitSent("a", 2, 1, Map.of(0, 7L)); // killed before its answer came: it may have been written
        c.assigned("b", 2, 0, 1);
        poll(c, "b", 2, 0, 7, 10);
        poll(c, "b", 2, 1, 0, 5);
        assertEquals(List.of(), c.check(null, null));
        c.polled("b", 2, 0, 4, 104); // but not below the acknowledged one
        assertOne(c.check(null, null), "b polled partition 0 offset 4 (generation 2) after offset 9");
    }

    @Test
    void findsAZombieCommitAcknowledged() {
        final ChurnChecker c = goodHistory();
        c.commitSent("a", 9, 2, Map.of(1, 5L)); // a live member's: fine
        c.commitDone("a", 9, true);
        c.killed("a");
        c.commitSent("a", 10, 2, Map.of(1, 3L)); // back from the dead
        c.commitDone("a", 10, true);
        c.commitSent("a", 11, 2, Map.of(1, 3L));
        c.commitDone("a", 11, false);
        final List<String> violations = c.check(ENDS, Map.of(0, 10L, 1, 5L));
        assertOne(violations, "a committed {1=3} (commit 10, generation 2) after it was killed, and it was"
            + " acknowledged");
        assertEquals(1, violations.size(), "the refused one is fine: " + violations);
    }

    @Test
    void findsTwoMembersConsumingOnePartitionInOneGeneration() {
        final ChurnChecker c = produced();
        c.assigned("a", 4, 0);
        c.assigned("b", 4, 0);
        poll(c, "a", 4, 0, 0, 3);
        poll(c, "b", 4, 0, 0, 3);
        assertOne(c.check(null, null), "partition 0 consumed by a and b in generation 4");
    }

    @Test
    void findsAStartAboveTheLastCommit() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0);
        poll(c, "a", 1, 0, 0, 4);
        c.commitSent("a", 1, 1, Map.of(0, 4L));
        c.commitDone("a", 1, true);
        c.revoked("a", 1, 0);
        c.assigned("b", 2, 0);
        poll(c, "b", 2, 0, 7, 10); // 4..6 never handed to anyone
        final List<String> violations = c.check(null, null);
        assertOne(violations, "b started partition 0 offset 7 (generation 2) past every commit sent before (4");
        assertOne(violations, "value 104 acknowledged at 0@4 was never consumed");
    }

    @Test
    void findsARedeliveryBelowAnAcknowledgedCommit() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0);
        poll(c, "a", 1, 0, 0, 6);
        c.commitSent("a", 1, 1, Map.of(0, 6L));
        c.commitDone("a", 1, true);
        c.revoked("a", 1, 0);
        c.assigned("b", 2, 0);
        poll(c, "b", 2, 0, 3, 10);
        assertOne(c.check(null, null), "b was handed partition 0 offset 3 (generation 2) below the commit 6"
            + " acknowledged before it took the partition (assigned in generation 2), a re-delivery");
    }

    @Test
    void findsAGapAndARecordOfAPartitionNotOwned() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0);
        poll(c, "a", 1, 0, 0, 3);
        poll(c, "a", 1, 0, 5, 10);
        poll(c, "a", 1, 1, 0, 1);
        final List<String> violations = c.check(null, null);
        assertOne(violations, "a polled partition 0 offset 5 (generation 1) after offset 2 within one assignment:"
            + " records skipped");
        assertOne(violations, "a polled partition 1 offset 0 (generation 1) without owning the partition");
    }

    @Test
    void findsAWrongValueAndFinalOffsetsShortOfTheEnd() {
        final ChurnChecker c = goodHistory();
        c.assigned("c", 3, 1);
        c.polled("c", 3, 1, 4, 999);
        final List<String> violations = c.check(ENDS, Map.of(0, 10L, 1, 4L));
        assertOne(violations, "c polled value 999 at 1@4, where 204 was acknowledged");
        assertOne(violations, "partition 1: final committed offset 4, end offset 5");
    }

    @Test
    void findsAnUnconsumedRecordAfterAMemberClosed() {
        final ChurnChecker c = produced();
        c.assigned("a", 1, 0, 1);
        poll(c, "a", 1, 0, 0, 10);
        poll(c, "a", 1, 1, 0, 4);
        c.closed("a");
        c.polled("a", 1, 1, 4, 204);
        final List<String> violations = c.check(null, null);
        assertOne(violations, "a polled partition 1 offset 4 (generation 1) without owning the partition");
        assertEquals(1, violations.size(), "only the poll after the close: " + violations);
    }
}
