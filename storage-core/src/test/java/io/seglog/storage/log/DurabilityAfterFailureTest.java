package io.seglog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.SegmentConfigs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed fsync is never followed by a flush that counts (FS-1, "fsyncgate"): a second flush that reaches the flush
 * lock before the owner takes the log offline, and whose own fsync would succeed, neither forces nor moves the
 * flushed offset, and no waiter completes. This is the interleaving that made {@code DurableAckPowerLossTest} fail on
 * a busy machine (the flushed offset moved from 38 to 40 after the failure).
 */
class DurabilityAfterFailureTest {
    @TempDir
    Path dir;

    @Test
    void aFlushAfterAFailedFsyncFailsAndCountsNothing() throws Exception {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LogConfig config = LogConfig.builder().build();
        try (LogSegment segment = LogSegment.create(io, dir, 0, SegmentConfigs.of(config), 0, 0)) {
            final Segments segments = new Segments(io, dir, SegmentConfigs.of(config), () -> 0, List.of(segment));
            // Group-commit rounds are queued, not run: the test runs the flushes itself.
            final List<Runnable> rounds = new java.util.ArrayList<>();
            final Durability durability = new Durability("t-0", 0, 0, () -> { }, rounds::add);
            final CompletableFuture<Long> waiter = durability.await(4);

            io.failNext(FaultInjectingFileIO.Op.FORCE);
            assertThrows(IOException.class, () -> durability.flush(segments, 5, 1));
            final int forcesAfterFailure = io.count(FaultInjectingFileIO.Op.FORCE);

            // Another flush gets in before the owner takes the log offline; the disk would now say yes.
            final IOException refused = assertThrows(IOException.class, () -> durability.flush(segments, 10, 2));
            assertTrue(refused.getMessage().contains("an earlier fsync of this log failed"), refused.getMessage());
            assertEquals(forcesAfterFailure, io.count(FaultInjectingFileIO.Op.FORCE), "nothing forced");
            assertEquals(0, durability.flushedOffset(), "nothing counted as flushed");
            assertThrows(IOException.class, () -> durability.flushOnClose(segments, 10));
            assertEquals(0, durability.flushedOffset());
            assertTrue(!waiter.isDone() || waiter.isCompletedExceptionally(), "no waiter told its offset is durable");
            if (waiter.isDone()) {
                assertThrows(ExecutionException.class, waiter::get);
            }
        }
    }
}
