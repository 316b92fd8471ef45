package io.seglog.replication.records;

/**
 * A coordinator record that is not what Kafka's schemas allow: names the part of the record, the field and the
 * position in it. Each coordinator refuses its records with its own subclass.
 */
public abstract class MalformedCoordinatorRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final int position;

    /**
     * @param what     the part read (a key, a value of some kind, or a record at an offset)
     * @param field    the field being read
     * @param position its position from the start of that part
     * @param problem  what is wrong
     */
    protected MalformedCoordinatorRecordException(final String what, final String field, final int position,
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
     * Where, from the start of the part read.
     *
     * @return the byte position
     */
    public int position() {
        return position;
    }
}
