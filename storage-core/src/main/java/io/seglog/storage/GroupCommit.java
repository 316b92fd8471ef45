package io.seglog.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * The durable-wait side of a {@link PartitionLog}: futures waiting for an offset to be fsynced, completed in
 * groups so that many appenders share one fsync (group commit).
 *
 * <p>Who fsyncs: with a {@link Scheduler} attached (a {@link LogManager} attaches its own), a waiter that finds
 * no flush pending schedules one flush task; the task reads the log end, fsyncs once and completes every
 * waiter below the new flushed offset; waiters that arrive during that fsync schedule the next one. Without a
 * scheduler, the first waiter's own thread becomes the flusher (inside {@link PartitionLog#awaitDurable}) and
 * keeps flushing while waiters remain; other threads register and return at once with a pending future that
 * the flusher completes. Any flush (explicit, {@code flush.messages}, {@code flush.ms}) completes the waiters
 * it covers. The fsync never runs under the append lock, so appends continue during it (KAFKA-9693).
 *
 * <p>Failure: when the log's directory goes offline every pending future fails with that
 * {@link StorageException}, and no future completes normally afterwards.
 *
 * <p>Thread-safe: state is guarded by this object's monitor; futures are completed outside it.
 */
final class GroupCommit {
    private record Waiter(long offset, CompletableFuture<Long> future) {
    }

    private final PartitionLog log;
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.offset, b.offset));
    private Scheduler scheduler;
    private boolean flushing;
    private boolean flushScheduled;
    private StorageException failure;
    /** Time of the last successful flush, -1 until the first flush.ms check starts the clock. */
    private volatile long lastFlushMs = -1;

    GroupCommit(final PartitionLog log) {
        this.log = log;
    }

    synchronized void attachScheduler(final Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Returns a future for {@code offset}; may run flushes on the calling thread when no scheduler is attached. */
    CompletableFuture<Long> await(final long offset) {
        final long flushed = log.flushedOffset();
        if (offset < flushed) {
            return CompletableFuture.completedFuture(flushed);
        }
        final CompletableFuture<Long> future = new CompletableFuture<>();
        final boolean lead;
        Scheduler schedule = null;
        synchronized (this) {
            if (failure != null) {
                future.completeExceptionally(failure);
                return future;
            }
            waiters.add(new Waiter(offset, future));
            if (scheduler != null) {
                lead = false;
                if (!flushScheduled) {
                    flushScheduled = true;
                    schedule = scheduler;
                }
            } else {
                lead = !flushing;
                flushing = true;
            }
        }
        if (schedule != null) {
            try {
                schedule.schedule("group-commit " + log.dir(), this::scheduledRound, 0, 0);
            } catch (final RuntimeException e) {
                synchronized (this) {
                    flushScheduled = false;
                }
                failAll(new StorageException("cannot schedule the group-commit flush: " + e, log.dir(), e), false);
            }
        } else if (lead) {
            flushLoop();
        }
        // A flush that finished between the first check and the registration has completed us already.
        onFlushed(log.flushedOffset());
        return future;
    }

    private void scheduledRound() {
        synchronized (this) {
            flushScheduled = false;
            if (waiters.isEmpty() || failure != null) {
                return;
            }
        }
        flushOnce();
    }

    private void flushLoop() {
        while (true) {
            flushOnce();
            synchronized (this) {
                if (waiters.isEmpty() || failure != null) {
                    flushing = false;
                    return;
                }
            }
        }
    }

    private void flushOnce() {
        try {
            log.flush(); // completes waiters through onFlushed
        } catch (final StorageException e) {
            failAll(e, true);
        } catch (final RuntimeException e) {
            failAll(new StorageException("group-commit flush failed: " + e, log.dir(), e), true);
        }
    }

    /** Completes every waiter below {@code flushedOffset}; called after each successful flush. */
    void onFlushed(final long flushedOffset) {
        List<Waiter> done = null;
        synchronized (this) {
            if (failure != null) {
                return;
            }
            while (!waiters.isEmpty() && waiters.peek().offset < flushedOffset) {
                if (done == null) {
                    done = new ArrayList<>();
                }
                done.add(waiters.poll());
            }
        }
        if (done != null) {
            for (final Waiter waiter : done) {
                waiter.future.complete(flushedOffset);
            }
        }
    }

    void markFlushed(final long nowMs) {
        lastFlushMs = nowMs;
    }

    /** The flush.ms rule: unflushed data exists and the last flush is at least {@code flushMs} old. */
    boolean isFlushDue(final long nowMs, final long flushMs) {
        if (lastFlushMs < 0) {
            lastFlushMs = nowMs; // the clock starts at the first check after open
            return false;
        }
        return log.logEndOffset() > log.flushedOffset() && nowMs - lastFlushMs >= flushMs;
    }

    /**
     * Fails the waiters for offsets at or above a truncation point: those offsets were removed and may be
     * reassigned to other records, so they must never be reported durable.
     */
    void onTruncated(final long newEndOffset) {
        final List<Waiter> failed = new ArrayList<>();
        synchronized (this) {
            waiters.removeIf(w -> {
                if (w.offset >= newEndOffset) {
                    failed.add(w);
                    return true;
                }
                return false;
            });
        }
        for (final Waiter waiter : failed) {
            waiter.future.completeExceptionally(new IllegalStateException("offset=" + waiter.offset
                + " was truncated (new logEndOffset=" + newEndOffset + ") of " + log.dir()));
        }
    }

    /** Fails every pending waiter and all later ones. */
    void failAll(final StorageException cause, final boolean permanent) {
        final List<Waiter> failed;
        synchronized (this) {
            if (permanent && failure == null) {
                failure = cause;
            }
            failed = new ArrayList<>(waiters);
            waiters.clear();
            if (permanent) {
                flushing = false;
            }
        }
        for (final Waiter waiter : failed) {
            waiter.future.completeExceptionally(cause);
        }
    }

    synchronized int pendingWaiters() {
        return waiters.size();
    }
}
