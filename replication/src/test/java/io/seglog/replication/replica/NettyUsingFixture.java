package io.seglog.replication.replica;

import io.netty.buffer.Unpooled;

/**
 * Test fixture, never used at run time: a class in the replica package that reaches Netty, so that
 * {@code ReplicationArchitectureTest} can prove its seam rule detects a violation instead of passing vacuously.
 */
final class NettyUsingFixture {
    private NettyUsingFixture() {
    }

    static int empty() {
        return Unpooled.EMPTY_BUFFER.readableBytes();
    }
}
