package io.seglog.storage.recovery;

import static io.seglog.storage.AllocationTesting.allocatedBytes;
import static io.seglog.storage.AllocationTesting.directConcat;
import static io.seglog.storage.AllocationTesting.smallBatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The follower append path with the leader-epoch checks and assignment allocates nothing in steady state (the
 * epoch cache's fast path for the current epoch takes a read lock and compares).
 */
class FollowerAppendAllocationTest {
    private static final int BATCHES = 4;
    private static final int RECORDS = 8;

    @TempDir
    Path dir;

    @Test
    void followerAppendsAllocateNothingInSteadyState() {
        final ByteBuffer[] batches = smallBatches(BATCHES, RECORDS);
        final ByteBuffer append = directConcat(batches);
        final int batchSize = batches[0].remaining();
        try (PartitionLog log = PartitionLog.open(dir.resolve("follower-0"), LogConfig.defaults(), FileIO.system(),
            Clock.systemUTC())) {
            for (int i = 0; i < 20_000; i++) {
                appendNext(log, append, batchSize);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                appendNext(log, append, batchSize);
            }
            final long allocated = allocatedBytes() - before;
            System.out.println("FollowerAppendAllocationTest: " + allocated + " bytes allocated over 10000 follower"
                + " appends of " + (10_000L * BATCHES * RECORDS) + " records");
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            assertEquals(7, log.latestEpoch());
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes");
        }
    }

    /** Stamps the leader's offsets and epoch 7 into the batches (outside the CRC) and appends them. */
    private static void appendNext(final PartitionLog log, final ByteBuffer append, final int batchSize) {
        long next = log.logEndOffset();
        for (int p = 0; p < append.limit(); p += batchSize) {
            append.putLong(p, next);
            append.putInt(p + 12, 7);
            next += RECORDS;
        }
        log.appendAsFollower(append);
    }
}
