package io.seglog.storage.format;

import org.agrona.DirectBuffer;

/**
 * Flyweight over one record of a v2 batch, filled by {@link RecordBatch#nextRecord(RecordView)} (uncompressed
 * batches, in place) or {@link BatchRecordReader#next(RecordView)} (any batch; a compressed one's decompressed copy).
 *
 * <pre>
 *  length        varint   bytes after this field
 *  attributes    int8     unused, 0
 *  timestampDelta varlong  timestamp - batch baseTimestamp
 *  offsetDelta   varint   offset - batch baseOffset
 *  keyLength     varint   -1 = null key
 *  key           bytes
 *  valueLength   varint   -1 = null value
 *  value         bytes
 *  headerCount   varint
 *  headers       headerKeyLength varint (&gt;= 0), key (UTF-8), headerValueLength varint (-1 = null), value
 * </pre>
 *
 * <p>Accessors return positions in {@link #buffer()} rather than copies, so reading a record allocates
 * nothing; {@link #nextHeader(RecordHeader)} walks the headers the same way. The structure has been checked
 * against the enclosing batch when the record was read, so every position lies inside the batch.
 *
 * <p>Named a view (it was {@code Record}) so that it never clashes with {@code java.lang.Record} under a wildcard
 * import.
 *
 * <p>Not thread-safe; a flyweight belongs to one thread.
 */
public final class RecordView {
    /** Smallest record body: attributes and one byte each for the five varints that follow the length. */
    static final int MIN_BODY_LENGTH = 6;
    /**
     * Readable bytes {@link #parseQuick} needs after a record's end: it may read up to three bytes past the end
     * of a malformed record before that record's checks reject it; the rest is margin.
     */
    static final int QUICK_SLACK = 16;
    /** Smallest encoded record: a one-byte length plus {@link #MIN_BODY_LENGTH}. */
    static final int MIN_RECORD_LENGTH = 1 + MIN_BODY_LENGTH;

    private DirectBuffer buffer;
    private int startIndex;
    private int sizeInBytes;
    private byte attributes;
    private long timestampDelta;
    private int offsetDelta;
    private int keyLength;
    private int keyOffset;
    private int valueLength;
    private int valueOffset;
    private int headerCount;
    private int headersOffset;
    private long baseOffset;
    private long baseTimestamp;
    private long logAppendTime = RecordBatchDescriptor.NO_TIMESTAMP;
    /** Whether the batch uses log-append time: then even a max timestamp of -1 is every record's (Kafka). */
    private boolean isLogAppendTime;
    private int headerCursor;
    private int headersRemaining;

    // Why the last parse failed; strings are constants so a failure allocates nothing.
    String errorField;
    String errorDetail;
    long errorValue;
    long errorLimit;
    int errorPosition;

    /**
     * Creates an empty flyweight; fill it with {@link RecordBatch#nextRecord(RecordView)}.
     */
    public RecordView() {
    }

    /**
     * Parses and checks the record at {@code position}, which must end at or before {@code limit}.
     *
     * @return the record's size in bytes, or -1 with the {@code error*} fields set.
     */
    int parse(final DirectBuffer buffer, final int position, final int limit) {
        this.buffer = buffer;
        this.startIndex = position;
        headersRemaining = 0; // until the headers are known to be well formed
        if (UncheckedReads.rangeInside(buffer, position, limit)) {
            final byte[] array = buffer.byteArray();
            final long address = buffer.addressOffset();
            final int quickEnd = buffer.capacity() - QUICK_SLACK;
            if (position <= quickEnd) {
                final int size = parseQuick(array, address, position, limit, quickEnd);
                if (size > 0) {
                    return size;
                }
            }
            final int size = parseFast(array, address, position, limit);
            if (size > 0) {
                return size;
            }
        }
        return parseChecked(buffer, position, limit);
    }

