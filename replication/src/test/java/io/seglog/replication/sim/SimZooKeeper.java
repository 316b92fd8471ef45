package io.seglog.replication.sim;

import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkNode;
import io.seglog.replication.zk.ZkOp;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkStat;
import io.seglog.replication.zk.ZkWatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One ZooKeeper server's state in memory, for the simulation: znodes with data, data version, czxid (from one
 * zxid counter: a multi or a session close is one transaction), child version (the counter of sequential names,
 * moved by creates only, as ZooKeeper's server does),
 * ephemeral owner; sessions that expire or close; watches per session. Clients are {@link SimZkConnection}s, one
 * session at a time each.
 *
 * <p>What it models, as the replication code relies on it (see {@code ZkConnection}): version checks, multi all or
 * nothing with the first failing operation's error, ephemerals that go with their session (and only with it, so an
 * old session kept alive after its client moved on leaves ghost ephemerals), ZooKeeper's watch tables (a data table
 * for getData and exists, a child table for children; a notification fires every callback of the triggered tables
 * once), session expiry, connection loss before or after a call is applied. What it does not: ACLs, chroots,
 * persistent watches, latency of synchronous calls (answers are complete on return), Curator's own retries.
 *
 * <p>Watch and session callbacks are events on the {@link SimScheduler}, in order per session (ZooKeeper's event
 * thread), after an optional delay drawn from the run's random. A watch that fires while its client is
 * disconnected is delivered when the client reconnects to the same session (ZooKeeper re-sends watches then), and
 * never if the session expires first.
 *
 * <p>Confined to the simulation's thread.
 */
public final class SimZooKeeper {
    /** First session id: nonzero (0 means "no session") and recognisable in traces. */
    private static final long FIRST_SESSION_ID = 0x5e9_0000_0001L;

    private final SimScheduler sim;
    private final TreeMap<String, Znode> nodes = new TreeMap<>();
    private final Map<Long, Session> sessions = new LinkedHashMap<>();
    private long zxid;
    private long nextSessionId = FIRST_SESSION_ID;
    private long minNotifyDelayMs;
    private long maxNotifyDelayMs;

    /**
     * Creates an empty server (only {@code /}).
     *
     * @param sim the scheduler that delivers callbacks
     */
    public SimZooKeeper(final SimScheduler sim) {
        this.sim = sim;
        nodes.put("/", new Znode(new byte[0], 0, 0));
    }

    /**
     * Opens a client with a new session; its listener hears {@code onNewSession} as the first event.
     *
     * @param node             the node the client belongs to (for the trace)
     * @param listener         the session listener
     * @param sessionTimeoutMs after how long without a connection the server expires the session
     * @param requestTimeoutMs what the connection reports as its request timeout
     * @return the connection
     */
    public SimZkConnection connect(final int node, final ZkSessionListener listener, final long sessionTimeoutMs,
                                   final long requestTimeoutMs) {
        final SimZkConnection c = new SimZkConnection(this, node, listener, sessionTimeoutMs, requestTimeoutMs);
        c.attach(openSession(c));
        return c;
    }

    /**
     * Delays every watch and session callback by a uniformly drawn time (still in order per session).
     *
     * @param minMs the shortest delay
     * @param maxMs the longest delay
     */
    public void notificationDelay(final long minMs, final long maxMs) {
        if (minMs < 0 || maxMs < minMs) {
            throw new IllegalArgumentException("minMs=" + minMs + " maxMs=" + maxMs);
        }
        this.minNotifyDelayMs = minMs;
        this.maxNotifyDelayMs = maxMs;
    }

    /**
     * Expires a session as the server does after a long pause: its ephemerals are deleted (one transaction), its
     * watches dropped, and the client attached to it hears {@code onSessionExpired} and then (once connected) gets a
     * new session. Expiring a dead session does nothing.
     *
     * @param sessionId the session
     */
    public void expire(final long sessionId) {
        final Session s = sessions.get(sessionId);
        if (s == null || !s.alive) {
            return;
        }
        endSession(s);
        if (s.client != null) {
            s.client.onSessionEnded(s.id);
        }
    }

    /**
     * Whether a session is alive on the server.
     *
     * @param sessionId the session
     * @return alive
     */
    public boolean isAlive(final long sessionId) {
        final Session s = sessions.get(sessionId);
        return s != null && s.alive;
    }

    /**
     * The last transaction id.
     *
     * @return the zxid
     */
    public long zxid() {
        return zxid;
    }

    /**
     * Reads a znode without a session or a watch (for invariant checks).
     *
     * @param path the path
     * @return the node, or empty
     */
    public Optional<ZkNode> peek(final String path) {
        final Znode n = nodes.get(path);
        return n == null ? Optional.empty() : Optional.of(new ZkNode(path, n.data.clone(), n.stat()));
    }

    // ------------------------------------------------------------------------------------------ sessions

    Session openSession(final SimZkConnection client) {
        final Session s = new Session(nextSessionId++, client);
        sessions.put(s.id, s);
        return s;
    }

