package io.seglog.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link FileIO} for tests that wraps a real one ({@link FileIO#system()} by default) and can:
 * <ul>
 *   <li>fail the Nth call of a kind ({@link Op}), or every call from the Nth on, with an {@link IOException};
 *       calls are counted per kind from construction, failed calls included, so a test can also assert how
 *       many fsyncs were attempted (for example that a failed fsync was not retried);</li>
 *   <li>make a failed write torn: half of the bytes reach the file before the exception;</li>
 *   <li>record how long each file was at its last successful fsync, and {@link #loseUnsyncedData()}: cut
 *       every file written through it back to that length, as a power loss may.</li>
 * </ul>
 * Writes counted: {@code write} in all its forms, {@code transferFrom}, and a {@code transferTo} whose target
 * is one of our channels. Not counted: writes through a {@code map}ped buffer and {@code MappedByteBuffer.force};
 * the {@code map} call itself is counted (and can fail) as {@link Op#MAP}.
 *
 * <p>Power-loss model: a file keeps the bytes it had at its last successful {@code force}; a file that existed
 * before it was first opened here counts as synced at its length then; a file created here and never forced
 * is cut to zero bytes. Directory entries (creates, renames, deletes) are modelled as durable, and bytes
 * overwritten in place below the synced length are not reverted.
 *
 * <p>Thread-safe.
 */
public final class FaultInjectingFileIO implements FileIO {
    /** The kinds of call that are counted and can fail. */
    public enum Op {
        /** {@link FileIO#open}, whatever the options. */
        OPEN,
        /** A write on a channel returned by {@link FileIO#open}. */
        WRITE,
        /** {@link FileChannel#force} on a channel returned by {@link FileIO#open}. */
        FORCE,
        /** {@link FileIO#fsyncDirectory}. */
        FSYNC_DIRECTORY,
        /** {@link FileIO#atomicMove}. */
        ATOMIC_MOVE,
        /** {@link FileIO#deleteIfExists}. */
        DELETE,
        /** {@link FileChannel#map} on a channel returned by {@link FileIO#open} (segment tails, indexes). */
        MAP
    }

    private final FileIO delegate;
    private final Map<Op, Integer> calls = new EnumMap<>(Op.class);
    private final Map<Op, Set<Integer>> failAt = new EnumMap<>(Op.class);
    private final Map<Op, Integer> failFrom = new EnumMap<>(Op.class);
    private final Map<Path, Long> syncedBytes = new HashMap<>();
    private final List<String> journal = new ArrayList<>();
    private boolean tornWrites;
    private java.util.function.Consumer<Op> listener = op -> { };

    /** Wraps {@link FileIO#system()}. */
    public FaultInjectingFileIO() {
        this(FileIO.system());
    }

    /**
     * Wraps another file I/O.
     *
     * @param delegate the real file I/O
     */
    public FaultInjectingFileIO(final FileIO delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        for (final Op op : Op.values()) {
            calls.put(op, 0);
            failAt.put(op, new HashSet<>());
        }
    }

    /**
     * Makes the {@code nth} call of a kind (1-based, counted from construction) throw.
     *
     * @param op  the kind of call
     * @param nth the call number, at least 1
     * @return this
     */
    public synchronized FaultInjectingFileIO failOnCall(final Op op, final int nth) {
        if (nth < 1) {
            throw new IllegalArgumentException("nth=" + nth + " must be >= 1");
        }
        failAt.get(op).add(nth);
        return this;
    }

    /**
     * Makes the next call of a kind throw.
     *
     * @param op the kind of call
     * @return this
     */
    public synchronized FaultInjectingFileIO failNext(final Op op) {
        return failOnCall(op, calls.get(op) + 1);
    }

    /**
     * Makes every call of a kind from the {@code nth} on throw (a dead disk).
     *
     * @param op  the kind of call
     * @param nth the first failing call number, at least 1
     * @return this
     */
    public synchronized FaultInjectingFileIO failFromCall(final Op op, final int nth) {
        if (nth < 1) {
            throw new IllegalArgumentException("nth=" + nth + " must be >= 1");
        }
        failFrom.put(op, nth);
        return this;
    }

    /**
     * Chooses whether a failed write first writes half of its bytes (a torn write) or nothing.
     *
     * @param torn whether failed writes are torn
     * @return this
     */
    public synchronized FaultInjectingFileIO tornWrites(final boolean torn) {
        this.tornWrites = torn;
        return this;
    }

    /**
     * Tells a listener of every counted call that succeeds, after it is made (a simulation charges a slow disk's
     * latency to its node there).
     *
     * @param onCall the listener, called on the calling thread with this object's lock held
     * @return this
     */
    public synchronized FaultInjectingFileIO onCall(final java.util.function.Consumer<Op> onCall) {
        this.listener = java.util.Objects.requireNonNull(onCall, "onCall");
        return this;
    }

    /** Disarms every fault; counts and synced lengths are kept. */
    public synchronized void clearFaults() {
        failAt.values().forEach(Set::clear);
        failFrom.clear();
        tornWrites = false;
    }

    /**
     * How many calls of a kind were made, failed ones included.
     *
     * @param op the kind of call
     * @return the count
     */
    public synchronized int count(final Op op) {
        return calls.get(op);
    }

    /**
     * Every counted call in order, as {@code "<OP> <path>"} ({@code "ATOMIC_MOVE <source> -> <target>"}), with
     * {@code " FAILED"} appended to the ones that were made to fail.
     *
     * @return a copy of the journal
     */
    public synchronized List<String> journal() {
        return new ArrayList<>(journal);
    }

    /**
     * The length of each file written through this I/O at its last successful fsync.
     *
     * @return a copy, by absolute path
     */
    public synchronized Map<Path, Long> syncedLengths() {
        return new LinkedHashMap<>(syncedBytes);
    }

    /**
     * Simulates a power loss for the data: cuts every file written through this I/O back to its length at
     * its last successful fsync. Call it after closing the channels (the process "crashed").
     *
     * @return the files that were cut, with the number of bytes each lost
     * @throws IOException if a file cannot be truncated
     */
    public synchronized Map<Path, Long> loseUnsyncedData() throws IOException {
        final Map<Path, Long> lost = new LinkedHashMap<>();
        for (final Map.Entry<Path, Long> entry : syncedBytes.entrySet()) {
            final Path file = entry.getKey();
            if (!Files.isRegularFile(file)) {
                continue;
            }
            final long size = Files.size(file);
            if (size > entry.getValue()) {
                // The crash itself acts on the real file system, not through the wrapped I/O.
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    channel.truncate(entry.getValue());
                }
                lost.put(file, size - entry.getValue());
            }
        }
        return lost;
    }

    @Override
    public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
        final Path file = path.toAbsolutePath().normalize();
        final boolean writable = options.contains(StandardOpenOption.WRITE)
            || options.contains(StandardOpenOption.APPEND);
        synchronized (this) {
            record(Op.OPEN, file.toString());
            if (writable && !syncedBytes.containsKey(file)) {
                // Content that existed before this I/O first touched the file is taken as durable.
                final boolean keepsContent = Files.isRegularFile(file)
                    && !options.contains(StandardOpenOption.TRUNCATE_EXISTING);
                syncedBytes.put(file, keepsContent ? Files.size(file) : 0L);
            } else if (writable && options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
                // Pessimistic: after the truncation nothing of the file is known to be durable.
                syncedBytes.put(file, 0L);
            }
        }
        return new FaultInjectingFileChannel(this, delegate.open(path, options), file);
    }

    @Override
    public void fsyncDirectory(final Path directory) throws IOException {
        synchronized (this) {
            record(Op.FSYNC_DIRECTORY, directory.toAbsolutePath().normalize().toString());
        }
        delegate.fsyncDirectory(directory);
    }

    @Override
    public void atomicMove(final Path source, final Path target) throws IOException {
        final Path from = source.toAbsolutePath().normalize();
        final Path to = target.toAbsolutePath().normalize();
        synchronized (this) {
            record(Op.ATOMIC_MOVE, from + " -> " + to);
        }
        delegate.atomicMove(source, target);
        synchronized (this) {
            final Long synced = syncedBytes.remove(from);
            if (synced != null) {
                syncedBytes.put(to, synced);
            } else {
                syncedBytes.remove(to);
            }
        }
    }

    @Override
    public boolean deleteIfExists(final Path path) throws IOException {
        final Path file = path.toAbsolutePath().normalize();
        synchronized (this) {
            record(Op.DELETE, file.toString());
        }
        final boolean deleted = delegate.deleteIfExists(path);
        synchronized (this) {
            syncedBytes.remove(file);
        }
        return deleted;
    }

    @Override
    public void createDirectories(final Path directory) throws IOException {
        delegate.createDirectories(directory);
    }

    /** Counts a write; returns the fault to throw (after a torn prefix if {@link #tornWrites}) or null. */
    synchronized IOException writeFault(final Path file, final long bytes) {
        try {
            record(Op.WRITE, file + " " + bytes);
            return null;
        } catch (final IOException e) {
            return e;
        }
    }

    /** Counts a {@code map} call; throws when it is armed to fail. */
    synchronized void beforeMap(final Path file, final long position, final long size) throws IOException {
        record(Op.MAP, file + " " + position + "+" + size);
    }

    synchronized boolean tornWrites() {
        return tornWrites;
    }

    synchronized void beforeForce(final Path file) throws IOException {
        record(Op.FORCE, file.toString());
    }

    synchronized void afterForce(final Path file, final long size) {
        syncedBytes.put(file, size);
    }

    private void record(final Op op, final String what) throws IOException {
        final int call = calls.merge(op, 1, Integer::sum);
        final Integer from = failFrom.get(op);
        if (failAt.get(op).contains(call) || (from != null && call >= from)) {
            journal.add(op + " " + what + " FAILED");
            throw new IOException("injected fault: " + op + " call #" + call + " on " + what);
        }
        journal.add(op + " " + what);
        listener.accept(op);
    }
}