    /**
     * The commonest record shape, read with one load and one branch per field: every varint one or two bytes,
     * at most 63 headers (a one-byte count). Accepts only a record that {@link #parseChecked} accepts, with the same field values; anything
     * else returns 0 and {@link #parseFast} (then {@link #parseChecked}) decides, so errors are theirs. Why:
     * {@link #parseFast} tests the limit at every byte; this tests the record's bounds once and reads the
     * fields without a limit, which is most of the per-record CPU of a leader append and of iteration.
     *
     * <p>Safety without a limit per byte: {@code position} is at or before {@code quickEnd}, at least
     * {@link #QUICK_SLACK} bytes before the buffer's end, and the record's end is checked against {@code limit}
     * and {@code quickEnd} before any field after the length is read. Every varint read covers two bytes and
     * advances at most two. The body is at least six bytes, so the timestamp, offset delta and key length
     * varints (read before their check) end at most one byte past the record's end; a key or value length is
     * followed only when it fits between the current position and the record's end (so a position past the end
     * never jumps); the same holds for each header's key and value lengths, and a header starts only at or
     * before the end. No read reaches four bytes past the record's end, well inside {@link #QUICK_SLACK}, so
     * every read stays in the buffer whatever the bytes say.
     *
     * <p>Package-private so that tests can hold it against {@link #parseChecked} directly.
     *
     * @param quickEnd the last record end this path may take: the buffer's capacity minus {@link #QUICK_SLACK}.
     * @return the record's size, or 0 to take a slower path.
     */
    int parseQuick(final byte[] array, final long address, final int position, final int limit,
                           final int quickEnd) {
        int packed = UncheckedReads.shortVarint(array, address, position);
        if (packed < 0) {
            return 0;
        }
        final int bodyLength = UncheckedReads.shortValue(packed);
        int p = position + UncheckedReads.shortSize(packed);
        final int end = p + bodyLength; // |bodyLength| < 2^13: no overflow
        if (bodyLength < MIN_BODY_LENGTH || end > limit || end > quickEnd) {
            return 0;
        }
        final byte attributesByte = UncheckedReads.getByte(array, address, p++);
        final int timestampPacked = UncheckedReads.shortVarint(array, address, p);
        p += UncheckedReads.shortSize(timestampPacked);
        final int deltaPacked = UncheckedReads.shortVarint(array, address, p);
        p += UncheckedReads.shortSize(deltaPacked);
        final int keyPacked = UncheckedReads.shortVarint(array, address, p);
        p += UncheckedReads.shortSize(keyPacked);
        final int keyBytes = UncheckedReads.shortValue(keyPacked);
        if ((timestampPacked | deltaPacked | keyPacked) < 0 || keyBytes < -1 || keyBytes > end - p) {
            return 0;
        }
        final int keyStart = p;
        p += Math.max(0, keyBytes);
        final int valuePacked = UncheckedReads.shortVarint(array, address, p);
        p += UncheckedReads.shortSize(valuePacked);
        final int valueBytes = UncheckedReads.shortValue(valuePacked);
        if (valuePacked < 0 || valueBytes < -1 || valueBytes > end - p) {
            return 0;
        }
        final int valueStart = p;
        p += Math.max(0, valueBytes);
        // The header count in one byte: no continuation bit, and even (zig-zag: not negative), so 0 to 63.
        final int countByte = UncheckedReads.getByte(array, address, p++);
        if ((countByte & 0x81) != 0) {
            return 0;
        }
        final int headers = countByte >>> 1;
        final int headersStart = p;
        if (headers != 0) {
            // As parseChecked: each header takes at least two bytes. Also puts p at least two bytes before the end.
            if (headers > (end - p) / 2) {
                return 0;
            }
            for (int i = 0; i < headers; i++) {
                // Each read starts at or before the end: the checks below stop p from passing it, but for a
                // -1 value length one byte past, after which the next key length check fails.
                int headerPacked = UncheckedReads.shortVarint(array, address, p);
                p += UncheckedReads.shortSize(headerPacked);
                final int headerKeyLength = UncheckedReads.shortValue(headerPacked);
                if (headerPacked < 0 || headerKeyLength < 0 || headerKeyLength > end - p) {
                    return 0;
                }
                p += headerKeyLength;
                headerPacked = UncheckedReads.shortVarint(array, address, p);
                p += UncheckedReads.shortSize(headerPacked);
                final int headerValueLength = UncheckedReads.shortValue(headerPacked);
                if (headerPacked < 0 || headerValueLength < -1 || headerValueLength > end - p) {
                    return 0;
                }
                p += Math.max(0, headerValueLength);
            }
        }
        if (p != end) {
            return 0;
        }
        return accept(position, end, attributesByte, UncheckedReads.shortValue(timestampPacked),
            UncheckedReads.shortValue(deltaPacked), keyBytes, keyStart, valueBytes, valueStart, headers, headersStart);
    }

