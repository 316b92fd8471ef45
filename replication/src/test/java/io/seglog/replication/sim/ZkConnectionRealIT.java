package io.seglog.replication.sim;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link ZkConnectionContract} against {@link ZkClient} on a real ZooKeeper server (one per class; each test
 * works under a root of its own).
 */
@Timeout(120)
class ZkConnectionRealIT extends ZkConnectionContract {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static ZkTestSupport server;

    private final List<ZkClient> clients = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = ZkTestSupport.server();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(ZkClient::close);
    }

    @Override
    protected ZkConnection open(final ZkSessionListener listener) {
        final ReplicationConfig config = ReplicationConfig.builder().brokerId(1).zookeeperConnect(server.connectString())
            .zookeeperSessionTimeoutMs(4_000).zookeeperRequestTimeoutMs(10_000).build();
        final ZkClient client = ZkClient.open(config, r -> new Thread(r, "zk-contract"), listener);
        clients.add(client);
        client.awaitConnected(WAIT.toMillis());
        Await.until(WAIT, () -> client.sessionId() != 0, () -> "session id of " + client.connectString());
        return client;
    }

    @Override
    protected void expire(final ZkConnection connection) {
        try {
            ZkTestSupport.expireSession(server.connectString(), ((ZkClient) connection).sessionCredentials());
        } catch (final Exception e) {
            throw new AssertionError("cannot expire the session", e);
        }
    }

    @Override
    protected void await(final BooleanSupplier condition, final Supplier<String> what) {
        Await.until(WAIT, condition, what);
    }
}
