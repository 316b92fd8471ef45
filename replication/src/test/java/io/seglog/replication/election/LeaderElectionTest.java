package io.seglog.replication.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Table tests of every election rule. Columns are space-separated broker ids; an empty cell is an empty list;
 * expected leader -1 means the election fails and the ISR stays as it was.
 */
class LeaderElectionTest {
    static List<Integer> list(final String cell) {
        if (cell == null || cell.isBlank()) {
            return List.of();
        }
        return Arrays.stream(cell.trim().split(" +")).map(Integer::valueOf).toList();
    }

    static Set<Integer> set(final String cell) {
        return list(cell).stream().collect(Collectors.toSet());
    }

    @ParameterizedTest(name = "offline assignment=[{0}] isr=[{1}] live=[{2}] unclean={3} -> {4} [{5}] unclean={6}")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // assignment | isr    | live   | unclean | leader | new isr | recorded unclean
        "1 2 3        | 1 2 3  | 1 2 3  | false   | 1      | 1 2 3   | false",   // preferred replica first
        "1 2 3        | 1 2 3  | 2 3    | false   | 2      | 2 3     | false",   // dead members leave the ISR
        "1 2 3        | 3 1    | 1 2 3  | false   | 1      | 3 1     | false",   // assignment order, not ISR order
        "3 2 1        | 1 2 3  | 1 2 3  | false   | 3      | 1 2 3   | false",   // ISR order is kept
        "1 2 3        | 1 3    | 2 3    | false   | 3      | 3       | false",   // 2 is live but out of sync: skipped
        "1 2 3        | 1      | 2 3    | false   | -1     | 1       | false",   // whole ISR down, unclean off: none
        "1 2 3        | 1      | 2 3    | true    | 2      | 2       | true",    // unclean: first live replica
        "1 2 3        | 1      | 3      | true    | 3      | 3       | true",
        "1 2 3        | 1 2    |        | true    | -1     | 1 2     | false",   // nobody live at all
        "1 2 3        | 1 2    | 4 5    | true    | -1     | 1 2     | false",   // live brokers outside the assignment
        "1 2 3        | 2      | 1 2    | true    | 2      | 2       | false",   // clean wins when possible
        "1            | 1      | 1      | false   | 1      | 1       | false",
    })
    void offlineElection(final String assignment, final String isr, final String live, final boolean unclean,
        final int leader, final String newIsr, final boolean recordedUnclean) {
        final ElectionResult r = LeaderElection.offline(list(assignment), list(isr), set(live), unclean);
        assertEquals(new ElectionResult(leader, list(newIsr), recordedUnclean), r);
        assertEquals(leader >= 0, r.hasLeader());
    }

    @ParameterizedTest(name = "reassign target=[{0}] isr=[{1}] live=[{2}] -> {3}")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // target  | isr       | live      | leader | new isr
        "4 5 6     | 1 2 3 4 5 6 | 1 2 3 4 5 6 | 4    | 1 2 3 4 5 6",
        "4 5 6     | 1 2 3 5   | 1 2 3 4 5 | 5      | 1 2 3 5",      // 4 out of sync, 5 next in target order
        "4 5 6     | 1 2 3 4   | 1 2 3 5 6 | -1     | 1 2 3 4",      // only target ISR member is dead
        "4 5 6     | 1 2 3     | 1 2 3     | -1     | 1 2 3",        // old replicas never lead
        "6 5 4     | 4 5 6     | 4 5 6     | 6      | 4 5 6",
    })
    void reassignmentElection(final String target, final String isr, final String live, final int leader,
        final String newIsr) {
        assertEquals(new ElectionResult(leader, list(newIsr), false),
            LeaderElection.reassignment(list(target), list(isr), set(live)));
    }

    @ParameterizedTest(name = "preferred assignment=[{0}] isr=[{1}] live=[{2}] -> {3}")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // assignment | isr   | live  | leader | new isr
        "1 2 3        | 2 1 3 | 1 2 3 | 1      | 2 1 3",
        "1 2 3        | 2 3   | 1 2 3 | -1     | 2 3",     // head out of sync: no fallback to 2
        "1 2 3        | 1 2 3 | 2 3   | -1     | 1 2 3",   // head dead: no fallback
        "2 1 3        | 1 2 3 | 1 2 3 | 2      | 1 2 3",
        "             | 1     | 1     | -1     | 1",       // empty assignment
    })
    void preferredElection(final String assignment, final String isr, final String live, final int leader,
        final String newIsr) {
        assertEquals(new ElectionResult(leader, list(newIsr), false),
            LeaderElection.preferred(list(assignment), list(isr), set(live)));
    }

    @ParameterizedTest(name = "controlled shutdown assignment=[{0}] isr=[{1}] live=[{2}] down=[{3}] -> {4}")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // assignment | isr   | live  | shutting down | leader | new isr
        "1 2 3        | 1 2 3 | 1 2 3 | 1             | 2      | 2 3",
        "1 2 3        | 1 2 3 | 1 2 3 | 1 2           | 3      | 3",
        "1 2 3        | 1 2   | 1 2 3 | 1             | 2      | 2",      // 3 live but out of sync
        "1 2 3        | 1 3   | 1 3   | 1 3           | -1     | 1 3",    // everyone in sync is leaving: no change
        "1 2 3        | 1 2 3 | 1 2   | 1             | 2      | 2 3",    // 3 dead: not a leader, ISR filter only drops shutting-down
        "1 2 3        | 2 3   | 1 2 3 | 2             | 3      | 3",      // the leader need not be the one shutting down
        "1 2 3        | 1 2 3 | 1 2 3 |               | 1      | 1 2 3",
    })
    void controlledShutdownElection(final String assignment, final String isr, final String live,
        final String shuttingDown, final int leader, final String newIsr) {
        assertEquals(new ElectionResult(leader, list(newIsr), false),
            LeaderElection.controlledShutdown(list(assignment), list(isr), set(live), set(shuttingDown)));
    }

    /** The cases of Kafka's PartitionLeaderElectionAlgorithmsTest (3.9), leader only, as data. */
    @ParameterizedTest(name = "kafka {0}: assignment=[{1}] isr=[{2}] live=[{3}] -> {5}")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // rule     | assignment | isr | live | unclean or shutting down | leader
        "offline    | 2 4        | 2 4 | 4    | false | 4",
        "offline    | 2 4        | 2   | 4    | false | -1",
        "offline    | 2 4        | 2   | 4    | true  | 4",
        "reassign   | 2 4        | 2 4 | 4    |       | 4",
        "reassign   | 2 4        | 2   |      |       | -1",
        "reassign   | 2 4        |     | 2    |       | -1",
        "preferred  | 2 4        | 2 4 | 2 4  |       | 2",
        "preferred  | 2 4        | 2   |      |       | -1",
        "preferred  | 2 4        | 4   | 2 4  |       | -1",
        "preferred  | 2 4        |     |      |       | -1",
        "shutdown   | 2 4        | 2 4 | 2 4  | 2     | 4",
        "shutdown   | 2 4        | 2   | 2 4  | 2     | -1",
        "shutdown   | 2 4        | 2 4 | 2 4  | 2 4   | -1",
    })
    void kafkasAlgorithmTestCases(final String rule, final String assignment, final String isr, final String live,
        final String extra, final int leader) {
        final ElectionResult r = switch (rule) {
            case "offline" -> LeaderElection.offline(list(assignment), list(isr), set(live), Boolean.parseBoolean(extra));
            case "reassign" -> LeaderElection.reassignment(list(assignment), list(isr), set(live));
            case "preferred" -> LeaderElection.preferred(list(assignment), list(isr), set(live));
            case "shutdown" -> LeaderElection.controlledShutdown(list(assignment), list(isr), set(live), set(extra));
            default -> throw new IllegalArgumentException("rule=" + rule);
        };
        assertEquals(leader, r.leader());
        // Kafka counts an unclean election only for the offline rule when no ISR member was live.
        assertEquals(rule.equals("offline") && leader >= 0 && !list(isr).contains(leader), r.unclean());
    }

    @ParameterizedTest(name = "new partition assignment=[{0}] live=[{1}] -> {2} [{3}]")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        "1 2 3 | 1 2 3 | 1  | 1 2 3",
        "1 2 3 | 3 2   | 2  | 2 3",
        "1 2 3 | 4     | -1 | ",
    })
    void newPartitionElection(final String assignment, final String live, final int leader, final String isr) {
        assertEquals(new ElectionResult(leader, list(isr), false),
            LeaderElection.newPartition(list(assignment), set(live)));
    }

    @ParameterizedTest(name = "remove {2} from leader={0} isr=[{1}] -> leader={3} isr=[{4}]")
    @CsvSource(delimiter = '|', nullValues = "", value = {
        // leader | isr   | replica | new leader | new isr
        "1        | 1 2 3 | 2       | 1          | 1 3",
        "1        | 1 2 3 | 1       | -1         | 2 3",
        "1        | 1     | 1       | -1         | 1",    // last replica standing: the ISR is never emptied
        "-1       | 3     | 3       | -1         | 3",
        "2        | 2 3   | 3       | 2          | 2",
    })
    void offlineReplicaLeavesIsrButNeverEmptiesIt(final int leader, final String isr, final int replica,
        final int newLeader, final String newIsr) {
        final LeaderAndIsr current = new LeaderAndIsr(leader, 4, list(isr), 9);
        final LeaderAndIsr next = LeaderElection.removeFromIsr(current, replica).orElseThrow();
        assertEquals(new LeaderAndIsr(newLeader, 5, list(newIsr), 9), next);
        assertFalse(next.isr().isEmpty());
    }

    @Test
    void removingAReplicaOutsideTheIsrWritesNothing() {
        assertEquals(Optional.empty(), LeaderElection.removeFromIsr(new LeaderAndIsr(1, 0, List.of(1, 2), 0), 3));
    }

    @Test
    void successiveLossesNeverEmptyTheIsr() {
        LeaderAndIsr state = new LeaderAndIsr(1, 0, List.of(1, 2, 3), 0);
        for (final int dead : new int[] {1, 2, 3}) {
            state = LeaderElection.removeFromIsr(state, dead).orElse(state);
        }
        assertEquals(List.of(3), state.isr());
        assertEquals(LeaderAndIsr.NO_LEADER, state.leader());
        // With the whole ISR dead and unclean off, nobody can lead; broker 3 returning leads again.
        assertFalse(LeaderElection.offline(List.of(1, 2, 3), state.isr(), Set.of(1, 2), false).hasLeader());
        assertEquals(3, LeaderElection.offline(List.of(1, 2, 3), state.isr(), Set.of(1, 2, 3), false).leader());
    }

    @Test
    void everyElectionRaisesTheLeaderEpochEvenForTheSameLeader() {
        final LeaderAndIsr current = new LeaderAndIsr(1, 7, List.of(1, 2), 3);
        final ElectionResult same = LeaderElection.preferred(List.of(1, 2), List.of(1, 2), Set.of(1, 2));
        assertEquals(Optional.of(new LeaderAndIsr(1, 8, List.of(1, 2), 3)), same.applyTo(current));
        assertEquals(Optional.empty(), ElectionResult.none(List.of(1)).applyTo(current));
    }

    @Test
    void rejectsMalformedInputsNamingTheField() {
        final IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
            () -> LeaderElection.offline(List.of(1, 1), List.of(1), Set.of(1), false));
        assertTrue(dup.getMessage().startsWith("assignment="), dup.getMessage());
        final IllegalArgumentException neg = assertThrows(IllegalArgumentException.class,
            () -> LeaderElection.preferred(List.of(1), List.of(-1), Set.of(1)));
        assertTrue(neg.getMessage().startsWith("isr="), neg.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ElectionResult(3, List.of(1), false));
        assertThrows(IllegalArgumentException.class, () -> new ElectionResult(-1, List.of(1), true));
    }
}
