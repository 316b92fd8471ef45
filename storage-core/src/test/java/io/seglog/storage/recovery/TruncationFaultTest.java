package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.StorageException;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ST-07 for truncation: truncateTo and truncateFullyAndStartAt fail at every file operation they make in turn
 * (delete, fsync, directory fsync, checkpoint open/write/rename). The log goes offline; reopened after the
 * crash it holds a prefix of the original batches that ends at or after the truncation target (the operation
 * happened or it did not, or it stopped between whole steps), byte-identical, with matching leader epochs.
 */
class TruncationFaultTest extends ScratchDirTest {
    TruncationFaultTest() {
        super("truncation-faults");
    }

    @Test
    @Timeout(120)
    void aTruncationInterruptedAtAnyStepLeavesAConsistentPrefix() throws IOException {
        final LogImage original = LogImage.build(tmp.resolve("original"), SMALL_SEGMENTS, 21L, 40);
        final SplittableRandom random = new SplittableRandom(8);
        int failures = 0;
        int cases = 0;
        for (final FaultInjectingFileIO.Op op : FaultInjectingFileIO.Op.values()) {
            for (int nth = 1; nth <= 6; nth++) {
                final boolean full = random.nextInt(4) == 0;
                final LogImage.Batch cut = original.batches.get(1 + random.nextInt(original.batches.size() - 1));
                final long target = full ? 5_000 : cut.baseOffset();
                final Path dir = tmp.resolve(op + "-" + nth);
                LogImage.write(original.files, dir);
                final FaultInjectingFileIO io = new FaultInjectingFileIO();
                final PartitionLog log = PartitionLog.open(dir, SMALL_SEGMENTS, io, new ManualClock(0), new SplittableRandom(1),
                    RecoveryOptions.clean());
                io.failOnCall(op, io.count(op) + nth);
                final String context = (full ? "truncateFullyAndStartAt(" : "truncateTo(") + target + ") failing " + op
                    + " #" + nth;
                boolean failed = false;
                try {
                    if (full) {
                        log.truncateFullyAndStartAt(target);
                    } else {
                        log.truncateTo(target);
                    }
                } catch (final StorageException e) {
                    failed = true;
                    failures++;
                    assertThrows(StorageException.class, () -> log.truncateTo(0), context + ": offline after");
                }
                try {
                    log.close();
                } catch (final StorageException ignored) {
                    // An offline log may fail to close its files cleanly; the crash is what is tested.
                }
                try (PartitionLog reopened = PartitionLog.open(dir, SMALL_SEGMENTS, FileIO.system(), new ManualClock(0),
                    new SplittableRandom(1), RecoveryOptions.afterCrash(0))) {
                    final long end = reopened.logEndOffset();
                    if (full && end == target && reopened.logStartOffset() != target) {
                        // Interrupted after the new segment was made and before every old one went: the old segments
                        // hold valid batches and stay below it (an open never deletes valid data on a guess; a log
                        // manager's log-start checkpoint, moved before they go, hides them). What they serve is theirs.
                        assertTrue(failed, context + ": a completed full truncation leaves no old segment");
                        final LogImage.Batch first = original.batches.get(0);
                        assertEquals(first.baseOffset(), reopened.logStartOffset(), context);
                        assertEquals(first.baseOffset(), reopened.read(first.baseOffset(), 1, Long.MAX_VALUE, true)
                            .firstOffset(), context);
                    } else if (full && end == target) {
                        assertEquals(target, reopened.logStartOffset(), context);
                    } else {
                        assertTrue(failed || !full, context + ": a completed full truncation must hold");
                        assertTrue(end >= (full ? 0 : target) && end <= original.logEndOffset(), context + ": end " + end);
                        if (!failed) {
                            assertEquals(target, end, context);
                        }
                        original.assertServes(reopened, end, context);
                    }
                }
                cases++;
            }
        }
        assertTrue(failures > cases / 3, "most cases hit a fault: " + failures + " of " + cases);
    }
}
