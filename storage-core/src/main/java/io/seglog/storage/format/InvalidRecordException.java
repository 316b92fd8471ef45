package io.seglog.storage.format;

/**
 * A record batch handed to the log (by a client, a leader or a follower append) is malformed.
 *
 * <p>The exception names what was wrong in machine-readable form: the {@link #field() field}, the
 * {@link #value() value} found, the {@link #limit() limit} it broke (or {@code -1} when no single limit
 * applies), the {@link #batchIndex() index of the batch} within the call and the {@link #position() byte
 * position} of the field in the caller's buffer. The message repeats all of them in {@code name=value}
 * form. For a CRC mismatch {@code value} is the stored CRC and {@code limit} the computed one.
 *
 * <p>Instances are immutable and therefore thread-safe.
 */
public final class InvalidRecordException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final long value;
    private final long limit;
    private final int batchIndex;
    private final long position;

    /**
     * Creates the exception; the message is built from the arguments.
     *
     * @param field      name of the offending field, e.g. {@code batchLength}, {@code crc}, {@code keyLength}.
     * @param value      the value found.
     * @param limit      the limit the value broke, or {@code -1} when not applicable.
     * @param batchIndex index of the batch within the validated region, starting at 0.
     * @param position   byte position of the field in the caller's buffer.
     * @param detail     a human-readable explanation, without the numbers already given.
     */
    public InvalidRecordException(
        final String field,
        final long value,
        final long limit,
        final int batchIndex,
        final long position,
        final String detail) {
        super(detail + ": field=" + field + " value=" + value + " limit=" + limit
            + " batchIndex=" + batchIndex + " position=" + position);
        this.field = field;
        this.value = value;
        this.limit = limit;
        this.batchIndex = batchIndex;
        this.position = position;
    }

    /**
     * Name of the offending field.
     *
     * @return the field name, e.g. {@code batchLength}.
     */
    public String field() {
        return field;
    }

    /**
     * The value found in the offending field.
     *
     * @return the value found.
     */
    public long value() {
        return value;
    }

    /**
     * The limit the value broke.
     *
     * @return the limit, or {@code -1} when no single limit applies.
     */
    public long limit() {
        return limit;
    }

    /**
     * Index of the offending batch among the batches of the call.
     *
     * @return the batch index, starting at 0.
     */
    public int batchIndex() {
        return batchIndex;
    }

    /**
     * Byte position of the offending field in the caller's buffer.
     *
     * @return the position.
     */
    public long position() {
        return position;
    }
}
