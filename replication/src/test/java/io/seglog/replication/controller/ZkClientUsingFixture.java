package io.seglog.replication.controller;

import io.seglog.replication.zk.ZkClient;

/**
 * Test fixture, never used at run time: controller code that reaches past the {@code ZkConnection} seam to the
 * Curator client, so that {@code ReplicationArchitectureTest} can prove its seam rule detects it.
 */
final class ZkClientUsingFixture {
    private ZkClientUsingFixture() {
    }

    static long session(final ZkClient client) {
        return client.sessionId();
    }
}
