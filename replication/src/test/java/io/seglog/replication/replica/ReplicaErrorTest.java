package io.seglog.replication.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.AppendOutcome;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Outcomes and Kafka's error codes, both ways, with Kafka's {@code Errors} as the oracle. */
class ReplicaErrorTest {
    @Test
    void everyOutcomeIsFoundByItsCodeWhichIsKafkas() {
        for (final ReplicaError e : ReplicaError.values()) {
            assertEquals(e, ReplicaError.ofCode(e.code()), e.name());
            assertEquals(e.name(), Errors.forCode(e.code()).name(), "the code Kafka gives " + e.name());
        }
    }

    @Test
    void aCodeWithoutAnOutcomeIsAnUnknownServerError() {
        assertEquals(ReplicaError.UNKNOWN_SERVER_ERROR, ReplicaError.ofCode((short) 12_345));
        assertEquals(ReplicaError.UNKNOWN_SERVER_ERROR, ReplicaError.ofCode(Errors.UNKNOWN_SERVER_ERROR.code()));
    }

    @Test
    void everyAppendOutcomeMapsToTheCodeKafkaAnswersAProduceWith() {
        assertEquals(Errors.NONE.code(), ReplicaError.of(AppendOutcome.APPENDED).code());
        assertEquals(Errors.NONE.code(), ReplicaError.of(AppendOutcome.DUPLICATE).code(),
            "a retried batch is answered NONE with its original offsets");
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code(), ReplicaError.of(AppendOutcome.OUT_OF_ORDER_SEQUENCE)
            .code());
        assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), ReplicaError.of(AppendOutcome.INVALID_PRODUCER_EPOCH)
            .code());
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), ReplicaError.of(AppendOutcome.FENCED_LEADER_EPOCH).code(),
            "a fenced leader tells the producer to refresh its metadata");
        for (final AppendOutcome outcome : AppendOutcome.values()) {
            assertEquals(outcome.succeeded(), ReplicaError.of(outcome) == ReplicaError.NONE, outcome.name());
        }
    }
}
