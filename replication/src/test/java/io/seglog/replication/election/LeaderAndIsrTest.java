package io.seglog.replication.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaderAndIsrTest {
    @Test
    void newLeaderRaisesLeaderEpochAndKeepsPartitionEpoch() {
        final LeaderAndIsr s = LeaderAndIsr.initial(1, List.of(1, 2));
        assertEquals(new LeaderAndIsr(1, 0, List.of(1, 2), 0), s);
        assertEquals(new LeaderAndIsr(2, 1, List.of(2), 0), s.newLeader(2, List.of(2)));
        assertEquals(new LeaderAndIsr(1, 0, List.of(1), 0), s.newIsr(List.of(1)));
        assertEquals(new LeaderAndIsr(1, 0, List.of(1, 2), 6), s.withPartitionEpoch(6));
        assertTrue(s.hasLeader());
        assertFalse(s.newLeader(LeaderAndIsr.NO_LEADER, List.of(1)).hasLeader());
    }

    @Test
    void isrIsCopied() {
        final List<Integer> isr = new ArrayList<>(List.of(1, 2));
        final LeaderAndIsr s = new LeaderAndIsr(1, 0, isr, 0);
        isr.add(3);
        assertEquals(List.of(1, 2), s.isr());
        assertThrows(UnsupportedOperationException.class, () -> s.isr().add(4));
    }

    @Test
    void rejectsInvalidFieldsByName() {
        assertEquals("leader=-3 must be >= -2",
            assertThrows(IllegalArgumentException.class, () -> new LeaderAndIsr(-3, 0, List.of(), 0)).getMessage());
        assertEquals("leaderEpoch=-1 must be >= 0",
            assertThrows(IllegalArgumentException.class, () -> new LeaderAndIsr(1, -1, List.of(), 0)).getMessage());
        assertEquals("partitionEpoch=-1 must be >= 0",
            assertThrows(IllegalArgumentException.class, () -> new LeaderAndIsr(1, 0, List.of(), -1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LeaderAndIsr(1, 0, List.of(1, 1), 0));
        assertThrows(IllegalArgumentException.class, () -> new LeaderAndIsr(1, 0, null, 0));
        assertThrows(IllegalStateException.class,
            () -> new LeaderAndIsr(1, Integer.MAX_VALUE, List.of(1), 0).newLeader(1, List.of(1)));
    }
}
