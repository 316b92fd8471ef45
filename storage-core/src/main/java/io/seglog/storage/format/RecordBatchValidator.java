package io.seglog.storage.format;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.HEADER_SIZE_UP_TO_MAGIC;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_V2;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static java.nio.ByteOrder.BIG_ENDIAN;

import org.agrona.DirectBuffer;

/**
 * Checks v2 record batches from an untrusted source before anything is done with them: a caller's append
 * ({@link #validate}, throwing, all-or-nothing) or a recovery scan of file bytes ({@link #checkBatch},
 * non-throwing, torn tail told apart from corruption).
 *
 * <p>Checks, in order; each one guards the next, so no length is used before it has been bounded:
 * <ol>
 *   <li>at least 12 bytes for {@code baseOffset} and {@code batchLength} ({@link #INCOMPLETE} otherwise);</li>
 *   <li>{@code batchLength} at least 49 (a header without records) and at most {@code maxBatchBytes - 12}
 *       ({@link #BAD_LENGTH});</li>
 *   <li>{@code magic} is 2 ({@link #BAD_MAGIC}); checked before completeness, so a torn tail must at least
 *       start like a batch;</li>
 *   <li>the whole batch is present ({@link #INCOMPLETE});</li>
 *   <li>the CRC-32C of attributes..end matches ({@link #BAD_CRC});</li>
 *   <li>header fields agree ({@link #BAD_HEADER}): a known codec (0-4); {@code recordsCount} not negative
 *       and not more than the bytes could hold; {@code lastOffsetDelta} not negative; per {@link Origin}
 *       the count rule below;</li>
 *   <li>for an uncompressed batch, every record ({@link #BAD_RECORDS}): its length varint and each field
 *       and header stay inside the record, the record inside the batch, lengths are -1 (null) or more
 *       (header keys 0 or more), the fields fill the record exactly, the offset deltas follow the
 *       {@link Origin} rule, and no bytes trail the last record. A compressed {@link Origin#CLIENT} batch is
 *       decompressed first (bounded by {@code maxDecompressedBytes}; damaged or oversized compressed data is
 *       {@link #BAD_RECORDS}) and its records checked the same way, as Kafka's {@code LogValidator} checks a
 *       producer's compressed batch; compressed {@link Origin#REPLICATION} batches are accepted after the header
 *       checks (a leader validated them), as Kafka's follower append does.</li>
 * </ol>
 *
 * <p>Count and offset rules. {@link Origin#CLIENT} applies Kafka's {@code LogValidator} rules for a batch
 * from a producer: {@code recordsCount >= 1}, {@code recordsCount == lastOffsetDelta + 1}, and a batch with a
 * producer id needs {@code baseSequence >= 0}. In addition (stricter than Kafka, which never looks at the
 * deltas of an uncompressed batch) record {@code i} must have {@code offsetDelta == i}: Kafka's and our
 * builders always write them so, and readers derive offsets from the deltas, so a batch with any other
 * deltas would put duplicate or out-of-order offsets in the log. {@link Origin#REPLICATION} accepts what a
 * Kafka leader may legitimately have written, including batches thinned by compaction: {@code recordsCount}
 * from 0 to {@code lastOffsetDelta + 1} and deltas strictly increasing within {@code [0, lastOffsetDelta]}.
 *
 * <p>Timestamps: while it walks the records of a valid batch, the validator notes the largest record
 * timestamp, the offset delta of the first record that has it, and the smallest record timestamp other than
 * -1 ({@link #lastBatchMaxTimestamp()}, {@link #lastBatchOffsetDeltaOfMaxTimestamp()},
 * {@link #lastBatchMinTimestamp()}), so that a leader can correct the header's {@code maxTimestamp} and check
 * Kafka's timestamp bounds without a second walk. Judging them, control batches from clients and
 * producer-state rules are the log's business, not this format check.
 *
 * <p>Reusable and allocation-free (the failure path of {@link #validate} allocates only the exception; the first
 * compressed client batch creates the decompressor, which is then reused; {@link #close()} frees its native state).
 * Not thread-safe: one instance per appending thread. When the checked buffer wraps a direct {@code ByteBuffer},
 * the CRC is computed through that {@code ByteBuffer} itself: its position and limit move during the call and
 * are restored (a mark is discarded), so no other thread may use that {@code ByteBuffer}'s cursor meanwhile.
 */
