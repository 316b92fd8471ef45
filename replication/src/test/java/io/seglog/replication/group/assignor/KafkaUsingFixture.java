package io.seglog.replication.group.assignor;

import org.apache.kafka.clients.consumer.RangeAssignor;

/**
 * Test fixture, never used at run time: a class in the assignor package that calls Kafka's assignor, so that
 * {@code ReplicationArchitectureTest} can prove the purity rule for assignors detects a violation.
 */
final class KafkaUsingFixture {
    private KafkaUsingFixture() {
    }

    static String name() {
        return new RangeAssignor().name();
    }
}
