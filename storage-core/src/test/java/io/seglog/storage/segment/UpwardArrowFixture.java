package io.seglog.storage.segment;

import io.seglog.storage.PartitionLog;

/**
 * Test fixture, never used at run time: a segment-layer class that reaches up into the API package, the arrow
 * the architecture rules forbid, so that {@code ArchitectureTest} can show the rules report it.
 */
final class UpwardArrowFixture {
    private UpwardArrowFixture() {
    }

    static long endOf(final PartitionLog log) {
        return log.logEndOffset();
    }
}
