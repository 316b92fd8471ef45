package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.StorageException;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ST-16: the power-loss model of {@link FaultInjectingFileIO}. A log appends seeded batches through it, rolling
 * segments and flushing at random points; then the machine "loses power": no more fsync succeeds (so closing
 * cannot flush), the files are closed, and every file is cut back to its length at its last successful fsync.
 * Reopened after a crash with the last {@link PartitionLog#flushedOffset()} as recovery point, every batch below
 * that offset reads back byte-identical, the log end is at or above it, and no corruption is reported.
 * Several power losses hit the same directory in a row.
 */
class PowerLossTest extends ScratchDirTest {
    private static final LogConfig CONFIG = LogConfig.builder().segmentBytes(2_000).indexIntervalBytes(150)
        .segmentIndexBytes(2048).build();

    PowerLossTest() {
        super("power-loss");
    }

    private record Appended(long baseOffset, byte[] bytes) {
    }

    @Test
    @Timeout(120)
    void nothingReportedFlushedIsLostAtPowerLoss() throws IOException {
        long lostBytes = 0;
        int shortened = 0;
        int losses = 0;
        for (int round = 0; round < 40; round++) {
            final long seed = 4_000L + round;
            final SplittableRandom random = new SplittableRandom(seed);
            final Path dir = tmp.resolve("log-" + round);
            final List<Appended> oracle = new ArrayList<>();
            long recoveryPoint = 0;
            int lossesLeft = 1 + random.nextInt(3);
            while (lossesLeft-- > 0) {
                final FaultInjectingFileIO io = new FaultInjectingFileIO();
                final PartitionLog log = PartitionLog.open(dir, CONFIG, io, new ManualClock(0), new SplittableRandom(1),
                    RecoveryOptions.afterCrash(recoveryPoint));
                final String context = "seed " + seed + ", recovery point " + recoveryPoint;
                assertTrue(log.logEndOffset() >= recoveryPoint, context + ": log end " + log.logEndOffset());
                assertIdentical(log, oracle, recoveryPoint, context);
                assertEquals(0, log.recoveryReport().truncations().stream()
                    .filter(t -> t.reason() != RecoveryReport.Reason.TORN_TAIL).count(), context);
                // Forget what did not survive: the oracle continues from the recovered end.
                final long end = log.logEndOffset();
                oracle.removeIf(a -> a.baseOffset() >= end);
                final int appends = 5 + random.nextInt(40);
                for (int i = 0; i < appends; i++) {
                    final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(3)];
                    for (int r = 0; r < records.length; r++) {
                        records[r] = KafkaBatches.randomRecord(random, 1_000_000);
                    }
                    final ByteBuffer batch = KafkaBatches.batch(0, records);
                    final long base = log.logEndOffset();
                    log.appendAsLeader(batch, 1 + round % 3);
                    // appendAsLeader stamped the offset and epoch in place: these are the bytes on disk.
                    final byte[] bytes = new byte[batch.remaining()];
                    batch.duplicate().get(bytes);
                    oracle.add(new Appended(base, bytes));
                    if (random.nextInt(6) == 0) {
                        log.flush();
                        recoveryPoint = log.flushedOffset();
                    }
                }
                io.failFromCall(FaultInjectingFileIO.Op.FORCE, io.count(FaultInjectingFileIO.Op.FORCE) + 1);
                try {
                    log.close();
                } catch (final StorageException expected) {
                    // The failed fsync of the close: the power is already off.
                }
                final long endBeforeLoss = log.logEndOffset();
                final Map<Path, Long> lost = io.loseUnsyncedData();
                lostBytes += lost.values().stream().mapToLong(Long::longValue).sum();
                losses++;
                try (PartitionLog after = PartitionLog.open(dir, CONFIG, FileIO.system(), new ManualClock(0),
                    new SplittableRandom(1), RecoveryOptions.afterCrash(recoveryPoint))) {
                    assertTrue(after.logEndOffset() >= recoveryPoint, context);
                    if (after.logEndOffset() < endBeforeLoss) {
                        shortened++;
                    }
                }
            }
            try (PartitionLog log = PartitionLog.open(dir, CONFIG, FileIO.system(), new ManualClock(0),
                new SplittableRandom(1), RecoveryOptions.afterCrash(recoveryPoint))) {
                assertIdentical(log, oracle, recoveryPoint, "seed " + seed + ", final reopen");
            }
        }
        assertTrue(lostBytes > 0 && shortened > losses / 4, "the power losses must bite: lost " + lostBytes
            + " bytes, " + shortened + " of " + losses + " logs shortened");
        System.out.printf("PowerLossTest: %d power losses, %d bytes of unsynced data lost, %d logs shortened,"
            + " flushed data lost=0%n", losses, lostBytes, shortened);
    }

    private static void assertIdentical(final PartitionLog log, final List<Appended> oracle, final long durable,
                                        final String context) throws IOException {
        for (final Appended a : oracle) {
            if (a.baseOffset() >= durable) {
                break;
            }
            final LogSlice slice = log.read(a.baseOffset(), 1, Long.MAX_VALUE, true);
            final ByteBuffer read = KafkaBatches.bytesOf(slice);
            final byte[] bytes = new byte[read.remaining()];
            read.get(bytes);
            assertArrayEquals(a.bytes(), bytes, context + ": batch at " + a.baseOffset());
        }
    }
}
