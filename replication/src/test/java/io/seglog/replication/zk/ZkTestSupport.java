package io.seglog.replication.zk;

import io.seglog.replication.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Real ZooKeeper servers for the tests (Curator's {@code TestingServer}/{@code TestingCluster}), kept in this
 * package so that ZooKeeper and Curator imports stay here, and the session-expiry trick of ZooKeeper's own tests.
 */
public final class ZkTestSupport implements AutoCloseable {
    /** Server tick: sessions may then be as short as 2 ticks, so expiry tests stay fast. */
    public static final int TICK_MS = 200;

    private final TestingServer server;
    private final TestingCluster cluster;

    private ZkTestSupport(final TestingServer server, final TestingCluster cluster) {
        this.server = server;
        this.cluster = cluster;
    }

    /**
     * Starts one server on a free port.
     *
     * @return the running server
     * @throws Exception when it cannot start
     */
    public static ZkTestSupport server() throws Exception {
        final InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1);
        return new ZkTestSupport(new TestingServer(spec, true), null);
    }

    /**
     * Starts an ensemble of three.
     *
     * @return the running ensemble
     * @throws Exception when it cannot start
     */
    public static ZkTestSupport ensembleOfThree() throws Exception {
        // Curator picks each port of each server on its own (a free port, closed again), so two can come out equal
        // ("Client and election port must be different"); the nine ports are taken together here, all held open
        // until each is known, and a start that still loses a port to another process is tried again on new ones.
        for (int attempt = 1; ; attempt++) {
            final int[] ports = distinctFreePorts(9);
            final List<InstanceSpec> specs = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                // A longer tick than the single server's: sessions up to 20 ticks = 8 s outlive a short outage.
                specs.add(new InstanceSpec(null, ports[3 * id - 3], ports[3 * id - 2], ports[3 * id - 1], true, id,
                    2 * TICK_MS, -1));
            }
            final TestingCluster cluster = new TestingCluster(specs);
            try {
                cluster.start();
                return new ZkTestSupport(null, cluster);
            } catch (final org.apache.curator.test.FailedServerStartException e) {
                cluster.close();
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static int[] distinctFreePorts(final int count) throws java.io.IOException {
        final java.net.ServerSocket[] sockets = new java.net.ServerSocket[count];
        try {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new java.net.ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (final java.net.ServerSocket socket : sockets) {
                if (socket != null) {
                    socket.close();
                }
            }
        }
    }

    /**
     * The connection string.
     *
     * @return {@code host:port[,...]}
     */
    public String connectString() {
        return server != null ? server.getConnectString() : cluster.getConnectString();
    }

    /**
     * Stops one server of the ensemble.
     *
     * @param index 0..2
     * @throws Exception on failure
     */
    public void killServer(final int index) throws Exception {
        cluster.killServer(new ArrayList<>(cluster.getInstances()).get(index));
    }

    /**
     * Restarts one server of the ensemble.
     *
     * @param index 0..2
     * @throws Exception on failure
     */
    public void restartServer(final int index) throws Exception {
        cluster.restartServer(new ArrayList<>(cluster.getInstances()).get(index));
    }

    /**
     * Stops the single server (restart it with {@link #restart()}).
     *
     * @throws Exception on failure
     */
    public void stop() throws Exception {
        server.stop();
    }

    /**
     * Restarts the single server (its data survives).
     *
     * @throws Exception on failure
     */
    public void restart() throws Exception {
        server.restart();
    }

    /**
     * Ends a session on the server as a long pause would: a second handle attaches to the same session id and
     * password, then closes it (the technique of ZooKeeper's and Curator's own tests). A session that has already
     * expired is left as it is.
     *
     * @param connectString the servers (no chroot)
     * @param credentials   the session to end
     * @throws Exception on failure
     */
    public static void expireSession(final String connectString, final ZkClient.SessionCredentials credentials)
        throws Exception {
        final CountDownLatch connected = new CountDownLatch(1);
        final ZooKeeper clone = new ZooKeeper(connectString, 10_000, event -> {
            // Expired: the session had already ended (its owner may not have noticed yet), which is the goal too.
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected
                || event.getState() == Watcher.Event.KeeperState.Expired) {
                connected.countDown();
            }
        }, credentials.sessionId(), credentials.password());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("clone of session 0x" + Long.toHexString(credentials.sessionId())
                    + " did not connect");
            }
        } finally {
            clone.close();
        }
    }

    /**
     * Waits until a client's session differs from the given one (it noticed the expiry and has a new session).
     *
     * @param client    the client
     * @param sessionId the old session
     * @param timeout   the deadline
     */
    public static void awaitNewSession(final ZkClient client, final long sessionId, final Duration timeout) {
        Await.until(timeout, () -> client.sessionId() != 0 && client.sessionId() != sessionId,
            () -> "a new session replacing 0x" + Long.toHexString(sessionId));
    }

    @Override
    public void close() throws IOException {
        if (server != null) {
            server.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
