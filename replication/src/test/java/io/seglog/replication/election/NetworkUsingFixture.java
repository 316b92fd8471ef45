package io.seglog.replication.election;

import java.net.InetSocketAddress;

/**
 * Test fixture, never used at run time: a class in the election package that breaks the purity rule, so that
 * {@code ReplicationArchitectureTest} can prove its rule detects a violation instead of passing vacuously.
 */
final class NetworkUsingFixture {
    private NetworkUsingFixture() {
    }

    static InetSocketAddress address() {
        return new InetSocketAddress("localhost", 9092);
    }
}
