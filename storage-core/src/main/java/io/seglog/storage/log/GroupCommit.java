package io.seglog.storage.log;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The durable-wait side of {@link Durability}: futures waiting for an offset to be fsynced, completed in groups so
 * that many appenders share one fsync (group commit).
 *
 * <p>Who fsyncs: with a scheduler (a log manager's), a waiter that finds no flush pending schedules one flush
 * task; the task reads the log end, fsyncs once and completes every waiter below the new flushed offset; waiters
 * that arrive during that fsync schedule the next one. Without a scheduler, the first waiter's own thread becomes
 * the flusher (inside the log's {@code awaitDurable}) and keeps flushing while waiters remain; other threads
 * register and return at once with a pending future that the flusher completes. Any flush (explicit,
 * {@code flush.messages}, {@code flush.ms}) completes the waiters it covers.
 *
 * <p>Failure: when the log goes offline every pending future fails with the owner's exception, and no future
 * completes normally afterwards.
 *
 * <p>Thread-safe: state is guarded by this object's monitor; futures are completed outside it.
 */
final class GroupCommit {
    private record Waiter(long offset, CompletableFuture<Long> future) {
    }

    private final String what;
    private final Durability durability;
    /** Runs one flush of the log; a failure takes the log offline, which fails the waiters through failAll. */
    private final Runnable flush;
    /** Runs a flush task soon; null: the first waiter's thread flushes. */
    private final Consumer<Runnable> scheduler;
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.offset, b.offset));
    private boolean flushing;
    private boolean flushScheduled;
    private RuntimeException failure;

    GroupCommit(final String what, final Durability durability, final Runnable flush,
                final Consumer<Runnable> scheduler) {
        this.what = what;
        this.durability = durability;
        this.flush = flush;
        this.scheduler = scheduler;
    }

    /** Returns a future for {@code offset}; may run flushes on the calling thread when no scheduler is attached. */
    CompletableFuture<Long> await(final long offset) {
        final long flushed = durability.flushedOffset();
        if (offset < flushed) {
            return CompletableFuture.completedFuture(flushed);
        }
        final CompletableFuture<Long> future = new CompletableFuture<>();
        final boolean lead;
        boolean schedule = false;
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
                    schedule = true;
                }
            } else {
                lead = !flushing;
                flushing = true;
            }
        }
        if (schedule) {
            try {
                scheduler.accept(this::scheduledRound);
            } catch (final RuntimeException e) {
                synchronized (this) {
                    flushScheduled = false;
                }
                failAll(new IllegalStateException("cannot schedule the group-commit flush of " + what + ": " + e, e),
                    false);
            }
        } else if (lead) {
            flushLoop();
        }
        // A flush that finished between the first check and the registration has completed us already.
        onFlushed(durability.flushedOffset());
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
            flush.run(); // completes waiters through onFlushed; a failure takes the log offline first
        } catch (final RuntimeException e) {
            failAll(e, true);
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
                + " was truncated (new logEndOffset=" + newEndOffset + ") of " + what));
        }
    }

    /** Fails every pending waiter and all later ones. */
    void failAll(final RuntimeException cause, final boolean permanent) {
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
}