    /** Closes a session for good (a client's close): ephemerals and watches go. */
    void closeSession(final long sessionId) {
        final Session s = sessions.get(sessionId);
        if (s != null && s.alive) {
            endSession(s);
        }
    }

    private void endSession(final Session s) {
        s.alive = false;
        s.dataWatches.clear();
        s.childWatches.clear();
        final List<String> ephemerals = new ArrayList<>();
        for (final Map.Entry<String, Znode> e : nodes.entrySet()) {
            if (e.getValue().ephemeralOwner == s.id) {
                ephemerals.add(e.getKey());
            }
        }
        if (ephemerals.isEmpty()) {
            return;
        }
        final Txn txn = new Txn();
        for (final String path : ephemerals) {
            txn.delete(path);
        }
        txn.commit();
    }

    /** The delay of the next callback: drawn from the run's random when a range is set. */
    long notificationDelayMs() {
        return maxNotifyDelayMs == 0 ? 0 : sim.random().nextLong(minNotifyDelayMs, maxNotifyDelayMs + 1);
    }

    SimScheduler scheduler() {
        return sim;
    }

    // ------------------------------------------------------------------------------------------ reads

    Optional<ZkNode> read(final Session s, final String path, final ZkWatch watch) {
        checkPath(path);
        final Znode n = nodes.get(path);
        if (n == null) {
            return Optional.empty();
        }
        if (watch != null) {
            s.dataWatches.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(watch);
        }
        return Optional.of(new ZkNode(path, n.data.clone(), n.stat()));
    }

    Optional<ZkStat> exists(final Session s, final String path, final ZkWatch watch) {
        checkPath(path);
        if (watch != null) {
            // ZooKeeper keeps an exists-watch in the data table, also for an absent node: its creation fires it.
            s.dataWatches.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(watch);
        }
        final Znode n = nodes.get(path);
        return n == null ? Optional.empty() : Optional.of(n.stat());
    }

    Optional<List<String>> children(final Session s, final String path, final ZkWatch watch) {
        checkPath(path);
        final Znode n = nodes.get(path);
        if (n == null) {
            return Optional.empty();
        }
        if (watch != null) {
            s.childWatches.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(watch);
        }
        return Optional.of(List.copyOf(n.children));
    }

    // ------------------------------------------------------------------------------------------ writes

    List<ZkStat> multi(final Session s, final List<ZkOp> ops) {
        final Txn txn = new Txn();
        final List<ZkStat> stats = new ArrayList<>(ops.size());
        for (final ZkOp op : ops) {
            try {
                stats.add(txn.apply(s, op));
            } catch (final ZkException e) {
                txn.rollback();
                throw e;
            }
        }
        txn.commit();
        return stats;
    }

    void ensurePersistentPath(final Session s, final String path) {
        checkPath(path);
        int from = 1;
        while (from > 0) {
            final int slash = path.indexOf('/', from);
            final String prefix = slash < 0 ? path : path.substring(0, slash);
            if (!nodes.containsKey(prefix)) {
                multi(s, List.of(new ZkOp.Create(prefix, new byte[0], false)));
            }
            from = slash < 0 ? -1 : slash + 1;
        }
    }

    private static void checkPath(final String path) {
        if (path == null || !path.startsWith("/") || (path.length() > 1 && path.endsWith("/")) || path.contains("//")) {
            throw new ZkException(ZkError.OTHER, String.valueOf(path), new IllegalArgumentException("invalid path"));
        }
    }

