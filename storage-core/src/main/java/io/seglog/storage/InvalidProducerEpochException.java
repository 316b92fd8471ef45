package io.seglog.storage;

/**
 * Kafka's INVALID_PRODUCER_EPOCH: a batch's producer epoch is below the producer's current one (a fenced producer).
 * Nothing was appended.
 */
public final class InvalidProducerEpochException extends ProducerAppendException {
    private static final long serialVersionUID = 1L;

    InvalidProducerEpochException(final LeaderAppendResult info) {
        super(info);
    }
}
