package io.seglog.replication.example;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Test fixture, never used at run time: demo code reaching past kafka-clients' public client API into its record
 * internals, so that the architecture test can show its rule for the demo reports a violation.
 */
final class ClientInternalsUsingFixture {
    private ClientInternalsUsingFixture() {
    }

    static int empty() {
        return MemoryRecords.EMPTY.sizeInBytes();
    }
}
