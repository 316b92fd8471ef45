package io.seglog.replication.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.example.DeliveryCheck.Read;
import io.seglog.replication.example.DeliveryCheck.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The quickstart's verdict rules, one case per rule and its neighbours. */
class DeliveryCheckTest {
    /** Records 0..n-1 read at offsets 0..n-1, all acknowledged at those offsets. */
    private static List<Read> reads(final int... ids) {
        final List<Read> out = new ArrayList<>();
        for (int offset = 0; offset < ids.length; offset++) {
            out.add(new Read(offset, ids[offset]));
        }
        return out;
    }

    private static Map<Integer, Long> acks(final long... idOffsetPairs) {
        final Map<Integer, Long> out = new HashMap<>();
        for (int i = 0; i < idOffsetPairs.length; i += 2) {
            out.put((int) idOffsetPairs[i], idOffsetPairs[i + 1]);
        }
        return out;
    }

    @Test
    void everyAcknowledgedRecordReadOnceInOrderIsExactlyOnce() {
        final Verdict v = DeliveryCheck.check(3, acks(0, 0, 1, 1, 2, 2), 0, reads(0, 1, 2));
        assertEquals(new Verdict(3, 3, 0, 3, 0, 0, 0, 0, 0, true, v.examples()), v);
        assertTrue(v.ok(true));
        assertTrue(v.ok(false));
        assertTrue(v.exactlyOnce());
        assertEquals("", v.problems(true));
    }

    @Test
    void anAcknowledgedRecordNotReadIsLost() {
        final Verdict v = DeliveryCheck.check(3, acks(0, 0, 1, 1, 2, 2), 0, reads(0, 1));
        assertEquals(1, v.lost());
        assertEquals(List.of(2), v.examples().get("lost"));
        assertFalse(v.ok(false));
        assertFalse(v.exactlyOnce());
        assertTrue(v.problems(false).contains("1 acknowledged records lost (e.g. ids [2])"), v.problems(false));
    }

    @Test
    void aRetriedCopyIsADuplicateThatOnlyAnIdempotentProducerFailsOn() {
        // Record 1 stored at offset 1, its answer lost, stored again at 2 by the retry that was acknowledged.
        final Verdict v = DeliveryCheck.check(3, acks(0, 0, 1, 2, 2, 3), 0, reads(0, 1, 1, 2));
        assertEquals(1, v.duplicates());
        assertEquals(0, v.lost());
        assertEquals(0, v.misplaced());
        assertTrue(v.orderKept());
        assertTrue(v.ok(false));
        assertFalse(v.ok(true));
        assertFalse(v.exactlyOnce());
        assertTrue(v.problems(true).contains("1 duplicates from an idempotent producer (e.g. ids [1])"),
            v.problems(true));
    }

    @Test
    void anAcknowledgementNamingAnotherRecordsOffsetIsMisplaced() {
        final Verdict v = DeliveryCheck.check(2, acks(0, 0, 1, 0), 0, reads(0, 1));
        assertEquals(1, v.misplaced());
        assertEquals(List.of(1), v.examples().get("misplaced"));
        assertFalse(v.ok(false));
    }

    @Test
    void aRecordReadBeforeOneSentEarlierBreaksTheOrder() {
        final Verdict v = DeliveryCheck.check(3, acks(0, 0, 2, 1, 1, 2), 0, reads(0, 2, 1));
        assertFalse(v.orderKept());
        assertEquals(List.of(1), v.examples().get("order"));
        assertFalse(v.ok(false));
        assertTrue(v.problems(false).contains("out of send order (first at id [1])"), v.problems(false));
    }

    @Test
    void aDuplicateOfAnEarlierRecordDoesNotBreakTheOrder() {
        // 0, 1, then the retry's copy of 1 after 2 was not sent yet: first copies 0, 1, 2 are in order.
        assertTrue(DeliveryCheck.check(3, acks(0, 0, 1, 2, 2, 3), 0, reads(0, 1, 1, 2)).orderKept());
        // A late copy of 0 after 2: still only a duplicate.
        final Verdict late = DeliveryCheck.check(3, acks(0, 0, 1, 1, 2, 2), 0, reads(0, 1, 2, 0));
        assertTrue(late.orderKept());
        assertEquals(1, late.duplicates());
    }

    @Test
    void unacknowledgedRecordsStoredAnywayAreNeitherLostNorDuplicates() {
        // Record 1's send failed (its answer went with the leader), yet it was stored.
        final Verdict v = DeliveryCheck.check(3, acks(0, 0, 2, 2), 1, reads(0, 1, 2));
        assertEquals(1, v.unacknowledgedRead());
        assertEquals(1, v.failed());
        assertEquals(2, v.acknowledged());
        assertEquals(0, v.lost());
        assertEquals(0, v.duplicates());
        assertTrue(v.ok(true));
        // A failed send that was not stored is not lost either: it was never acknowledged.
        assertTrue(DeliveryCheck.check(3, acks(0, 0, 2, 1), 1, reads(0, 2)).ok(true));
    }

    @Test
    void aRecordNeverSentIsUnknown() {
        final Verdict v = DeliveryCheck.check(2, acks(0, 0, 1, 1), 0, reads(0, 1, 7, -1));
        assertEquals(2, v.unknown());
        assertEquals(List.of(-1, 7), v.examples().get("unknown"));
        assertFalse(v.ok(false));
    }

    @Test
    void examplesAreCappedButCountsAreNot() {
        final Map<Integer, Long> acked = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            acked.put(i, (long) i);
        }
        final Verdict v = DeliveryCheck.check(20, acked, 0, List.of());
        assertEquals(20, v.lost());
        assertEquals(List.of(0, 1, 2, 3, 4), v.examples().get("lost"));
        assertEquals(DeliveryCheck.EXAMPLES, v.examples().get("lost").size());
    }
}
