package io.seglog.replication.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
