package io.seglog.replication.policy;

import static io.seglog.replication.policy.FetchDivergence.Outcome.DIVERGING;
import static io.seglog.replication.policy.FetchDivergence.Outcome.OUT_OF_RANGE;
import static io.seglog.replication.policy.FetchDivergence.Outcome.READ;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.EpochEndOffset;
import org.junit.jupiter.api.Test;

/** Kafka's {@code Partition.readRecords} divergence check, one row per case. */
class FetchDivergenceTest {
    @Test
    void table() {
        // lastFetchedEpoch, fetchOffset, logStart, leader's end for that epoch -> outcome
        assertEquals(READ, FetchDivergence.decide(-1, 5, 0, EpochEndOffset.UNDEFINED), "no epoch: a plain read");
        assertEquals(READ, FetchDivergence.decide(3, 10, 0, new EpochEndOffset(3, 10)), "the current epoch");
        assertEquals(READ, FetchDivergence.decide(3, 8, 0, new EpochEndOffset(3, 10)), "behind within the epoch");
        assertEquals(DIVERGING, FetchDivergence.decide(3, 12, 0, new EpochEndOffset(3, 10)),
            "the follower holds epoch 3 past where the leader's ended");
        assertEquals(DIVERGING, FetchDivergence.decide(3, 8, 0, new EpochEndOffset(2, 6)),
            "the leader never had epoch 3");
        assertEquals(OUT_OF_RANGE, FetchDivergence.decide(3, 8, 0, EpochEndOffset.UNDEFINED),
            "an epoch newer than any the leader knows");
        assertEquals(OUT_OF_RANGE, FetchDivergence.decide(3, 8, 9, new EpochEndOffset(3, 10)),
            "below the log start, whatever the epochs");
        assertEquals(OUT_OF_RANGE, FetchDivergence.decide(3, 12, 13, new EpochEndOffset(2, 6)),
            "below the log start wins over divergence");
    }
}
