package io.seglog.replication.wire;

/**
 * A control message body (or the API key and version it came with) is not what {@link ControlCodec} writes: it ends
 * early, a count or length is larger than the bytes left, a field is out of range, entries are out of order or
 * repeated, or bytes follow the body. The bytes come from the network, so this is an expected outcome for the
 * caller to handle (a server closes the connection), never a reason to crash.
 *
 * <p>The message names the message type, the field, the byte position in the body and the value found, for
 * example {@code LeaderAndIsr request v0: partitions[2].leader at byte 61: found -3 (must be at least -2)}.
 *
 * <p>Immutable and thread-safe.
 */
final class MalformedControlMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The {@link #position()} of a fault in the request or response header (the API key or version). */
    public static final int IN_HEADER = -1;

    private final String messageType;
    private final String field;
    private final int position;
    private final String found;

    /**
     * Creates the exception.
     *
     * @param messageType the message being decoded, such as {@code StopReplica request v0}
     * @param field       the field at fault, such as {@code partitions[2].topic}
     * @param position    the field's byte offset from the start of the body, or {@link #IN_HEADER}
     * @param found       the value (or the bytes left) found there
     * @param rule        what was expected
     * @param cause       the validation failure behind it, or null
     */
    MalformedControlMessageException(final String messageType, final String field, final int position,
                                     final String found, final String rule, final Throwable cause) {
        super(messageType + ": " + field + (position == IN_HEADER ? " in the header" : " at byte " + position)
            + ": found " + found + " (" + rule + ")", cause);
        this.messageType = messageType;
        this.field = field;
        this.position = position;
        this.found = found;
    }

    /**
     * The message being decoded.
     *
     * @return its type and version, such as {@code LeaderAndIsr response v0}
     */
    public String messageType() {
        return messageType;
    }

    /**
     * The field at fault.
     *
     * @return a path such as {@code liveBrokers[1].port}
     */
    public String field() {
        return field;
    }

    /**
     * Where the field starts.
     *
     * @return the byte offset from the start of the body, or {@link #IN_HEADER}
     */
    public int position() {
        return position;
    }

    /**
     * What was found at {@link #position()}.
     *
     * @return the value, or a description such as {@code 3 bytes left}
     */
    public String found() {
        return found;
    }
}
