package io.seglog.replication.group;

import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.SyncResult;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A member of a classic group as the coordinator keeps it (Kafka's {@code ClassicGroupMember}): its timeouts, the
 * protocols it supports in its order of preference with their metadata (a consumer's subscription), its assignment,
 * and the JoinGroup or SyncGroup it waits on. Touched only on the coordinator's thread.
 */
final class GroupMember {
    private String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private final String protocolType;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private List<Protocol> protocols;
    private byte[] assignment = new byte[0];
    private CompletableFuture<JoinResult> awaitingJoin;
    private CompletableFuture<SyncResult> awaitingSync;
    private boolean isNew;

    GroupMember(final String memberId, final String groupInstanceId, final String clientId, final String clientHost,
                final int rebalanceTimeoutMs, final int sessionTimeoutMs, final String protocolType,
                final List<Protocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = List.copyOf(protocols);
    }

    String memberId() {
        return memberId;
    }

    void memberId(final String id) {
        memberId = id;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    String protocolType() {
        return protocolType;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    List<Protocol> protocols() {
        return protocols;
    }

    /** The metadata this member gave for a protocol, or null if it does not support it. */
    byte[] metadata(final String protocol) {
        for (final Protocol p : protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return null;
    }

    /** Whether these protocols are the member's, same names, order and metadata. */
    boolean matches(final List<Protocol> other) {
        if (other.size() != protocols.size()) {
            return false;
        }
        for (int i = 0; i < other.size(); i++) {
            if (!other.get(i).name().equals(protocols.get(i).name())
                || !Arrays.equals(other.get(i).metadata(), protocols.get(i).metadata())) {
                return false;
            }
        }
        return true;
    }

    /** The member's most preferred protocol among the candidates. */
    String vote(final Set<String> candidates) {
        for (final Protocol p : protocols) {
            if (candidates.contains(p.name())) {
                return p.name();
            }
        }
        throw new IllegalStateException("member " + memberId + " supports none of " + candidates);
    }

    void update(final List<Protocol> newProtocols, final int newRebalanceTimeoutMs, final int newSessionTimeoutMs) {
        protocols = List.copyOf(newProtocols);
        rebalanceTimeoutMs = newRebalanceTimeoutMs;
        sessionTimeoutMs = newSessionTimeoutMs;
    }

    byte[] assignment() {
        return assignment;
    }

    void assignment(final byte[] bytes) {
        assignment = bytes;
    }

    boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    CompletableFuture<JoinResult> awaitingJoin() {
        return awaitingJoin;
    }

    void awaitingJoin(final CompletableFuture<JoinResult> future) {
        awaitingJoin = future;
    }

    boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    CompletableFuture<SyncResult> awaitingSync() {
        return awaitingSync;
    }

    void awaitingSync(final CompletableFuture<SyncResult> future) {
        awaitingSync = future;
    }

    boolean isNew() {
        return isNew;
    }

    void isNew(final boolean value) {
        isNew = value;
    }

    /**
     * Whether a session-timeout expiry finds this member alive anyway (Kafka's {@code hasSatisfiedHeartbeat}): a
     * member waiting in a rebalance cannot heartbeat, unless it is new (it has no member id it could heartbeat with,
     * so its join times out instead).
     */
    boolean hasSatisfiedHeartbeat() {
        if (isNew) {
            return false;
        }
        return isAwaitingJoin() || isAwaitingSync();
    }

    @Override
    public String toString() {
        return "member " + memberId + (groupInstanceId == null ? "" : " (instance " + groupInstanceId + ")");
    }
}
