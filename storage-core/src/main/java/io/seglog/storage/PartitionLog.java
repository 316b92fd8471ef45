package io.seglog.storage;

import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.epoch.EpochEnd;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * The log of one partition: an ordered set of segments in one directory, byte-compatible with Kafka's
 * partition directories. Appends go to the last (active) segment, which rolls when it is full, old, its
 * indexes are full, or an offset would not fit its 32-bit relative indexes.
 *
 * <p>Appends: {@link #appendAsLeader} validates the batches as a producer's (Kafka's client rules), assigns
 * offsets in place from the log end offset, stamps the leader epoch and, with {@code LogAppendTime}, the
 * broker's time. {@link #appendAsFollower} keeps the leader's offsets and accepts batches that continue
 * the log, never overlapping it. Either call is all-or-nothing: every batch is checked before the first byte is
 * written, and all batches go to one segment in one positional write.
 *
 * <p>Producers (Kafka's idempotent producer): a leader append checks each batch that carries a producer id against
 * that producer's state (epoch, last five batches): a retry of a retained batch appends nothing and is answered with
 * the original offsets, a fenced epoch or a sequence gap is refused (see
 * {@link #appendAsLeader(ByteBuffer, int, LeaderAppendResult.Handler)}). The state is snapshotted to
 * {@code <offset>.snapshot} files in Kafka's format at every roll and at close, rebuilt at open from the latest
 * trusted snapshot plus the batches after it, and producers idle for {@code producer.id.expiration.ms} are
 * forgotten. <b>Transactions are partly implemented</b>: transactional and control batches are stored and served like
 * any other; the producer state tracks each producer's open transaction (restored from the snapshot's
 * {@code currentTxnFirstOffset} at open) and gives the last stable offset ({@link #lastStableOffset}); the leader
 * writes COMMIT and ABORT markers for the coordinator ({@link #appendTransactionMarker}, with Kafka's producer- and
 * coordinator-epoch fencing) and refuses them from clients; but the aborted-transaction index ({@code .txnindex}) is
 * not written yet and there is no {@code read_committed} read (docs/format.md, docs/recovery.md).
 *
 * <p>Reads: through a {@link LogReader} ({@link #reader()}), a per-thread cursor that reads whole batches by
 * offset and searches by timestamp without allocating; {@link #read} and {@link #offsetForTimestamp} are the
 * one-call forms, which allocate.
 *
 * <p>State and its owners: this class is the entry point and holds no state of its own; {@code LogComposition}
 * builds, once at open, the owners and the paths its methods call. {@code Segments} owns the segment array (roll,
 * truncate, retire), {@code LogEnd} the published end readers see, {@code Watermarks} the log start offset and high
 * watermark, {@code Durability} the flushed offset and the durability waiters, the leader-epoch cache the epochs,
 * {@code ProducerStateManager} the producer state, {@code LogSettings} the current configuration, {@code LogHealth}
 * the closed flag, the offline cause and the directory's lock, {@code Flushing} the {@code flush.messages} rule,
 * {@code Appends} the answer to the leader append in progress, {@code ProducerExpiry} the expiration check.
 * {@code Appender}, {@code Truncation} and {@code Retention} change the owners in order; {@code LogOpener},
 * {@code Truncations}, {@code Deletions}, {@code Reconfiguration}, {@code TopicIds} and {@code LogClosing} are the
 * entry paths, which own nothing and take the one append lock as described below (docs/architecture.md).
 *
 * <p>Threads: one appender at a time (appends, truncations, retention, {@link #close}): calls are serialised by a
 * lock, so a second appender waits rather than corrupts; any number of readers concurrently with it and with each
 * other, without locks. {@link #flush} may run on another thread and never blocks appends. Readers must stop
 * before {@link #close}.
 *
 * <p>Durability: {@link #flush}, {@link #flushedOffset}, {@link #awaitDurable} (group commit) and the
 * {@code flush.messages} policy. Retention: {@link #deleteOldSegments}, {@link #deleteRecordsBefore}, bounded by
 * {@link #highWatermark}. A {@link LogManager} adds the {@code flush.ms} policy, periodic retention and checkpoints
 * (docs/log-manager.md).
 *
 * <p>Ownership: an open log holds an OS lock on its directory's {@code .lock} file until {@link #close}, so a
 * second writable open of the same partition, in this process or another, fails with {@link LogInUseException}
 * before it reads or changes anything (a {@link LogManager}'s logs hold it too). A log opened with
 * {@link #openReadOnly} takes no lock and changes nothing.
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
    /**
     * Kafka's {@code ListOffsetsRequest.MAX_TIMESTAMP}: {@link #offsetForTimestamp} answers the offset of the first
     * record with the largest timestamp (KIP-734).
     */
    public static final long MAX_TIMESTAMP = -3L;

    /** The owners and paths of this log, built once at open (see the class comment); final all through. */
    private final LogComposition parts;

    /** A log around what {@link LogOpener} opened and composed; called by it only. */
    PartitionLog(final LogComposition parts) {
        this.parts = parts;
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
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws LogInUseException if another log, log manager or process has the partition open for writing
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
     * @throws LogInUseException if another log, log manager or process has the partition open for writing
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
     * @throws LogInUseException if another log, log manager or process has the partition open for writing
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
     * @throws LogInUseException if another log, log manager or process has the partition open for writing
     * @throws StorageException if the directory or a segment cannot be opened
     */
    public static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                                    final InstantSource time, final RandomGenerator jitterRandom,
                                    final RecoveryOptions recovery) {
        return open(partitionDir, config, io, time, jitterRandom, recovery, LogEnvironment.STANDALONE);
    }

    /**
     * Opens a log read-only, for inspection and tools: nothing in the directory is created, changed, deleted or
     * synced, and no lock is taken (so a log another process has open can be inspected; it is seen as it was at
     * this open). Like {@link #open(Path, LogConfig, FileIO, InstantSource)} it cannot tell a clean shutdown from a
     * crash, so every batch is CRC-checked ({@link RecoveryOptions#afterCrash afterCrash(0)}); what a writable open
     * would repair is left on disk and out of the log, and {@link #recoveryReport()} says what (see
     * {@link #openReadOnly(Path, LogConfig, FileIO, InstantSource, RecoveryOptions)}).
     *
     * @param partitionDir the partition directory, which must exist and hold a segment
     * @param config       the configuration (its corruption policy decides as for a writable open)
     * @param io           the file layer; used for reading only
     * @param time         the clock
     * @return the open log, owned by the caller; every write (append, truncation, retention, flush, high
     *     watermark) throws {@link IllegalStateException}
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws StorageException if the directory is missing or holds no segment, a file cannot be read, or the
     *     directory holds an unfinished segment swap (only a writable open completes it)
     */
    public static PartitionLog openReadOnly(final Path partitionDir, final LogConfig config, final FileIO io,
                                            final InstantSource time) {
        return openReadOnly(partitionDir, config, io, time, RecoveryOptions.afterCrash(0));
    }

    /**
     * Opens a log read-only with explicit recovery options: segments the options say to scan are CRC-checked, the
     * others opened as after a clean shutdown. Nothing on disk changes:
     * <ul>
     *   <li>a torn tail, or corruption the {@code truncate} policy drops, is left in the file; the log ends before
     *       it, and later segments are left out ({@link RecoveryReport#truncations()},
     *       {@link RecoveryReport#deletedSegments()});</li>
     *   <li>index files are used, mapped read-only, when they exist and pass the checks a writable open applies;
     *       otherwise, and in scanned segments, the segment is read without an index, from its start (correct,
     *       slower; {@link RecoveryReport#rebuiltIndexes()});</li>
     *   <li>the leader epochs come from the checkpoint or, when it is missing or corrupt, from the batches, and
     *       stay in memory; stray files ({@code .deleted}, {@code .cleaned}, {@code .tmp}) are ignored.</li>
     * </ul>
     * A log another process writes is read with positional reads, and the last segment's index files are never
     * mapped (the writer shrinks them when it rolls). The CRC scan does map the data files it checks: if the writer
     * truncates one meanwhile (a follower), touching the cut pages kills this JVM, so inspect a live follower's log
     * with {@link RecoveryOptions#clean()} (no scan).
     *
     * @param partitionDir the partition directory, which must exist and hold a segment
     * @param config       the configuration
     * @param io           the file layer; used for reading only (wrapped so that any other call would fail)
     * @param time         the clock
     * @param recovery     clean shutdown or crash, recovery point, scan start
     * @return the open log, owned by the caller; every write throws {@link IllegalStateException}
     * @throws CorruptLogException if the log holds corruption that is not a torn tail and the policy is fail
     * @throws StorageException if the directory is missing or holds no segment, a file cannot be read, or the
     *     directory holds an unfinished segment swap
     */
    public static PartitionLog openReadOnly(final Path partitionDir, final LogConfig config, final FileIO io,
                                            final InstantSource time, final RecoveryOptions recovery) {
        return LogOpener.openReadOnly(partitionDir, config, io, time, recovery);
    }

    /** A writable open with a log manager's environment (see {@link LogOpener}). */
    static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                             final InstantSource time, final RandomGenerator jitterRandom,
                             final RecoveryOptions recovery, final LogEnvironment env) {
        return LogOpener.open(partitionDir, config, io, time, jitterRandom, recovery, env);
    }

    /**
     * Appends batches from a producer as the partition leader. The region {@code [position, limit)} of
     * {@code batches} must be whole v2 batches; they are validated with Kafka's client rules (CRC, lengths,
     * {@code recordsCount == lastOffsetDelta + 1}, sequential record offset deltas, {@code max.message.bytes},
     * at most {@code segment.bytes}) and their producers' state (see
     * {@link #appendAsLeader(ByteBuffer, int, LeaderAppendResult.Handler)}), then stamped in place: {@code baseOffset}
     * from the log end offset on, {@code partitionLeaderEpoch}, and with {@code LogAppendTime} the broker time (CRC
     * recomputed). The buffer's position and limit are unchanged. All-or-nothing.
     *
     * <p>A retry of a batch already in the log (a duplicate) appends nothing and returns the original batch's last
     * offset; use the overload with a {@link LeaderAppendResult.Handler} to tell a duplicate from an append.
     *
     * @param batches     the batches; modified in place
     * @param leaderEpoch the leader epoch to stamp, 0 or more
     * @return the last offset assigned (for a duplicate, the original batch's last offset)
     * @throws InvalidRecordException naming the field, value, limit, batch and position of the first problem
     * @throws OutOfOrderSequenceException if a batch's sequence does not follow its producer's (nothing appended)
     * @throws InvalidProducerEpochException if a batch's producer epoch is fenced (nothing appended)
     * @throws FencedLeaderEpochException if the epoch is below the log's latest, a fenced leader (nothing appended)
     * @throws IllegalArgumentException if {@code batches} is empty or read-only, or the epoch is negative
     * @throws StorageException if the write fails (the log goes offline) or the log is closed or offline
     */
    public long appendAsLeader(final ByteBuffer batches, final int leaderEpoch) {
        return parts.appends.appendAsLeader(batches, leaderEpoch);
    }

    /**
     * Appends batches from a producer as the partition leader, as {@link #appendAsLeader(ByteBuffer, int)} does, and
     * answers with a {@link LeaderAppendResult}, the log's own, handed to {@code handler} under the append lock, so
     * that no outcome costs an allocation or an exception. Each batch with a producer id ({@code != -1}) is checked
     * as Kafka 4.4's {@code ProducerAppendInfo} checks a client's batch, in order:
     * <ul>
     *   <li>the same epoch and sequence range as one of the producer's last five batches: a duplicate; the whole
     *       append is answered {@link AppendOutcome#DUPLICATE} with that batch's original offsets and nothing is
     *       appended (Kafka answers NONE with those offsets);</li>
     *   <li>an epoch below the producer's: {@link AppendOutcome#INVALID_PRODUCER_EPOCH};</li>
     *   <li>a new epoch whose first sequence is not 0 (unless the producer had no epoch), or, in the same epoch, a
     *       first sequence that is not the last one plus one (wrapping from {@link Integer#MAX_VALUE} to 0; any
     *       sequence is accepted from a producer the log does not know):
     *       {@link AppendOutcome#OUT_OF_ORDER_SEQUENCE}.</li>
     * </ul>
     * Before those, a leader epoch below the log's latest is answered {@link AppendOutcome#FENCED_LEADER_EPOCH}
     * with both epochs. A refusal appends nothing and leaves the buffer as it was. Batches without a producer id skip
     * the producer checks. Transactional checks are not implemented yet (see the class comment).
     *
     * <p>The handler runs in the calling thread while the append lock is held, so appends are answered in the order
     * they were written; it must be quick and must not call this log's write methods.
     *
     * @param <T>         what the handler makes of the answer
     * @param batches     the batches; modified in place when appended
     * @param leaderEpoch the leader epoch to stamp, 0 or more
     * @param handler     reads the answer, which is valid during its call only
     * @return what the handler returned
     * @throws InvalidRecordException naming the field, value, limit, batch and position of the first problem
     * @throws IllegalArgumentException if {@code batches} is empty or read-only, or the epoch is negative
     * @throws StorageException if the write fails (the log goes offline) or the log is closed or offline
     */
    public <T> T appendAsLeader(final ByteBuffer batches, final int leaderEpoch,
                                final LeaderAppendResult.Handler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return parts.appends.appendAsLeader(batches, leaderEpoch, handler);
    }

    /**
     * Appends batches replicated from the leader, keeping their offsets, epochs and timestamps. They are
     * validated with the replication rules (CRC, lengths, record structure; compacted batches with offset
     * gaps inside them are legal), and must not go back: the first batch's base offset is the log end offset
     * (or, under {@code cleanup.policy=compact}, at least it) and each further batch starts after the previous
     * one's last offset. An overlap is refused (the follower must truncate or fetch from its log end).
     * All-or-nothing.
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
        return parts.appends.appendAsFollower(batches);
    }

    /**
     * The number of producer ids whose state the log keeps (Kafka's {@code producerIdCount}).
     *
     * @return the count
     */
    public int producerIdCount() {
        return parts.producerExpiry.producerIdCount();
    }

    /**
     * Forgets the producers whose last batch is {@code producer.id.expiration.ms} or more old (Kafka's
     * {@code removeExpiredProducers}); a later batch of such a producer is accepted at any sequence. A log opened by
     * a {@link LogManager} (any log with a scheduler) runs this every {@code producer.id.expiration.check.interval.ms};
     * a standalone log's owner calls it.
     *
     * @return how many producers were forgotten
     * @throws StorageException if the log is closed or offline
     */
    public int removeExpiredProducers() {
        return parts.producerExpiry.removeExpiredProducers();
    }

    /**
     * A new reader cursor over this log, for one reading thread; reusing it makes reads allocation-free.
     *
     * @return the reader
     */
    public LogReader reader() {
        return new LogReader(parts.health, parts.dir, parts.watermarks, parts.segments, parts.end);
    }

    /**
     * Reads whole batches from {@code startOffset} (see {@link LogReader#read}); allocates a reader and the slice.
     *
     * @param startOffset        the first offset wanted
     * @param maxBytes           the most bytes to return (unless {@code minOneBatch} needs more)
     * @param maxOffsetExclusive the upper bound, e.g. a high watermark; {@link Long#MAX_VALUE} for the log end
     * @param minOneBatch        return the first batch whole even when it is larger than {@code maxBytes}
     * @return the slice
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start or above the log end
     * @throws StorageException if the log is closed or offline, or a read fails
     */
    public LogSlice read(final long startOffset, final int maxBytes, final long maxOffsetExclusive,
                         final boolean minOneBatch) {
        final LogReader reader = reader();
        reader.read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch);
        return reader.slice();
    }

    /**
     * Kafka's {@code ListOffsets} by timestamp up to the log end (see {@link LogReader#offsetForTimestamp}, which
     * also takes a bound such as the high watermark); allocates a reader.
     *
     * @param timestampMs the target timestamp, or {@link #LATEST_TIMESTAMP} / {@link #EARLIEST_TIMESTAMP}
     * @return the offset, or -1 when no record below the log end has such a timestamp
     * @throws IllegalArgumentException if {@code timestampMs} is negative and not one of the special values
     * @throws StorageException if the log is closed or offline, or a read fails
     * @throws io.seglog.storage.format.CodecUnavailableException if a compressed batch must be read and its codec
     *         is not on the class path
     */
    public long offsetForTimestamp(final long timestampMs) {
        return reader().offsetForTimestamp(timestampMs, Long.MAX_VALUE);
    }

    /**
     * Forces every segment written since the last flush (data and indexes) to disk. May run on another thread
     * than the appender; does not block appends.
     *
     * @throws StorageException if an fsync fails: the log goes offline
     */
    public void flush() {
        parts.flushing.flush();
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
        return parts.flushing.awaitDurable(offset);
    }

    /**
     * The high watermark: offsets below it are committed and never deleted by retention. Always within
     * {@code [logStartOffset, logEndOffset]}.
     *
     * @return the high watermark
     */
    public long highWatermark() {
        return parts.watermarks.highWatermark(parts.end.offset());
    }

    /**
     * Writes a transaction marker as the leader, for the transaction coordinator (Kafka's {@code appendAsLeader} with
     * origin COORDINATOR, as a broker's WriteTxnMarkers handler does): one control batch holding Kafka's
     * {@code EndTransactionMarker} (COMMIT or ABORT, the coordinator's epoch), stamped with this log's time. It ends
     * the producer's open transaction, if any (the last stable offset moves once the marker is below the high
     * watermark); a marker for a producer without one is written all the same, as Kafka does (a retried marker). A
     * client's marker in a produce is refused ({@link #appendAsLeader}).
     *
     * @param producerId       the transaction's producer
     * @param producerEpoch    its epoch, not below the producer's current one
     * @param coordinatorEpoch the coordinator's epoch, not below the one the producer's last marker carried
     * @param commit           true for COMMIT, false for ABORT
     * @param leaderEpoch      this leader's epoch, 0 or more
     * @return the marker's offset
     * @throws InvalidProducerEpochException        when {@code producerEpoch} is below the producer's
     * @throws TransactionCoordinatorFencedException when {@code coordinatorEpoch} is below its last marker's
     * @throws FencedLeaderEpochException            when {@code leaderEpoch} is below the log's latest
     * @throws StorageException if the log is closed or offline, or the write fails
     */
    public long appendTransactionMarker(final long producerId, final short producerEpoch, final int coordinatorEpoch,
                                        final boolean commit, final int leaderEpoch) {
        return parts.appends.appendTransactionMarker(producerId, producerEpoch, coordinatorEpoch, commit, leaderEpoch);
    }

    /**
     * The last stable offset (Kafka's LSO): below it every transaction is decided and its marker below the high
     * watermark; the first offset of the earliest transaction still open (or whose marker is not yet below the high
     * watermark), capped at the high watermark, which it equals when there is none. What a {@code read_committed}
     * consumer may read up to. Never waits.
     *
     * @return within {@code [logStartOffset, highWatermark]}
     */
    public long lastStableOffset() {
        final long highWatermark = highWatermark();
        return Math.max(parts.watermarks.logStartOffset(), parts.producers.lastStableOffset(highWatermark));
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
        parts.health.ensureWritable();
        return parts.watermarks.setHighWatermark(offset, parts.end.offset());
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
        return parts.deletions.deleteRecordsBefore(offset, parts.time.millis());
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
        return parts.deletions.deleteOldSegments(parts.time.millis());
    }

    /**
     * Removes every offset at or above {@code offset}, so that {@link #logEndOffset()} becomes {@code offset}
     * (Kafka's {@code UnifiedLog.truncateTo}, for a follower whose log diverged from its leader's). Batches are
     * never split: if {@code offset} falls inside a batch, that whole batch goes and the log end becomes its
     * base offset. Segments above it are closed and deleted, the segment holding it is cut (data file fsynced,
     * indexes truncated and grown back for appends), the leader-epoch cache loses the epochs starting at or
     * above the new end and is written. At or above the log end no record goes, but leader epochs that start there
     * are dropped (an epoch this replica began as leader and wrote nothing in; Kafka's rule, so a follower does not go
     * on naming it as its last fetched epoch); below the first segment the log is emptied with
     * {@link #truncateFullyAndStartAt}. {@link #flushedOffset()} drops to the new end when it
     * was above it, and a {@link LogManager}'s recovery-point checkpoint is rewritten before this returns (a
     * standalone embedder that keeps {@code flushedOffset} as its recovery point must persist it too), so a crash
     * after later appends finds their torn tail above the recovery point.
     *
     * <p>Readers: the new log end is published before any file shrinks, and a read in flight that runs into the
     * shrink retries; a {@link LogSlice} taken before may refer to bytes that are then gone (see its class comment).
     *
     * @param offset the new log end offset, 0 or more
     * @return the new log end offset ({@code offset}, or the base of the batch holding it)
     * @throws IllegalArgumentException if {@code offset} is negative
     * @throws StorageException if a file operation fails (the log goes offline) or the log is closed or offline
     */
    public long truncateTo(final long offset) {
        return parts.truncations.truncateTo(offset);
    }

    /**
     * Deletes every segment and restarts the log, empty, at {@code offset}: log start and log end both become
     * {@code offset} (Kafka's {@code truncateFullyAndStartAt}, for a follower whose fetch offset is out of the
     * leader's range). The new segment is created and its directory entry fsynced before the old ones are
     * deleted, so an active segment always exists; the leader-epoch cache is cleared and written.
     *
     * @param offset the new log start and end offset, 0 or more and below {@link Long#MAX_VALUE}
     * @throws IllegalArgumentException if {@code offset} is negative or {@link Long#MAX_VALUE}
     * @throws StorageException if a file operation fails (the log goes offline) or the log is closed or offline
     */
    public void truncateFullyAndStartAt(final long offset) {
        parts.truncations.truncateFullyAndStartAt(offset);
    }

    /**
     * Starts a leader epoch at the log end, before any batch of it is written: the replica became leader with this
     * epoch (Kafka's {@code makeLeader}, KAFKA-7415). The leader-epoch cache gets {@code (epoch, logEndOffset)} and
     * its checkpoint is written, so OffsetsForLeaderEpoch answers for the new epoch at once (followers that saw it
     * truncate correctly even if this leader is replaced before it appends). Entries at or above the log end are
     * dropped from the checkpoint again by the next open, as Kafka's loader does. A no-op when the epoch is already
     * the latest.
     *
     * @param leaderEpoch the new leader epoch, 0 or more and not below {@link #latestEpoch()}
     * @return the offset where the epoch starts: the log end offset
     * @throws IllegalArgumentException if the epoch is negative or below the log's latest
     * @throws StorageException if the checkpoint write fails (the log goes offline) or the log is closed or offline
     */
    public long beginLeaderEpoch(final int leaderEpoch) {
        return parts.appends.beginLeaderEpoch(leaderEpoch);
    }

    /**
     * Answers a follower's OffsetsForLeaderEpoch (KIP-101/KIP-279): the largest epoch at or below
     * {@code epoch} that this log knows and the offset where it ended here (the log end for the latest epoch).
     *
     * @param epoch the epoch asked about
     * @return the epoch and its end offset, or {@link EpochEndOffset#UNDEFINED}
     */
    public EpochEndOffset endOffsetForEpoch(final int epoch) {
        final EpochEnd found = parts.epochs.endOffsetFor(epoch, parts.end.offset());
        return found.isUndefined() ? EpochEndOffset.UNDEFINED : new EpochEndOffset(found.epoch(), found.endOffset());
    }

    /**
     * The leader epoch of the last batch that carried one.
     *
     * @return the epoch, or -1 when no batch has one
     */
    public int latestEpoch() {
        return parts.epochs.latestEpoch();
    }

    /**
     * The leader-epoch history (the entries of {@code leader-epoch-checkpoint}), oldest first: a copy.
     *
     * @return the entries
     */
    public List<LeaderEpochEntry> leaderEpochs() {
        return LeaderEpochEntry.listOf(parts.epochs.entries());
    }

    /**
     * The segments as they are now, oldest first: a copy.
     *
     * @return one entry per segment
     */
    public List<SegmentInfo> segments() {
        return SegmentInfo.listOf(parts.segments.array());
    }

    /**
     * What opening this log repaired: whether it was scanned, torn tails or corruption truncated, segments
     * deleted, indexes rebuilt, stray files removed, leader epochs rebuilt.
     *
     * @return the report
     */
    public RecoveryReport recoveryReport() {
        return parts.recoveryReport;
    }

    /**
     * The first offset of the log.
     *
     * @return the log start offset
     */
    public long logStartOffset() {
        return parts.watermarks.logStartOffset();
    }

    /**
     * The offset the next appended record will get; every offset below it is readable.
     *
     * @return the published log end offset
     */
    public long logEndOffset() {
        return parts.end.offset();
    }

    /**
     * The offset below which everything has been fsynced by {@link #flush} (or was on disk at open).
     *
     * @return the flushed offset
     */
    public long flushedOffset() {
        return parts.durability.flushedOffset();
    }

    /**
     * The number of segments.
     *
     * @return at least 1
     */
    public int segmentCount() {
        return parts.segments.count();
    }

    /**
     * The base offsets of the segments, oldest first.
     *
     * @return a new array
     */
    public long[] segmentBaseOffsets() {
        return parts.segments.baseOffsets();
    }

    /**
     * The id of the topic this partition belongs to, as its {@code partition.metadata} records it (Kafka's
     * {@code UnifiedLog.topicId}).
     *
     * @return the id, or empty when none was assigned yet (a log created before topic ids, or not yet led or
     *     followed under a controller that has them)
     */
    public Optional<TopicId> topicId() {
        return parts.topicIds.topicId();
    }

    /**
     * Records the topic id in {@code partition.metadata} (temp file, fsync, rename, directory fsync), the first
     * time; the id of a directory never changes. Kafka's replica manager does this when a partition becomes leader
     * or follower under a controller that sends ids.
     *
     * @param id the topic id, not {@link TopicId#ZERO} or {@link TopicId#ONE}
     * @return whether it was written now (false: the log already had this id)
     * @throws InconsistentTopicIdException naming the directory and both ids when the log holds another id (a
     *                                      directory left over from a deleted topic of the same name)
     * @throws IllegalArgumentException     for a reserved id
     * @throws IllegalStateException        for a read-only log
     * @throws StorageException             if the write fails (the log goes offline) or the log is closed or offline
     */
    public boolean assignTopicId(final TopicId id) {
        return parts.topicIds.assign(id);
    }

    /**
     * The partition directory.
     *
     * @return the directory
     */
    public Path dir() {
        return parts.dir;
    }

    /**
     * The log's current configuration: the one it was opened with, or the last one {@link #updateConfig} set.
     *
     * @return the configuration
     */
    public LogConfig config() {
        return parts.settings.current();
    }

    /**
     * Replaces the log's configuration (a topic's configuration changed, Kafka's {@code UnifiedLog.updateConfig}).
     * The new configuration replaces the old whole, under the append lock, so no append sees half of each; each
     * component reads its part at its next use:
     * <ul>
     *   <li>{@code max.message.bytes}, {@code message.timestamp.*}, {@code compression.type} and the
     *       {@code compression.*.level}s, {@code flush.messages}: the next append;</li>
     *   <li>{@code segment.bytes}, {@code segment.ms}: the next append's roll decision (a smaller size rolls the
     *       active segment at its next append); {@code segment.jitter.ms}, {@code segment.index.bytes},
     *       {@code index.interval.bytes}, {@value LogConfig#MAPPED_APPEND_MAX_BYTES_CONFIG},
     *       {@value LogConfig#READ_MAPPED_CONFIG}: the segments created from then on (existing segments keep the
     *       index files, interval and mapping they were created with, as in Kafka);</li>
     *   <li>{@code retention.ms}, {@code retention.bytes}, {@code cleanup.policy=delete}, {@code file.delete.delay.ms}:
     *       the next retention check; {@code flush.ms}: the next flush check;</li>
     *   <li>{@code cleanup.policy=compact} and the {@code *compaction*}, {@code min.cleanable.dirty.ratio},
     *       {@code delete.retention.ms} settings: the cleaner's next pass;</li>
     *   <li>{@code min.insync.replicas}, {@code unclean.leader.election.enable}: their readers in the replication
     *       layer, through {@link #config()}.</li>
     * </ul>
     * Settings read only when a log opens keep their value until the next open: {@code producer.id.expiration.ms}
     * and {@code producer.id.expiration.check.interval.ms} (broker-level settings in Kafka) and
     * {@value LogConfig#CORRUPTION_POLICY_CONFIG} (recovery runs at open).
     *
     * @param newConfig the new configuration
     * @throws IllegalStateException if the log is read-only
     * @throws StorageException if the log is closed or offline
     */
    public void updateConfig(final LogConfig newConfig) {
        parts.reconfiguration.apply(newConfig);
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
        parts.health.close(parts.appendLock, true, parts.closing::closeFiles);
    }

    /**
     * Closes the log as {@link #close()} does but keeps the partition directory's lock, for a log manager that
     * renames the directory for deletion first: no other writer can open the partition between the close and the
     * rename. The caller closes the returned lock. If closing fails, the lock is released and the failure thrown.
     *
     * @return the held lock; null for a read-only log
     */
    LogDirLock closeKeepingLock() {
        return parts.health.close(parts.appendLock, false, parts.closing::closeFiles);
    }

    boolean isClosed() {
        return parts.health.isClosed();
    }

    /** The segment array's current snapshot, for the cleaner. */
    LogSegment[] segmentArray() {
        return parts.segments.array();
    }

    /** The file layer, for the cleaner's files. */
    FileIO io() {
        return parts.io;
    }

    /** Whether the log is offline, for the cleaner. */
    boolean isOfflineOrClosed() {
        return parts.health.isOfflineOrClosed();
    }

    /** The log's part of the cleaner's swap ({@code CleanableLog.replaceSegments}; see {@link Deletions}). */
    boolean replaceSegments(final LogSegment[] group, final Path swapFile, final long nowMs) throws IOException {
        return parts.deletions.replaceSegments(group, swapFile, nowMs);
    }

    /** The {@code flush.ms} rule, for a log manager's flush task. */
    boolean isFlushDue(final long nowMs) {
        return parts.flushing.isFlushDue(nowMs, parts.settings.current().flushMs());
    }

    @Override
    public String toString() {
        return "PartitionLog{dir=" + parts.dir + ", logStartOffset=" + logStartOffset() + ", logEndOffset=" + logEndOffset()
            + ", segments=" + parts.segments.count() + "}";
    }
}
