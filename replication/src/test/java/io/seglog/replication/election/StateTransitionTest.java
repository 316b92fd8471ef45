package io.seglog.replication.election;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every (from, to) pair of both state machines against an explicit matrix written out here, independently of the
 * production tables (rows = from, columns = to, in declaration order; 1 = valid).
 */
class StateTransitionTest {
    // Columns: NON_EXISTENT NEW ONLINE OFFLINE
    private static final int[][] PARTITION = {
        /* from NON_EXISTENT */ {0, 1, 0, 0},
        /* from NEW          */ {0, 0, 1, 1},
        /* from ONLINE       */ {0, 0, 1, 1},
        /* from OFFLINE      */ {1, 0, 1, 1},
    };

    // Columns: NEW ONLINE OFFLINE DEL_STARTED DEL_SUCCESSFUL DEL_INELIGIBLE NON_EXISTENT
    private static final int[][] REPLICA = {
        /* from NEW            */ {0, 1, 1, 0, 0, 0, 0},
        /* from ONLINE         */ {0, 1, 1, 0, 0, 0, 0},
        /* from OFFLINE        */ {0, 1, 1, 1, 0, 1, 0},
        /* from DEL_STARTED    */ {0, 0, 0, 0, 1, 1, 0},
        /* from DEL_SUCCESSFUL */ {0, 0, 0, 0, 0, 0, 1},
        /* from DEL_INELIGIBLE */ {0, 1, 1, 0, 0, 0, 0},
        /* from NON_EXISTENT   */ {1, 0, 0, 0, 0, 0, 0},
    };

    @Test
    void everyPartitionTransitionMatchesKafkasTable() {
        final PartitionState[] states = PartitionState.values();
        assertEquals(PARTITION.length, states.length, "the matrix must cover every state");
        final List<String> mismatches = new ArrayList<>();
        int valid = 0;
        for (int from = 0; from < states.length; from++) {
            for (int to = 0; to < states.length; to++) {
                final boolean expected = PARTITION[from][to] == 1;
                valid += expected ? 1 : 0;
                if (states[from].canTransitionTo(states[to]) != expected) {
                    mismatches.add(states[from] + "->" + states[to] + " expected valid=" + expected);
                }
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals(8, valid, "Kafka's partition table has 8 valid transitions");
    }

    @Test
    void everyReplicaTransitionMatchesKafkasTable() {
        final ReplicaState[] states = ReplicaState.values();
        assertEquals(REPLICA.length, states.length, "the matrix must cover every state");
        final List<String> mismatches = new ArrayList<>();
        int valid = 0;
        for (int from = 0; from < states.length; from++) {
            for (int to = 0; to < states.length; to++) {
                final boolean expected = REPLICA[from][to] == 1;
                valid += expected ? 1 : 0;
                if (states[from].canTransitionTo(states[to]) != expected) {
                    mismatches.add(states[from] + "->" + states[to] + " expected valid=" + expected);
                }
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals(14, valid, "Kafka's replica table has 14 valid transitions");
    }

    @Test
    void codesAreKafkas() {
        assertEquals(List.of(3, 0, 1, 2),
            java.util.Arrays.stream(PartitionState.values()).map(s -> (int) s.code()).toList());
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7),
            java.util.Arrays.stream(ReplicaState.values()).map(s -> (int) s.code()).toList());
    }
}
