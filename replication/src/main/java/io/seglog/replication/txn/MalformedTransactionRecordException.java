package io.seglog.replication.txn;

/**
 * A {@code __transaction_state} record that is not what Kafka's schemas allow: names the part of the record, the
 * field and the position in it.
 */
final class MalformedTransactionRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final int position;

    /**
     * @param what     the part read (key or value)
     * @param field    the field being read
     * @param position its position from the start of that part
     * @param problem  what is wrong
     */
    MalformedTransactionRecordException(final String what, final String field, final int position,
                                               final String problem) {
        super("malformed " + what + ": field " + field + " at byte " + position + ": " + problem);
        this.field = field;
        this.position = position;
    }

    /**
     * The field being read when the record was found malformed.
     *
     * @return its name
     */
    public String field() {
        return field;
    }

    /**
     * Where, from the start of the key or value.
     *
     * @return the byte position
     */
    public int position() {
        return position;
    }
}