public final class RecordBatchValidator implements AutoCloseable {
    /** Not enough bytes for the header or for the whole batch: a torn tail. */
    public static final int INCOMPLETE = -1;
    /** {@code batchLength} below the header size or above the configured maximum. */
    public static final int BAD_LENGTH = -2;
    /** {@code magic} is not 2. */
    public static final int BAD_MAGIC = -3;
    /** Stored CRC differs from the computed one. */
    public static final int BAD_CRC = -4;
    /** Header fields are inconsistent (codec, record count, offset delta, sequence). */
    public static final int BAD_HEADER = -5;
    /** A record is malformed or bytes trail the last record. */
    public static final int BAD_RECORDS = -6;

    /** Smallest legal {@code batchLength}: the header after the length field, with no records. */
    static final int MIN_BATCH_LENGTH = BATCH_HEADER_LENGTH - LOG_OVERHEAD;
    /** Highest codec id Kafka defines (zstd). */
    static final int MAX_CODEC = 4;

    /** Who built the batches being checked; selects the count and offset rules (see the class comment). */
    public enum Origin {
        /** A producer's batch appended by a leader: Kafka's client rules plus sequential offset deltas. */
        CLIENT,
        /** A batch a leader already accepted: follower fetches. */
        REPLICATION,
        /**
         * Bytes of a log file being recovered: lengths, magic, header rules and the CRC-32C are checked, records
         * are not walked. Why: every batch in a log was validated record by record when it was appended, and
         * the CRC covers the records, so a batch whose CRC matches holds the records that were validated; a
         * torn or corrupted batch fails the CRC. Kafka's {@code LogSegment.recover} checks the same
         * ({@code ensureValid}). Walking every record made recovery four times slower than the CRC alone.
         * Header rules are those of {@link #REPLICATION}; per-batch timestamps come from the header.
         */
        RECOVERY
    }

    /**
     * The default bound on one compressed client batch's decompressed records: 64 MiB. Kafka has none; 64 times
     * the default {@code max.message.bytes} leaves room for any producer batch (the producer sizes batches by their
     * compressed bytes, and repetitive records compress 10-50 times), while a batch that claims more is refused
     * before it can take the broker's memory.
     */
    public static final int DEFAULT_MAX_DECOMPRESSED_BYTES = 64 << 20;

    private final int maxBatchBytes;
    private final int maxDecompressedBytes;
    private final Origin origin;
    /** Created at the first compressed client batch: validators of follower and recovery appends never need it. */
    private BatchRecordReader decompressor;
    private final RecordBatch compressedBatch = new RecordBatch();
    // Moves the cursor of the caller's ByteBuffer for the CRC (restored after): the validator's caller owns the
    // bytes, and a duplicate per new buffer would allocate on every append of a network buffer.
    private final Crc32cCalculator crc = new Crc32cCalculator(true);
    private final RecordView record = new RecordView();

    // The timestamps of the last batch checkBatch accepted (see the class comment).
    private long batchMaxTimestamp = NO_TIMESTAMP;
    private int batchOffsetDeltaOfMaxTimestamp;
    private long batchMinTimestamp = NO_TIMESTAMP;

    private String lastField;
    private String lastDetail;
    private long lastValue;
    private long lastExpected;
    private int lastPosition;

    /**
     * Creates a validator with the {@link Origin#CLIENT} rules.
     *
     * @param maxBatchBytes largest accepted batch including its 12-byte log overhead (Kafka's
     *                      {@code max.message.bytes}).
     * @throws IllegalArgumentException when {@code maxBatchBytes} is below the 61-byte header.
     */
    public RecordBatchValidator(final int maxBatchBytes) {
        this(maxBatchBytes, Origin.CLIENT);
    }

    /**
     * Creates a validator.
     *
     * @param maxBatchBytes largest accepted batch including its 12-byte log overhead.
     * @param origin        the rules for record counts and offset deltas.
     * @throws IllegalArgumentException when {@code maxBatchBytes} is below the 61-byte header.
     */
    public RecordBatchValidator(final int maxBatchBytes, final Origin origin) {
        this(maxBatchBytes, DEFAULT_MAX_DECOMPRESSED_BYTES, origin);
    }

