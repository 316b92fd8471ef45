package io.seglog.replication.election;

/**
 * Test fixture, never used at run time: one half of a package cycle (election -> policy -> election), so that
 * {@code ReplicationArchitectureTest} can prove its cycle rule detects one.
 */
public final class CycleFixture {
    private CycleFixture() {
    }

    static Object other() {
        return io.seglog.replication.policy.CycleFixture.class;
    }
}
