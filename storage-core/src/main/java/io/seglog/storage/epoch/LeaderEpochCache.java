package io.seglog.storage.epoch;

import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;

/**
 * A partition's leader epochs and the first offset each wrote: Kafka's {@code LeaderEpochFileCache}.
 *
 * <p>Invariant: entries are in increasing epoch order and increasing start-offset order; {@link #assign}
 * keeps it by removing, from the end, every entry whose epoch or start offset is not below the new one.
 *
 * <p>Persistence: {@link #assign} writes the checkpoint synchronously when it changes the cache, so the file
 * never misses an epoch the log holds. {@link #truncateFromEnd} and {@link #truncateFromStart} only mark the
 * cache dirty, as Kafka flushes them asynchronously (an fsync on the follower's fetch path or under the log
 * lock costs too much); the caller runs {@link #flush} when it suits it (its scheduler, roll, close). A
 * checkpoint that still holds truncated entries after a crash is harmless: loading the log truncates the
 * cache to the recovered log end and log start again.
 *
 * <p>Storage is two primitive arrays, so the common call on the append path, {@link #assign} with the current
 * epoch, takes a read lock, compares and allocates nothing; queries allocate only their small result.
 *
 * <p>Thread-safe: a read-write lock guards the entries; queries run concurrently, changes exclusively. The
 * checkpoint is written under the read lock, so queries proceed during the fsync while changes wait.
 */
public final class LeaderEpochCache {
    /** Kafka's "no epoch" value. */
    public static final int UNDEFINED_EPOCH = -1;
    /** Kafka's "no offset" value in an epoch answer. */
    public static final long UNDEFINED_EPOCH_OFFSET = -1L;

    private static final int INITIAL_CAPACITY = 8;

    private final LeaderEpochCheckpointFile checkpoint;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private int[] epochs = new int[INITIAL_CAPACITY];          // guarded by lock
    private long[] startOffsets = new long[INITIAL_CAPACITY];  // guarded by lock
    private int size;                                          // guarded by lock
    private volatile boolean dirty;

    private LeaderEpochCache(final LeaderEpochCheckpointFile checkpoint) {
        this.checkpoint = checkpoint;
    }

    /**
     * Loads the cache from its checkpoint.
     *
     * @param checkpoint the partition's leader-epoch checkpoint
     * @return the cache, with the file's entries
     * @throws IOException                if the file cannot be read
     * @throws io.seglog.storage.checkpoint.CorruptCheckpointException if it is corrupt; the caller then starts
     *                                    from {@link #empty} and rebuilds the epochs from the log's batches
     */
    public static LeaderEpochCache load(final LeaderEpochCheckpointFile checkpoint) throws IOException {
        final LeaderEpochCache cache = new LeaderEpochCache(Objects.requireNonNull(checkpoint, "checkpoint"));
        for (final EpochEntry entry : checkpoint.read()) {
            // The strict reader guarantees the order; assigning keeps the invariant even if it did not.
            cache.assignLocked(entry.epoch(), entry.startOffset());
        }
        cache.dirty = false;
        return cache;
    }

    /**
     * An empty cache that will persist to this checkpoint on its first change; the file is not touched now.
     *
     * @param checkpoint the partition's leader-epoch checkpoint
     * @return the cache
     */
    public static LeaderEpochCache empty(final LeaderEpochCheckpointFile checkpoint) {
        return new LeaderEpochCache(Objects.requireNonNull(checkpoint, "checkpoint"));
    }

    /**
     * An empty cache that is never persisted (for a scratch copy, or to rebuild epochs before deciding).
     *
     * @return the cache
     */
    public static LeaderEpochCache inMemory() {
        return new LeaderEpochCache(null);
    }