    /**
     * Creates a validator with a bound on what one compressed client batch may decompress to.
     *
     * @param maxBatchBytes        largest accepted batch including its 12-byte log overhead.
     * @param maxDecompressedBytes most bytes the records of one compressed {@link Origin#CLIENT} batch may
     *                             decompress to; a batch past it is refused ({@link #BAD_RECORDS}) when its output
     *                             reaches the bound, before more memory is taken.
     * @param origin               the rules for record counts and offset deltas.
     * @throws IllegalArgumentException when {@code maxBatchBytes} is below the 61-byte header.
     */
    public RecordBatchValidator(final int maxBatchBytes, final int maxDecompressedBytes, final Origin origin) {
        if (maxDecompressedBytes <= 0) {
            throw new IllegalArgumentException("maxDecompressedBytes=" + maxDecompressedBytes + " must be positive");
        }
        this.maxDecompressedBytes = maxDecompressedBytes;
        if (maxBatchBytes < BATCH_HEADER_LENGTH) {
            throw new IllegalArgumentException("maxBatchBytes=" + maxBatchBytes + " is below the batch header size "
                + BATCH_HEADER_LENGTH);
        }
        if (origin == null) {
            throw new IllegalArgumentException("origin=null");
        }
        this.maxBatchBytes = maxBatchBytes;
        this.origin = origin;
    }

    /**
     * The largest accepted batch.
     *
     * @return the limit in bytes, log overhead included.
     */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /**
     * The rules this validator applies.
     *
     * @return the origin.
     */
    public Origin origin() {
        return origin;
    }

    /**
     * Validates every batch in {@code buffer[offset, offset + length)}; the region must be exactly whole v2
     * batches (an empty region holds 0 batches). All-or-nothing: nothing is returned unless every batch passes.
     *
     * @param buffer the bytes.
     * @param offset first byte of the region.
     * @param length size of the region.
     * @return the number of batches.
     * @throws InvalidRecordException on the first problem, naming the field, value, limit, batch index and
     *                                byte position.
     * @throws IllegalArgumentException when the region lies outside the buffer.
     */
    public int validate(final DirectBuffer buffer, final int offset, final int length) {
        checkRegion(buffer, offset, length);
        final int end = offset + length;
        int position = offset;
        int batchIndex = 0;
        while (position < end) {
            final int size = checkBatch(buffer, position, end - position);
            if (size < 0) {
                throw new InvalidRecordException(lastField, lastValue, lastExpected, batchIndex, lastPosition,
                    lastDetail());
            }
            position += size;
            batchIndex++;
        }
        return batchIndex;
    }

    /**
     * Checks the one batch that starts at {@code offset}, without throwing: for recovery scans of file bytes.
     * After a negative result {@link #lastField()}, {@link #lastValue()}, {@link #lastExpected()},
     * {@link #lastPosition()} and {@link #lastDetail()} describe the problem.
     *
     * @param buffer    the bytes.
     * @param offset    first byte of the batch.
     * @param available bytes readable from {@code offset} (the batch may be followed by others).
     * @return the batch's total size ({@code batchLength + 12}) when it is valid; otherwise {@link #INCOMPLETE}
     *     (torn tail) or one of {@link #BAD_LENGTH}, {@link #BAD_MAGIC}, {@link #BAD_CRC}, {@link #BAD_HEADER},
     *     {@link #BAD_RECORDS} (corruption).
     * @throws IllegalArgumentException when the region lies outside the buffer.
     */
    public int checkBatch(final DirectBuffer buffer, final int offset, final int available) {
        checkRegion(buffer, offset, available);
        if (available < LOG_OVERHEAD) {
            return fail(INCOMPLETE, "batchLength", available, LOG_OVERHEAD, offset,
                "fewer bytes than the offset and length fields");
        }
        final int batchLength = buffer.getInt(offset + LENGTH_OFFSET, BIG_ENDIAN);
        if (batchLength < MIN_BATCH_LENGTH) {
            return fail(BAD_LENGTH, "batchLength", batchLength, MIN_BATCH_LENGTH, offset + LENGTH_OFFSET,
                "batch length below the header size");
        }
        if (batchLength > maxBatchBytes - LOG_OVERHEAD) {
            return fail(BAD_LENGTH, "batchLength", batchLength, maxBatchBytes - LOG_OVERHEAD, offset + LENGTH_OFFSET,
                "batch larger than maxBatchBytes allows");
        }
        if (available < HEADER_SIZE_UP_TO_MAGIC) {
            return fail(INCOMPLETE, "magic", available, HEADER_SIZE_UP_TO_MAGIC, offset,
                "fewer bytes than the header up to magic");
        }
        final byte magic = buffer.getByte(offset + MAGIC_OFFSET);
        if (magic != MAGIC_V2) {
            return fail(BAD_MAGIC, "magic", magic, MAGIC_V2, offset + MAGIC_OFFSET, "unsupported batch format");
        }
        if (batchLength > available - LOG_OVERHEAD) {
            return fail(INCOMPLETE, "batchLength", batchLength, available - LOG_OVERHEAD, offset + LENGTH_OFFSET,
                "batch runs past the end of the buffer");
        }
        final long storedCrc = buffer.getInt(offset + CRC_OFFSET, BIG_ENDIAN) & 0xffffffffL;
        final long computedCrc = crc.compute(buffer, offset + ATTRIBUTES_OFFSET,
            batchLength + LOG_OVERHEAD - ATTRIBUTES_OFFSET);
        if (storedCrc != computedCrc) {
            // The detail with both values in hex is built only when asked for (lastDetail), not on this path.
            return fail(BAD_CRC, "crc", storedCrc, computedCrc, offset + CRC_OFFSET, null);
        }
        final int headerStatus = checkHeader(buffer, offset, batchLength);
        if (headerStatus < 0) {
            return headerStatus;
        }
        final boolean compressed = (buffer.getShort(offset + ATTRIBUTES_OFFSET, BIG_ENDIAN) & COMPRESSION_CODEC_MASK) != 0;
        if (origin == Origin.RECOVERY || (compressed && origin == Origin.REPLICATION)) {
            // Records are not walked: covered by a CRC checked at recovery (see Origin.RECOVERY), or compressed in a
            // batch a leader already validated (Kafka's follower append does not decompress either): the header's
            // claims are all there is.
            batchMaxTimestamp = buffer.getLong(offset + MAX_TIMESTAMP_OFFSET, BIG_ENDIAN);
            batchOffsetDeltaOfMaxTimestamp = buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
            batchMinTimestamp = buffer.getLong(offset + BASE_TIMESTAMP_OFFSET, BIG_ENDIAN);
            return batchLength + LOG_OVERHEAD;
        }
        return checkRecords(buffer, offset, batchLength, compressed);
    }

