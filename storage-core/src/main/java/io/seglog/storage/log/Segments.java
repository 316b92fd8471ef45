package io.seglog.storage.log;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The segments of one partition log, oldest first (Kafka's {@code LogSegments}): the only owner of the array, which
 * is copy-on-write, so a reader binary-searches a stable snapshot without a lock while the writer rolls, truncates
 * and retires segments. Every change publishes a new array with one volatile write; the last segment is the
 * active one, and there is always one.
 *
 * <p>Threads: {@link #array()} and the lookups from any thread; every mutator from the log's writer only (under
 * its append lock). A segment taken out of the array is handed back to the caller, who closes, deletes or
 * retires it: the array never closes a file itself.
 */
public final class Segments {
    private final FileIO io;
    private final Path dir;
    /** Replaced by {@link #reconfigure} (writer only); read by the writer when it creates a segment. */
    private SegmentConfig config;
    private final LongSupplier rollJitterMs;
    private volatile LogSegment[] segments;

    /**
     * Takes the loaded segments.
     *
     * @param io           the file layer, for new segments
     * @param dir          the partition directory
     * @param config       the segment configuration
     * @param rollJitterMs each new segment's roll jitter
     * @param loaded       the open segments, oldest first; at least one
     */
    public Segments(final FileIO io, final Path dir, final SegmentConfig config, final LongSupplier rollJitterMs,
                    final List<LogSegment> loaded) {
        if (loaded.isEmpty()) {
            throw new IllegalArgumentException("a log has at least one segment (dir=" + dir + ")");
        }
        this.io = io;
        this.dir = dir;
        this.config = config;
        this.rollJitterMs = rollJitterMs;
        this.segments = loaded.toArray(new LogSegment[0]);
    }

    /**
     * Sets the configuration of the segments created from now on (a topic's configuration changed): existing
     * segments keep the index sizes, index interval and mapping they were created with, as in Kafka. Writer only.
     *
     * @param config the new segment configuration
     */
    public void reconfigure(final SegmentConfig config) {
        this.config = java.util.Objects.requireNonNull(config, "config");
    }

    /**
     * The current segments, oldest first: a snapshot that never changes (the next change publishes a new array).
     * Callers must not modify it.
     *
     * @return the array
     */
    public LogSegment[] array() {
        return segments;
    }

    /**
     * The active (last) segment.
     *
     * @return the segment appends go to
     */
    public LogSegment active() {
        final LogSegment[] segs = segments;
        return segs[segs.length - 1];
    }

    /**
     * The oldest segment.
     *
     * @return the first segment
     */
    public LogSegment first() {
        return segments[0];
    }

    /**
     * The base offsets of the current segments, oldest first.
     *
     * @return a new array
     */
    public long[] baseOffsets() {
        final LogSegment[] segs = array();
        final long[] bases = new long[segs.length];
        for (int i = 0; i < segs.length; i++) {
            bases[i] = segs[i].baseOffset();
        }
        return bases;
    }

    /**
     * The number of segments.
     *
     * @return at least 1
     */
    public int count() {
        return segments.length;
    }

    /**
     * The index of the last segment whose base offset is at most {@code offset}; 0 when it is below them all.
     *
     * @param segs   a snapshot from {@link #array()}
     * @param offset the offset
     * @return the index
     */
    public static int floorIndex(final LogSegment[] segs, final long offset) {
        int lo = 0;
        int hi = segs.length - 1;
        while (lo < hi) {
            final int mid = (lo + hi + 1) >>> 1;
            if (segs[mid].baseOffset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * The total size of the data files.
     *
     * @return bytes
     */
    public long sizeInBytes() {
        long total = 0;
        for (final LogSegment segment : segments) {
            total += segment.sizeInBytes();
        }
        return total;
    }

    /**
     * Rolls: the active segment becomes inactive (final time-index entry, trimmed indexes), a new empty segment at
     * {@code baseOffset} is created and its directory entry fsynced (its files must survive a power loss before
     * anything is acknowledged from them), then published as the active one. Writer only.
     *
     * @param baseOffset the new segment's base offset
     * @param nowMs      the time, the new segment's creation time
     * @return the new active segment
     * @throws IOException if a file operation fails
     */
    public LogSegment roll(final long baseOffset, final long nowMs) throws IOException {
        final LogSegment[] current = segments;
        current[current.length - 1].onBecomeInactive();
        final LogSegment created = LogSegment.create(io, dir, baseOffset, config, nowMs, rollJitterMs.getAsLong());
        io.fsyncDirectory(dir);
        final LogSegment[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = created;
        segments = next;
        return created;
    }

    /**
     * Takes the oldest {@code n} segments out (retention); at least one stays. Writer only.
     *
     * @param n how many, less than {@link #count()}
     * @return the segments taken out, oldest first, for the caller to retire
     */
    public LogSegment[] removeOldest(final int n) {
        final LogSegment[] current = segments;
        if (n <= 0 || n >= current.length) {
            throw new IllegalArgumentException("n=" + n + " must be in [1, " + current.length + ") (dir=" + dir + ")");
        }
        segments = Arrays.copyOfRange(current, n, current.length);
        return Arrays.copyOfRange(current, 0, n);
    }

    /**
     * Keeps the first {@code keep} segments and takes the rest out (truncation into an older segment). Writer only.
     *
     * @param keep how many stay, at least 1
     * @return the segments taken out, oldest first, for the caller to close and delete
     */
    public LogSegment[] keepFirst(final int keep) {
        final LogSegment[] current = segments;
        if (keep < 1 || keep > current.length) {
            throw new IllegalArgumentException("keep=" + keep + " must be in [1, " + current.length + "] (dir=" + dir
                + ")");
        }
        if (keep == current.length) {
            return new LogSegment[0];
        }
        segments = Arrays.copyOf(current, keep);
        return Arrays.copyOfRange(current, keep, current.length);
    }

    /**
     * Puts {@code replacement} in place of {@code group}, consecutive segments of the array below the active one
     * (the log cleaner's swap). Writer only.
     *
     * @param group       the segments replaced, oldest first, as taken from a snapshot
     * @param replacement the segment that holds what is left of them, with the group's base offset
     * @return false, changing nothing, when the group is no longer in the array as it was
     */
    public boolean replace(final LogSegment[] group, final LogSegment replacement) {
        final LogSegment[] current = segments;
        final int at = indexOf(current, group);
        if (at < 0) {
            return false;
        }
        final LogSegment[] next = new LogSegment[current.length - group.length + 1];
        System.arraycopy(current, 0, next, 0, at);
        next[at] = replacement;
        System.arraycopy(current, at + group.length, next, at + 1, current.length - at - group.length);
        segments = next;
        return true;
    }

    /**
     * Whether {@code group} is still in the array, consecutive and below the active segment.
     *
     * @param group segments, oldest first
     * @return true when {@link #replace} would find it
     */
    public boolean contains(final LogSegment[] group) {
        return indexOf(segments, group) >= 0;
    }

    private static int indexOf(final LogSegment[] current, final LogSegment[] group) {
        if (group.length == 0) {
            return -1;
        }
        for (int i = 0; i + group.length < current.length; i++) {
            if (current[i] == group[0]) {
                for (int j = 1; j < group.length; j++) {
                    if (current[i + j] != group[j]) {
                        return -1;
                    }
                }
                return i;
            }
        }
        return -1;
    }

    /**
     * Replaces every segment with one new empty segment at {@code baseOffset} (Kafka's
     * {@code truncateFullyAndStartAt}). A segment with that base offset is deleted first, since the new one takes its
     * file names; the new one is created and its directory entry fsynced before it is published, so an active
     * segment always exists. Writer only.
     *
     * @param baseOffset the new log start and end
     * @param nowMs      the time
     * @return the segments taken out (the one deleted first excluded), oldest first, for the caller to delete
     * @throws IOException if a file operation fails
     */
    public LogSegment[] replaceAllWith(final long baseOffset, final long nowMs) throws IOException {
        final LogSegment[] old = segments;
        int sameBase = -1;
        for (int i = 0; i < old.length; i++) {
            if (old[i].baseOffset() == baseOffset) {
                old[i].closeAndDelete(io);
                sameBase = i;
            }
        }
        final LogSegment created = LogSegment.create(io, dir, baseOffset, config, nowMs, rollJitterMs.getAsLong());
        io.fsyncDirectory(dir);
        segments = new LogSegment[] {created};
        if (sameBase < 0) {
            return old;
        }
        final LogSegment[] rest = new LogSegment[old.length - 1];
        for (int i = 0, j = 0; i < old.length; i++) {
            if (i != sameBase) {
                rest[j++] = old[i];
            }
        }
        return rest;
    }

    /**
     * Closes every segment, newest first, keeping every failure: trimmed and synced, or, when the log is offline,
     * abandoned without a sync (no fsync may follow a failed one). Close only.
     *
     * @param offline  whether the log went offline
     * @param earlier  a failure to add to, or null
     * @return the first failure with the others suppressed, or null
     */
    public Throwable closeAll(final boolean offline, final Throwable earlier) {
        Throwable failure = earlier;
        final LogSegment[] segs = segments;
        for (int i = segs.length - 1; i >= 0; i--) {
            try {
                if (offline) {
                    segs[i].abandon();
                } else {
                    segs[i].close();
                }
            } catch (final IOException | RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}
