package io.seglog.replication.zk;

import io.seglog.replication.ReplicationConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Curator-based ZooKeeper client in which every call has a deadline ({@code zookeeper.request.timeout.ms}):
 * a call either completes or fails with {@link ZkException} ({@link ZkError#TIMEOUT} when the deadline passes),
 * it never hangs, also while the ensemble has no quorum.
 *
 * <p>The connection string may end in a chroot ({@code host:port/seglog}); every path is prefixed with it here
 * (not with Curator's namespace, whose lazy creation of the chroot blocks outside any deadline), and
 * {@link #ensurePersistentPaths} creates it. With {@code zookeeper.set.acl} every znode this client creates gets
 * {@code CREATOR_ALL + world READ} (Kafka's default ACLs) and the client authenticates with digest credentials,
 * so only brokers holding the credentials can write. Reads go through Curator's background API so that many
 * requests can be in flight at once (1,000 partition states are read in one round trip time, not 1,000).
 *
 * <p>Session handling: a {@link ZkSessionListener} hears of every expiry (also Curator's "lost" verdict after
 * the session timeout without a connection) before it hears of the new session.
 *
 * <p>Thread-safe. The threads are Curator's and ZooKeeper's: the ones Curator lets us name come from the
 * embedder's {@link ThreadFactory}.
 */
public final class ZkClient implements ZkConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ZkClient.class);
    /** Kafka raises jute.maxbuffer to 4 MiB: ZooKeeper 3.6+ lowered the default, which breaks large reads. */
    private static final String JUTE_MAX_BUFFER = String.valueOf(4 * 1024 * 1024);
    private static final byte[] EMPTY = new byte[0];

    private final CuratorFramework curator;
    private final String connectString;
    private final Optional<String> chroot;
    private final String prefix;
    private final long requestTimeoutMs;
    private final ZkSessionListener sessionListener;
    private final Object sessionLock = new Object();
    private long currentSessionId;
    private boolean expiryReported = true;
    private final Map<WatchKey, CuratorWatcher> watchers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private ZkClient(final ReplicationConfig config, final ThreadFactory threadFactory,
                     final ZkSessionListener sessionListener) {
        this.connectString = config.zookeeperServers();
        this.chroot = config.zookeeperChroot();
        this.requestTimeoutMs = config.zookeeperRequestTimeoutMs();
        this.sessionListener = sessionListener;
        final ZKClientConfig zkConfig = new ZKClientConfig();
        zkConfig.setProperty(ZKClientConfig.JUTE_MAXBUFFER, JUTE_MAX_BUFFER);
        final CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(config.zookeeperSessionTimeoutMs())
            .connectionTimeoutMs(config.zookeeperConnectionTimeoutMs())
            // Retries (after CONNECTIONLOSS) stop at the request deadline; every caller also waits at most that long.
            .retryPolicy(new RetryUntilElapsed(config.zookeeperRequestTimeoutMs(), 100))
            .ensembleTracker(false)
            .zkClientConfig(zkConfig)
            .threadFactory(threadFactory);
        this.prefix = chroot.orElse("");
        if (config.zookeeperSetAcl()) {
            final byte[] credentials = config.zookeeperDigest().orElseThrow().getBytes(StandardCharsets.UTF_8);
            builder.authorization("digest", credentials).aclProvider(new SecureAcls());
        }
        this.curator = builder.build();
    }

    /**
     * Creates and starts a client; it connects in the background (see {@link #awaitConnected(long)}).
     *
     * @param config          ZooKeeper settings
     * @param threadFactory   makes Curator's background threads
     * @param sessionListener hears of session expiries and new sessions
     * @return the started client, owned (and closed) by the caller
     */
    public static ZkClient open(final ReplicationConfig config, final ThreadFactory threadFactory,
                                final ZkSessionListener sessionListener) {
        final ZkClient client = new ZkClient(config, threadFactory, sessionListener);
        client.curator.getConnectionStateListenable().addListener(client.new SessionTracker());
        client.curator.start();
        return client;
    }

    /**
     * The servers part of the connection string.
     *
     * @return {@code host:port[,host:port...]}
     */
    public String connectString() {
        return connectString;
    }

    /**
     * The chroot, if the connection string had one.
     *
     * @return the chroot starting with {@code /}
     */
    public Optional<String> chroot() {
        return chroot;
    }

    /**
     * The deadline of each call.
     *
     * @return milliseconds
     */
    @Override
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /**
     * Waits until the client has a connected session.
     *
     * @param timeoutMs how long to wait
     * @throws ZkException {@link ZkError#TIMEOUT} when not connected in time
     */
    public void awaitConnected(final long timeoutMs) {
        try {
            if (!curator.blockUntilConnected((int) Math.min(Integer.MAX_VALUE, timeoutMs), TimeUnit.MILLISECONDS)) {
                throw new ZkException(ZkError.TIMEOUT, "/", new TimeoutException("not connected within "
                    + timeoutMs + " ms to " + connectString));
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException(ZkError.OTHER, "/", e);
        }
    }

    /**
     * The id of the current session, 0 before the first connection.
     *
     * @return the session id
     */
    @Override
    public long sessionId() {
        synchronized (sessionLock) {
            return currentSessionId;
        }
    }

    /**
     * The current session's id and password; tests use them to expire the session from a second handle, as
     * a server would after a long pause.
     *
     * @return the credentials
     * @throws ZkException when there is no connected session
     */
    public SessionCredentials sessionCredentials() {
        try {
            final var zk = curator.getZookeeperClient().getZooKeeper();
            return new SessionCredentials(zk.getSessionId(), zk.getSessionPasswd());
        } catch (final Exception e) {
            throw new ZkException(ZkError.OTHER, "/", e);
        }
    }

    /**
     * Creates each persistent path (and its parents) if it does not exist.
     *
     * @param paths absolute paths (without chroot)
     * @throws ZkException when a path cannot be created
     */
    @Override
    public void ensurePersistentPaths(final List<String> paths) {
        final List<CompletableFuture<Object>> pending = new ArrayList<>();
        for (final String path : paths) {
            final CompletableFuture<Object> f = new CompletableFuture<>();
            run(path, () -> curator.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT)
                .inBackground(callback(f, path, e -> e)).forPath(full(path), EMPTY));
            pending.add(f);
        }
        // One deadline for the whole batch: the creates are in flight together.
        final long deadlineNs = deadlineNs();
        for (int i = 0; i < paths.size(); i++) {
            try {
                awaitBy(pending.get(i), paths.get(i), deadlineNs);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Reads a znode's data and stat, optionally leaving a watch.
     *
     * @param path  the path
     * @param watch called once when the znode changes or is deleted; null for none. When the znode does not
     *              exist, an exists-watch is set instead so that its creation is seen.
     * @return the node, or empty when it does not exist
     * @throws ZkException on failure or timeout
     */
    @Override
    public Optional<ZkNode> getData(final String path, final ZkWatch watch) {
        final Optional<ZkNode> node = await(getDataAsync(path, watch), path);
        if (node.isEmpty() && watch != null) {
            // The node vanished or never existed: arm an exists-watch so its creation is noticed, and re-read if
            // it appeared between the two calls.
            if (exists(path, watch).isPresent()) {
                return await(getDataAsync(path, null), path);
            }
        }
        return node;
    }

    /**
     * Reads a znode without waiting: many such reads can be in flight at once.
     *
     * @param path  the path
     * @param watch a data watch, or null
     * @return a future of the node (empty when it does not exist); fails with {@link ZkException}
     */
    @Override
    public CompletableFuture<Optional<ZkNode>> getDataAsync(final String path, final ZkWatch watch) {
        final CompletableFuture<Optional<ZkNode>> f = new CompletableFuture<>();
        final BackgroundCallback cb = callback(f, path, e -> Optional.of(new ZkNode(path,
            e.getData() == null ? EMPTY : e.getData(), stat(e.getStat()))), Optional.empty());
        run(path, () -> {
            if (watch == null) {
                curator.getData().inBackground(cb).forPath(full(path));
            } else {
                curator.getData().usingWatcher(watcher(path, watch)).inBackground(cb).forPath(full(path));
            }
        });
        return f;
    }

    /**
     * Reads a znode's stat, optionally leaving an exists-watch (fires on create, change and delete).
     *
     * @param path  the path
     * @param watch the watch, or null
     * @return the stat, or empty when the znode does not exist
     * @throws ZkException on failure or timeout
     */
    @Override
    public Optional<ZkStat> exists(final String path, final ZkWatch watch) {
        final CompletableFuture<Optional<ZkStat>> f = new CompletableFuture<>();
        final BackgroundCallback cb = callback(f, path,
            e -> e.getStat() == null ? Optional.empty() : Optional.of(stat(e.getStat())), Optional.empty());
        run(path, () -> {
            if (watch == null) {
                curator.checkExists().inBackground(cb).forPath(full(path));
            } else {
                curator.checkExists().usingWatcher(watcher(path, watch)).inBackground(cb).forPath(full(path));
            }
        });
        return await(f, path);
    }

    /**
     * Lists a znode's children, optionally leaving a child watch.
     *
     * @param path  the path
     * @param watch the watch, or null
     * @return the children's names (unordered), or empty when the znode does not exist
     * @throws ZkException on failure or timeout
     */
    @Override
    public Optional<List<String>> children(final String path, final ZkWatch watch) {
        final CompletableFuture<Optional<List<String>>> f = new CompletableFuture<>();
        final BackgroundCallback cb = callback(f, path, e -> Optional.of(List.copyOf(e.getChildren())),
            Optional.empty());
        run(path, () -> {
            if (watch == null) {
                curator.getChildren().inBackground(cb).forPath(full(path));
            } else {
                curator.getChildren().usingWatcher(watcher(path, watch)).inBackground(cb).forPath(full(path));
            }
        });
        return await(f, path);
    }

    /**
     * Runs operations atomically and waits.
     *
     * @param ops the operations
     * @return one stat per operation (null for creates, deletes and checks)
     * @throws ZkException carrying the error and path of the first operation that failed
     */
    @Override
    public List<ZkStat> multi(final List<ZkOp> ops) {
        return await(multiAsync(ops), describe(ops));
    }

    /**
     * Runs operations atomically without waiting.
     *
     * @param ops the operations
     * @return a future of one stat per operation; fails with {@link ZkException} naming the failed operation
     */
    @Override
    public CompletableFuture<List<ZkStat>> multiAsync(final List<ZkOp> ops) {
        final CompletableFuture<List<ZkStat>> f = new CompletableFuture<>();
        final String what = describe(ops);
        run(what, () -> {
            final List<CuratorOp> curatorOps = new ArrayList<>(ops.size());
            for (final ZkOp op : ops) {
                curatorOps.add(toCurator(op));
            }
            curator.transaction().inBackground((c, e) -> completeMulti(f, ops, e)).forOperations(curatorOps);
        });
        return f;
    }

    private String full(final String path) {
        return prefix + path;
    }

    private CuratorOp toCurator(final ZkOp op) throws Exception {
        if (op instanceof ZkOp.Create c) {
            return curator.transactionOp().create()
                .withMode(c.ephemeral() ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT).forPath(full(c.path()), c.data());
        } else if (op instanceof ZkOp.CreateSequential q) {
            return curator.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(full(q.path()), q.data());
        } else if (op instanceof ZkOp.SetData s) {
            return curator.transactionOp().setData().withVersion(s.version()).forPath(full(s.path()), s.data());
        } else if (op instanceof ZkOp.Delete d) {
            return curator.transactionOp().delete().withVersion(d.version()).forPath(full(d.path()));
        } else {
            final ZkOp.Check k = (ZkOp.Check) op;
            return curator.transactionOp().check().withVersion(k.version()).forPath(full(k.path()));
        }
    }

    private static void completeMulti(final CompletableFuture<List<ZkStat>> f, final List<ZkOp> ops,
                                      final CuratorEvent e) {
        final List<CuratorTransactionResult> results = e.getOpResults();
        if (e.getResultCode() == KeeperException.Code.OK.intValue()) {
            final List<ZkStat> stats = new ArrayList<>(ops.size());
            for (int i = 0; i < ops.size(); i++) {
                final Stat s = results != null && i < results.size() ? results.get(i).getResultStat() : null;
                stats.add(s == null ? null : stat(s));
            }
            f.complete(stats);
            return;
        }
        // Name the operation that failed: ZooKeeper reports RUNTIMEINCONSISTENCY for the others.
        int code = e.getResultCode();
        String path = describe(ops);
        if (results != null) {
            for (int i = 0; i < results.size() && i < ops.size(); i++) {
                final int err = results.get(i).getError();
                if (err != KeeperException.Code.OK.intValue()
                    && err != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    code = err;
                    path = ops.get(i).path();
                    break;
                }
            }
        }
        f.completeExceptionally(new ZkException(map(code), path, KeeperException.create(KeeperException.Code.get(code))));
    }

    private static String describe(final List<ZkOp> ops) {
        return ops.size() == 1 ? ops.get(0).path() : "multi" + ops.stream().map(ZkOp::path).toList();
    }

    /**
     * Waits for a future up to the request deadline.
     *
     * @param future the pending call
     * @param what   the path or a description, for the error
     * @param <T>    the result type
     * @return the result
     * @throws ZkException the call's failure, or {@link ZkError#TIMEOUT}
     */
    <T> T await(final CompletableFuture<T> future, final String what) {
        return awaitBy(future, what, deadlineNs());
    }

    /**
     * The deadline of a call (or of a batch of pipelined calls) starting now.
     *
     * @return {@link System#nanoTime()} plus the request timeout
     */
    long deadlineNs() {
        return ZkCalls.deadlineNs(requestTimeoutMs);
    }

    /**
     * Waits for a future up to an absolute deadline (shared by a batch of pipelined calls).
     *
     * @param future     the pending call
     * @param what       the path or a description, for the error
     * @param deadlineNs the {@link System#nanoTime()} deadline
     * @param <T>        the result type
     * @return the result
     * @throws ZkException the call's failure, or {@link ZkError#TIMEOUT}
     */
    <T> T awaitBy(final CompletableFuture<T> future, final String what, final long deadlineNs) {
        return ZkCalls.awaitBy(future, what, deadlineNs, requestTimeoutMs);
    }

    private interface CuratorCall {
        void run() throws Exception;
    }

    private void run(final String what, final CuratorCall call) {
        if (closed) {
            throw new ZkException(ZkError.CLOSED, what, null);
        }
        try {
            call.run();
        } catch (final Exception e) {
            throw new ZkException(e instanceof KeeperException k ? map(k.code().intValue()) : ZkError.OTHER, what, e);
        }
    }

    private interface ResultMapper<T> {
        T map(CuratorEvent e);
    }

    private static <T> BackgroundCallback callback(final CompletableFuture<T> f, final String path,
                                                   final ResultMapper<T> onOk) {
        return callback(f, path, onOk, null);
    }

    private static <T> BackgroundCallback callback(final CompletableFuture<T> f, final String path,
                                                   final ResultMapper<T> onOk, final T onNoNode) {
        return (client, e) -> {
            final int rc = e.getResultCode();
            if (rc == KeeperException.Code.OK.intValue()) {
                f.complete(onOk.map(e));
            } else if (rc == KeeperException.Code.NONODE.intValue() && onNoNode != null) {
                f.complete(onNoNode);
            } else {
                f.completeExceptionally(new ZkException(map(rc), path,
                    KeeperException.create(KeeperException.Code.get(rc))));
            }
        };
    }

    private static ZkError map(final int code) {
        final KeeperException.Code c = KeeperException.Code.get(code);
        if (c == null) {
            return ZkError.OTHER;
        }
        return switch (c) {
            case NONODE -> ZkError.NO_NODE;
            case NODEEXISTS -> ZkError.NODE_EXISTS;
            case BADVERSION -> ZkError.BAD_VERSION;
            case NOTEMPTY -> ZkError.NOT_EMPTY;
            case NOAUTH -> ZkError.NO_AUTH;
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> ZkError.CONNECTION_LOSS;
            case SESSIONEXPIRED, SESSIONMOVED -> ZkError.SESSION_EXPIRED;
            default -> ZkError.OTHER;
        };
    }

    private static ZkStat stat(final Stat s) {
        return new ZkStat(s.getCzxid(), s.getVersion(), s.getEphemeralOwner(), s.getPzxid());
    }

    /**
     * One Curator watcher per (path, callback) while it is armed: ZooKeeper keeps a set of watchers per path, so
     * re-arming a watch with the same callback does not pile up duplicate notifications. A ZooKeeper watch fires
     * once, so a watcher leaves the map when it fires (and all leave when the session expires, which drops every
     * watch): the map holds only armed watches, not every path ever watched.
     */
    private CuratorWatcher watcher(final String path, final ZkWatch watch) {
        return watchers.computeIfAbsent(new WatchKey(path, watch), this::newWatcher);
    }

    /**
     * The number of watchers the client holds as armed (for tests: it must not grow with every path ever watched).
     *
     * @return armed watchers
     */
    int armedWatcherCount() {
        return watchers.size();
    }

    private record WatchKey(String path, ZkWatch watch) {
    }

    private CuratorWatcher newWatcher(final WatchKey key) {
        return new CuratorWatcher() {
            @Override
            public void process(final WatchedEvent event) {
                // State-only events (disconnect, expiry) reach every watcher; sessions are handled by the listener.
                if (event.getType() == Watcher.Event.EventType.None) {
                    return;
                }
                // Fired, so no longer armed. Removed only if still this watcher: a re-arm racing with the firing
                // may re-register this object (then it fires once more, harmlessly) or map a new one.
                watchers.remove(key, this);
                if (!closed) {
                    key.watch().onChange(key.path());
                }
            }
        };
    }

    /** Turns Curator's connection states into "expired" and "new session" callbacks, in that order. */
    private final class SessionTracker implements ConnectionStateListener {
        @Override
        public void stateChanged(final CuratorFramework client, final ConnectionState state) {
            if (closed) {
                return;
            }
            if (state == ConnectionState.LOST) {
                if (stillConnectedToCurrentSession(client)) {
                    // Curator can deliver a stale LOST after it has already reconnected with a new session.
                    LOG.debug("Ignoring LOST: session 0x{} is connected", Long.toHexString(sessionId()));
                    return;
                }
                reportExpiry();
            } else if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
                final long sid;
                try {
                    sid = client.getZookeeperClient().getZooKeeper().getSessionId();
                } catch (final Exception e) {
                    LOG.warn("Cannot read the ZooKeeper session id after {}", state, e);
                    return;
                }
                final boolean isNew;
                synchronized (sessionLock) {
                    isNew = sid != currentSessionId;
                }
                if (isNew) {
                    reportExpiry();
                    synchronized (sessionLock) {
                        currentSessionId = sid;
                        expiryReported = false;
                    }
                    LOG.info("ZooKeeper session 0x{} established", Long.toHexString(sid));
                    sessionListener.onNewSession(sid);
                }
            }
        }

        private boolean stillConnectedToCurrentSession(final CuratorFramework client) {
            try {
                final var zk = client.getZookeeperClient().getZooKeeper();
                return client.getZookeeperClient().isConnected() && zk.getState().isConnected()
                    && zk.getSessionId() == sessionId() && sessionId() != 0;
            } catch (final Exception e) {
                return false;
            }
        }

        private void reportExpiry() {
            final long sid;
            synchronized (sessionLock) {
                if (expiryReported) {
                    return;
                }
                expiryReported = true;
                sid = currentSessionId;
            }
            LOG.warn("ZooKeeper session 0x{} expired or lost", Long.toHexString(sid));
            // An expired session's watches are gone on the server; the listener re-arms what it still needs.
            watchers.clear();
            sessionListener.onSessionExpired(sid);
        }
    }

    /** Kafka's secure default ACLs: the creator (an authenticated broker) may do anything, everyone may read. */
    private static final class SecureAcls implements ACLProvider {
        private static final List<ACL> ACLS;

        static {
            // Spelled out rather than ZooDefs.Ids.CREATOR_ALL_ACL/READ_ACL_UNSAFE, whose class file carries
            // SpotBugs annotations that javac cannot resolve (a lint warning, fatal under -Werror).
            // ZooKeeper calls contains(null) on the list, which List.of rejects: use an ArrayList.
            ACLS = java.util.Collections.unmodifiableList(new ArrayList<>(List.of(
                new ACL(ZooDefs.Perms.ALL, new Id("auth", "")), new ACL(ZooDefs.Perms.READ, new Id("world", "anyone")))));
        }

        @Override
        public List<ACL> getDefaultAcl() {
            return ACLS;
        }

        @Override
        public List<ACL> getAclForPath(final String path) {
            return ACLS;
        }
    }

    /**
     * Closes the session (its ephemerals go at once). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        curator.close();
        watchers.clear();
    }

    /**
     * A session's id and password.
     *
     * @param sessionId the session id
     * @param password  the session password
     */
    public record SessionCredentials(long sessionId, byte[] password) {
    }
}
