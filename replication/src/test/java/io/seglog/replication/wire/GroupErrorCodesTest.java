package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.replication.group.GroupError;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The group coordinator's outcomes carry Kafka's error codes: each equals the code of Kafka's error of that name. */
class GroupErrorCodesTest {
    @Test
    void everyGroupErrorIsKafkasErrorOfTheSameName() {
        for (final GroupError e : GroupError.values()) {
            assertEquals(Errors.valueOf(e.name()).code(), e.code(), e.name());
        }
    }
}