    private int checkHeader(final DirectBuffer buffer, final int offset, final int batchLength) {
        final int codec = buffer.getShort(offset + ATTRIBUTES_OFFSET, BIG_ENDIAN) & COMPRESSION_CODEC_MASK;
        if (codec > MAX_CODEC) {
            return fail(BAD_HEADER, "compressionCodec", codec, MAX_CODEC, offset + ATTRIBUTES_OFFSET,
                "unknown compression codec");
        }
        final int count = buffer.getInt(offset + RECORDS_COUNT_OFFSET, BIG_ENDIAN);
        final int countPosition = offset + RECORDS_COUNT_OFFSET;
        if (count < 0) {
            return fail(BAD_HEADER, "recordsCount", count, 0, countPosition, "negative record count");
        }
        final int lastOffsetDelta = buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
        if (lastOffsetDelta < 0) {
            return fail(BAD_HEADER, "lastOffsetDelta", lastOffsetDelta, 0, offset + LAST_OFFSET_DELTA_OFFSET,
                "negative last offset delta");
        }
        if (codec == 0) {
            final int maxRecords = (batchLength - MIN_BATCH_LENGTH) / RecordView.MIN_RECORD_LENGTH;
            if (count > maxRecords) {
                return fail(BAD_HEADER, "recordsCount", count, maxRecords, countPosition,
                    "more records than the batch length can hold");
            }
        }
        final long countFromOffsets = lastOffsetDelta + 1L;
        if (origin == Origin.CLIENT) {
            if (count == 0) {
                return fail(BAD_HEADER, "recordsCount", count, 1, countPosition, "a client batch needs records");
            }
            if (count != countFromOffsets) {
                return fail(BAD_HEADER, "recordsCount", count, countFromOffsets, countPosition,
                    "record count differs from lastOffsetDelta + 1");
            }
            final long producerId = buffer.getLong(offset + PRODUCER_ID_OFFSET, BIG_ENDIAN);
            final int baseSequence = buffer.getInt(offset + BASE_SEQUENCE_OFFSET, BIG_ENDIAN);
            if (producerId >= 0 && baseSequence < 0) {
                return fail(BAD_HEADER, "baseSequence", baseSequence, 0, offset + BASE_SEQUENCE_OFFSET,
                    "idempotent batch without a sequence number");
            }
        } else if (count > countFromOffsets) {
            return fail(BAD_HEADER, "recordsCount", count, countFromOffsets, countPosition,
                "more records than lastOffsetDelta + 1");
        }
        return 0;
    }

