package io.seglog.replication.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.EpochEndOffset;
import org.junit.jupiter.api.Test;

/** Kafka's {@code getOffsetTruncationState} (KIP-101, KIP-279), one row per case, and the KIP-279 case 3 numbers. */
class FollowerTruncationTest {
    private static FollowerTruncation.Result result(final long offset, final boolean complete) {
        return new FollowerTruncation.Result(offset, complete);
    }

    @Test
    void table() {
        assertEquals(result(7, true), FollowerTruncation.decide(EpochEndOffset.UNDEFINED, new EpochEndOffset(1, 3), 7),
            "the leader knows no such epoch: nothing is cut here (the fetch finds out)");
        assertEquals(result(5, true), FollowerTruncation.decide(new EpochEndOffset(-1, 5), EpochEndOffset.UNDEFINED, 7),
            "an old-protocol answer without an epoch: its offset");
        assertEquals(result(4, true), FollowerTruncation.decide(new EpochEndOffset(2, 4), new EpochEndOffset(2, 6), 7),
            "both know epoch 2: the smaller end");
        assertEquals(result(4, true), FollowerTruncation.decide(new EpochEndOffset(2, 6), new EpochEndOffset(2, 4), 7));
        assertEquals(result(3, true), FollowerTruncation.decide(new EpochEndOffset(2, 6), new EpochEndOffset(2, 6), 3),
            "never past the follower's own end");
        assertEquals(result(2, false), FollowerTruncation.decide(new EpochEndOffset(3, 6), new EpochEndOffset(1, 2), 7),
            "the follower does not know epoch 3: cut to the end of its largest epoch below and ask again");
        assertEquals(result(6, true), FollowerTruncation.decide(new EpochEndOffset(3, 6), EpochEndOffset.UNDEFINED, 7),
            "the follower knows nothing at or below: the leader's end");
    }

    /**
     * KIP-279 case 3: B holds 0:e1 and 1:e2 (cache {(1,0),(2,1)}, LEO 2); the new leader A holds 0:e1, 1:e1, 2:e1,
     * 3:e3 (cache {(1,0),(3,3)}). B asks about epoch 2; A answers (1, 3): the largest epoch at or below 2 is 1, which
     * ended at 3. B's end for epoch 1 is 1: it cuts to min(1, 3, 2) = 1 and re-fetches 1:e1 onwards.
     */
    @Test
    void kip279Case3() {
        final EpochEndOffset leaderAnswer = new EpochEndOffset(1, 3);
        final EpochEndOffset followerEndForEpoch1 = new EpochEndOffset(1, 1);
        assertEquals(result(1, true), FollowerTruncation.decide(leaderAnswer, followerEndForEpoch1, 2));
    }
}
