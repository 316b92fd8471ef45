package io.seglog.replication.group;

import io.seglog.replication.records.MalformedCoordinatorRecordException;

/** A {@code __consumer_offsets} record that is not what Kafka's schemas allow (see the superclass). */
final class MalformedGroupRecordException extends MalformedCoordinatorRecordException {
    private static final long serialVersionUID = 1L;

    /**
     * @param what     the part read (key, offset commit value, group metadata value)
     * @param field    the field being read
     * @param position its position from the start of that part
     * @param problem  what is wrong
     */
    MalformedGroupRecordException(final String what, final String field, final int position, final String problem) {
        super(what, field, position, problem);
    }
}
