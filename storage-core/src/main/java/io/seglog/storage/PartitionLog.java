package io.seglog.storage;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.epoch.EpochEndOffset;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.BatchHeaders;
import io.seglog.storage.segment.LogLoader;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: an ordered set of segments in one directory, byte-compatible with Kafka's
 * partition directories. Appends go to the last (active) segment, which rolls when it is full, old, its
 * indexes are full, or an offset would not fit its 32-bit relative indexes.
 *
 * <p>Appends: {@link #appendAsLeader} validates the batches as a producer's (Kafka's client rules), assigns
 * offsets in place from the log end offset, stamps the leader epoch and, with {@code LogAppendTime}, the
 * broker's time. {@link #appendAsFollower} keeps the leader's offsets and accepts only batches that continue
 * the log exactly. Either call is all-or-nothing: every batch is checked before the first byte is written,
 * and all batches go to one segment in one positional write.
 *
 * <p>Reads: {@link #read} returns a {@link LogSlice} of whole batches starting at the batch that contains the
 * requested offset and ending before an upper bound (the log end, or a high watermark the caller keeps).
 * {@link #offsetForTimestamp} finds the first offset whose timestamp is at least a target.
 *
 * <p>Threads: one appender at a time (appends, {@link #close}) — calls are serialised by a lock, so a second
 * appender waits rather than corrupts; any number of readers ({@link #read}, {@link #offsetForTimestamp},
 * the accessors) concurrently with it and with each other, without locks. The appender writes a batch's bytes
 * and index entries before it publishes the new log end (offset, segment, position) under a sequence
 * counter; a reader takes a consistent snapshot of that triple and never looks beyond it, so it sees no
 * partial batch and no byte past the published end, even while the log appends and rolls. {@link #flush} may
 * run on another thread. Readers must stop before {@link #close}.
 *
 * <p>Durability: {@link #flush}, {@link #flushedOffset}, {@link #awaitDurable} (group commit) and the
 * {@code flush.messages} policy; the fsync never runs under the append lock. Retention:
 * {@link #deleteOldSegments}, {@link #deleteRecordsBefore}, bounded by {@link #highWatermark}. A
 * {@link LogManager} adds the {@code flush.ms} policy, periodic retention and checkpoints (docs/log-manager.md).
 *
 * <p>Failures: an I/O error takes the log offline ({@link StorageException}); every later call fails, since a
 * failed write or fsync leaves the files in an unknown state and is never retried in place. A log opened by a
 * {@link LogManager} shares that state with every partition of its log directory.
 */
public final class PartitionLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final Path dir;
    private final LogConfig config;
    private final FileIO io;
    private final InstantSource time;
    private final RandomGenerator jitterRandom;
    private final ReentrantLock appendLock = new ReentrantLock();
    private final Object flushLock = new Object();

    /** Copy-on-write: replaced on roll, so a reader binary-searches a stable array without locking. */
    private volatile LogSegment[] segments;
    private volatile long logStartOffset;

    // The published log end: endSeq is odd while the appender rewrites the triple (a sequence lock).
    private volatile int endSeq;
    private volatile long endOffset;
    private volatile LogSegment endSegment;
    private volatile int endPosition;

    private volatile boolean closed;
    private volatile Throwable offlineCause;
    /** Offsets below this are on disk; guarded by flushLock for writes. */
    private volatile long flushedOffset;
    /** Segments with a base below this were fully flushed; guarded by flushLock. */
    private long flushedSegmentBase;

    // Durability, retention and the shared directory state (issue 3, LogManager side); logic in helper classes.
    private final GroupCommit groupCommit = new GroupCommit(this);
    private final RetiredSegments retired = new RetiredSegments();
    /** The high watermark as last set; read through {@link #highWatermark()}, which clamps it. */
    private volatile long highWatermark;
    /** The log directory's shared state when a LogManager opened this log; null for a standalone log. */
    private volatile LogDirFailure dirFailure;
    private volatile Scheduler scheduler;

    /** Counts truncations, raised before any file shrinks, so a read that ran into one can retry. */
    private volatile int truncations;
    /** The leader epochs and their start offsets, persisted in {@code leader-epoch-checkpoint}; set by open. */
    private LeaderEpochCache epochs;
    /** What opening the log repaired; set by open. */
    private RecoveryReport recoveryReport;

    // Appender-only state, reused for every append (allocation-free in steady state).
    private final UnsafeBuffer appendView = new UnsafeBuffer(0, 0);
    private final RecordBatch batchView = new RecordBatch();
    private final RecordBatchValidator leaderValidator;
    private final RecordBatchValidator followerValidator;

    private PartitionLog(final Path dir, final LogConfig config, final FileIO io, final InstantSource time,
                         final RandomGenerator jitterRandom, final List<LogSegment> loaded, final long logEndOffset) {
        this.dir = dir;
        this.config = config;
        this.io = io;
        this.time = time;
        this.jitterRandom = jitterRandom;
        this.segments = loaded.toArray(new LogSegment[0]);
        this.logStartOffset = this.segments[0].baseOffset();
        // The validator needs room for a header; a smaller max.message.bytes rejects every batch anyway.
        final int maxBatchBytes = Math.max(config.maxMessageBytes(), 61);
        this.leaderValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.CLIENT);
        this.followerValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.REPLICATION);
        final LogSegment active = this.segments[this.segments.length - 1];
        publishEnd(logEndOffset, active, active.sizeInBytes());
        // A clean reopen finds everything on disk (close flushes); crash recovery (issue 3) will set this from
        // the recovery-point checkpoint instead.
        this.flushedOffset = logEndOffset;
        this.flushedSegmentBase = active.baseOffset();
    }

    /**
     * Opens the log in {@code partitionDir}, creating the directory and a first empty segment at offset 0 when
     * it holds none. Roll jitter comes from an unseeded random source.
     *
     * @param partitionDir the partition directory, e.g. {@code <logDir>/<topic>-<partition>}
     * @param config       the configuration
     * @param io           the file layer
     * @param time         the clock, for log-append time and time-based rolls of batches without timestamps
     * @return the open log, owned by the caller
     * @throws StorageException if the directory or a segment cannot be opened
     */
    public static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                                    final InstantSource time) {
        return open(partitionDir, config, io, time, new SplittableRandom());
    }

    /**
     * Opens the log with an explicit source for the per-segment roll jitter (tests pass a seeded one). Without
     * a recovery point this cannot tell a clean shutdown from a crash, so it takes the safe path,
     * {@link RecoveryOptions#afterCrash afterCrash(0)}: every batch is CRC-checked, every index rebuilt and a
     * torn tail truncated (see {@link #recoveryReport()}). An embedder that knows its flushed offset and whether
     * it closed cleanly (a {@code LogManager} does) passes them to
     * {@link #open(Path, LogConfig, FileIO, InstantSource, long, boolean)}.
     *
     * @param partitionDir the partition directory
     * @param config       the configuration
     * @param io           the file layer
     * @param time         the clock
     * @param jitterRandom source of each segment's jitter in {@code [0, min(segment.jitter.ms, segment.ms))}
     * @return the open log, owned by the caller
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws StorageException if the directory or a segment cannot be opened
     */
    public static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                                    final InstantSource time, final RandomGenerator jitterRandom) {
        return open(partitionDir, config, io, time, jitterRandom, RecoveryOptions.afterCrash(0));
    }

    /**
     * Opens the log the way a log manager does: after a clean shutdown nothing is scanned; after a crash the
     * segments from the recovery point on are CRC-checked, torn tails truncated and corruption reported.
     *
     * @param partitionDir     the partition directory
     * @param config           the configuration
     * @param io               the file layer
     * @param time             the clock
     * @param recoveryPoint    offsets below it were flushed (the recovery-point checkpoint; 0 when unknown)
     * @param hadCleanShutdown whether the clean-shutdown marker was present
     * @return the open log, owned by the caller
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws StorageException if the directory or a segment cannot be opened
     */
    public static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                                    final InstantSource time, final long recoveryPoint,
                                    final boolean hadCleanShutdown) {
        return open(partitionDir, config, io, time, new SplittableRandom(),
            new RecoveryOptions(hadCleanShutdown, recoveryPoint, Long.MAX_VALUE));
    }

    /**
     * Opens the log with explicit recovery options (see {@link RecoveryOptions}) and jitter source.
     *
     * @param partitionDir the partition directory
     * @param config       the configuration
     * @param io           the file layer
     * @param time         the clock
     * @param jitterRandom source of each segment's jitter
     * @param recovery     clean shutdown or crash, recovery point, scan start
     * @return the open log, owned by the caller
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws StorageException if the directory or a segment cannot be opened
     */
    public static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                                    final InstantSource time, final RandomGenerator jitterRandom,
                                    final RecoveryOptions recovery) {
        Objects.requireNonNull(recovery, "recovery");
        Objects.requireNonNull(partitionDir, "partitionDir");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(jitterRandom, "jitterRandom");
        final ByteBuffer scratch = ByteBuffer.allocate(LogSlice.SCRATCH_BYTES);
        List<LogSegment> loaded = List.of();
        try {
            io.createDirectories(partitionDir);
            final long nowMs = time.millis();
            final LeaderEpochCheckpointFile checkpoint =
                new LeaderEpochCheckpointFile(io, partitionDir.resolve(LeaderEpochCheckpointFile.FILE_NAME));
            final LeaderEpochCache epochs = loadEpochs(checkpoint);
            final boolean rebuildEpochs = epochs.isEmpty();
            final LogLoader.Loaded result = LogLoader.load(io, partitionDir, config, nowMs,
                () -> jitter(config, jitterRandom), scratch, new LogLoader.Options(recovery.hadCleanShutdown(),
                    recovery.recoveryPoint(), recovery.scanFromOffset(), rebuildEpochs ? null : epochs));
            loaded = result.segments();
            if (loaded.isEmpty()) {
                loaded = List.of(LogSegment.create(io, partitionDir, 0, config, nowMs, jitter(config, jitterRandom)));
                io.fsyncDirectory(partitionDir);
                if (partitionDir.toAbsolutePath().getParent() != null) {
                    io.fsyncDirectory(partitionDir.toAbsolutePath().getParent());
                }
            }
            final LogSegment active = loaded.get(loaded.size() - 1);
            active.resizeIndexes(config.segmentIndexBytes());
            final long logEndOffset = active.readNextOffset(scratch);
            if (rebuildEpochs) {
                epochs.clear();
                epochs.assign(result.epochs().entries());
            }
            epochs.truncateFromEnd(logEndOffset);
            epochs.flush();
            final PartitionLog log = new PartitionLog(partitionDir, config, io, time, jitterRandom, loaded,
                logEndOffset);
            log.epochs = epochs;
            log.recoveryReport = result.report();
            return log;
        } catch (final IOException | RuntimeException e) {
            // After an I/O failure nothing may be synced again (the directory goes offline): abandon, not close.
            final boolean ioFailure = e instanceof IOException || e instanceof StorageException;
            for (int i = loaded.size() - 1; i >= 0; i--) {
                try {
                    if (ioFailure) {
                        loaded.get(i).abandon();
                        continue;
                    }
                    loaded.get(i).close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof StorageException) {
                throw (StorageException) e;
            }
            throw new StorageException("cannot open the log: " + e.getMessage(), partitionDir, e);
        }
    }

    /** The checkpoint's epochs; an empty cache (to be rebuilt from the batches) when it is missing or corrupt. */
    private static LeaderEpochCache loadEpochs(final LeaderEpochCheckpointFile checkpoint) throws IOException {
        // Existence is metadata, not file access; FileIO has no call for it.
        if (!Files.exists(checkpoint.file())) {
            return LeaderEpochCache.empty(checkpoint);
        }
        try {
            return LeaderEpochCache.load(checkpoint);
        } catch (final CorruptCheckpointException e) {
            LOG.warn("Rebuilding the leader epochs of {} from the batches: {}", checkpoint.file(), e.getMessage());
            return LeaderEpochCache.empty(checkpoint);
        }
    }

    private static long jitter(final LogConfig config, final RandomGenerator random) {
        // Kafka's LogConfig.randomSegmentJitter: uniform in [0, min(segment.jitter.ms, segment.ms)).
        return config.segmentJitterMs() == 0 ? 0 : random.nextLong(Math.min(config.segmentJitterMs(), config.segmentMs()));
    }

    /**
     * Appends batches from a producer as the partition leader. The region {@code [position, limit)} of
     * {@code batches} must be whole v2 batches; they are validated with Kafka's client rules (CRC, lengths,
     * {@code recordsCount == lastOffsetDelta + 1}, sequential record offset deltas, {@code max.message.bytes},
     * at most {@code segment.bytes}), then stamped in place: {@code baseOffset} from the log end offset on,
     * {@code partitionLeaderEpoch}, and with {@code LogAppendTime} the broker time (CRC recomputed). The
     * buffer's position and limit are unchanged. All-or-nothing.
     *
     * @param batches     the batches; modified in place
     * @param leaderEpoch the leader epoch to stamp, 0 or more
     * @return the last offset assigned
     * @throws InvalidRecordException naming the field, value, limit, batch and position of the first problem
     * @throws IllegalArgumentException if {@code batches} is empty or read-only, or the epoch is negative
     * @throws StorageException if the write fails (the log goes offline) or the log is closed or offline
     */
    public long appendAsLeader(final ByteBuffer batches, final int leaderEpoch) {
        final long lastOffset = appendAsLeaderLocked(batches, leaderEpoch);
        maybeFlushAfterAppend();
        return lastOffset;
    }

    private long appendAsLeaderLocked(final ByteBuffer batches, final int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        appendLock.lock();
        try {
            final int offset = batches.position();
            final int length = wrapForAppend(batches);
            leaderValidator.validate(appendView, offset, length);
            checkBatchSizes(offset, length);
            final int latestEpoch = epochs.latestEpoch();
            if (leaderEpoch < latestEpoch) {
                throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " is below the log's latest leader"
                    + " epoch " + latestEpoch + " (a fenced leader must not append)");
            }
            final long firstOffset = endOffset;
            final boolean logAppendTime = config.messageTimestampType() == LogConfig.TimestampType.LOG_APPEND_TIME;
            final long nowMs = logAppendTime ? time.millis() : -1;
            long next = firstOffset;
            long maxTimestamp = -1;
            for (int p = offset, end = offset + length; p < end; ) {
                final int size = BatchHeaders.sizeInBytes(appendView, p);
                BatchHeaders.stampOffsetAndEpoch(appendView, p, next, leaderEpoch);
                if (logAppendTime) {
                    batchView.wrap(appendView, p).setLogAppendTime(nowMs);
                }
                maxTimestamp = Math.max(maxTimestamp, BatchHeaders.maxTimestamp(appendView, p));
                next += BatchHeaders.lastOffsetDelta(appendView, p) + 1L;
                p += size;
            }
            assignEpoch(leaderEpoch, firstOffset);
            appendWithEpochs(batches, offset, length, firstOffset, next - 1, maxTimestamp);
            return next - 1;
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Appends batches replicated from the leader, keeping their offsets, epochs and timestamps. They are
     * validated with the replication rules (CRC, lengths, record structure; compacted batches with offset
     * gaps inside them are legal), and must continue the log exactly: the first batch's base offset equals
     * the log end offset and each further batch starts right after the previous one's last offset. A gap or
     * an overlap is refused (the follower must truncate or fetch from the right offset). All-or-nothing.
     *
     * @param batches the batches, not modified
     * @return the last offset appended
     * @throws InvalidRecordException for a malformed batch, or a batch that does not continue the log
     *                                ({@code field=baseOffset}, {@code limit} = the offset expected)
     * @throws IllegalArgumentException if {@code batches} is empty or read-only
     * @throws StorageException if the write fails (the log goes offline) or the log is closed or offline
     */
    public long appendAsFollower(final ByteBuffer batches) {
        final long lastOffset = appendAsFollowerLocked(batches);
        maybeFlushAfterAppend();
        return lastOffset;
    }

    private long appendAsFollowerLocked(final ByteBuffer batches) {
        appendLock.lock();
        try {
            final int offset = batches.position();
            final int length = wrapForAppend(batches);
            followerValidator.validate(appendView, offset, length);
            checkBatchSizes(offset, length);
            final long firstOffset = endOffset;
            long expected = firstOffset;
            long maxTimestamp = -1;
            int index = 0;
            int epoch = epochs.latestEpoch();
            for (int p = offset, end = offset + length; p < end; index++) {
                final long base = BatchHeaders.baseOffset(appendView, p);
                if (base != expected) {
                    throw new InvalidRecordException("baseOffset", base, expected, index, p,
                        (base < expected ? "batch overlaps" : "batch leaves a gap after")
                            + " the log (logEndOffset=" + firstOffset + "); a follower append must continue it");
                }
                final int batchEpoch = BatchHeaders.partitionLeaderEpoch(appendView, p);
                if (batchEpoch >= 0 && batchEpoch < epoch) {
                    throw new InvalidRecordException("partitionLeaderEpoch", batchEpoch, epoch, index, offset + p,
                        "leader epochs never decrease along a log; the follower must truncate first");
                }
                epoch = Math.max(epoch, batchEpoch);
                expected = BatchHeaders.lastOffset(appendView, p) + 1;
                maxTimestamp = Math.max(maxTimestamp, BatchHeaders.maxTimestamp(appendView, p));
                p += BatchHeaders.sizeInBytes(appendView, p);
            }
            for (int p = offset, end = offset + length; p < end; p += BatchHeaders.sizeInBytes(appendView, p)) {
                final int batchEpoch = BatchHeaders.partitionLeaderEpoch(appendView, p);
                if (batchEpoch >= 0) {
                    assignEpoch(batchEpoch, BatchHeaders.baseOffset(appendView, p));
                }
            }
            appendWithEpochs(batches, offset, length, firstOffset, expected - 1, maxTimestamp);
            return expected - 1;
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Records a new leader epoch before its first batch is written, so the checkpoint never misses an epoch the
     * log holds (recovery checks batches against it). A no-op without allocation in the current epoch.
     */
    private void assignEpoch(final int epoch, final long startOffset) {
        try {
            epochs.assign(epoch, startOffset);
        } catch (final IOException | RuntimeException e) {
            throw goOffline("writing the leader-epoch checkpoint failed", e);
        }
    }

    /**
     * Appends after the epochs were assigned; if the append is refused (an offset span no segment can hold),
     * the epochs assigned for it are taken back, so the cache never holds an epoch the log does not.
     */
    private void appendWithEpochs(final ByteBuffer batches, final int offset, final int length, final long firstOffset,
                                  final long lastOffset, final long maxTimestamp) {
        try {
            appendToActiveSegment(batches, offset, length, firstOffset, lastOffset, maxTimestamp);
        } catch (final InvalidRecordException refused) {
            if (epochs.truncateFromEnd(firstOffset)) {
                try {
                    epochs.flush();
                } catch (final IOException e) {
                    throw goOffline("writing the leader-epoch checkpoint failed", e);
                }
            }
            throw refused;
        }
    }

    private int wrapForAppend(final ByteBuffer batches) {
        ensureWritable();
        final int length = batches.remaining();
        if (length == 0) {
            throw new IllegalArgumentException("batches has no bytes (position=" + batches.position() + ", limit="
                + batches.limit() + ")");
        }
        if (batches.isReadOnly()) {
            throw new IllegalArgumentException("batches is a read-only buffer; appends stamp offsets in place");
        }
        // The whole buffer, so that positions in errors are positions in the caller's buffer.
        appendView.wrap(batches);
        return length;
    }

    /** Kafka's per-batch size guards, beyond the validator's max.message.bytes: a batch must fit a segment. */
    private void checkBatchSizes(final int offset, final int length) {
        int index = 0;
        for (int p = offset, end = offset + length; p < end; index++) {
            final int size = BatchHeaders.sizeInBytes(appendView, p);
            if (size > config.segmentBytes()) {
                throw new InvalidRecordException("batchSize", size, config.segmentBytes(), index, p,
                    "batch is larger than " + LogConfig.SEGMENT_BYTES_CONFIG);
            }
            p += size;
        }
    }

    private void appendToActiveSegment(final ByteBuffer source, final int offset, final int length,
                                       final long firstOffset, final long lastOffset, final long maxTimestamp) {
        if (lastOffset - firstOffset > Integer.MAX_VALUE) {
            throw new InvalidRecordException("lastOffset", lastOffset, firstOffset + Integer.MAX_VALUE, 0, offset,
                "an append spans more offsets than one segment's 32-bit relative offsets can hold");
        }
        LogSegment active = segments[segments.length - 1];
        try {
            final long nowMs = time.millis();
            final int newEntries = active.indexEntriesFor(appendView, offset, length);
            if (active.sizeInBytes() > 0
                && active.shouldRoll(config, length, maxTimestamp, lastOffset, newEntries, nowMs)) {
                active = roll(firstOffset, nowMs);
            }
            active.append(source, appendView, offset, length);
        } catch (final IOException | RuntimeException e) {
            throw goOffline("append of " + length + " bytes at offset=" + firstOffset + " failed", e);
        }
        publishEnd(lastOffset + 1, active, active.sizeInBytes());
    }

    /** The flush.messages rule, checked after the append lock is released so the fsync never blocks appends. */
    private void maybeFlushAfterAppend() {
        if (endOffset - flushedOffset >= config.flushMessages()) {
            flush();
        }
    }

    private LogSegment roll(final long newBaseOffset, final long nowMs) throws IOException {
        final LogSegment[] current = segments;
        final LogSegment old = current[current.length - 1];
        old.onBecomeInactive();
        final LogSegment created = LogSegment.create(io, dir, newBaseOffset, config, nowMs, jitter(config, jitterRandom));
        // The new segment's files must survive a power loss before anything is acknowledged from them.
        io.fsyncDirectory(dir);
        final LogSegment[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = created;
        segments = next;
        return created;
    }

    private void publishEnd(final long offset, final LogSegment segment, final int position) {
        final int seq = endSeq;
        endSeq = seq + 1;
        endOffset = offset;
        endSegment = segment;
        endPosition = position;
        endSeq = seq + 2;
    }

    /**
     * Reads whole batches from {@code startOffset}; see {@link #read(long, int, long, boolean, LogSlice)}.
     * Allocates the returned slice.
     *
     * @param startOffset        the first offset wanted
     * @param maxBytes           the most bytes to return (unless {@code minOneBatch} needs more)
     * @param maxOffsetExclusive the upper bound, e.g. a high watermark; {@link Long#MAX_VALUE} for the log end
     * @param minOneBatch        return the first batch whole even when it is larger than {@code maxBytes}
     * @return a new slice
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start or above the log end
     * @throws StorageException if the log is closed or offline, or a read fails
     */
    public LogSlice read(final long startOffset, final int maxBytes, final long maxOffsetExclusive,
                         final boolean minOneBatch) {
        return read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch, new LogSlice());
    }

    /**
     * Reads whole batches into a reusable slice, without allocating. The slice starts at the batch that
     * contains {@code startOffset} (or the first batch after it, if it falls in a gap), holds only batches
     * that lie entirely below {@code min(maxOffsetExclusive, logEndOffset)} and at most {@code maxBytes}
     * bytes, except that with {@code minOneBatch} the first batch is returned whole. It is empty when
     * {@code startOffset} is at or past the upper bound. Thread-safe; lock-free.
     *
     * @param startOffset        the first offset wanted, in {@code [logStartOffset, logEndOffset]}
     * @param maxBytes           the most bytes to return, 0 or more
     * @param maxOffsetExclusive the upper bound
     * @param minOneBatch        return the first batch whole even when it is larger than {@code maxBytes}
     * @param into               the slice to fill
     * @return {@code into}
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start or above the log end
     * @throws IllegalArgumentException if {@code maxBytes} is negative
     * @throws StorageException if the log is closed or offline, or a read fails
     */
    public LogSlice read(final long startOffset, final int maxBytes, final long maxOffsetExclusive,
                         final boolean minOneBatch, final LogSlice into) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be >= 0");
        }
        ensureReadable();
        final int truncationsAtStart = truncations;
        int seq;
        long endOff;
        LogSegment endSeg;
        int endPos;
        do {
            seq = endSeq;
            endOff = endOffset;
            endSeg = endSegment;
            endPos = endPosition;
            if ((seq & 1) != 0) {
                Thread.onSpinWait();
            }
        } while ((seq & 1) != 0 || seq != endSeq);
        final long startOff = logStartOffset;
        if (startOffset < startOff || startOffset > endOff) {
            throw new OffsetOutOfRangeException(dir.toString(), startOffset, startOff, endOff);
        }
        final long bound = Math.min(maxOffsetExclusive, endOff);
        if (startOffset >= bound) {
            into.setEmpty(startOffset);
            return into;
        }
        final LogSegment[] segs = segments;
        try {
            // The upper bound as a (segment, position): every batch before it lies wholly below the bound.
            final LogSegment boundSeg;
            final int boundPos;
            if (bound == endOff) {
                boundSeg = endSeg;
                boundPos = endPos;
            } else {
                boundSeg = segs[floorIndex(segs, bound)];
                // A truncation may have shrunk the segment since the snapshot: its size is lowered first.
                final int limit = boundSeg == endSeg ? Math.min(endPos, boundSeg.sizeInBytes())
                    : boundSeg.sizeInBytes();
                boundPos = boundSeg.batchStartAtOrAfter(bound, limit, into.scratch);
            }
            for (int i = floorIndex(segs, startOffset); i < segs.length; i++) {
                final LogSegment segment = segs[i];
                if (segment.baseOffset() > boundSeg.baseOffset()) {
                    break;
                }
                final int maxPosition = segment == boundSeg ? boundPos : segment.sizeInBytes();
                final long found = segment.translateOffset(startOffset, maxPosition, into.scratch);
                if (found < 0) {
                    continue; // startOffset is past this segment's last batch (a gap): try the next one
                }
                final int position = (int) (found >>> 32);
                final int firstSize = (int) found;
                final long firstOffset = LogSegment.scannedBaseOffset(into.scratch);
                final int available = maxPosition - position;
                final int length;
                if (available <= maxBytes) {
                    length = available;
                } else if (firstSize > maxBytes) {
                    length = minOneBatch ? firstSize : 0;
                } else {
                    length = segment.lastBatchEndWithin(position, position + maxBytes, into.scratch) - position;
                }
                if (length == 0) {
                    into.setEmpty(startOffset);
                } else {
                    into.set(segment.channel(), segment.baseOffset(), position, length, startOffset, firstOffset);
                }
                return into;
            }
        } catch (final IOException | StorageException e) {
            if (truncations != truncationsAtStart && !closed) {
                // The snapshot predates a truncation whose shrink this read ran into: read again from a fresh one.
                return read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch, into);
            }
            throw e instanceof IOException ? readFailure((IOException) e) : (StorageException) e;
        }
        into.setEmpty(startOffset);
        return into;
    }

    /** The index of the last segment whose base offset is at most {@code offset}; 0 when it is below them all. */
    private static int floorIndex(final LogSegment[] segs, final long offset) {
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
     * The first offset at or after the log start whose record timestamp is at least {@code timestampMs}
     * (Kafka's {@code ListOffsets} by timestamp). Timestamps need not be ordered: the answer is the earliest
     * such offset, found through each segment's largest timestamp and time index. Thread-safe; allocates a
     * small scratch buffer and, when it must read records, a buffer for one batch.
     *
     * @param timestampMs the target timestamp
     * @return the offset, or -1 when no record below the log end has such a timestamp
     * @throws StorageException if the log is closed or offline, or a read fails
     * @throws UnsupportedOperationException if the records of a compressed batch must be read
     */
    public long offsetForTimestamp(final long timestampMs) {
        ensureReadable();
        final int truncationsAtStart = truncations;
        int seq;
        long endOff;
        LogSegment endSeg;
        int endPos;
        do {
            seq = endSeq;
            endOff = endOffset;
            endSeg = endSegment;
            endPos = endPosition;
        } while ((seq & 1) != 0 || seq != endSeq);
        final long startOff = logStartOffset;
        final ByteBuffer scratch = ByteBuffer.allocate(LogSlice.SCRATCH_BYTES);
        try {
            for (final LogSegment segment : segments) {
                if (segment.baseOffset() > endSeg.baseOffset()) {
                    break;
                }
                if (segment.maxTimestampSoFar() < timestampMs) {
                    continue; // Kafka's rule: skip segments whose largest timestamp is below the target
                }
                final int maxPosition = segment == endSeg ? endPos : segment.sizeInBytes();
                final long found = segment.findOffsetByTimestamp(timestampMs, startOff, maxPosition, scratch);
                if (found >= 0 && found < endOff) {
                    return found;
                }
            }
        } catch (final IOException | StorageException e) {
            if (truncations != truncationsAtStart && !closed) {
                return offsetForTimestamp(timestampMs); // ran into a truncation's shrink: search again
            }
            throw e instanceof IOException ? readFailure((IOException) e) : (StorageException) e;
        }
        return -1;
    }

    /**
     * Forces every segment written since the last flush (data and indexes) to disk. May run on another thread
     * than the appender; does not block appends.
     *
     * @throws StorageException if an fsync fails: the log goes offline
     */
    public void flush() {
        ensureWritable();
        synchronized (flushLock) {
            final long end = endOffset;
            final LogSegment[] segs = segments;
            try {
                for (final LogSegment segment : segs) {
                    if (segment.baseOffset() >= flushedSegmentBase) {
                        segment.flush();
                    }
                }
            } catch (final IOException | RuntimeException e) {
                throw goOffline("flush failed", e);
            }
            flushedSegmentBase = segs[segs.length - 1].baseOffset();
            flushedOffset = Math.max(flushedOffset, end);
        }
        groupCommit.markFlushed(time.millis());
        groupCommit.onFlushed(flushedOffset);
    }

    /**
     * A future that completes once every offset up to and including {@code offset} is on disk (fsynced data
     * and indexes, and the directory entries of new segments), with the flushed offset (exclusive) at that
     * moment. Many waiters share one fsync (group commit). With a scheduler attached (logs opened by a
     * {@link LogManager}) the fsync runs on the scheduler and this call never blocks; for a standalone log the
     * first waiter's thread runs the fsync inside this call, and keeps running rounds while other threads'
     * waiters remain, while those threads return at once with pending futures.
     *
     * @param offset an offset below {@link #logEndOffset()}
     * @return the future; it fails with {@link StorageException} if the log directory goes offline or the log
     *     is closed first
     * @throws IllegalArgumentException if {@code offset} is negative or not below the log end offset
     * @throws StorageException if the log is closed or its directory is offline
     */
    public CompletableFuture<Long> awaitDurable(final long offset) {
        ensureWritable();
        final long end = endOffset;
        if (offset < 0 || offset >= end) {
            throw new IllegalArgumentException("offset=" + offset + " must be in [0, logEndOffset=" + end + ") of "
                + dir);
        }
        return groupCommit.await(offset);
    }

    /**
     * The high watermark: offsets below it are committed and never deleted by retention. Always within
     * {@code [logStartOffset, logEndOffset]}.
     *
     * @return the high watermark
     */
    public long highWatermark() {
        return Math.max(logStartOffset, Math.min(highWatermark, endOffset));
    }

    /**
     * Sets the high watermark, clamped to {@code [logStartOffset, logEndOffset]} (Kafka's
     * {@code updateHighWatermark}: it may move backwards, e.g. after a truncation). The log never advances it
     * by itself; a replication layer or a single-node embedder (with {@code logEndOffset()} or the durable
     * offset) sets it.
     *
     * @param offset the new high watermark
     * @return the value stored after clamping
     * @throws StorageException if the log is closed or its directory is offline
     */
    public long updateHighWatermark(final long offset) {
        ensureWritable();
        final long clamped = Math.max(logStartOffset, Math.min(offset, endOffset));
        highWatermark = clamped;
        return clamped;
    }

    /**
     * Raises the log start offset to {@code offset} (Kafka's DeleteRecords): reads below it fail with
     * {@link OffsetOutOfRangeException} at once, and every segment that lies wholly below it is deleted
     * (renamed {@code .deleted} now, unlinked after {@code file.delete.delay.ms}). Lower offsets are a no-op.
     *
     * @param offset the new log start offset, at most the high watermark
     * @return the log start offset afterwards
     * @throws OffsetOutOfRangeException if {@code offset} is above the high watermark
     * @throws StorageException if the log is closed, its directory is offline, or a rename fails (the
     *     directory then goes offline)
     */
    public long deleteRecordsBefore(final long offset) {
        ensureWritable();
        SegmentRetention.deleteRecordsBefore(this, offset, time.millis());
        return logStartOffset;
    }

    /**
     * Applies the retention rules once (Kafka's {@code deleteOldSegments}): segments wholly below the log
     * start offset, then the oldest while the log exceeds {@code retention.bytes}, or whose largest timestamp
     * is more than {@code retention.ms} old, are deleted, oldest first, never a segment that reaches the high
     * watermark. If every segment goes, an empty segment is rolled at the log end first. A {@link LogManager}
     * calls this on its scheduler; a standalone log's owner calls it. Also unlinks {@code .deleted} segments
     * whose delay has passed when no scheduler is attached.
     *
     * @return the number of segments deleted
     * @throws StorageException if the log is closed, its directory is offline, or a rename fails
     */
    public int deleteOldSegments() {
        ensureWritable();
        final long nowMs = time.millis();
        if (scheduler == null) {
            retired.unlinkExpired(io, nowMs, this);
        }
        return SegmentRetention.deleteOldSegments(this, nowMs, false);
    }

    // ---- package-private hooks for LogManager, SegmentRetention and GroupCommit (the logic lives there) ----

    /** Joins a LogManager's directory state and scheduler; called once right after open. */
    void attach(final LogDirFailure failure, final Scheduler sched) {
        this.dirFailure = failure;
        this.scheduler = sched;
        groupCommit.attachScheduler(sched);
        failure.onOffline(e -> groupCommit.failAll(e, true));
    }

    /** Restores the log start offset and high watermark read from the log directory's checkpoints. */
    void restoreOffsets(final long checkpointedLogStart, final long checkpointedHighWatermark) {
        appendLock.lock();
        try {
            final long first = segments[0].baseOffset();
            if (checkpointedLogStart > first) {
                logStartOffset = Math.min(checkpointedLogStart, endOffset);
            }
            highWatermark = Math.max(logStartOffset, Math.min(checkpointedHighWatermark, endOffset));
            if (checkpointedHighWatermark > endOffset || checkpointedLogStart > endOffset) {
                LOG.warn("Checkpointed offsets of {} lie beyond its log end {} (highWatermark={}, logStartOffset={});"
                    + " clamped to the log end", dir, endOffset, checkpointedHighWatermark, checkpointedLogStart);
            }
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * After an unclean shutdown, recovered data may still be only in the page cache: treat everything from
     * the checkpointed recovery point on as unflushed (Kafka keeps {@code min(checkpoint, LEO)}), so the next
     * flush fsyncs it and the recovery-point checkpoint never claims more than is on disk.
     */
    void markUnflushedFrom(final long recoveryPoint) {
        synchronized (flushLock) {
            final LogSegment[] segs = segments;
            final long point = Math.max(0, Math.min(recoveryPoint, endOffset));
            if (point < flushedOffset) {
                flushedOffset = point;
                flushedSegmentBase = Math.min(flushedSegmentBase, segs[floorIndex(segs, point)].baseOffset());
            }
        }
    }

    /** Held while a flush iterates the segments; unlinking a retired segment takes it so no flush touches it. */
    Object flushLock() {
        return flushLock;
    }

    ReentrantLock appendLock() {
        return appendLock;
    }

    LogSegment[] segmentArray() {
        return segments;
    }

    /** Replaces the segments (copy-on-write); the caller holds the append lock. */
    void replaceSegments(final LogSegment[] next) {
        segments = next;
    }

    /** Raises the log start offset; the caller holds the append lock. */
    void raiseLogStartOffset(final long offset) {
        if (offset > logStartOffset) {
            logStartOffset = offset;
        }
    }

    /** Rolls an empty active segment at the log end; the caller holds the append lock. */
    void rollEmptyAtEnd(final long nowMs) throws IOException {
        final long end = endOffset;
        final LogSegment created = roll(end, nowMs);
        publishEnd(end, created, 0);
    }

    RetiredSegments retired() {
        return retired;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    FileIO io() {
        return io;
    }

    GroupCommit groupCommit() {
        return groupCommit;
    }

    long nowMs() {
        return time.millis();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Removes every offset at or above {@code offset}, so that {@link #logEndOffset()} becomes {@code offset}
     * (Kafka's {@code UnifiedLog.truncateTo}, for a follower whose log diverged from its leader's). Batches are
     * never split: if {@code offset} falls inside a batch, that whole batch goes and the log end becomes its
     * base offset. Segments above it are closed and deleted, the segment holding it is cut (data file fsynced,
     * indexes truncated and grown back for appends), the leader-epoch cache loses the epochs starting at or
     * above the new end and is written. At or above the log end nothing changes; below the first segment the
     * log is emptied with {@link #truncateFullyAndStartAt}.
     *
     * <p>Readers: the new log end is published before any file shrinks, so a read that starts afterwards never
     * looks past it; a read in flight that runs into the shrink retries from a fresh snapshot. A
     * {@link LogSlice} taken before may refer to bytes that are then gone (its transfer comes up short) or,
     * after later appends, replaced. Kafka has the same window and excludes it the same way: consumers read only below the
     * high watermark, and a follower truncates only above what its leader committed, so the bytes a truncation
     * removes are never ones a bounded reader was given.
     *
     * @param offset the new log end offset, 0 or more
     * @return the new log end offset ({@code offset}, or the base of the batch holding it)
     * @throws IllegalArgumentException if {@code offset} is negative
     * @throws StorageException if a file operation fails (the log goes offline) or the log is closed or offline
     */
    public long truncateTo(final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset=" + offset + " must be >= 0");
        }
        appendLock.lock();
        try {
            ensureWritable();
            if (offset >= endOffset) {
                return endOffset;
            }
            if (offset < segments[0].baseOffset()) {
                truncateFullyAndStartAt(offset);
                return offset;
            }
            synchronized (flushLock) {
                return truncateWithinLog(offset);
            }
        } finally {
            appendLock.unlock();
        }
    }

    private long truncateWithinLog(final long offset) {
        final LogSegment[] segs = segments;
        final int keep = floorIndex(segs, offset);
        final LogSegment segment = segs[keep];
        final ByteBuffer scratch = ByteBuffer.allocate(LogSlice.SCRATCH_BYTES);
        try {
            final long found = segment.translateOffset(offset, segment.sizeInBytes(), scratch);
            final int position = found < 0 ? segment.sizeInBytes() : (int) (found >>> 32);
            final long newEnd = found < 0 ? offset : Math.min(offset, LogSegment.scannedBaseOffset(scratch));
            // Publish first: no reader that starts from now on looks past the new end.
            truncations++;
            publishEnd(newEnd, segment, position);
            if (keep + 1 < segs.length) {
                segments = Arrays.copyOf(segs, keep + 1);
                for (int i = segs.length - 1; i > keep; i--) {
                    segs[i].closeAndDelete(io);
                }
                io.fsyncDirectory(dir);
            }
            final int dropped = segment.truncateTo(newEnd, config.segmentIndexBytes(), scratch);
            epochs.truncateFromEnd(newEnd);
            epochs.flush();
            flushedOffset = Math.min(flushedOffset, newEnd);
            flushedSegmentBase = Math.min(flushedSegmentBase, segment.baseOffset());
            highWatermark = Math.min(highWatermark, newEnd);
            groupCommit.onTruncated(newEnd);
            LOG.info("Truncated {} to offset {}: {} bytes of {} and {} later segments removed", dir, newEnd, dropped,
                segment.logFile().getFileName(), segs.length - keep - 1);
            return newEnd;
        } catch (final IOException | RuntimeException e) {
            throw goOffline("truncation to offset=" + offset + " failed", e);
        }
    }

    /**
     * Deletes every segment and restarts the log, empty, at {@code offset}: log start and log end both become
     * {@code offset} (Kafka's {@code truncateFullyAndStartAt}, for a follower whose fetch offset is out of the
     * leader's range). The new segment is created and its directory entry fsynced before the old ones are
     * deleted, so an active segment always exists; the leader-epoch cache is cleared and written.
     *
     * @param offset the new log start and end offset, 0 or more
     * @throws IllegalArgumentException if {@code offset} is negative
     * @throws StorageException if a file operation fails (the log goes offline) or the log is closed or offline
     */
    public void truncateFullyAndStartAt(final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset=" + offset + " must be >= 0");
        }
        appendLock.lock();
        try {
            ensureWritable();
            synchronized (flushLock) {
                final LogSegment[] old = segments;
                truncations++;
                try {
                    // A segment with the same base must go first: the new one takes its file names.
                    for (final LogSegment segment : old) {
                        if (segment.baseOffset() == offset) {
                            segment.closeAndDelete(io);
                        }
                    }
                    final LogSegment created = LogSegment.create(io, dir, offset, config, time.millis(),
                        jitter(config, jitterRandom));
                    io.fsyncDirectory(dir);
                    segments = new LogSegment[] {created};
                    logStartOffset = offset;
                    publishEnd(offset, created, 0);
                    for (int i = old.length - 1; i >= 0; i--) {
                        if (old[i].baseOffset() != offset) {
                            old[i].closeAndDelete(io);
                        }
                    }
                    io.fsyncDirectory(dir);
                    epochs.clearAndFlush();
                    flushedOffset = offset;
                    flushedSegmentBase = offset;
                    highWatermark = offset;
                    groupCommit.onTruncated(offset);
                } catch (final IOException | RuntimeException e) {
                    throw goOffline("truncateFullyAndStartAt(" + offset + ") failed", e);
                }
            }
            LOG.info("Truncated {} fully; the log restarts at offset {}", dir, offset);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Answers a follower's OffsetsForLeaderEpoch (KIP-101/KIP-279): the largest epoch at or below
     * {@code epoch} that this log knows and the offset where it ended here (the log end for the latest epoch).
     *
     * @param epoch the epoch asked about
     * @return the epoch and its end offset, or {@link EpochEndOffset#UNDEFINED}
     */
    public EpochEndOffset endOffsetForEpoch(final int epoch) {
        return epochs.endOffsetFor(epoch, endOffset);
    }

    /**
     * The leader epoch of the last batch that carried one.
     *
     * @return the epoch, or -1 when no batch has one
     */
    public int latestEpoch() {
        return epochs.latestEpoch();
    }

    /**
     * The leader-epoch cache (entries persisted in {@code leader-epoch-checkpoint}); for replication code that
     * needs more than {@link #endOffsetForEpoch}. Its mutators are the log's business.
     *
     * @return the cache
     */
    public LeaderEpochCache leaderEpochCache() {
        return epochs;
    }

    /**
     * What opening this log repaired: whether it was scanned, torn tails or corruption truncated, segments
     * deleted, indexes rebuilt, stray files removed, leader epochs rebuilt.
     *
     * @return the report
     */
    public RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    /**
     * The first offset of the log.
     *
     * @return the log start offset
     */
    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The offset the next appended record will get; every offset below it is readable.
     *
     * @return the published log end offset
     */
    public long logEndOffset() {
        return endOffset;
    }

    /**
     * The offset below which everything has been fsynced by {@link #flush} (or was on disk at open).
     *
     * @return the flushed offset
     */
    public long flushedOffset() {
        return flushedOffset;
    }

    /**
     * The number of segments.
     *
     * @return at least 1
     */
    public int segmentCount() {
        return segments.length;
    }

    /**
     * The base offsets of the segments, oldest first.
     *
     * @return a new array
     */
    public long[] segmentBaseOffsets() {
        final LogSegment[] segs = segments;
        final long[] bases = new long[segs.length];
        for (int i = 0; i < segs.length; i++) {
            bases[i] = segs[i].baseOffset();
        }
        return bases;
    }

    /**
     * The partition directory.
     *
     * @return the directory
     */
    public Path dir() {
        return dir;
    }

    /**
     * The configuration the log was opened with.
     *
     * @return the configuration
     */
    public LogConfig config() {
        return config;
    }

    /**
     * Closes the log: the active segment gets its final time-index entry and its indexes are trimmed (so a
     * reopen finds exactly the entries), everything unflushed is fsynced, and every file is closed. Keeps all
     * failures (suppressed). Idempotent. Readers must have stopped.
     *
     * @throws StorageException if trimming, flushing or closing fails
     */
    @Override
    public void close() {
        appendLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            Throwable failure = null;
            final LogSegment[] segs = segments;
            final LogDirFailure shared = dirFailure;
            if (offlineCause == null && (shared == null || !shared.isOffline())) {
                try {
                    segs[segs.length - 1].onBecomeInactive();
                    synchronized (flushLock) {
                        for (final LogSegment segment : segs) {
                            if (segment.baseOffset() >= flushedSegmentBase) {
                                segment.flush();
                            }
                        }
                        flushedOffset = endOffset;
                    }
                    groupCommit.onFlushed(flushedOffset);
                } catch (final IOException | RuntimeException e) {
                    failure = goOffline("flush on close failed", e);
                }
            }
            groupCommit.failAll(new StorageException("the log was closed", dir, null), true);
            synchronized (flushLock) {
                failure = retired.unlinkAll(io, failure);
            }
            // Offline: close without trimming or syncing anything, so no fsync is issued after a failed one.
            final boolean offline = offlineCause != null || (shared != null && shared.isOffline());
            for (int i = segs.length - 1; i >= 0; i--) {
                try {
                    if (offline) {
                        segs[i].abandon();
                        continue;
                    }
                    segs[i].close();
                } catch (final IOException | RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw new StorageException("closing the log failed: " + failure.getMessage(), dir, failure);
            }
        } finally {
            appendLock.unlock();
        }
    }

    private void ensureWritable() {
        if (closed) {
            throw new StorageException("the log is closed", dir, null);
        }
        final LogDirFailure shared = dirFailure;
        if (shared != null) {
            shared.ensureOnline();
        }
        final Throwable cause = offlineCause;
        if (cause != null) {
            throw new StorageException("the log is offline after an I/O failure", dir, cause);
        }
    }

    private void ensureReadable() {
        ensureWritable();
    }

    StorageException goOffline(final String what, final Throwable cause) {
        if (offlineCause == null) {
            offlineCause = cause;
        }
        final LogDirFailure shared = dirFailure;
        final StorageException offline = shared != null
            ? shared.markOffline(dir.getFileName() + ": " + what, cause)
            : new StorageException("the log is offline after a failed write or fsync (" + what + ")", dir, cause);
        groupCommit.failAll(offline, true);
        if (cause instanceof StorageException) {
            return (StorageException) cause;
        }
        return new StorageException(what + ": " + cause.getMessage(), dir, cause);
    }

    private StorageException readFailure(final IOException e) {
        if (closed) {
            return new StorageException("the log was closed during a read", dir, e);
        }
        return new StorageException("read failed: " + e.getMessage(), dir, e);
    }

    @Override
    public String toString() {
        return "PartitionLog{dir=" + dir + ", logStartOffset=" + logStartOffset + ", logEndOffset=" + endOffset
            + ", segments=" + segments.length + "}";
    }
}
