package io.seglog.replication.zk;

/**
 * Session lifecycle callbacks of a {@link ZkConnection}. They run on Curator's connection-state thread (or, in a
 * simulation, as events of its scheduler), so implementations only enqueue work.
 */
public interface ZkSessionListener {
    /**
     * The session expired (or was declared lost): its ephemerals and watches are gone. Everything that
     * depended on the session (controllership, registration) must be given up before anything else.
     *
     * @param sessionId the id of the session that ended
     */
    void onSessionExpired(long sessionId);

    /**
     * A new session is established (at start, or after an expiry): re-register ephemerals and watches.
     *
     * @param sessionId the id of the new session
     */
    void onNewSession(long sessionId);
}
