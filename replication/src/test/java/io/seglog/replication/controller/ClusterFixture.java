package io.seglog.replication.controller;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.zk.ZkTestSupport;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The set-up the controller integration tests share: before each test a fresh ZooKeeper server and a
 * {@link TestCluster} under its own chroot, with the given brokers started and registered; after it, the
 * cluster and the server closed and no thread left behind. A test class extends this and names its chroot,
 * any configuration tweak and the brokers to start (none to start them in the test itself).
 */
abstract class ClusterFixture {
    private final String chroot;
    private final UnaryOperator<ReplicationConfig.Builder> tweak;
    private final int[] initialBrokers;
    private Set<Thread> threadsBefore;
    /** The ZooKeeper server of the current test. */
    ZkTestSupport zk;
    /** The cluster of the current test. */
    TestCluster cluster;

    ClusterFixture(final String chroot, final UnaryOperator<ReplicationConfig.Builder> tweak,
                   final int... initialBrokers) {
        this.chroot = chroot;
        this.tweak = tweak;
        this.initialBrokers = initialBrokers.clone();
    }

    /** The connect string of this test's chroot. */
    String connectString() {
        return zk.connectString() + chroot;
    }

    @BeforeEach
    void startCluster() throws Exception {
        threadsBefore = Await.threads();
        zk = ZkTestSupport.server();
        cluster = new TestCluster(connectString(), tweak);
        if (initialBrokers.length > 0) {
            cluster.startAll(initialBrokers);
        }
    }

    @AfterEach
    void stopCluster() throws Exception {
        cluster.close();
        zk.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(20));
    }
}
