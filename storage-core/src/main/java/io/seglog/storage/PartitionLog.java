package io.seglog.storage;

import io.seglog.storage.epoch.EpochEndOffset;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;

/**
 * The log of one partition: an ordered set of segments in one directory, byte-compatible with Kafka's
 * partition directories. Appends go to the last (active) segment, which rolls when it is full, old, its
 * indexes are full, or an offset would not fit its 32-bit relative indexes.
 *
 * <p>Appends: {@link #appendAsLeader} validates the batches as a producer's (Kafka's client rules), assigns
 * offsets in place from the log end offset, stamps the leader epoch and, with {@code LogAppendTime}, the
 * broker's time. {@link #appendAsFollower} keeps the leader's offsets and accepts batches that continue
 * the log, with or without a gap (compaction), never overlapping it. Either call is all-or-nothing: every
 * batch is checked before the first byte is written, and all batches go to one segment in one positional
 * write.
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
    /** Kafka's {@code ListOffsetsRequest.LATEST_TIMESTAMP}: {@link #offsetForTimestamp} answers the upper bound. */
    public static final long LATEST_TIMESTAMP = -1L;
    /** Kafka's {@code ListOffsetsRequest.EARLIEST_TIMESTAMP}: {@link #offsetForTimestamp} answers the log start. */
    public static final long EARLIEST_TIMESTAMP = -2L;

    final Path dir;
    final LogConfig config;
    final FileIO io;
    final InstantSource time;
    final RandomGenerator jitterRandom;
    final ReentrantLock appendLock = new ReentrantLock();
    final Object flushLock = new Object();

    /** Copy-on-write: replaced on roll, so a reader binary-searches a stable array without locking. */
    volatile LogSegment[] segments;
    volatile long logStartOffset;

    // The published log end: endSeq is odd while the appender rewrites the triple (a sequence lock).
    volatile int endSeq;
    volatile long endOffset;
    volatile LogSegment endSegment;
    volatile int endPosition;

    volatile boolean closed;
    private volatile Throwable offlineCause;
    /** Offsets below this are on disk; guarded by flushLock for writes. */
    volatile long flushedOffset;
    /** Segments with a base below this were fully flushed; guarded by flushLock. */
    long flushedSegmentBase;

    // Durability, retention and the shared directory state (issue 3, LogManager side); logic in helper classes.
    final GroupCommit groupCommit = new GroupCommit(this);
    private final RetiredSegments retired = new RetiredSegments();
    /** The high watermark as last set; read through {@link #highWatermark()}, which clamps it. */
    volatile long highWatermark;
    /** The directory state, scheduler and checkpoint hook a LogManager attaches; empty for a standalone log. */
    final LogManagerHooks managerHooks = new LogManagerHooks(this);

    /** Counts truncations, raised before any file shrinks, so a read that ran into one can retry. */
    volatile int truncations;
    /** The leader epochs and their start offsets, persisted in {@code leader-epoch-checkpoint}; set by open. */
    LeaderEpochCache epochs;
    /** What opening the log repaired; set by open. */
    RecoveryReport recoveryReport;

    /** The append path and the appender's reusable state (allocation-free in steady state). */
    final AppendPath appends;
    /** The read path (reads and timestamp searches): stateless, lock-free. */
    private final ReadPath reads = new ReadPath(this);
    /** Truncation (truncateTo within the log, truncateFullyAndStartAt). */
    private final Truncation truncation = new Truncation(this);

    /** Builds an opened log from its loaded segments; {@link LogOpener} sets the epochs and report. */
    static PartitionLog create(final Path dir, final LogConfig config, final FileIO io, final InstantSource time,
                               final RandomGenerator jitterRandom, final List<LogSegment> loaded,
                               final long logEndOffset) {
        return new PartitionLog(dir, config, io, time, jitterRandom, loaded, logEndOffset);
    }

    private PartitionLog(final Path dir, final LogConfig config, final FileIO io, final InstantSource time,
                         final RandomGenerator jitterRandom, final List<LogSegment> loaded, final long logEndOffset) {
        this.dir = dir;
        this.config = config;
        this.io = io;
        this.time = time;
        this.jitterRandom = jitterRandom;
        this.segments = loaded.toArray(new LogSegment[0]);
        this.logStartOffset = this.segments[0].baseOffset();
        this.appends = new AppendPath(this, config);
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
        return LogOpener.open(partitionDir, config, io, time, jitterRandom, recovery);
    }

    static long jitter(final LogConfig config, final RandomGenerator random) {
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
        final long lastOffset = appends.appendAsLeader(batches, leaderEpoch);
        maybeFlushAfterAppend();
        return lastOffset;
    }

    /**
     * Appends batches replicated from the leader, keeping their offsets, epochs and timestamps. They are
     * validated with the replication rules (CRC, lengths, record structure; compacted batches with offset
     * gaps inside them are legal), and must not go back: the first batch's base offset is at least the log
     * end offset and each further batch starts after the previous one's last offset. Gaps between batches are
     * legal, as in Kafka (a compacted leader log has them; a segment rolled for the append starts at its first
     * batch); an overlap is refused (the follower must truncate or fetch from its log end). All-or-nothing.
     *
     * @param batches the batches, not modified
     * @return the last offset appended
     * @throws InvalidRecordException for a malformed batch, or a batch that overlaps the log or the batch
     *                                before it ({@code field=baseOffset}, {@code limit} = the lowest offset
     *                                allowed)
     * @throws IllegalArgumentException if {@code batches} is empty or read-only
     * @throws StorageException if the write fails (the log goes offline) or the log is closed or offline
     */
    public long appendAsFollower(final ByteBuffer batches) {
        final long lastOffset = appends.appendAsFollower(batches);
        maybeFlushAfterAppend();
        return lastOffset;
    }

    /** The flush.messages rule, checked after the append lock is released so the fsync never blocks appends. */
    private void maybeFlushAfterAppend() {
        if (endOffset - flushedOffset >= config.flushMessages()) {
            flush();
        }
    }

    LogSegment roll(final long newBaseOffset, final long nowMs) throws IOException {
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

    /** Publishes the log end under the sequence lock ({@link EndPublisher}: release stores, no fences). */
    void publishEnd(final long offset, final LogSegment segment, final int position) {
        EndPublisher.publish(this, offset, segment, position);
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
        return reads.read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch, into);
    }

    /** The index of the last segment whose base offset is at most {@code offset}; 0 when it is below them all. */
    static int floorIndex(final LogSegment[] segs, final long offset) {
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
     * Kafka's {@code ListOffsets} by timestamp without an upper bound other than the log end; see
     * {@link #offsetForTimestamp(long, long, LogSlice)}. Allocates a slice (and its search buffer) per call.
     *
     * @param timestampMs the target timestamp, or {@link #LATEST_TIMESTAMP} / {@link #EARLIEST_TIMESTAMP}
     * @return the offset, or -1 when no record below the log end has such a timestamp
     * @throws IllegalArgumentException if {@code timestampMs} is negative and not one of the special values
     * @throws StorageException if the log is closed or offline, or a read fails
     * @throws UnsupportedOperationException if the records of a compressed batch must be read
     */
    public long offsetForTimestamp(final long timestampMs) {
        return offsetForTimestamp(timestampMs, Long.MAX_VALUE, new LogSlice());
    }

    /**
     * As {@link #offsetForTimestamp(long, long, LogSlice)}, allocating a slice (and its search buffer) per call.
     *
     * @param timestampMs        the target timestamp, or {@link #LATEST_TIMESTAMP} / {@link #EARLIEST_TIMESTAMP}
     * @param maxOffsetExclusive the upper bound, e.g. the high watermark for a consumer
     * @return the offset, or -1 when no record below the bound has such a timestamp
     * @throws IllegalArgumentException if {@code timestampMs} is negative and not one of the special values
     * @throws StorageException if the log is closed or offline, or a read fails
     * @throws UnsupportedOperationException if the records of a compressed batch must be read
     */
    public long offsetForTimestamp(final long timestampMs, final long maxOffsetExclusive) {
        return offsetForTimestamp(timestampMs, maxOffsetExclusive, new LogSlice());
    }

    /**
     * The first offset at or after the log start and below {@code min(maxOffsetExclusive, logEndOffset)} whose
     * record timestamp is at least {@code timestampMs} (Kafka's {@code ListOffsets} by timestamp; a consumer's
     * answer is bounded by the high watermark). Timestamps need not be ordered: the answer is the earliest such
     * offset, found through each segment's largest timestamp and time index. Kafka's special targets are
     * honoured: {@link #LATEST_TIMESTAMP} (-1) answers the bound itself, {@link #EARLIEST_TIMESTAMP} (-2) the
     * log start offset; other negative targets (Kafka's -3 max-timestamp and the tiered-storage ones) are
     * refused. Thread-safe and lock-free; allocation-free with a reused {@code scratch}: the search state lives
     * in the slice, which is why each reading thread passes its own (as for {@link #read}; a slice per reader
     * keeps the buffer thread-confined without a ThreadLocal pinning memory in every pooled thread).
     *
     * @param timestampMs        the target timestamp, or {@link #LATEST_TIMESTAMP} / {@link #EARLIEST_TIMESTAMP}
     * @param maxOffsetExclusive the upper bound, e.g. the high watermark; {@link Long#MAX_VALUE} for the log end
     * @param scratch            a slice used only for its buffers (its contents afterwards are unspecified)
     * @return the offset, or -1 when no record below the bound has such a timestamp
     * @throws IllegalArgumentException if {@code timestampMs} is negative and not one of the special values
     * @throws StorageException if the log is closed or offline, or a read fails
     * @throws UnsupportedOperationException if the records of a compressed batch must be read
     */
    public long offsetForTimestamp(final long timestampMs, final long maxOffsetExclusive, final LogSlice scratch) {
        return reads.offsetForTimestamp(timestampMs, maxOffsetExclusive, scratch);
    }

    /**
     * Forces every segment written since the last flush (data and indexes) to disk. May run on another thread
     * than the appender; does not block appends.
     *
     * @throws StorageException if an fsync fails: the log goes offline
     */
    public void flush() {
        ensureWritable();
        FlushAndClose.flush(this);
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
        if (managerHooks.scheduler() == null) {
            retired.unlinkExpired(io, nowMs, this);
        }
        return SegmentRetention.deleteOldSegments(this, nowMs, false);
    }

    // ---- package-private hooks for LogManager, SegmentRetention and GroupCommit (the logic lives there) ----

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
        return managerHooks.scheduler();
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
     * log is emptied with {@link #truncateFullyAndStartAt}. {@link #flushedOffset()} drops to the new end when it
     * was above it, and a {@link LogManager}'s recovery-point checkpoint is rewritten before this returns (a
     * standalone embedder that keeps {@code flushedOffset} as its recovery point must persist it too), so a crash
     * after later appends finds their torn tail above the recovery point.
     *
     * <p>Readers: the new log end is published before any file shrinks, so a read that starts afterwards never
     * looks past it; a read in flight that runs into the shrink retries from a fresh snapshot. A
     * {@link LogSlice} taken before may refer to bytes that are then gone (its transfer fails with an IOException) or,
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
                return truncation.truncateWithinLog(offset);
            }
        } finally {
            appendLock.unlock();
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
        truncation.truncateFullyAndStartAt(offset);
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
            FlushAndClose.close(this);
        } finally {
            appendLock.unlock();
        }
    }

    void ensureWritable() {
        if (closed) {
            throw new StorageException("the log is closed", dir, null);
        }
        final LogDirFailure shared = managerHooks.dirFailure();
        if (shared != null) {
            shared.ensureOnline();
        }
        final Throwable cause = offlineCause;
        if (cause != null) {
            throw new StorageException("the log is offline after an I/O failure", dir, cause);
        }
    }

    void ensureReadable() {
        ensureWritable();
    }

    StorageException goOffline(final String what, final Throwable cause) {
        if (offlineCause == null) {
            offlineCause = cause;
        }
        final LogDirFailure shared = managerHooks.dirFailure();
        final StorageException offline = shared != null
            ? shared.markOffline(dir.getFileName() + ": " + what, cause)
            : new StorageException("the log is offline after a failed write or fsync (" + what + ")", dir, cause);
        groupCommit.failAll(offline, true);
        if (cause instanceof StorageException) {
            return (StorageException) cause;
        }
        return new StorageException(what + ": " + cause.getMessage(), dir, cause);
    }

    /** True once this log, or the log directory it shares, went offline after an I/O failure. */
    boolean isOffline() {
        final LogDirFailure shared = managerHooks.dirFailure();
        return offlineCause != null || (shared != null && shared.isOffline());
    }

    StorageException readFailure(final IOException e) {
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