    private static String parentOf(final String path) {
        final int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    private static String nameOf(final String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private enum Change { CREATED, DATA_CHANGED, DELETED, CHILDREN_CHANGED }

    private record Notification(String path, Change change) {
    }

    /**
     * One transaction: operations apply to the live state at once, with an undo log; a failure rolls them back and
     * nothing fires, a commit takes the next zxid and sends the notifications in order.
     */
    private final class Txn {
        private final long txZxid = zxid + 1;
        private final List<Runnable> undo = new ArrayList<>();
        private final List<Notification> notifications = new ArrayList<>();

        ZkStat apply(final Session s, final ZkOp op) {
            checkPath(op.path());
            if (op instanceof ZkOp.Create c) {
                create(c.path(), c.path(), c.data(), c.ephemeral() ? s.id : 0, false);
                return null;
            } else if (op instanceof ZkOp.CreateSequential q) {
                create(q.path(), q.path(), q.data(), 0, true);
                return null;
            } else if (op instanceof ZkOp.SetData d) {
                final Znode n = existing(d.path());
                checkVersion(n, d.path(), d.version());
                final byte[] oldData = n.data;
                final int oldVersion = n.version;
                n.data = d.data() == null ? new byte[0] : d.data().clone();
                n.version++;
                undo.add(() -> {
                    n.data = oldData;
                    n.version = oldVersion;
                });
                notifications.add(new Notification(d.path(), Change.DATA_CHANGED));
                return n.stat();
            } else if (op instanceof ZkOp.Delete d) {
                final Znode n = existing(d.path());
                checkVersion(n, d.path(), d.version());
                if (!n.children.isEmpty()) {
                    throw new ZkException(ZkError.NOT_EMPTY, d.path(), null);
                }
                delete(d.path());
                return null;
            } else {
                final ZkOp.Check k = (ZkOp.Check) op;
                checkVersion(existing(k.path()), k.path(), k.version());
                return null;
            }
        }

        private void create(final String opPath, final String requested, final byte[] data, final long owner,
                            final boolean sequential) {
            if ("/".equals(requested)) {
                throw new ZkException(ZkError.NODE_EXISTS, opPath, null);
            }
            final String parentPath = parentOf(requested);
            final Znode parent = nodes.get(parentPath);
            if (parent == null) {
                throw new ZkException(ZkError.NO_NODE, opPath, null);
            }
            final String path = sequential ? requested + String.format("%010d", parent.cversion) : requested;
            if (nodes.containsKey(path)) {
                throw new ZkException(ZkError.NODE_EXISTS, opPath, null);
            }
            if (parent.ephemeralOwner != 0) {
                throw new ZkException(ZkError.OTHER, opPath, new IllegalStateException("no children for ephemerals"));
            }
            final Znode n = new Znode(data == null ? new byte[0] : data.clone(), txZxid, owner);
            nodes.put(path, n);
            parent.children.add(nameOf(path));
            parent.cversion++;
            final long parentPzxid = parent.pzxid;
            parent.pzxid = txZxid;
            undo.add(() -> {
                nodes.remove(path);
                parent.children.remove(nameOf(path));
                parent.cversion--;
                parent.pzxid = parentPzxid;
            });
            notifications.add(new Notification(path, Change.CREATED));
            notifications.add(new Notification(parentPath, Change.CHILDREN_CHANGED));
        }

        void delete(final String path) {
            final Znode n = nodes.remove(path);
            final String parentPath = parentOf(path);
            final Znode parent = nodes.get(parentPath);
            // No cversion change: ZooKeeper's server moves the sequential counter on creates only.
            parent.children.remove(nameOf(path));
            final long parentPzxid = parent.pzxid;
            parent.pzxid = txZxid;
            undo.add(() -> {
                nodes.put(path, n);
                parent.children.add(nameOf(path));
                parent.pzxid = parentPzxid;
            });
            notifications.add(new Notification(path, Change.DELETED));
            notifications.add(new Notification(parentPath, Change.CHILDREN_CHANGED));
        }

        private Znode existing(final String path) {
            final Znode n = nodes.get(path);
            if (n == null) {
                throw new ZkException(ZkError.NO_NODE, path, null);
            }
            return n;
        }

        private void checkVersion(final Znode n, final String path, final int expected) {
            if (expected != -1 && expected != n.version) {
                throw new ZkException(ZkError.BAD_VERSION, path, null);
            }
        }

        void rollback() {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
        }

        void commit() {
            zxid = txZxid;
            for (final Notification n : notifications) {
                fire(n);
            }
        }
    }

    /** Sends one notification to every live session watching the path, each of its callbacks once. */
    private void fire(final Notification n) {
        for (final Session s : sessions.values()) {
            if (!s.alive || s.client == null) {
                continue;
            }
            final Set<ZkWatch> triggered = new LinkedHashSet<>();
            if (n.change() != Change.CHILDREN_CHANGED) {
                take(s.dataWatches, n.path(), triggered);
            }
            if (n.change() == Change.CHILDREN_CHANGED || n.change() == Change.DELETED) {
                take(s.childWatches, n.path(), triggered);
            }
            final SimZkConnection client = s.client;
            for (final ZkWatch w : triggered) {
                client.notifyWatch("zk-watch " + n.change() + " " + n.path(), () -> w.onChange(n.path()));
            }
        }
    }

    private static void take(final Map<String, Set<ZkWatch>> table, final String path, final Set<ZkWatch> into) {
        final Set<ZkWatch> watches = table.remove(path);
        if (watches != null) {
            into.addAll(watches);
        }
    }

    private static final class Znode {
        private byte[] data;
        private int version;
        private final long czxid;
        private final long ephemeralOwner;
        private int cversion;
        /** The zxid of the last child created or deleted; the create's until then. */
        private long pzxid;
        private final TreeSet<String> children = new TreeSet<>();

        Znode(final byte[] data, final long czxid, final long ephemeralOwner) {
            this.data = data;
            this.czxid = czxid;
            this.ephemeralOwner = ephemeralOwner;
            this.pzxid = czxid;
        }

        ZkStat stat() {
            return new ZkStat(czxid, version, ephemeralOwner, pzxid);
        }
    }

    /** A server-side session: its watch tables, and the client attached to it (null once the client moved on). */
    static final class Session {
        final long id;
        SimZkConnection client;
        boolean alive = true;
        final Map<String, Set<ZkWatch>> dataWatches = new LinkedHashMap<>();
        final Map<String, Set<ZkWatch>> childWatches = new LinkedHashMap<>();

        Session(final long id, final SimZkConnection client) {
            this.id = id;
            this.client = client;
        }
    }
}