    private int accept(final int position, final int end, final byte attributesByte, final long timestamp,
                       final int delta, final int keyBytes, final int keyStart, final int valueBytes,
                       final int valueStart, final int headers, final int headersStart) {
        attributes = attributesByte;
        timestampDelta = timestamp;
        offsetDelta = delta;
        keyLength = keyBytes;
        keyOffset = keyStart;
        valueLength = valueBytes;
        valueOffset = valueStart;
        headerCount = headers;
        headersOffset = headersStart;
        sizeInBytes = end - position;
        headerCursor = headersStart;
        headersRemaining = headers;
        return sizeInBytes;
    }

    /**
     * The common case of {@link #parse} with the range checked once by the caller: every varint at most three
     * bytes long and every rule met. Anything else returns 0 and the checked parse runs over the record
     * again, so it alone decides what is an error and how it is reported; this method only ever accepts a
     * record that {@link #parseChecked} accepts with the same field values.
     *
     * @return the record's size, or 0 to take the checked path.
     */
    private int parseFast(final byte[] array, final long address, final int position, final int limit) {
        long packed = UncheckedReads.varint(array, address, position, limit);
        if (packed < 0) {
            return 0;
        }
        final int bodyLength = Varint.value(packed);
        int p = position + Varint.size(packed);
        if (bodyLength < MIN_BODY_LENGTH || bodyLength > limit - p) {
            return 0;
        }
        final int end = p + bodyLength;
        final byte attributesByte = UncheckedReads.getByte(array, address, p++);
        packed = UncheckedReads.varlongRaw(array, address, p, end);
        if (packed < 0) {
            return 0;
        }
        final long timestamp = UncheckedReads.zigZag(packed);
        p += Varint.size(packed);
        packed = UncheckedReads.varint(array, address, p, end);
        if (packed < 0) {
            return 0;
        }
        final int delta = Varint.value(packed);
        p += Varint.size(packed);
        packed = UncheckedReads.varint(array, address, p, end);
        if (packed < 0) {
            return 0;
        }
        final int keyBytes = Varint.value(packed);
        p += Varint.size(packed);
        if (keyBytes < -1 || keyBytes > end - p) {
            return 0;
        }
        final int keyStart = p;
        p += Math.max(0, keyBytes);
        packed = UncheckedReads.varint(array, address, p, end);
        if (packed < 0) {
            return 0;
        }
        final int valueBytes = Varint.value(packed);
        p += Varint.size(packed);
        if (valueBytes < -1 || valueBytes > end - p) {
            return 0;
        }
        final int valueStart = p;
        p += Math.max(0, valueBytes);
        packed = UncheckedReads.varint(array, address, p, end);
        if (packed < 0) {
            return 0;
        }
        final int headers = Varint.value(packed);
        p += Varint.size(packed);
        if (headers < 0 || headers > (end - p) / 2) {
            return 0;
        }
        final int headersStart = p;
        for (int i = 0; i < headers && p >= 0; i++) {
            p = skipHeaderFast(array, address, p, end);
        }
        if (p != end) {
            return 0;
        }
        return accept(position, end, attributesByte, timestamp, delta, keyBytes, keyStart, valueBytes, valueStart,
            headers, headersStart);
    }

    /** One header in the fast path: its end position, or -1 to take the checked path. */
    private static int skipHeaderFast(final byte[] array, final long address, final int position, final int end) {
        long packed = UncheckedReads.varint(array, address, position, end);
        if (packed < 0) {
            return -1;
        }
        final int headerKeyLength = Varint.value(packed);
        int p = position + Varint.size(packed);
        if (headerKeyLength < 0 || headerKeyLength > end - p) {
            return -1;
        }
        p += headerKeyLength;
        packed = UncheckedReads.varint(array, address, p, end);
        if (packed < 0) {
            return -1;
        }
        final int headerValueLength = Varint.value(packed);
        p += Varint.size(packed);
        if (headerValueLength < -1 || headerValueLength > end - p) {
            return -1;
        }
        return p + Math.max(0, headerValueLength);
    }

