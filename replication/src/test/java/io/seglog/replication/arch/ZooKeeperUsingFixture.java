package io.seglog.replication.arch;

import org.apache.zookeeper.CreateMode;

/**
 * Test fixture, never used at run time: a class outside {@code ..replication.zk..} that touches ZooKeeper, so
 * that {@code ReplicationArchitectureTest} can prove its confinement rule detects a violation.
 */
final class ZooKeeperUsingFixture {
    private ZooKeeperUsingFixture() {
    }

    static CreateMode mode() {
        return CreateMode.EPHEMERAL;
    }
}
