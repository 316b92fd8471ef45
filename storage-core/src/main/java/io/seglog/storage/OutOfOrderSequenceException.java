package io.seglog.storage;

/**
 * Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER: a batch's first sequence does not follow its producer's last one, or a new
 * producer epoch does not start at sequence 0. Nothing was appended.
 */
public final class OutOfOrderSequenceException extends ProducerAppendException {
    private static final long serialVersionUID = 1L;

    OutOfOrderSequenceException(final LeaderAppendResult info) {
        super(info);
    }
}
