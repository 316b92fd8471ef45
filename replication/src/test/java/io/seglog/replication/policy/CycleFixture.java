package io.seglog.replication.policy;

/**
 * Test fixture, never used at run time: the other half of a package cycle (policy -> election -> policy), so that
 * {@code ReplicationArchitectureTest} can prove its cycle rule detects one.
 */
public final class CycleFixture {
    private CycleFixture() {
    }

    static Object other() {
        return io.seglog.replication.election.CycleFixture.class;
    }
}
