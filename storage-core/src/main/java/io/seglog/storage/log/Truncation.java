package io.seglog.storage.log;

import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.BatchCursor;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Truncation of a partition log: within the log (Kafka's {@code UnifiedLog.truncateTo}, for a follower whose log
 * diverged) and fully ({@code truncateFullyAndStartAt}, for a follower whose fetch offset is out of the leader's
 * range). The order is what keeps readers safe: the new end is published before any file shrinks (with the
 * truncation count raised before and after, so a read in flight that runs into the shrink retries), then segments
 * go, then the cut; last, {@link #lowerEverythingTo} moves every offset the log keeps down to the new end in one
 * place. The recovery point is lowered (and a log manager's checkpoint written) before any file shrinks, and a full
 * truncation moves the checkpointed log start before the old segments go, so no crash in between leaves a log the
 * next open takes for one that lost data. The whole truncation runs while no flush runs, so a flush never forces a
 * file that is being closed.
 *
 * <p>Threads: the log's writer only (the caller holds the append lock).
 */
public final class Truncation {
    private static final Logger LOG = LoggerFactory.getLogger("io.seglog.storage.PartitionLog");

    private final Path dir;
    private final FileIO io;
    private final InstantSource time;
    /** Replaced by {@link #reconfigure}; read by the next truncation. */
    private volatile int segmentIndexBytes;
    private final Segments segments;
    private final LogEnd end;
    private final Durability durability;
    private final Watermarks watermarks;
    private final LeaderEpochCache epochs;
    private final Appender appender;
    private final Runnable recoveryPointLowered;
    private final Runnable logStartRaised;
    private final ProducerStateManager producers;
    private final BatchCursor cursor = new BatchCursor();

    /**
     * The owners a truncation cuts and lowers, in the order {@link #lowerEverythingTo} and the full truncation move
     * them: every piece of state a truncation changes belongs to one of these, and each changes its own.
     *
     * @param segments   the log's segments (kept, replaced)
     * @param end        the log's published end (the truncation count, the new end)
     * @param durability the log's flushed offset and durability waiters (lowered, failed above the end)
     * @param watermarks the log's start offset and high watermark (lowered, restarted)
     * @param epochs     the log's leader-epoch cache (truncated from the end, cleared)
     * @param appender   the log's append path (it caches the latest epoch, forgotten)
     * @param producers  the producer state: its snapshots above the new end go, and it is reloaded
     */
    public record Owners(Segments segments, LogEnd end, Durability durability, Watermarks watermarks,
                         LeaderEpochCache epochs, Appender appender, ProducerStateManager producers) {
    }

    /**
     * Creates the truncation of one log.
     *
     * @param dir                  the partition directory
     * @param io                   the file layer
     * @param time                 the clock
     * @param segmentIndexBytes    {@code segment.index.bytes}, the size the cut segment's indexes grow back to
     * @param owners               the owners a truncation cuts and lowers
     * @param recoveryPointLowered persists a lowered recovery point (a log manager's checkpoint write); runs before
     *                             any file shrinks
     * @param logStartRaised       persists a raised log start (a log manager's checkpoint write); runs before a full
     *                             truncation deletes the old segments
     */
    public Truncation(final Path dir, final FileIO io, final InstantSource time, final int segmentIndexBytes,
                      final Owners owners, final Runnable recoveryPointLowered, final Runnable logStartRaised) {
        this.dir = dir;
        this.io = io;
        this.time = time;
        this.segmentIndexBytes = segmentIndexBytes;
        this.segments = owners.segments();
        this.end = owners.end();
        this.durability = owners.durability();
        this.watermarks = owners.watermarks();
        this.epochs = owners.epochs();
        this.appender = owners.appender();
        this.recoveryPointLowered = recoveryPointLowered;
        this.logStartRaised = logStartRaised;
        this.producers = owners.producers();
    }

    /**
     * Sets {@code segment.index.bytes} for the next truncation (a topic's configuration changed).
     *
     * @param segmentIndexBytes the size a cut segment's indexes grow back to
     */
    public void reconfigure(final int segmentIndexBytes) {
        this.segmentIndexBytes = segmentIndexBytes;
    }

    /**
     * Removes every offset at or above {@code offset}, where {@code offset} lies within the log (at or above the
     * first segment's base and below the log end). A batch is never split: if {@code offset} falls inside one, the
     * whole batch goes.
     *
     * @param offset the requested new end
     * @return the new log end offset
     * @throws LogWriteException if a file operation fails; the log must go offline
     */
    public long truncateWithinLog(final long offset) throws LogWriteException {
        try {
            return durability.whileNoFlush(() -> {
                final LogSegment[] segs = segments.array();
                final int keep = Segments.floorIndex(segs, offset);
                final LogSegment segment = segs[keep];
                final boolean found = segment.reader().findBatchForTruncation(offset, segment.sizeInBytes(), cursor);
                final int position = found ? cursor.position() : segment.sizeInBytes();
                final long newEnd = found ? Math.min(offset, cursor.baseOffset()) : offset;
                // The recovery point drops to the new end on disk before any file shrinks: a crash in between must
                // not find a log that ends below its recovery point, which an open refuses as lost flushed data.
                lowerRecoveryPointTo(newEnd, segment.baseOffset());
                end.beginTruncation();
                end.publishTruncated(newEnd, segment, position);
                final LogSegment[] removed = segments.keepFirst(keep + 1);
                for (int i = removed.length - 1; i >= 0; i--) {
                    removed[i].closeAndDelete(io);
                }
                if (removed.length > 0) {
                    io.fsyncDirectory(dir);
                }
                final int dropped = segment.truncateTo(newEnd, segmentIndexBytes, cursor);
                epochs.truncateFromEnd(newEnd);
                lowerEverythingTo(newEnd, segment.baseOffset());
                // Kafka's truncateTo: the snapshots above the new end go and the state is rebuilt up to it.
                producers.truncateAndReload(segments.array(), watermarks.logStartOffset(), newEnd, time.millis());
                LOG.info("Truncated {} to offset {}: {} bytes of {} and {} later segments removed", dir, newEnd,
                    dropped, segment.logFile().getFileName(), removed.length);
                return newEnd;
            });
        } catch (final IOException | RuntimeException e) {
            throw new LogWriteException("truncation to offset=" + offset + " failed", e);
        }
    }

    /**
     * A truncation at or past the log end removes no record, but still drops the epoch entries that start at or above
     * it (Kafka's {@code UnifiedLog.truncateTo}: "we may have a conflicting epoch entry at the end of the log from the
     * leader"). Such an entry is a leader epoch this replica began as leader with no batch in it; left in place, a
     * follower would keep sending it as its last fetched epoch and the leader keep answering that the logs diverge
     * there.
     *
     * @param offset the requested new end, at or above the log end
     * @return whether the cache changed (and was written)
     * @throws LogWriteException if writing the checkpoint fails; the log must go offline
     */
    public boolean truncateEpochsAtEnd(final long offset) throws LogWriteException {
        try {
            if (!epochs.truncateFromEnd(offset)) {
                return false;
            }
            appender.forgetConfirmedEpoch();
            epochs.flush();
            LOG.info("Truncated {}'s leader epochs from offset {} (no record removed)", dir, offset);
            return true;
        } catch (final IOException | RuntimeException e) {
            throw new LogWriteException("truncating the leader-epoch cache from offset=" + offset + " failed", e);
        }
    }

    /**
     * Deletes every segment and restarts the log, empty, at {@code offset}: log start and log end both become it.
     * The new segment exists (and its directory entry is durable) before the old ones go, so an active segment
     * always exists; the leader-epoch cache is cleared.
     *
     * @param offset the new log start and end offset
     * @throws LogWriteException if a file operation fails; the log must go offline
     */
    public void truncateFullyAndStartAt(final long offset) throws LogWriteException {
        try {
            durability.whileNoFlush(() -> {
                lowerRecoveryPointTo(offset, offset);
                end.beginTruncation();
                final LogSegment[] old = segments.replaceAllWith(offset, time.millis());
                final LogSegment created = segments.active();
                watermarks.restartAt(offset);
                end.publishTruncated(offset, created, 0);
                // The checkpointed log start follows the new first segment before the old ones go, so an open never
                // finds a first segment above the checkpointed start (which it refuses as lost segments).
                logStartRaised.run();
                for (int i = old.length - 1; i >= 0; i--) {
                    old[i].closeAndDelete(io);
                }
                io.fsyncDirectory(dir);
                epochs.clear();
                lowerEverythingTo(offset, offset);
                producers.truncateFullyAndStartAt(offset);
                return null;
            });
        } catch (final IOException | RuntimeException e) {
            throw new LogWriteException("truncateFullyAndStartAt(" + offset + ") failed", e);
        }
        LOG.info("Truncated {} fully; the log restarts at offset {}", dir, offset);
    }

    /**
     * Moves every offset the log keeps down to {@code newEnd} after a truncation, in one place: the epoch cache is
     * written (its entries at or above the new end were dropped by the caller), the append path forgets the epoch
     * it cached, the high watermark and flushed offset drop to the new end, the durability waiters for removed
     * offsets fail, and a lowered recovery point is persisted before anything is appended again (otherwise a crash
     * that tears a batch appended after the truncation, below the old recovery point, reads as corruption).
     */
    private void lowerEverythingTo(final long newEnd, final long segmentBase) throws IOException {
        appender.forgetConfirmedEpoch();
        epochs.flush();
        watermarks.lowerTo(newEnd);
        lowerRecoveryPointTo(newEnd, segmentBase); // done before the cut already; a no-op here unless a flush raced
    }

    /** Lowers the flushed offset to {@code newEnd} and, when it dropped, persists the recovery point at once. */
    private void lowerRecoveryPointTo(final long newEnd, final long segmentBase) {
        if (durability.lowerTo(newEnd, segmentBase)) {
            recoveryPointLowered.run();
        }
    }
}
