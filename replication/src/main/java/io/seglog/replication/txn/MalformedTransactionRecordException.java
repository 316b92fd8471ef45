package io.seglog.replication.txn;

import io.seglog.replication.records.MalformedCoordinatorRecordException;

/** A {@code __transaction_state} record that is not what Kafka's schemas allow (see the superclass). */
final class MalformedTransactionRecordException extends MalformedCoordinatorRecordException {
    private static final long serialVersionUID = 1L;

    /**
     * @param what     the part read (key or value)
     * @param field    the field being read
     * @param position its position from the start of that part
     * @param problem  what is wrong
     */
    MalformedTransactionRecordException(final String what, final String field, final int position,
                                        final String problem) {
        super(what, field, position, problem);
    }
}