    /**
     * Decompresses a client batch's records (Kafka's {@code LogValidator} does too, for every compressed batch a
     * producer sends), so that they are checked as an uncompressed batch's are.
     *
     * @return 0, or {@link #BAD_RECORDS} when the compressed records are damaged or too large
     * @throws CodecUnavailableException if the codec's library is not on the class path
     */
    private int decompress(final DirectBuffer buffer, final int offset) {
        if (decompressor == null) {
            decompressor = new BatchRecordReader(maxDecompressedBytes);
        }
        try {
            decompressor.open(compressedBatch.wrap(buffer, offset));
            return 0;
        } catch (final InvalidRecordException e) {
            return fail(BAD_RECORDS, e.field(), e.value(), e.limit(), offset + RECORDS_OFFSET, e.getMessage());
        }
    }

    private int checkRecords(final DirectBuffer batchBuffer, final int offset, final int batchLength,
                             final boolean compressed) {
        final int count = batchBuffer.getInt(offset + RECORDS_COUNT_OFFSET, BIG_ENDIAN);
        final int lastOffsetDelta = batchBuffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
        final long baseTimestamp = batchBuffer.getLong(offset + BASE_TIMESTAMP_OFFSET, BIG_ENDIAN);
        final DirectBuffer buffer;
        final int end;
        int position;
        if (compressed) {
            final int status = decompress(batchBuffer, offset);
            if (status < 0) {
                return status;
            }
            buffer = decompressor.buffer();
            position = 0;
            end = decompressor.recordsBytes();
        } else {
            buffer = batchBuffer;
            position = offset + RECORDS_OFFSET;
            end = offset + LOG_OVERHEAD + batchLength;
        }
        // Positions in decompressed bytes mean nothing to the caller: errors there name the records' start.
        final int reportedRecords = offset + RECORDS_OFFSET;
        int previousDelta = -1;
        // Kafka's LogValidator starts the maximum at NO_TIMESTAMP (-1) and keeps the first record that beats it.
        long maxTimestamp = NO_TIMESTAMP;
        int offsetDeltaOfMax = lastOffsetDelta;
        long minTimestamp = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            final int size = record.parse(buffer, position, end);
            if (size < 0) {
                return fail(BAD_RECORDS, record.errorField, record.errorValue, record.errorLimit,
                    compressed ? reportedRecords : record.errorPosition, compressed
                        ? "decompressed record " + i + " at byte " + record.errorPosition + ": " + record.errorDetail
                        : record.errorDetail);
            }
            final int delta = record.offsetDelta();
            if (origin == Origin.CLIENT) {
                if (delta != i) {
                    return fail(BAD_RECORDS, "offsetDelta", delta, i, compressed ? reportedRecords : position,
                        "offset delta differs from the record's index in a client batch");
                }
            } else if (delta <= previousDelta || delta > lastOffsetDelta) {
                return fail(BAD_RECORDS, "offsetDelta", delta, delta <= previousDelta ? previousDelta + 1L : lastOffsetDelta,
                    position, "offset delta not increasing or beyond lastOffsetDelta");
            }
            previousDelta = delta;
            position += size;
            final long timestamp = baseTimestamp + record.timestampDelta();
            if (timestamp > maxTimestamp) {
                maxTimestamp = timestamp;
                offsetDeltaOfMax = delta;
            }
            if (timestamp != NO_TIMESTAMP && timestamp < minTimestamp) {
                minTimestamp = timestamp;
            }
        }
        if (position != end) {
            return compressed
                ? fail(BAD_RECORDS, "recordsCount", count, -1, offset + RECORDS_COUNT_OFFSET,
                    "decompressed bytes remain after the declared records (" + position + " of " + end + " read)")
                : fail(BAD_RECORDS, "batchLength", batchLength, position - offset - LOG_OVERHEAD,
                    offset + LENGTH_OFFSET, "bytes trail the last record");
        }
        batchMaxTimestamp = maxTimestamp;
        batchOffsetDeltaOfMaxTimestamp = offsetDeltaOfMax;
        batchMinTimestamp = minTimestamp == Long.MAX_VALUE ? NO_TIMESTAMP : minTimestamp;
        return batchLength + LOG_OVERHEAD;
    }

    /**
     * The largest record timestamp of the last batch {@link #checkBatch} accepted (for a compressed batch, its
     * header's {@code maxTimestamp}).
     *
     * @return the timestamp, -1 when no record has a larger one
     */
    public long lastBatchMaxTimestamp() {
        return batchMaxTimestamp;
    }

    /**
     * The offset delta of the first record with {@link #lastBatchMaxTimestamp()} in the last accepted batch
     * (its {@code lastOffsetDelta} when no record has a timestamp above -1, or the batch is compressed).
     *
     * @return the offset delta
     */
    public int lastBatchOffsetDeltaOfMaxTimestamp() {
        return batchOffsetDeltaOfMaxTimestamp;
    }

    /**
     * The smallest record timestamp other than -1 (no timestamp) of the last accepted batch (for a compressed
     * batch, its header's {@code baseTimestamp}).
     *
     * @return the timestamp, -1 when no record has one
     */
    public long lastBatchMinTimestamp() {
        return batchMinTimestamp;
    }

    private static void checkRegion(final DirectBuffer buffer, final int offset, final int length) {
        if (offset < 0 || length < 0 || (long) offset + length > buffer.capacity()) {
            throw new IllegalArgumentException("region offset=" + offset + " length=" + length
                + " outside buffer capacity=" + buffer.capacity());
        }
    }


    private int fail(final int status, final String field, final long value, final long expected, final int position,
        final String detail) {
        lastField = field;
        lastValue = value;
        lastExpected = expected;
        lastPosition = position;
        lastDetail = detail;
        return status;
    }

    /**
     * Releases the native state of the codecs a compressed client batch brought in (zstd's context); idempotent.
     * The validator stays usable: a later compressed batch makes a new one.
     */
    @Override
    public void close() {
        if (decompressor != null) {
            decompressor.close();
            decompressor = null;
        }
    }

    /**
     * Field named by the last failed check.
     *
     * @return the field name, or null before any failure.
     */
    public String lastField() {
        return lastField;
    }

    /**
     * Value found by the last failed check.
     *
     * @return the value.
     */
    public long lastValue() {
        return lastValue;
    }

    /**
     * What the last failed check expected: the limit broken, or for a CRC the computed CRC.
     *
     * @return the expected value or limit, -1 when not applicable.
     */
    public long lastExpected() {
        return lastExpected;
    }

    /**
     * Byte position in the buffer of the field named by the last failed check.
     *
     * @return the position.
     */
    public int lastPosition() {
        return lastPosition;
    }

    /**
     * Explanation of the last failed check.
     *
     * @return the detail text; for a CRC mismatch it gives the expected (computed) and found (stored) CRC in hex.
     */
    public String lastDetail() {
        if (lastDetail == null && "crc".equals(lastField)) {
            // Decimal, as Kafka's tools print a CRC (kafka-dump-log's crc:, seglog verify and dump-log).
            return "CRC-32C mismatch: expected " + lastExpected + " (computed), found " + lastValue + " (stored)";
        }
        return lastDetail;
    }
    /**
     * Every check {@link #checkBatch} makes for {@link Origin#RECOVERY} except the CRC: the length fields, the
     * magic byte, the whole batch present, and the header rules. For a recovery scan that verifies the CRCs of
     * many batches elsewhere (on several threads) and calls {@link #checkBatch} again where this stops, to learn
     * why. Static, allocation-free, records no failure details.
     *
     * @param buffer    the bytes
     * @param offset    where the batch starts
     * @param available bytes from {@code offset} that may belong to it
     * @return the batch's total size ({@code batchLength + 12}) when every check but the CRC passes, else -1
     */
    public static int recoveryFrameSize(final DirectBuffer buffer, final int offset, final int available) {
        if (offset < 0 || available < BATCH_HEADER_LENGTH || (long) offset + available > buffer.capacity()) {
            return -1;
        }
        final int batchLength = buffer.getInt(offset + LENGTH_OFFSET, BIG_ENDIAN);
        if (batchLength < MIN_BATCH_LENGTH || batchLength > available - LOG_OVERHEAD
            || buffer.getByte(offset + MAGIC_OFFSET) != MAGIC_V2) {
            return -1;
        }
        final int codec = buffer.getShort(offset + ATTRIBUTES_OFFSET, BIG_ENDIAN) & COMPRESSION_CODEC_MASK;
        final int count = buffer.getInt(offset + RECORDS_COUNT_OFFSET, BIG_ENDIAN);
        final int lastOffsetDelta = buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
        if (codec > MAX_CODEC || count < 0 || lastOffsetDelta < 0 || count > lastOffsetDelta + 1L
            || (codec == 0 && count > (batchLength - MIN_BATCH_LENGTH) / RecordView.MIN_RECORD_LENGTH)) {
            return -1;
        }
        return batchLength + LOG_OVERHEAD;
    }
}