    /**
     * Records that {@code epoch} started at {@code startOffset}, with Kafka's rules: nothing happens when the
     * epoch equals the latest one and the offset is not below its start (the usual call for every appended
     * batch); otherwise every entry from the end whose epoch is {@code >= epoch} or whose start offset is
     * {@code >= startOffset} is removed and the new entry appended, and the checkpoint is written.
     *
     * @param epoch       the leader epoch, zero or more
     * @param startOffset the offset of its first batch, zero or more
     * @return whether the cache changed
     * @throws IllegalArgumentException naming the values if either is negative
     * @throws IOException              if the checkpoint write fails; the cache has changed in memory and the
     *                                  caller must take the log directory offline
     */
    public boolean assign(final int epoch, final long startOffset) throws IOException {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("invalid leader epoch entry: epoch=" + epoch
                + ", startOffset=" + startOffset + " (both must be >= 0)");
        }
        // Fast path without the write lock: appends in the current epoch change nothing.
        lock.readLock().lock();
        try {
            if (!isUpdateNeeded(epoch, startOffset)) {
                return false;
            }
        } finally {
            lock.readLock().unlock();
        }
        return changeAndWriteCheckpoint(() -> assignLocked(epoch, startOffset));
    }

    /**
     * Assigns several entries in order, writing the checkpoint once if any changed the cache.
     *
     * @param entries the entries
     * @return whether the cache changed
     * @throws IOException if the checkpoint write fails
     */
    public boolean assign(final Collection<EpochEntry> entries) throws IOException {
        return changeAndWriteCheckpoint(() -> {
            boolean changed = false;
            for (final EpochEntry entry : entries) {
                changed |= assignLocked(entry.epoch(), entry.startOffset());
            }
            return changed;
        });
    }

    /**
     * Applies a change under the write lock and, if it changed anything, writes the checkpoint under the read
     * lock (a downgrade): queries may proceed while the file is written, other changes may not interleave.
     */
    private boolean changeAndWriteCheckpoint(final BooleanSupplier change) throws IOException {
        lock.writeLock().lock();
        try {
            if (!change.getAsBoolean()) {
                return false;
            }
            lock.readLock().lock();
        } finally {
            lock.writeLock().unlock();
        }
        try {
            writeCheckpoint();
        } finally {
            lock.readLock().unlock();
        }
        return true;
    }

    private boolean isUpdateNeeded(final int epoch, final long startOffset) {
        return size == 0 || epoch != epochs[size - 1] || startOffset < startOffsets[size - 1];
    }

    private boolean assignLocked(final int epoch, final long startOffset) {
        if (!isUpdateNeeded(epoch, startOffset)) {
            return false;
        }
        while (size > 0 && (epochs[size - 1] >= epoch || startOffsets[size - 1] >= startOffset)) {
            size--;
        }
        if (size == epochs.length) {
            epochs = Arrays.copyOf(epochs, size * 2);
            startOffsets = Arrays.copyOf(startOffsets, size * 2);
        }
        epochs[size] = epoch;
        startOffsets[size] = startOffset;
        size++;
        dirty = true;
        return true;
    }

    /**
     * The latest epoch, the one the log is being written in.
     *
     * @return the epoch, or {@link #UNDEFINED_EPOCH} when the cache is empty
     */
    public int latestEpoch() {
        lock.readLock().lock();
        try {
            return size == 0 ? UNDEFINED_EPOCH : epochs[size - 1];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The epoch before the latest one.
     *
     * @return the epoch, or {@link #UNDEFINED_EPOCH} when there are fewer than two entries
     */
    public int previousEpoch() {
        lock.readLock().lock();
        try {
            return size < 2 ? UNDEFINED_EPOCH : epochs[size - 2];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The largest known epoch below a given one.
     *
     * @param epoch the epoch
     * @return that epoch, or {@link #UNDEFINED_EPOCH} when there is none
     */
    public int previousEpoch(final int epoch) {
        lock.readLock().lock();
        try {
            final int higherOrEqual = ceilingIndex(epoch);
            return higherOrEqual == 0 ? UNDEFINED_EPOCH : epochs[higherOrEqual - 1];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The smallest known epoch above a given one.
     *
     * @param epoch the epoch
     * @return that epoch, or {@link #UNDEFINED_EPOCH} when there is none
     */
    public int nextEpoch(final int epoch) {
        lock.readLock().lock();
        try {
            final int higher = higherIndex(epoch);
            return higher == size ? UNDEFINED_EPOCH : epochs[higher];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The latest entry.
     *
     * @return it, or empty when the cache is empty
     */
    public Optional<EpochEntry> latestEntry() {
        lock.readLock().lock();
        try {
            return size == 0 ? Optional.empty() : Optional.of(entry(size - 1));
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The earliest entry.
     *
     * @return it, or empty when the cache is empty
     */
    public Optional<EpochEntry> earliestEntry() {
        lock.readLock().lock();
        try {
            return size == 0 ? Optional.empty() : Optional.of(entry(0));
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The entry of an epoch.
     *
     * @param epoch the epoch
     * @return its entry, or empty when the epoch is not in the cache
     */
    public Optional<EpochEntry> epochEntry(final int epoch) {
        lock.readLock().lock();
        try {
            final int index = Arrays.binarySearch(epochs, 0, size, epoch);
            return index < 0 ? Optional.empty() : Optional.of(entry(index));
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Answers OffsetsForLeaderEpoch (KIP-101, KIP-279): the largest known epoch at or below the requested one,
     * and where it ended in this log.
     * <ul>
     *   <li>requested {@link #UNDEFINED_EPOCH}: {@link EpochEnd#UNDEFINED};</li>
     *   <li>requested = latest epoch: (requested, {@code logEndOffset}), the epoch is still being written;</li>
     *   <li>requested above every known epoch (only possible when it is not the latest): undefined;</li>
     *   <li>requested below the first known epoch: (requested, start offset of the first epoch); the older
     *       data is gone and the follower must replicate from the leader's start;</li>
     *   <li>otherwise: (largest known epoch &lt;= requested, start offset of the next known epoch).</li>
     * </ul>
     *
     * @param requestedEpoch the epoch a follower or consumer asks about
     * @param logEndOffset   this log's end offset
     * @return the epoch and its end offset here
     */
    public EpochEnd endOffsetFor(final int requestedEpoch, final long logEndOffset) {
        if (requestedEpoch == UNDEFINED_EPOCH) {
            // A bootstrapping follower, or one on a message format without epochs.
            return EpochEnd.UNDEFINED;
        }
        lock.readLock().lock();
        try {
            if (size > 0 && epochs[size - 1] == requestedEpoch) {
                return new EpochEnd(requestedEpoch, logEndOffset);
            }
            final int higher = higherIndex(requestedEpoch);
            if (higher == size) {
                return EpochEnd.UNDEFINED;
            }
            if (higher == 0) {
                return new EpochEnd(requestedEpoch, startOffsets[0]);
            }
            return new EpochEnd(epochs[higher - 1], startOffsets[higher]);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The epoch that wrote an offset: the epoch of the last entry whose start offset is at or below it.
     *
     * @param offset the offset
     * @return the epoch, or {@link #UNDEFINED_EPOCH} when the offset is below every entry or the cache is empty
     */
    public int epochForOffset(final long offset) {
        lock.readLock().lock();
        try {
            // Start offsets increase strictly, so the floor entry by offset is Kafka's linear-scan answer.
            int low = 0;
            int high = size - 1;
            int found = -1;
            while (low <= high) {
                final int mid = (low + high) >>> 1;
                if (startOffsets[mid] <= offset) {
                    found = mid;
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
            return found < 0 ? UNDEFINED_EPOCH : epochs[found];
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Removes every entry whose start offset is at or above {@code endOffset} (after the log was truncated to
     * it). Does not write the checkpoint; see {@link #flush}.
     *
     * @param endOffset the new log end offset; a negative value changes nothing
     * @return whether entries were removed
     */
    public boolean truncateFromEnd(final long endOffset) {
        lock.writeLock().lock();
        try {
            if (endOffset < 0 || size == 0 || startOffsets[size - 1] < endOffset) {
                return false;
            }
            while (size > 0 && startOffsets[size - 1] >= endOffset) {
                size--;
            }
            dirty = true;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Removes the entries that start at or below {@code startOffset} (after the log start moved to it), keeping
     * the last of them with its start moved to {@code startOffset}: the epoch that wrote the new first offset
     * stays known. Exclusive: {@code truncateFromStart(6)} keeps an entry starting at 6. Does not write the
     * checkpoint; see {@link #flush}.
     *
     * @param startOffset the new log start offset
     * @return whether entries were removed or changed
     */
    public boolean truncateFromStart(final long startOffset) {
        lock.writeLock().lock();
        try {
            int removed = 0;
            while (removed < size && startOffsets[removed] <= startOffset) {
                removed++;
            }
            if (removed == 0) {
                return false;
            }
            final int keptEpoch = epochs[removed - 1];
            final int remaining = size - removed;
            System.arraycopy(epochs, removed, epochs, 1, remaining);
            System.arraycopy(startOffsets, removed, startOffsets, 1, remaining);
            epochs[0] = keptEpoch;
            startOffsets[0] = startOffset;
            size = remaining + 1;
            dirty = true;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The entries as they would be for a log holding only offsets in [{@code startOffset}, {@code endOffset}):
     * a copy truncated from the start (when {@code startOffset >= 0}) and from the end.
     *
     * @param startOffset the first offset, inclusive
     * @param endOffset   the end offset, exclusive
     * @return a new list
     */
    public List<EpochEntry> entriesInRange(final long startOffset, final long endOffset) {
        final LeaderEpochCache copy = inMemory();
        copy.restore(entries());
        if (startOffset >= 0) {
            copy.truncateFromStart(startOffset);
        }
        copy.truncateFromEnd(endOffset);
        return copy.entries();
    }

    private void restore(final List<EpochEntry> entries) {
        lock.writeLock().lock();
        try {
            for (final EpochEntry entry : entries) {
                assignLocked(entry.epoch(), entry.startOffset());
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * A snapshot of the entries.
     *
     * @return a new list in increasing epoch order
     */
    public List<EpochEntry> entries() {
        lock.readLock().lock();
        try {
            return snapshot();
        } finally {
            lock.readLock().unlock();
        }
    }

    private List<EpochEntry> snapshot() {
        final List<EpochEntry> entries = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            entries.add(entry(i));
        }
        return entries;
    }

    /**
     * The number of entries.
     *
     * @return the count
     */
    public int size() {
        lock.readLock().lock();
        try {
            return size;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Whether the cache has no entry.
     *
     * @return whether it is empty
     */
    public boolean isEmpty() {
        return size() == 0;
    }

    /** Removes every entry without writing the checkpoint (before a rebuild from the log). */
    public void clear() {
        lock.writeLock().lock();
        try {
            size = 0;
            dirty = true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Removes every entry and writes the (empty) checkpoint.
     *
     * @throws IOException if the write fails
     */
    public void clearAndFlush() throws IOException {
        changeAndWriteCheckpoint(() -> {
            size = 0;
            dirty = true;
            return true;
        });
    }

    /**
     * Whether the cache changed since the checkpoint was last written.
     *
     * @return whether a {@link #flush} would write
     */
    public boolean isDirty() {
        return dirty;
    }

    /**
     * Writes the checkpoint if the cache changed since it was last written (after truncations).
     *
     * @return whether it wrote
     * @throws IOException if the write fails; never retry it, take the log directory offline
     */
    public boolean flush() throws IOException {
        lock.readLock().lock();
        try {
            if (!dirty) {
                return false;
            }
            writeCheckpoint();
            return true;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Writes the current entries; the caller holds the read lock, so no change can interleave. */
    private void writeCheckpoint() throws IOException {
        if (checkpoint != null) {
            checkpoint.write(snapshot());
        }
        dirty = false;
    }

    private EpochEntry entry(final int index) {
        return new EpochEntry(epochs[index], startOffsets[index]);
    }

    /** Index of the first entry with epoch &gt; the given one, or size. */
    private int higherIndex(final int epoch) {
        final int index = Arrays.binarySearch(epochs, 0, size, epoch);
        return index >= 0 ? index + 1 : -index - 1;
    }

    /** Index of the first entry with epoch &gt;= the given one, or size. */
    private int ceilingIndex(final int epoch) {
        final int index = Arrays.binarySearch(epochs, 0, size, epoch);
        return index >= 0 ? index : -index - 1;
    }

    @Override
    public String toString() {
        return "LeaderEpochCache(" + (checkpoint == null ? "in memory" : checkpoint.file()) + ", " + entries() + ")";
    }
}
