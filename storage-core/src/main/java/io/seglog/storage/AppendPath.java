package io.seglog.storage;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.segment.BatchHeaders;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The append path of a {@link PartitionLog}: validation (client or replication rules, Kafka's timestamp rules),
 * offset and epoch stamping, and the write to the active segment, with the appender's reusable state (buffer
 * view, batch flyweight, validators), so that appends allocate nothing in steady state. Split out of
 * PartitionLog to keep files to one concern; the behaviour is documented on {@link PartitionLog#appendAsLeader}
 * and {@link PartitionLog#appendAsFollower}.
 *
 * <p>Threads: used only by the appender, under the log's append lock (taken here).
 */
final class AppendPath {
    private final PartitionLog log;
    private final UnsafeBuffer appendView = new UnsafeBuffer(0, 0);
    // The caller's buffer is ours for the call: setLogAppendTime's CRC needs no duplicate per new buffer.
    private final RecordBatch batchView = RecordBatch.forOwnedBuffers();
    private final RecordBatchValidator leaderValidator;
    private final RecordBatchValidator followerValidator;
    /**
     * The cache's latest leader epoch as the last successful append found (or made) it; -1 when not known. While
     * it holds, appends in that epoch skip the cache's read-lock round trips (the fencing check, the latest-epoch
     * read and the no-op assign), about a fifth of a single-record append's CPU. Guarded by appendLock; every other
     * change to the cache resets it ({@link #forgetConfirmedEpoch}).
     */
    private int confirmedEpoch = -1;
    /** The records' largest timestamp per batch of the leader append being validated; grows, never shrinks. */
    private long[] recordMaxTimestamps = new long[8];

    AppendPath(final PartitionLog log, final LogConfig config) {
        this.log = log;
        // The validator needs room for a header; a smaller max.message.bytes rejects every batch anyway.
        final int maxBatchBytes = Math.max(config.maxMessageBytes(), 61);
        this.leaderValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.CLIENT);
        this.followerValidator = new RecordBatchValidator(maxBatchBytes, RecordBatchValidator.Origin.REPLICATION);
    }

    long appendAsLeader(final ByteBuffer batches, final int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        log.appendLock.lock();
        try {
            final int offset = batches.position();
            final int length = wrapForAppend(batches);
            final boolean logAppendTime = log.config.messageTimestampType() == LogConfig.TimestampType.LOG_APPEND_TIME;
            // One clock read per append: the timestamp bounds, LogAppendTime and the roll check all use it.
            final long nowMs = log.time.millis();
            // One walk: Kafka's validation, the segment-size guard and the record count for the offset span.
            final long records = validateLeaderBatches(offset, length, logAppendTime, nowMs);
            final boolean epochConfirmed = leaderEpoch == confirmedEpoch;
            if (!epochConfirmed) {
                final int latestEpoch = log.epochs.latestEpoch();
                if (leaderEpoch < latestEpoch) {
                    throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " is below the log's latest"
                        + " leader epoch " + latestEpoch + " (a fenced leader must not append)");
                }
            }
            final long firstOffset = log.endOffset;
            // Every check comes before the first stamp, so a rejected append leaves the caller's buffer as it was.
            checkOffsetSpan(firstOffset, firstOffset + records - 1, offset);
            long next = firstOffset;
            long maxTimestamp = -1;
            int index = 0;
            for (int p = offset, end = offset + length; p < end; index++) {
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
                maxTimestamp = Math.max(maxTimestamp, BatchHeaders.maxTimestamp(appendView, p));
                next += BatchHeaders.lastOffsetDelta(appendView, p) + 1L;
                p += size;
            }
            if (!epochConfirmed) {
                // Unconfirmed: assign (a no-op in the current epoch); confirmed, the cache's latest is this epoch.
                assignEpoch(leaderEpoch, firstOffset);
            }
            appendWithEpochs(batches, offset, length, firstOffset, next - 1, maxTimestamp, nowMs);
            confirmedEpoch = leaderEpoch;
            return next - 1;
        } finally {
            log.appendLock.unlock();
        }
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
                                       final long nowMs) {
        long records = 0;
        final long before = log.config.messageTimestampBeforeMaxMs();
        final long after = log.config.messageTimestampAfterMaxMs();
        // Saturating: the defaults (Long.MAX_VALUE before) must not overflow into a bound that rejects everything.
        final long lowest = nowMs < 0 && before > nowMs - Long.MIN_VALUE ? Long.MIN_VALUE : nowMs - before;
        final long highest = nowMs > 0 && after > Long.MAX_VALUE - nowMs ? Long.MAX_VALUE : nowMs + after;
        int index = 0;
        for (int p = offset, end = offset + length; p < end; index++) {
            final int size = leaderValidator.checkBatch(appendView, p, end - p);
            if (size < 0) {
                throw new InvalidRecordException(leaderValidator.lastField(), leaderValidator.lastValue(),
                    leaderValidator.lastExpected(), index, leaderValidator.lastPosition(), leaderValidator.lastDetail());
            }
            if (!logAppendTime) {
                final long min = leaderValidator.lastBatchMinTimestamp();
                final long max = leaderValidator.lastBatchMaxTimestamp();
                if (min != -1 && min < lowest) {
                    throw new InvalidRecordException("timestamp", min, lowest, index, p, "record timestamp is more"
                        + " than " + LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + "=" + before + " before the"
                        + " broker time " + nowMs);
                }
                if (max != -1 && max > highest) {
                    throw new InvalidRecordException("timestamp", max, highest, index, p, "record timestamp is more"
                        + " than " + LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + "=" + after + " after the"
                        + " broker time " + nowMs);
                }
            }
            if (index == recordMaxTimestamps.length) {
                // Grows to the largest batch count seen, so steady-state appends allocate nothing.
                recordMaxTimestamps = Arrays.copyOf(recordMaxTimestamps, index * 2);
            }
            recordMaxTimestamps[index] = leaderValidator.lastBatchMaxTimestamp();
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

    long appendAsFollower(final ByteBuffer batches) {
        log.appendLock.lock();
        try {
            final int offset = batches.position();
            final int length = wrapForAppend(batches);
            followerValidator.validate(appendView, offset, length);
            final long firstOffset = log.endOffset;
            long expected = firstOffset;
            long maxTimestamp = -1;
            int index = 0;
            final int latestEpoch = confirmedEpoch >= 0 ? confirmedEpoch : log.epochs.latestEpoch();
            int epoch = latestEpoch;
            final LogConfig.CleanupPolicy cleanupPolicy = log.config.cleanupPolicy();
            for (int p = offset, end = offset + length; p < end; index++) {
                final int size = BatchHeaders.sizeInBytes(appendView, p);
                checkBatchSize(size, index, p);
                final long base = BatchHeaders.baseOffset(appendView, p);
                // Kafka's follower rule: offsets only grow. An overlap is refused (the follower must truncate or
                // fetch from its log end); a gap only where compaction makes them (cleanup.policy=compact).
                if (!cleanupPolicy.allowsBatchAt(base, expected)) {
                    throw new InvalidRecordException("baseOffset", base, expected, index, p, (base < expected
                        ? "batch overlaps " + (index == 0 ? "the log" : "the previous batch of the append")
                        : "batch leaves a gap after " + (index == 0 ? "the log" : "the previous batch of the append")
                            + ", legal only with " + LogConfig.CLEANUP_POLICY_CONFIG + "=compact")
                        + " (logEndOffset=" + firstOffset + ")");
                }
                final int batchEpoch = BatchHeaders.partitionLeaderEpoch(appendView, p);
                if (batchEpoch >= 0 && batchEpoch < epoch) {
                    throw new InvalidRecordException("partitionLeaderEpoch", batchEpoch, epoch, index, offset + p,
                        "leader epochs never decrease along a log; the follower must truncate first");
                }
                epoch = Math.max(epoch, batchEpoch);
                expected = BatchHeaders.lastOffset(appendView, p) + 1;
                maxTimestamp = Math.max(maxTimestamp, BatchHeaders.maxTimestamp(appendView, p));
                p += size;
            }
            if (epoch != latestEpoch || confirmedEpoch < 0) {
                // A new epoch (or an unknown cache state): assign each batch's epoch. Otherwise every batch is in
                // the cache's latest epoch, where assign is a no-op.
                for (int p = offset, end = offset + length; p < end; p += BatchHeaders.sizeInBytes(appendView, p)) {
                    final int batchEpoch = BatchHeaders.partitionLeaderEpoch(appendView, p);
                    if (batchEpoch >= 0) {
                        assignEpoch(batchEpoch, BatchHeaders.baseOffset(appendView, p));
                    }
                }
            }
            // A new segment, if one is rolled, starts at the first batch (as Kafka's), not in a gap before it.
            appendWithEpochs(batches, offset, length, BatchHeaders.baseOffset(appendView, offset), expected - 1,
                maxTimestamp, log.time.millis());
            // The cache's latest epoch is now the largest one appended (or the one it had): known without asking.
            confirmedEpoch = epoch >= 0 ? epoch : -1;
            return expected - 1;
        } finally {
            log.appendLock.unlock();
        }
    }

    /**
     * Records a new leader epoch before its first batch is written, so the checkpoint never misses an epoch the
     * log holds (recovery checks batches against it). A no-op without allocation in the current epoch.
     */
    /** Any change to the epoch cache other than a confirmed leader append's forgets the confirmed epoch. */
    void forgetConfirmedEpoch() {
        confirmedEpoch = -1;
    }

    private void assignEpoch(final int epoch, final long startOffset) {
        forgetConfirmedEpoch();
        try {
            log.epochs.assign(epoch, startOffset);
        } catch (final IOException | RuntimeException e) {
            throw log.goOffline("writing the leader-epoch checkpoint failed", e);
        }
    }

    /**
     * Appends after the epochs were assigned; if the append is refused (an offset span no segment can hold),
     * the epochs assigned for it are taken back, so the cache never holds an epoch the log does not.
     */
    private void appendWithEpochs(final ByteBuffer batches, final int offset, final int length, final long firstOffset,
                                  final long lastOffset, final long maxTimestamp, final long nowMs) {
        try {
            appendToActiveSegment(batches, offset, length, firstOffset, lastOffset, maxTimestamp, nowMs);
        } catch (final InvalidRecordException refused) {
            forgetConfirmedEpoch();
            if (log.epochs.truncateFromEnd(firstOffset)) {
                try {
                    log.epochs.flush();
                } catch (final IOException e) {
                    throw log.goOffline("writing the leader-epoch checkpoint failed", e);
                }
            }
            throw refused;
        }
    }

    private int wrapForAppend(final ByteBuffer batches) {
        log.ensureWritable();
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
        if (size > log.config.segmentBytes()) {
            throw new InvalidRecordException("batchSize", size, log.config.segmentBytes(), index, position,
                "batch is larger than " + LogConfig.SEGMENT_BYTES_CONFIG);
        }
    }

    private void appendToActiveSegment(final ByteBuffer source, final int offset, final int length,
                                       final long firstOffset, final long lastOffset, final long maxTimestamp,
                                       final long nowMs) {
        checkOffsetSpan(firstOffset, lastOffset, offset);
        final LogSegment[] segments = log.segments;
        LogSegment active = segments[segments.length - 1];
        try {
            final int newEntries = active.indexEntriesFor(appendView, offset, length);
            if (active.sizeInBytes() > 0
                && active.shouldRoll(log.config, length, maxTimestamp, lastOffset, newEntries, nowMs)) {
                active = log.roll(firstOffset, nowMs);
            }
            active.append(source, appendView, offset, length);
        } catch (final IOException | RuntimeException e) {
            throw log.goOffline("append of " + length + " bytes at offset=" + firstOffset + " failed", e);
        }
        log.publishEnd(lastOffset + 1, active, active.sizeInBytes());
    }
}
