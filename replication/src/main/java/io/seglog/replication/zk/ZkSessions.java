package io.seglog.replication.zk;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A broker's session events, fanned out to the components that follow them, in the order they were added. The
 * connection is opened first, with this as its only {@link ZkSessionListener}, before anything that follows its
 * sessions exists (Kafka's {@code KafkaZkClient.registerStateChangeHandler} order): a listener added while a session is
 * established hears of that session at once ({@link ZkSessionListener#onNewSession}), then of every change, so that
 * none is missed between the connection's first session and the listener's start.
 *
 * <p>Thread-safe: events and additions are serialised, so a listener hears each session once, in order. Listeners run
 * under this object's monitor, on the connection's event thread: they must only enqueue work, never block.
 */
public final class ZkSessions implements ZkSessionListener {
    private static final long NONE = 0;

    private final List<ZkSessionListener> listeners = new ArrayList<>();
    /** The established session, or {@link #NONE} before the first and after an expiry. */
    private long current = NONE;

    /**
     * Adds a listener; when a session is established it is told of it now, on the caller's thread.
     *
     * @param listener the listener
     */
    public synchronized void add(final ZkSessionListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        if (current != NONE) {
            listener.onNewSession(current);
        }
    }

    /**
     * Adds a task run at each new session reported after it is added, after the listeners added before it (re-arming
     * watches the last session lost); not run for a session already reported. A connection that reports its first
     * session late (Curator's CONNECTED callback, a simulation's event) runs it for that one too: the task must be
     * idempotent.
     *
     * @param task the task
     */
    public synchronized void onEachNewSession(final Runnable task) {
        Objects.requireNonNull(task, "task");
        listeners.add(new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
            }

            @Override
            public void onNewSession(final long sessionId) {
                task.run();
            }
        });
    }

    @Override
    public synchronized void onSessionExpired(final long sessionId) {
        current = NONE;
        for (final ZkSessionListener l : listeners) {
            l.onSessionExpired(sessionId);
        }
    }

    @Override
    public synchronized void onNewSession(final long sessionId) {
        current = sessionId;
        for (final ZkSessionListener l : listeners) {
            l.onNewSession(sessionId);
        }
    }
}
