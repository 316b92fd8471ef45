package io.seglog.storage.log;

import io.seglog.storage.config.TopicKeyNames;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.format.CompressionType;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.AppendBatches;
import io.seglog.storage.segment.BatchHeaders;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.InstantSource;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The append path of a partition log: validation (client or replication rules, Kafka's timestamp rules), offset
 * and epoch stamping, the roll decision and the write to the active segment, with the appender's reusable state
 * (buffer view, batch flyweight, validators, the append's batch list), so that appends allocate nothing in steady
 * state. The behaviour is documented on the partition log's {@code appendAsLeader} and {@code appendAsFollower}.
 *
 * <p>Header walks: a leader append reads each batch header twice, once while the validator walks its records and
 * once while it is stamped; a follower append once while validated and once while checked against the log. The
 * second walk notes each batch in an {@link AppendBatches}, from which the epoch cache, the roll decision, the
 * index entries and the segment's accounting are served without reading a header again.
 *
 * <p>Threads: the log's writer only (the caller holds the log's append lock).
 */
public final class Appender implements AutoCloseable {
    /**
     * The append rules of the log's configuration.
     *
     * @param maxMessageBytes      {@code max.message.bytes}: the largest batch
     * @param logAppendTime        {@code message.timestamp.type=LogAppendTime}: the broker stamps its time
     * @param timestampBeforeMaxMs {@code message.timestamp.before.max.ms}
     * @param timestampAfterMaxMs  {@code message.timestamp.after.max.ms}
     */
    public record Rules(int maxMessageBytes, boolean logAppendTime, long timestampBeforeMaxMs,
                        long timestampAfterMaxMs) {
    }

    /**
     * The topic's codec and levels ({@code compression.type}, {@code compression.*.level}).
     *
     * @param target    the codec batches are stored in, or null to keep each producer's ({@code producer})
     * @param gzipLevel gzip level of re-compression
     * @param lz4Level  lz4 level of re-compression
     * @param zstdLevel zstd level of re-compression
     */
    public record Compression(CompressionType target, int gzipLevel, int lz4Level, int zstdLevel) {
        /** Each producer's codec kept: Kafka's default {@code compression.type=producer}. */
        public static final Compression PRODUCER = new Compression(null, -1, 9, 3);
    }

    /**
     * The largest offset a record may get: the log end offset (the last offset plus one) must still be a long. Kafka
     * has the same bound in practice; here it is checked, so an append near the top never wraps to negative offsets.
     */
    public static final long MAX_LAST_OFFSET = Long.MAX_VALUE - 1;

    private static final String TIMESTAMP_BEFORE_KEY = TopicKeyNames.MESSAGE_TIMESTAMP_BEFORE_MAX_MS;
    private static final String TIMESTAMP_AFTER_KEY = TopicKeyNames.MESSAGE_TIMESTAMP_AFTER_MAX_MS;

    private final Segments segments;
    private final LogEnd end;
    private final LeaderEpochCache epochs;
    // The configuration's parts: replaced by reconfigure() under the log's append lock, so the writer reads them as
    // plain fields.
    private SegmentConfig segmentConfig;
    private Rules rules;
    private final InstantSource time;
    private final UnsafeBuffer appendView = new UnsafeBuffer(0, 0);
    // The caller's buffer is ours for the call: setLogAppendTime's CRC needs no duplicate per new buffer.
    private final RecordBatch batchView = RecordBatch.forOwnedBuffers();
    private RecordBatchValidator leaderValidator;
    private RecordBatchValidator followerValidator;
    private final AppendBatches batches = new AppendBatches();
    private final ProducerStateManager producers;
    private final java.util.function.LongSupplier highWatermark;
    /** Writes each abort's entry into the active segment's transaction index ({@link #indexAbort}). */
    private final ProducerStateManager.TransactionSink txnIndexWriter = this::indexAbort;
    /** Bytes of a marker batch: a 61-byte header and one record of a 4-byte key and a 6-byte value, with room. */
    private static final int MARKER_BATCH_CAPACITY = 128;
    // The marker path's own buffers, made at its first marker (most logs never write one).
    private RecordBatchBuilder markerBuilder;
    private ByteBuffer markerBuffer;
    private UnsafeBuffer markerView;
    private UnsafeBuffer markerKey;
    private UnsafeBuffer markerValue;
    /**
     * The cache's latest leader epoch as the last successful append found (or made) it; -1 when not known. While
     * it holds, appends in that epoch skip the cache's read-lock round trips (the fencing check, the latest-epoch
     * read and the no-op assign), about a fifth of a single-record append's CPU. Every other change to the cache
     * resets it ({@link #forgetConfirmedEpoch}).
     */
    private int confirmedEpoch = -1;
    /** The leader's re-compression to the topic's codec; null when producers' codecs are kept. */
    private Recompression recompression;
    private Compression compression;
    /** The records' largest timestamp per batch of the leader append being validated; grows, never shrinks. */
    private long[] recordMaxTimestamps = new long[8];

    /**
     * Creates the append path of one log with a topic codec.
     *
     * @param segments      the log's segments
     * @param end           the log's published end
     * @param epochs        the log's leader-epoch cache
     * @param segmentConfig the segment configuration (roll rules, segment size, the offset-gap rule)
     * @param rules         the append rules
     * @param compression   the topic's codec: producers' kept, or a re-compression target
     * @param time          the clock, for log-append time and time-based rolls
     * @param producers     the log's producer state: checked by leader appends, updated by every append,
     *                      snapshotted at a roll
     * @param highWatermark the log's high watermark: transactions whose markers are below it stop holding the last
     *                      stable offset down
     */
    public Appender(final Segments segments, final LogEnd end, final LeaderEpochCache epochs,
                    final SegmentConfig segmentConfig, final Rules rules, final Compression compression,
                    final InstantSource time, final ProducerStateManager producers,
                    final java.util.function.LongSupplier highWatermark) {
        this.compression = compression;
        this.recompression = recompressionFor(compression);
        this.segments = segments;
        this.end = end;
        this.epochs = epochs;
        this.segmentConfig = segmentConfig;
        this.rules = rules;
        this.time = time;
        this.producers = producers;
        this.highWatermark = highWatermark;
        // The validator needs room for a header; a smaller max.message.bytes rejects every batch anyway.
        final int maxBatchBytes = Math.max(rules.maxMessageBytes(), 61);
        this.leaderValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.CLIENT);
        this.followerValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.REPLICATION);
    }

    private static Recompression recompressionFor(final Compression compression) {
        return compression.target() == null ? null : new Recompression(compression.target(),
            compression.gzipLevel(), compression.lz4Level(), compression.zstdLevel(),
            RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES);
    }

    /**
     * Whether leader appends are stamped with the broker's time ({@code message.timestamp.type=LogAppendTime}) under
     * the current rules. Writer only: the caller holds the log's append lock.
     *
     * @return true for {@code LogAppendTime}
     */
    public boolean logAppendTime() {
        return rules.logAppendTime();
    }

    /**
     * Replaces the configuration's parts (a topic's configuration changed): the next append validates, compresses
     * and decides its roll by the new values. The validators and the re-compression are rebuilt only when their
     * settings changed (the old ones' native state is freed). Writer only: the caller holds the log's append lock.
     *
     * @param segmentConfig the segment configuration ({@code segment.bytes}, {@code segment.ms}, ...)
     * @param rules         the append rules
     * @param compression   the topic's codec
     */
    public void reconfigure(final SegmentConfig segmentConfig, final Rules rules, final Compression compression) {
        if (rules.maxMessageBytes() != this.rules.maxMessageBytes()) {
            final int maxBatchBytes = Math.max(rules.maxMessageBytes(), 61);
            final RecordBatchValidator leader = new RecordBatchValidator(maxBatchBytes,
                RecordBatchValidator.Origin.CLIENT);
            final RecordBatchValidator follower = new RecordBatchValidator(maxBatchBytes,
                RecordBatchValidator.Origin.REPLICATION);
            leaderValidator.close();
            followerValidator.close();
            leaderValidator = leader;
            followerValidator = follower;
        }
        if (!compression.equals(this.compression)) {
            final Recompression next = recompressionFor(compression);
            if (recompression != null) {
                recompression.close();
            }
            recompression = next;
            this.compression = compression;
        }
        this.segmentConfig = segmentConfig;
        this.rules = rules;
    }

    /** Frees the validators' codec state (native zstd contexts); idempotent. */
    @Override
    public void close() {
        leaderValidator.close();
        followerValidator.close();
        if (recompression != null) {
            recompression.close();
        }
    }

    /**
     * Appends as the leader; see the partition log's {@code appendAsLeader}.
     *
     * @param source      the batches, stamped in place
     * @param leaderEpoch the epoch to stamp, 0 or more (checked by the caller)
     * @param sink        told how the append ended, exactly once: appended with the offsets assigned, a fenced
     *                    leader, a duplicate with the original batch's offsets, or a producer-state refusal (nothing
     *                    written or stamped unless appended)
     * @return whether the batches were appended
     * @throws InvalidRecordException naming the first problem; nothing was written or stamped
     * @throws LogWriteException if a write fails; the log must go offline
     */
    public boolean appendAsLeader(final ByteBuffer source, final int leaderEpoch, final LeaderAppendSink sink)
        throws LogWriteException {
        return appendAsLeader(source, leaderEpoch, sink, false);
    }

    /**
     * Writes a transaction marker as the leader, for the transaction coordinator (Kafka's origin COORDINATOR): one
     * control batch of one record (Kafka's {@code EndTransactionMarker}: key version 0 and type, value version 0 and
     * coordinator epoch), transactional, sequence -1, stamped with this log's time, built in a buffer of this path's
     * own. The producer-state rules apply: a producer epoch below the producer's, or a coordinator epoch below its
     * last marker's, is refused through the sink.
     *
     * @param producerId       the transaction's producer
     * @param producerEpoch    its epoch
     * @param coordinatorEpoch the coordinator's epoch
     * @param commit           COMMIT, else ABORT
     * @param leaderEpoch      the epoch to stamp (checked by the caller)
     * @param sink             told how the append ended
     * @return whether the marker was appended
     * @throws LogWriteException if a write fails; the log must go offline
     */
    public boolean appendMarkerAsLeader(final long producerId, final short producerEpoch, final int coordinatorEpoch,
                                        final boolean commit, final int leaderEpoch, final LeaderAppendSink sink)
        throws LogWriteException {
        if (markerBuilder == null) {
            markerBuilder = new RecordBatchBuilder();
            markerBuffer = ByteBuffer.allocateDirect(MARKER_BATCH_CAPACITY);
            markerView = new UnsafeBuffer(markerBuffer);
            markerKey = new UnsafeBuffer(new byte[RecordBatchDescriptor.CONTROL_KEY_LENGTH]);
            markerValue = new UnsafeBuffer(new byte[RecordBatchDescriptor.MARKER_VALUE_LENGTH]);
        }
        markerKey.putShort(0, (short) 0, ByteOrder.BIG_ENDIAN);
        markerKey.putShort(RecordBatchDescriptor.CONTROL_KEY_TYPE_OFFSET, commit
            ? RecordBatchDescriptor.CONTROL_TYPE_COMMIT : RecordBatchDescriptor.CONTROL_TYPE_ABORT, ByteOrder.BIG_ENDIAN);
        markerValue.putShort(0, (short) 0, ByteOrder.BIG_ENDIAN);
        markerValue.putInt(RecordBatchDescriptor.MARKER_VALUE_COORDINATOR_EPOCH_OFFSET, coordinatorEpoch,
            ByteOrder.BIG_ENDIAN);
        markerBuffer.clear();
        final int size = markerBuilder.wrap(markerView, 0, MARKER_BATCH_CAPACITY).baseOffset(0)
            .partitionLeaderEpoch(leaderEpoch).producer(producerId, producerEpoch, -1).transactional(true)
            .control(true).appendRecord(time.millis(), markerKey, 0, markerKey.capacity(), markerValue, 0,
                markerValue.capacity()).build();
        markerBuffer.limit(size);
        return appendAsLeader(markerBuffer, leaderEpoch, sink, true);
    }

    private boolean appendAsLeader(final ByteBuffer source, final int leaderEpoch, final LeaderAppendSink sink,
                                   final boolean fromCoordinator) throws LogWriteException {
        final int offset = source.position();
        final int length = wrapForAppend(source);
        final boolean logAppendTime = rules.logAppendTime();
        // One clock read per append: the timestamp bounds, LogAppendTime and the roll check all use it.
        final long nowMs = time.millis();
        // Walk 1: Kafka's validation, the segment-size guard and the record count for the offset span.
        final long records = validateLeaderBatches(offset, length, logAppendTime, nowMs, fromCoordinator);
        if (!fromCoordinator && recompression != null && recompression.needed(appendView, offset, length)) {
            return appendRecompressed(source, offset, leaderEpoch, logAppendTime, sink);
        }
        final boolean epochConfirmed = leaderEpoch == confirmedEpoch;
        if (!epochConfirmed) {
            final int latestEpoch = epochs.latestEpoch();
            if (leaderEpoch < latestEpoch) {
                // An expected outcome (a newer leader's records reached this log), answered as a value.
                sink.fencedLeaderEpoch(leaderEpoch, latestEpoch);
                return false;
            }
        }
        final long firstOffset = end.offset();
        // Every check comes before the first stamp, so a rejected append leaves the caller's buffer as it was.
        if (firstOffset > MAX_LAST_OFFSET - (records - 1)) {
            throw new InvalidRecordException("lastOffset", firstOffset + (records - 1), MAX_LAST_OFFSET, 0, offset,
                "the append's " + records + " records at logEndOffset=" + firstOffset + " would pass the largest offset"
                    + " a log can hold (" + MAX_LAST_OFFSET + ", so that the log end offset stays representable)");
        }
        checkOffsetSpan(firstOffset, firstOffset + records - 1, offset);
        // Kafka's producer-state rules (a header read per batch; a map lookup per idempotent batch), before any stamp.
        if (!producers.checkLeaderAppend(appendView, offset, length, sink)) {
            return false;
        }
        // Walk 2: stamp each batch and note it for the segment.
        batches.clear();
        long next = firstOffset;
        int index = 0;
        for (int p = offset, limit = offset + length; p < limit; index++) {
            final int size = BatchHeaders.sizeInBytes(appendView, p);
            BatchHeaders.stampOffsetAndEpoch(appendView, p, next, leaderEpoch);
            if (logAppendTime) {
                batchView.wrap(appendView, p).setLogAppendTime(nowMs);
            } else if (recordMaxTimestamps[index] != BatchHeaders.maxTimestamp(appendView, p)) {
                // Kafka's LogValidator.assignOffsetsNonCompressed: the header's claim yields to the records'
                // maximum (the CRC covers maxTimestamp, so it is recomputed; rare, so its cost is too).
                BatchHeaders.stampMaxTimestamp(appendView, p, recordMaxTimestamps[index]);
                batchView.wrap(appendView, p).writeCrc();
            }
            final long last = next + BatchHeaders.lastOffsetDelta(appendView, p);
            batches.add(size, next, last, BatchHeaders.maxTimestamp(appendView, p), leaderEpoch);
            next = last + 1;
            p += size;
        }
        if (!epochConfirmed) {
            // Unconfirmed: assign (a no-op in the current epoch); confirmed, the cache's latest is this epoch.
            assignEpoch(leaderEpoch, firstOffset);
        }
        appendWithEpochs(source, offset, firstOffset, next - 1, nowMs);
        confirmedEpoch = leaderEpoch;
        applyAndPublish(offset, length, next);
        sink.appended(firstOffset, next - 1, logAppendTime ? nowMs : -1);
        return true;
    }

    /**
     * Appends the caller's one (validated) batch rebuilt in the topic's codec. The rebuilt batch goes through the
     * whole leader path (its size against {@code max.message.bytes} included, as Kafka checks the re-compressed
     * size); with log-append time the caller's header is stamped too, so that a caller reading the stamp from its
     * buffer (a produce response) sees the time the log stored.
     */
    private boolean appendRecompressed(final ByteBuffer source, final int offset, final int leaderEpoch,
                                       final boolean logAppendTime, final LeaderAppendSink sink)
        throws LogWriteException {
        final ByteBuffer rebuilt = recompression.rebuild(appendView, offset);
        final boolean appended = appendAsLeader(rebuilt, leaderEpoch, sink);
        if (logAppendTime && appended) {
            final long stamped = rebuilt.getLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET);
            wrapForAppend(source);
            batchView.wrap(appendView, offset).setLogAppendTime(stamped);
        }
        return appended;
    }

    /**
     * Validates a leader append batch by batch, noting each batch's largest record timestamp (the validator
     * collects it while it walks the records) and, with {@code CreateTime}, checking Kafka's record timestamp
     * bounds {@code [nowMs - message.timestamp.before.max.ms, nowMs + message.timestamp.after.max.ms]} (records
     * without a timestamp, -1, are exempt, as in Kafka), and that each batch fits a segment. A violating batch
     * rejects the whole append.
     *
     * @return the number of records (offsets) the batches take
     */
    private long validateLeaderBatches(final int offset, final int length, final boolean logAppendTime,
                                       final long nowMs, final boolean fromCoordinator) {
        long records = 0;
        final long before = rules.timestampBeforeMaxMs();
        final long after = rules.timestampAfterMaxMs();
        // Saturating: the defaults (Long.MAX_VALUE before) must not overflow into a bound that rejects everything.
        final long lowest = nowMs < 0 && before > nowMs - Long.MIN_VALUE ? Long.MIN_VALUE : nowMs - before;
        final long highest = nowMs > 0 && after > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + after;
        // The coordinator's marker is built here (sequence -1, a control batch): the client rules do not apply to it.
        final RecordBatchValidator validator = fromCoordinator ? followerValidator : leaderValidator;
        int index = 0;
        for (int p = offset, limit = offset + length; p < limit; index++) {
            if (!fromCoordinator && limit - p > RecordBatchDescriptor.ATTRIBUTES_OFFSET + 1) {
                final short attributes = appendView.getShort(p + RecordBatchDescriptor.ATTRIBUTES_OFFSET,
                    ByteOrder.BIG_ENDIAN);
                if ((attributes & RecordBatchDescriptor.CONTROL_FLAG_MASK) != 0) {
                    // Kafka's LogValidator, before any other check: a COMMIT or ABORT marker from a client would end
                    // transactions it does not own; markers are written by the leader when the coordinator asks.
                    throw new InvalidRecordException("attributes", attributes, -1, index, p, "clients are not allowed"
                        + " to write control records (transaction markers)");
                }
            }
            final int size = validator.checkBatch(appendView, p, limit - p);
            if (size < 0) {
                throw new InvalidRecordException(validator.lastField(), validator.lastValue(),
                    validator.lastExpected(), index, validator.lastPosition(), validator.lastDetail());
            }
            final int codec = appendView.getShort(p + RecordBatchDescriptor.ATTRIBUTES_OFFSET, ByteOrder.BIG_ENDIAN)
                & RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
            if (codec != 0 && (index > 0 || p + size < limit)) {
                // Kafka's LogValidator takes a compressed produce as one batch ("Compressed outer record has more
                // than one batch"); its offsets are assigned in the header only, records are never re-encoded.
                throw new InvalidRecordException("compressionCodec", codec, -1, index, p, "a compressed batch must be"
                    + " the only batch of its append");
            }
            if (!logAppendTime) {
                final long min = validator.lastBatchMinTimestamp();
                final long max = validator.lastBatchMaxTimestamp();
                if (min != -1 && min < lowest) {
                    throw new InvalidRecordException("timestamp", min, lowest, index, p, "record timestamp is more"
                        + " than " + TIMESTAMP_BEFORE_KEY + "=" + before + " before the"
                        + " broker time " + nowMs);
                }
                if (max != -1 && max > highest) {
                    throw new InvalidRecordException("timestamp", max, highest, index, p, "record timestamp is more"
                        + " than " + TIMESTAMP_AFTER_KEY + "=" + after + " after the"
                        + " broker time " + nowMs);
                }
            }
            if (index == recordMaxTimestamps.length) {
                // Grows to the largest batch count seen, so steady-state appends allocate nothing.
                recordMaxTimestamps = Arrays.copyOf(recordMaxTimestamps, index * 2);
            }
            recordMaxTimestamps[index] = validator.lastBatchMaxTimestamp();
            checkBatchSize(size, index, p);
            records += BatchHeaders.lastOffsetDelta(appendView, p) + 1L;
            p += size;
        }
        return records;
    }

    private static void checkOffsetSpan(final long firstOffset, final long lastOffset, final int position) {
        if (lastOffset - firstOffset > Integer.MAX_VALUE) {
            throw new InvalidRecordException("lastOffset", lastOffset, firstOffset + Integer.MAX_VALUE, 0, position,
                "an append spans more offsets than one segment's 32-bit relative offsets can hold");
        }
    }

    /**
     * Appends as a follower; see the partition log's {@code appendAsFollower}.
     *
     * @param source the batches, not modified
     * @return the last offset appended
     * @throws InvalidRecordException for a malformed batch or one that does not continue the log
     * @throws LogWriteException if a write fails; the log must go offline
     */
    public long appendAsFollower(final ByteBuffer source) throws LogWriteException {
        final int offset = source.position();
        final int length = wrapForAppend(source);
        // Walk 1: the replication rules, record by record.
        followerValidator.validate(appendView, offset, length);
        final long firstOffset = end.offset();
        long expected = firstOffset;
        int index = 0;
        final int latestEpoch = confirmedEpoch >= 0 ? confirmedEpoch : epochs.latestEpoch();
        int epoch = latestEpoch;
        // Walk 2: each batch against the log and the batch before it, noted for the segment.
        batches.clear();
        for (int p = offset, limit = offset + length; p < limit; index++) {
            final int size = BatchHeaders.sizeInBytes(appendView, p);
            checkBatchSize(size, index, p);
            final long base = BatchHeaders.baseOffset(appendView, p);
            // Kafka's follower rule: offsets only grow. An overlap is refused (the follower must truncate or
            // fetch from its log end); a gap is what compaction leaves, legal under every cleanup policy (the
            // leader's log may have been compacted before its topic was switched to delete).
            if (!SegmentConfig.allowsBatchAt(base, expected)) {
                throw new InvalidRecordException("baseOffset", base, expected, index, p, "batch overlaps "
                    + (index == 0 ? "the log" : "the previous batch of the append") + " (logEndOffset=" + firstOffset
                    + ")");
            }
            final int batchEpoch = BatchHeaders.partitionLeaderEpoch(appendView, p);
            if (batchEpoch >= 0 && batchEpoch < epoch) {
                throw new InvalidRecordException("partitionLeaderEpoch", batchEpoch, epoch, index, p,
                    "leader epochs never decrease along a log; the follower must truncate first");
            }
            epoch = Math.max(epoch, batchEpoch);
            final long last = BatchHeaders.lastOffset(appendView, p);
            if (last < base || last > MAX_LAST_OFFSET) {
                throw new InvalidRecordException("lastOffset", last, MAX_LAST_OFFSET, index, p, "the batch's base offset "
                    + base + " plus its lastOffsetDelta passes the largest offset a log can hold");
            }
            batches.add(size, base, last, BatchHeaders.maxTimestamp(appendView, p), batchEpoch);
            expected = last + 1;
            p += size;
        }
        if (epoch != latestEpoch || confirmedEpoch < 0) {
            // A new epoch (or an unknown cache state): assign each batch's epoch. Otherwise every batch is in the
            // cache's latest epoch, where assign is a no-op.
            for (int i = 0, n = batches.count(); i < n; i++) {
                if (batches.epoch(i) >= 0) {
                    assignEpoch(batches.epoch(i), batches.baseOffset(i));
                }
            }
        }
        // A new segment, if one is rolled, starts at the first batch (as Kafka's), not in a gap before it.
        appendWithEpochs(source, offset, batches.baseOffset(0), expected - 1, time.millis());
        // Kafka's REPLICATION origin: the state takes what the leader wrote, unchecked.
        applyAndPublish(offset, length, expected);
        // The cache's latest epoch is now the largest one appended (or the one it had): known without asking.
        confirmedEpoch = epoch >= 0 ? epoch : -1;
        return expected - 1;
    }

    /**
     * Starts a leader epoch at the log end before any batch of it is written (Kafka's {@code makeLeader}:
     * {@code maybeAssignEpochStartOffset(leaderEpoch, logEndOffset)}, KAFKA-7415), so that a leader elected twice
     * in quick succession can answer OffsetsForLeaderEpoch for an epoch it never wrote a batch in.
     *
     * @param epoch the new leader epoch, not below the log's latest
     * @return the epoch's start offset: the log end offset
     * @throws IllegalArgumentException if the epoch is below the log's latest
     * @throws LogWriteException if the checkpoint write fails; the log must go offline
     */
    public long beginEpoch(final int epoch) throws LogWriteException {
        final int latestEpoch = confirmedEpoch >= 0 ? confirmedEpoch : epochs.latestEpoch();
        if (epoch < latestEpoch) {
            throw new IllegalArgumentException("leaderEpoch=" + epoch + " is below the log's latest leader epoch "
                + latestEpoch);
        }
        final long start = end.offset();
        assignEpoch(epoch, start);
        return start;
    }

    /**
     * Any change to the epoch cache other than a confirmed leader append's forgets the confirmed epoch (a
     * truncation, a full restart).
     */
    public void forgetConfirmedEpoch() {
        confirmedEpoch = -1;
    }

    /**
     * Records a new leader epoch before its first batch is written, so the checkpoint never misses an epoch the
     * log holds (recovery checks batches against it). A no-op without allocation in the current epoch.
     */
    private void assignEpoch(final int epoch, final long startOffset) throws LogWriteException {
        forgetConfirmedEpoch();
        try {
            epochs.assign(epoch, startOffset);
        } catch (final IOException | RuntimeException e) {
            throw new LogWriteException("writing the leader-epoch checkpoint failed", e);
        }
    }

    /**
     * Appends after the epochs were assigned; if the append is refused (an offset span no segment can hold),
     * the epochs assigned for it are taken back, so the cache never holds an epoch the log does not.
     */
    private void appendWithEpochs(final ByteBuffer source, final int offset, final long firstOffset,
                                  final long lastOffset, final long nowMs) throws LogWriteException {
        try {
            appendToActiveSegment(source, offset, firstOffset, lastOffset, nowMs);
        } catch (final InvalidRecordException refused) {
            forgetConfirmedEpoch();
            if (epochs.truncateFromEnd(firstOffset)) {
                try {
                    epochs.flush();
                } catch (final IOException e) {
                    throw new LogWriteException("writing the leader-epoch checkpoint failed", e);
                }
            }
            throw refused;
        }
    }

    /**
     * Applies the written batches to the producer state, then publishes the new log end (Kafka's order: the state and
     * the transaction index, then {@code updateLogEndOffset}). Each transaction an ABORT among them completes gets its
     * entry in the active segment's transaction index (where the batches were just written) before the producer state
     * completes it. Published only then, no reader, follower or flush sees the batches before the state has them: the
     * high watermark (clamped to the published end) cannot pass a transaction's first batch before the transaction
     * holds the last stable offset down, no {@code read_committed} reader reads past an abort the index lacks, and a
     * flush that counts a marker as durable syncs its index entry too.
     */
    private void applyAndPublish(final int offset, final int length, final long endOffset)
        throws LogWriteException {
        final LogSegment active = segments.active();
        try {
            producers.onAppended(appendView, offset, length, endOffset, highWatermark.getAsLong(), txnIndexWriter);
        } catch (final UncheckedIOException e) {
            throw new LogWriteException("writing the aborted-transaction index of " + active.logFile()
                + " at offset=" + endOffset + " failed", e.getCause());
        }
        end.publish(endOffset, active, active.sizeInBytes());
    }

    /** {@link #txnIndexWriter}: an abort's entry; a failed write stops the producer state before it completes. */
    private void indexAbort(final long producerId, final long firstOffset, final long lastOffset,
                            final boolean aborted, final long lastStableOffset) {
        if (aborted) {
            try {
                segments.active().txnIndex().append(producerId, firstOffset, lastOffset, lastStableOffset);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private int wrapForAppend(final ByteBuffer batches) {
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

    /** Kafka's per-batch size guard, beyond the validator's max.message.bytes: a batch must fit a segment. */
    private void checkBatchSize(final int size, final int index, final int position) {
        if (size > segmentConfig.segmentBytes()) {
            throw new InvalidRecordException("batchSize", size, segmentConfig.segmentBytes(), index, position,
                "batch is larger than segment.bytes");
        }
    }

    private void appendToActiveSegment(final ByteBuffer source, final int offset, final long firstOffset,
                                       final long lastOffset, final long nowMs) throws LogWriteException {
        checkOffsetSpan(firstOffset, lastOffset, offset);
        LogSegment active = segments.active();
        try {
            // An offset the active segment's 32-bit relative indexes cannot hold forces a roll even when the segment
            // is empty (a compacted follower's first batch far above the segment's base): the new segment starts at
            // the batch, and the empty one stays, as in Kafka.
            final boolean outOfReach = !active.canConvertToRelativeOffset(lastOffset);
            if (outOfReach || active.sizeInBytes() > 0 && active.shouldRoll(segmentConfig, batches.bytes(),
                batches.maxTimestamp(), lastOffset, active.indexEntriesFor(batches), nowMs)) {
                active = segments.roll(firstOffset, nowMs);
                // Kafka's roll: a snapshot of the state at the log end, so a recovery replays at most one segment.
                producers.takeSnapshot();
            }
            active.append(source, appendView, offset, batches);
        } catch (final IOException | RuntimeException e) {
            throw new LogWriteException("append of " + batches.bytes() + " bytes at offset=" + firstOffset + " failed",
                e);
        }
        // Not published yet: applyAndPublish does, once the producer state (and a transaction index) has the batches.
    }
}
