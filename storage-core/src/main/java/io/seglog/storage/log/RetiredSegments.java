package io.seglog.storage.log;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Segments removed from a log and renamed {@code .deleted}, waiting for {@code file.delete.delay.ms} before their
 * files are closed and unlinked. The delay is what lets a reader that took a slice (or a segment array) before
 * the removal finish reading: the files stay open and readable under their new names until then (DESIGN §3.3).
 * A crash in between leaves {@code .deleted} files that recovery removes. The only owner of the pending list.
 *
 * <p>Failures are returned, not handled: a failed rename or unlink is an I/O failure, which the owner (the
 * partition log) turns into taking the log offline.
 *
 * <p>Thread-safe: the list is guarded by this object's monitor; unlinking happens outside it, while no flush
 * runs ({@link Durability#whileNoFlush}), so a flush that took its segment array before the removal never forces
 * a closed file.
 */
public final class RetiredSegments {
    /** The suffix Kafka gives files of a segment pending deletion. */
    public static final String DELETED_SUFFIX = ".deleted";

    private final FileIO io;
    private final Durability durability;

    private record Retired(LogSegment segment, Path logFile, long unlinkAtMs) {
    }

    private final List<Retired> pending = new ArrayList<>();

    /**
     * Creates an empty list.
     *
     * @param io         the file layer
     * @param durability the log's durability, whose flush lock an unlink holds
     */
    public RetiredSegments(final FileIO io, final Durability durability) {
        this.io = io;
        this.durability = durability;
    }

    /**
     * Renames the segment's files to {@code .deleted} (the indexes fsync the directory) and queues it.
     *
     * @param segment    a segment already taken out of the log's array
     * @param unlinkAtMs when its files may go
     * @return the renamed data file
     * @throws IOException if a rename fails
     */
    public Path retire(final LogSegment segment, final long unlinkAtMs) throws IOException {
        final Path log = segment.logFile();
        final Path deletedLog = log.resolveSibling(log.getFileName() + DELETED_SUFFIX);
        synchronized (this) {
            pending.add(new Retired(segment, deletedLog, unlinkAtMs));
        }
        // Index files before the data file: a crash in between leaves a segment without indexes (rebuilt at open),
        // never index files without their data file, which an open after a clean shutdown takes for a lost segment.
        final Path index = segment.offsetIndex().file();
        segment.offsetIndex().renameTo(index.resolveSibling(index.getFileName() + DELETED_SUFFIX));
        final Path timeIndex = segment.timeIndex().file();
        segment.timeIndex().renameTo(timeIndex.resolveSibling(timeIndex.getFileName() + DELETED_SUFFIX));
        final Path txnIndex = segment.txnIndex().file();
        segment.txnIndex().renameTo(txnIndex.resolveSibling(txnIndex.getFileName() + DELETED_SUFFIX));
        io.atomicMove(log, deletedLog);
        return deletedLog;
    }

    /**
     * Unlinks one retired segment if still pending (a scheduled task).
     *
     * @param segment the segment
     * @return the failure, or null
     * @throws IOException if waiting for the flush lock's action fails (never: the action returns failures)
     */
    public Throwable unlink(final LogSegment segment) throws IOException {
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
        if (found == null) {
            return null;
        }
        final Retired unlinked = found;
        return durability.whileNoFlush(() -> unlinkOne(io, unlinked, null));
    }

    /**
     * Unlinks every retired segment whose time has come (standalone logs, without a scheduler).
     *
     * @param nowMs the time
     * @throws LogWriteException if an unlink fails (the first failure, the others suppressed)
     */
    public void unlinkExpired(final long nowMs) throws LogWriteException {
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
        final Throwable failure;
        try {
            failure = durability.whileNoFlush(() -> {
                Throwable first = null;
                for (final Retired r : due) {
                    first = unlinkOne(io, r, first);
                }
                return first;
            });
        } catch (final IOException e) {
            throw new LogWriteException("unlink of deleted segments", e);
        }
        if (failure != null) {
            throw new LogWriteException("unlink of deleted segments", failure);
        }
    }

    /**
     * Unlinks everything pending (log close: readers have stopped).
     *
     * @param earlier a failure to add the new ones to, or null
     * @return the first failure with the others suppressed, or null
     * @throws IOException never (failures are returned)
     */
    public Throwable unlinkAll(final Throwable earlier) throws IOException {
        final List<Retired> all;
        synchronized (this) {
            all = new ArrayList<>(pending);
            pending.clear();
        }
        return durability.whileNoFlush(() -> {
            Throwable failure = earlier;
            for (final Retired r : all) {
                failure = unlinkOne(io, r, failure);
            }
            return failure;
        });
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
            r.segment.txnIndex().deleteIfExists();
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
