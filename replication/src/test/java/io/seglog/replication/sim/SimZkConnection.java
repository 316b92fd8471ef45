package io.seglog.replication.sim;

import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkNode;
import io.seglog.replication.zk.ZkOp;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkStat;
import io.seglog.replication.zk.ZkWatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A client of a {@link SimZooKeeper}, as {@code ZkClient} behaves towards its callers: one session at a time, a new
 * one after each expiry ({@code onSessionExpired} then {@code onNewSession}, as events), answers that are complete
 * when a call returns (so a caller's wait never blocks the simulation thread), and faults the test injects:
 * <ul>
 *   <li>{@link #failNextCall} and {@link #failNextWrite}: the next call (or write) fails with
 *       {@link ZkError#CONNECTION_LOSS}, before or after the server applied it (a write whose answer was lost);</li>
 *   <li>{@link #connectionLossRate}: each call so fails with a probability drawn from the run's random;</li>
 *   <li>{@link #disconnect}/{@link #reconnect}: while disconnected every call fails with
 *       {@link ZkError#CONNECTION_LOSS}; after the session timeout the server expires the session and the client
 *       declares it lost (Curator's LOST), and the new session comes with the reconnection;</li>
 *   <li>{@link #abandonSession}: the client gives its session up and takes a new one while the server keeps the old
 *       one alive with its ephemerals (a ghost) until {@link SimZooKeeper#expire} ends it.</li>
 * </ul>
 *
 * <p>Confined to the simulation's thread.
 */
public final class SimZkConnection implements ZkConnection {
    /** When an injected connection loss strikes. */
    public enum Loss {
        /** The request never reached the server: nothing applied. */
        BEFORE_APPLY,
        /** The server applied the request and the answer was lost. */
        AFTER_APPLY
    }

    private final SimZooKeeper server;
    private final int node;
    private final ZkSessionListener listener;
    private final long sessionTimeoutMs;
    private final long requestTimeoutMs;
    private final ArrayDeque<Loss> injected = new ArrayDeque<>();
    private final ArrayDeque<Loss> injectedWrites = new ArrayDeque<>();
    private double lossRate;
    private SimZooKeeper.Session session;
    private long reportedSessionId;
    private boolean connected = true;
    private boolean closed;
    /** The process died ({@link #crash}): its close never reaches the server. */
    private boolean crashed;
    private SimScheduler.Timer expiryTimer;
    /** The time of the last callback scheduled for this client: callbacks stay in order. */
    private long lastDeliveryMs;
    /** Watch notifications that fired while disconnected, delivered on reconnection to the same session. */
    private final List<Held> held = new ArrayList<>();

    private record Held(String name, Runnable callback) {
    }

    SimZkConnection(final SimZooKeeper server, final int node, final ZkSessionListener listener,
                    final long sessionTimeoutMs, final long requestTimeoutMs) {
        this.server = server;
        this.node = node;
        this.listener = listener;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** Attaches a new session and announces it. */
    void attach(final SimZooKeeper.Session s) {
        this.session = s;
        final long id = s.id;
        deliver("zk-new-session", () -> {
            reportedSessionId = id;
            listener.onNewSession(id);
        });
    }

    /** The server ended the session this client is attached to. */
    void onSessionEnded(final long sessionId) {
        if (session == null || session.id != sessionId) {
            return;
        }
        session = null;
        held.clear();
        deliver("zk-session-expired", () -> listener.onSessionExpired(sessionId));
        if (connected && !closed) {
            // Curator builds a new handle at once; the new session is announced after the expiry.
            attach(server.openSession(this));
        }
    }

    /**
     * The node this client belongs to.
     *
     * @return the node id
     */
    public int node() {
        return node;
    }

    /**
     * The id of the server-side session this client is attached to now (it may not have announced it yet).
     *
     * @return the session id, 0 between an expiry and the reconnection
     */
    public long serverSessionId() {
        return session == null ? 0 : session.id;
    }

    /** A watch of this client's session fired: deliver it now, or on reconnection. */
    void notifyWatch(final String name, final Runnable callback) {
        if (connected) {
            deliver(name, callback);
        } else {
            held.add(new Held(name, callback));
        }
    }

    /** Schedules a callback after the server's notification delay and after every earlier one of this client. */
    private void deliver(final String name, final Runnable callback) {
        final SimScheduler sim = server.scheduler();
        final long atMs = Math.max(sim.nowMs() + server.notificationDelayMs(), lastDeliveryMs);
        lastDeliveryMs = atMs;
        sim.at(name, node, atMs, () -> {
            if (!closed) {
                callback.run();
            }
        });
    }

    // ------------------------------------------------------------------------------------------ faults

    /**
     * Makes the next call fail with {@link ZkError#CONNECTION_LOSS}. Several injections apply to successive calls.
     *
     * @param when before or after the server applies it
     */
    public void failNextCall(final Loss when) {
        injected.addLast(when);
    }

    /**
     * Makes the next write (create, setData, delete, multi, ensurePersistentPaths) fail with
     * {@link ZkError#CONNECTION_LOSS}; reads before it go through. Several injections apply to successive writes.
     *
     * @param when before or after the server applies it
     */
    public void failNextWrite(final Loss when) {
        injectedWrites.addLast(when);
    }

    /**
     * Makes each call fail with {@link ZkError#CONNECTION_LOSS} with a probability, before or after it applied
     * (even odds), drawn from the run's random.
     *
     * @param rate the probability, 0 (the default) to 1
     */
    public void connectionLossRate(final double rate) {
        if (rate < 0 || rate > 1) {
            throw new IllegalArgumentException("rate=" + rate);
        }
        this.lossRate = rate;
    }

    /**
     * The client's process died: the connection is cut as by {@link #disconnect}, and nothing the dead process would
     * still do reaches the server, {@link #close} included (its session expires on the server's timer).
     */
    public void crash() {
        disconnect();
        crashed = true;
    }

    /**
     * Cuts the connection: calls fail with {@link ZkError#CONNECTION_LOSS}; unless {@link #reconnect} comes within the
     * session timeout, the server expires the session (and the client hears of it at the same time).
     */
    public void disconnect() {
        if (!connected || closed) {
            return;
        }
        connected = false;
        if (session != null) {
            final long id = session.id;
            // The server's timer, not the client's: it runs while the client's node is paused.
            expiryTimer = server.scheduler().schedule("zk-session-timeout " + node, SimScheduler.NO_NODE,
                sessionTimeoutMs, () -> server.expire(id));
        }
    }

    /**
     * Restores the connection: the same session if the server still has it (no callback), otherwise a new one.
     */
    public void reconnect() {
        if (connected || closed) {
            return;
        }
        connected = true;
        if (expiryTimer != null) {
            expiryTimer.cancel();
            expiryTimer = null;
        }
        if (session == null) {
            attach(server.openSession(this));
        } else {
            for (final Held h : held) {
                deliver(h.name(), h.callback());
            }
            held.clear();
        }
    }

    /**
     * Gives the current session up without ending it on the server (a ghost: its ephemerals stay until
     * {@link SimZooKeeper#expire} ends it), announces its expiry and takes a new session.
     *
     * @return the id of the abandoned session
     */
    public long abandonSession() {
        if (session == null || closed) {
            throw new IllegalStateException("node " + node + " has no session to abandon");
        }
        final SimZooKeeper.Session old = session;
        old.client = null;
        // Its watches were the client's: nobody hears them any more.
        old.dataWatches.clear();
        old.childWatches.clear();
        session = null;
        held.clear();
        deliver("zk-session-expired", () -> listener.onSessionExpired(old.id));
        if (connected) {
            attach(server.openSession(this));
        }
        return old.id;
    }

    // ------------------------------------------------------------------------------------------ calls

    private <T> T read(final String what, final Supplier<T> op) {
        return call(what, false, op);
    }

    private <T> T write(final String what, final Supplier<T> op) {
        return call(what, true, op);
    }

    private <T> T call(final String what, final boolean write, final Supplier<T> op) {
        if (closed) {
            throw new ZkException(ZkError.CLOSED, what, null);
        }
        if (!connected || session == null) {
            throw new ZkException(ZkError.CONNECTION_LOSS, what, null);
        }
        Loss loss = injected.pollFirst();
        if (loss == null && write) {
            loss = injectedWrites.pollFirst();
        }
        if (loss == null && lossRate > 0 && server.scheduler().random().nextDouble() < lossRate) {
            loss = server.scheduler().random().nextBoolean() ? Loss.BEFORE_APPLY : Loss.AFTER_APPLY;
        }
        if (loss == Loss.BEFORE_APPLY) {
            throw new ZkException(ZkError.CONNECTION_LOSS, what, null);
        }
        final T result = op.get();
        if (loss == Loss.AFTER_APPLY) {
            throw new ZkException(ZkError.CONNECTION_LOSS, what, null);
        }
        return result;
    }

    private static String describe(final List<ZkOp> ops) {
        return ops.size() == 1 ? ops.get(0).path() : "multi" + ops.stream().map(ZkOp::path).toList();
    }

    @Override
    public long sessionId() {
        return reportedSessionId;
    }

    @Override
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    @Override
    public void ensurePersistentPaths(final List<String> paths) {
        for (final String path : paths) {
            write(path, () -> {
                server.ensurePersistentPath(session, path);
                return null;
            });
        }
    }

    @Override
    public Optional<ZkNode> getData(final String path, final ZkWatch watch) {
        final Optional<ZkNode> node = read(path, () -> server.read(session, path, watch));
        if (node.isEmpty() && watch != null && exists(path, watch).isPresent()) {
            // As ZkClient: an exists-watch covers an absent node, then a re-read if it appeared in between.
            return read(path, () -> server.read(session, path, null));
        }
        return node;
    }

    @Override
    public CompletableFuture<Optional<ZkNode>> getDataAsync(final String path, final ZkWatch watch) {
        try {
            return CompletableFuture.completedFuture(read(path, () -> server.read(session, path, watch)));
        } catch (final ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Optional<ZkStat> exists(final String path, final ZkWatch watch) {
        return read(path, () -> server.exists(session, path, watch));
    }

    @Override
    public Optional<List<String>> children(final String path, final ZkWatch watch) {
        return read(path, () -> server.children(session, path, watch));
    }

    @Override
    public List<ZkStat> multi(final List<ZkOp> ops) {
        return write(describe(ops), () -> server.multi(session, ops));
    }

    @Override
    public CompletableFuture<List<ZkStat>> multiAsync(final List<ZkOp> ops) {
        try {
            return CompletableFuture.completedFuture(multi(ops));
        } catch (final ZkException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (crashed) {
            return; // a dead process closes nothing: its session expires on the server's timer
        }
        if (expiryTimer != null) {
            expiryTimer.cancel();
        }
        if (session != null) {
            server.closeSession(session.id);
            session = null;
        }
    }

    @Override
    public String toString() {
        return "SimZkConnection[node=" + node + " session=0x" + Long.toHexString(serverSessionId()) + "]";
    }
}