    // Package-private so that tests can hold the fast path against it.
    int parseChecked(final DirectBuffer buffer, final int position, final int limit) {
        this.buffer = buffer;
        this.startIndex = position;
        headersRemaining = 0;
        long packed = Varint.readVarint(buffer, position, limit);
        if (packed < 0) {
            return varintError("length", packed, position, limit);
        }
        final int bodyLength = Varint.value(packed);
        int p = position + Varint.size(packed);
        if (bodyLength < MIN_BODY_LENGTH) {
            return fail("length", bodyLength, MIN_BODY_LENGTH, position, "record length below the minimum");
        }
        if (bodyLength > limit - p) {
            return fail("length", bodyLength, limit - p, position, "record runs past the end of its batch");
        }
        final int end = p + bodyLength;
        attributes = buffer.getByte(p++);

        final int timestampSize = Varint.varlongSize(buffer, p, end);
        if (timestampSize < 0) {
            return varintError("timestampDelta", timestampSize, p, end);
        }
        timestampDelta = Varint.readVarlongUnchecked(buffer, p);
        p += timestampSize;

        packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("offsetDelta", packed, p, end);
        }
        offsetDelta = Varint.value(packed);
        p += Varint.size(packed);

        packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("keyLength", packed, p, end);
        }
        keyLength = Varint.value(packed);
        final int keyLengthPosition = p;
        p += Varint.size(packed);
        if (keyLength < -1 || keyLength > end - p) {
            return fail("keyLength", keyLength, end - p, keyLengthPosition, "key length outside the record");
        }
        keyOffset = p;
        p += Math.max(0, keyLength);

        packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("valueLength", packed, p, end);
        }
        valueLength = Varint.value(packed);
        final int valueLengthPosition = p;
        p += Varint.size(packed);
        if (valueLength < -1 || valueLength > end - p) {
            return fail("valueLength", valueLength, end - p, valueLengthPosition, "value length outside the record");
        }
        valueOffset = p;
        p += Math.max(0, valueLength);

        packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("headerCount", packed, p, end);
        }
        headerCount = Varint.value(packed);
        final int headerCountPosition = p;
        p += Varint.size(packed);
        // Each header takes at least two bytes (two one-byte lengths), which bounds the count by the bytes left.
        if (headerCount < 0 || headerCount > (end - p) / 2) {
            return fail("headerCount", headerCount, (end - p) / 2, headerCountPosition,
                "header count negative or more than the record can hold");
        }
        headersOffset = p;
        for (int i = 0; i < headerCount; i++) {
            p = checkHeader(buffer, p, end);
            if (p < 0) {
                return -1;
            }
        }
        if (p != end) {
            return fail("length", bodyLength, p - (end - bodyLength), position,
                "record length does not match the fields it holds");
        }
        sizeInBytes = end - position;
        headerCursor = headersOffset;
        headersRemaining = headerCount;
        return sizeInBytes;
    }

    private int checkHeader(final DirectBuffer buffer, final int position, final int end) {
        int p = position;
        long packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("headerKeyLength", packed, p, end);
        }
        final int headerKeyLength = Varint.value(packed);
        p += Varint.size(packed);
        if (headerKeyLength < 0 || headerKeyLength > end - p) {
            return fail("headerKeyLength", headerKeyLength, end - p, position, "header key length outside the record");
        }
        p += headerKeyLength;
        final int valueLengthPosition = p;
        packed = Varint.readVarint(buffer, p, end);
        if (packed < 0) {
            return varintError("headerValueLength", packed, p, end);
        }
        final int headerValueLength = Varint.value(packed);
        p += Varint.size(packed);
        if (headerValueLength < -1 || headerValueLength > end - p) {
            return fail("headerValueLength", headerValueLength, end - p, valueLengthPosition,
                "header value length outside the record");
        }
        return p + Math.max(0, headerValueLength);
    }

    private int varintError(final String field, final long status, final int position, final int limit) {
        if (status == Varint.TOO_LONG) {
            // value = bytes seen without a terminator (one more than allowed), limit = the allowed size.
            final int maxLength = field.equals("timestampDelta") ? Varint.MAX_VARLONG_LENGTH : Varint.MAX_VARINT_LENGTH;
            return fail(field, maxLength + 1L, maxLength, position, "varint longer than its maximum size");
        }
        return fail(field, limit - position, -1, position, "varint runs past the end of the record");
    }

    private int fail(final String field, final long value, final long limit, final int position, final String detail) {
        errorField = field;
        errorValue = value;
        errorLimit = limit;
        errorPosition = position;
        errorDetail = detail;
        return -1;
    }

    void batchContext(final long baseOffset, final long baseTimestamp, final boolean isLogAppendTime,
                      final long logAppendTime) {
        this.baseOffset = baseOffset;
        this.baseTimestamp = baseTimestamp;
        this.isLogAppendTime = isLogAppendTime;
        this.logAppendTime = logAppendTime;
    }

    /**
     * The buffer the positions of this record refer to.
     *
     * @return the buffer holding the batch.
     */
    public DirectBuffer buffer() {
        return buffer;
    }

    /**
     * Position of the record's first byte (its length varint) in {@link #buffer()}.
     *
     * @return the start index.
     */
    public int startIndex() {
        return startIndex;
    }

    /**
     * Size of the whole record, length varint included.
     *
     * @return the size in bytes.
     */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * The record's attributes byte (unused by Kafka so far, normally 0).
     *
     * @return the attributes.
     */
    public byte attributes() {
        return attributes;
    }

    /**
     * The record's offset: the batch's base offset plus {@link #offsetDelta()}.
     *
     * @return the offset.
     */
    public long offset() {
        return baseOffset + offsetDelta;
    }

    /**
     * Offset of this record relative to the batch's base offset.
     *
     * @return the offset delta.
     */
    public int offsetDelta() {
        return offsetDelta;
    }

    /**
     * The record's timestamp: the batch's max timestamp when the batch uses log-append time (as Kafka reads
     * it, even when that is -1), else the base timestamp plus {@link #timestampDelta()}.
     *
     * @return the timestamp in milliseconds.
     */
    public long timestamp() {
        return isLogAppendTime ? logAppendTime : baseTimestamp + timestampDelta;
    }

    /**
     * Timestamp relative to the batch's base timestamp, as stored.
     *
     * @return the timestamp delta in milliseconds.
     */
    public long timestampDelta() {
        return timestampDelta;
    }

    /**
     * Length of the key.
     *
     * @return the key length in bytes, or -1 for a null key.
     */
    public int keyLength() {
        return keyLength;
    }

    /**
     * Position of the key's first byte in {@link #buffer()}.
     *
     * @return the key's index (meaningless for a null key).
     */
    public int keyOffset() {
        return keyOffset;
    }

    /**
     * Length of the value.
     *
     * @return the value length in bytes, or -1 for a null value.
     */
    public int valueLength() {
        return valueLength;
    }

    /**
     * Position of the value's first byte in {@link #buffer()}.
     *
     * @return the value's index (meaningless for a null value).
     */
    public int valueOffset() {
        return valueOffset;
    }

    /**
     * Number of headers.
     *
     * @return the header count.
     */
    public int headerCount() {
        return headerCount;
    }

    /**
     * Moves to the next header, or returns false after the last. The header cursor starts at the first header
     * each time the record is read and can be restarted with {@link #rewindHeaders()}.
     *
     * @param into the flyweight to point at the header.
     * @return true when {@code into} now describes a header.
     */
    public boolean nextHeader(final RecordHeader into) {
        if (headersRemaining == 0) {
            return false;
        }
        // The record's structure was checked in parse(), so the lengths here are known to be in range.
        int p = headerCursor;
        long packed = Varint.readVarint(buffer, p, Integer.MAX_VALUE);
        final int headerKeyLength = Varint.value(packed);
        p += Varint.size(packed);
        final int headerKeyOffset = p;
        p += headerKeyLength;
        packed = Varint.readVarint(buffer, p, Integer.MAX_VALUE);
        final int headerValueLength = Varint.value(packed);
        p += Varint.size(packed);
        into.set(buffer, headerKeyOffset, headerKeyLength, p, headerValueLength);
        headerCursor = p + Math.max(0, headerValueLength);
        headersRemaining--;
        return true;
    }

    /**
     * Restarts {@link #nextHeader(RecordHeader)} at the first header.
     */
    public void rewindHeaders() {
        headerCursor = headersOffset;
        headersRemaining = headerCount;
    }

    /**
     * Copies the key into a new array; convenience for tests and cold paths (allocates).
     *
     * @return the key bytes, or null for a null key.
     */
    public byte[] keyBytes() {
        return copy(keyOffset, keyLength);
    }

    /**
     * Copies the value into a new array; convenience for tests and cold paths (allocates).
     *
     * @return the value bytes, or null for a null value.
     */
    public byte[] valueBytes() {
        return copy(valueOffset, valueLength);
    }

    private byte[] copy(final int index, final int length) {
        if (length < 0) {
            return null;
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(index, bytes);
        return bytes;
    }
}
