package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Segments removed from a log and renamed {@code .deleted}, waiting for {@code file.delete.delay.ms} before their
 * files are closed and unlinked. The delay is what lets a reader that took a {@link LogSlice} (or a segment
 * array) before the removal finish reading: the files stay open and readable under their new names until
 * then (DESIGN §3.3). A crash in between leaves {@code .deleted} files that recovery removes.
 *
 * <p>Thread-safe: the list is guarded by this object's monitor; unlinking happens outside it, under the log's
 * flush lock, so a flush that took its segment array before the removal never forces a closed file.
 */
final class RetiredSegments {
    /** The suffix Kafka gives files of a segment pending deletion. */
    static final String DELETED_SUFFIX = ".deleted";

    private record Retired(LogSegment segment, Path logFile, long unlinkAtMs) {
    }

    private final List<Retired> pending = new ArrayList<>();

    /**
     * Renames the segment's three files to {@code .deleted} (the indexes fsync the directory) and queues it.
     *
     * @return the renamed data file
     */
    Path retire(final FileIO io, final LogSegment segment, final long unlinkAtMs) throws IOException {
        final Path log = segment.logFile();
        final Path deletedLog = log.resolveSibling(log.getFileName() + DELETED_SUFFIX);
        synchronized (this) {
            pending.add(new Retired(segment, deletedLog, unlinkAtMs));
        }
        io.atomicMove(log, deletedLog);
        final Path index = segment.offsetIndex().file();
        segment.offsetIndex().renameTo(index.resolveSibling(index.getFileName() + DELETED_SUFFIX));
        final Path timeIndex = segment.timeIndex().file();
        segment.timeIndex().renameTo(timeIndex.resolveSibling(timeIndex.getFileName() + DELETED_SUFFIX));
        return deletedLog;
    }

    /** Unlinks one retired segment if still pending (a scheduled task). */
    void unlink(final FileIO io, final LogSegment segment, final PartitionLog owner) {
        Retired found = null;
        synchronized (this) {
            for (final Iterator<Retired> it = pending.iterator(); it.hasNext(); ) {
                final Retired r = it.next();
                if (r.segment == segment) {
                    found = r;
                    it.remove();
                    break;
                }
            }
        }
        if (found != null) {
            final Throwable failure;
            synchronized (owner.flushLock()) {
                failure = unlinkOne(io, found, null);
            }
            if (failure != null) {
                owner.goOffline("unlink of " + found.logFile, failure);
            }
        }
    }

    /** Unlinks every retired segment whose time has come (standalone logs, without a scheduler). */
    void unlinkExpired(final FileIO io, final long nowMs, final PartitionLog owner) {
        final List<Retired> due = new ArrayList<>();
        synchronized (this) {
            for (final Iterator<Retired> it = pending.iterator(); it.hasNext(); ) {
                final Retired r = it.next();
                if (r.unlinkAtMs <= nowMs) {
                    due.add(r);
                    it.remove();
                }
            }
        }
        Throwable failure = null;
        synchronized (owner.flushLock()) {
            for (final Retired r : due) {
                failure = unlinkOne(io, r, failure);
            }
        }
        if (failure != null) {
            throw owner.goOffline("unlink of deleted segments", failure);
        }
    }

    /** Unlinks everything pending (log close: readers have stopped); returns the first failure with others suppressed. */
    Throwable unlinkAll(final FileIO io, final Throwable earlier) {
        final List<Retired> all;
        synchronized (this) {
            all = new ArrayList<>(pending);
            pending.clear();
        }
        Throwable failure = earlier;
        for (final Retired r : all) {
            failure = unlinkOne(io, r, failure);
        }
        return failure;
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    private static Throwable unlinkOne(final FileIO io, final Retired r, final Throwable earlier) {
        Throwable failure = earlier;
        try {
            r.segment.offsetIndex().closeAndDelete();
        } catch (final IOException | RuntimeException e) {
            failure = add(failure, e);
        }
        try {
            r.segment.timeIndex().closeAndDelete();
        } catch (final IOException | RuntimeException e) {
            failure = add(failure, e);
        }
        try {
            r.segment.close();
        } catch (final IOException | RuntimeException e) {
            failure = add(failure, e);
        }
        try {
            io.deleteIfExists(r.logFile);
        } catch (final IOException | RuntimeException e) {
            failure = add(failure, e);
        }
        return failure;
    }

    private static Throwable add(final Throwable first, final Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
