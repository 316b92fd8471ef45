package io.seglog.replication.group;

import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.JoinedMember;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.SyncResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * One classic group's membership and state (Kafka's {@code ClassicGroup}): members in the order they joined (so that
 * every choice made from them, a new leader, the first member to take over, is deterministic), static members by
 * instance id, members admitted but not yet rejoined with their id (KIP-394), members whose SyncGroup is awaited, the
 * generation, the chosen protocol and the leader. Touched only on the coordinator's thread; the rules that move it
 * between states live in {@link GroupMembership}; each field here is written only through this class's methods.
 */
final class ClassicGroup {
    private final String groupId;
    private GroupState state = GroupState.EMPTY;
    private GroupState previousState = GroupState.EMPTY;
    private long stateTimestampMs;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final Map<String, GroupMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Set<String> pendingJoinMembers = new LinkedHashSet<>();
    private final Set<String> pendingSyncMembers = new LinkedHashSet<>();
    private final Map<String, Integer> supportedProtocols = new HashMap<>();
    private int awaitingJoin;
    private boolean newMemberAdded;
    /** The {@link GroupWrites} sequence number of this group's latest metadata write (0: none yet). */
    private long metadataSequence;

    ClassicGroup(final String groupId, final long nowMs) {
        this.groupId = groupId;
        this.stateTimestampMs = nowMs;
    }

    String groupId() {
        return groupId;
    }

    GroupState state() {
        return state;
    }

    GroupState previousState() {
        return previousState;
    }

    boolean isIn(final GroupState s) {
        return state == s;
    }

    long metadataSequence() {
        return metadataSequence;
    }

    void metadataSequence(final long sequence) {
        metadataSequence = sequence;
    }

    long stateTimestampMs() {
        return stateTimestampMs;
    }

    void transitionTo(final GroupState next, final long nowMs) {
        if (!next.validPreviousStates().contains(state)) {
            throw new IllegalStateException("group " + groupId + " cannot go from " + state + " to " + next);
        }
        previousState = state;
        state = next;
        stateTimestampMs = nowMs;
    }

    int generationId() {
        return generationId;
    }

    String protocolType() {
        return protocolType;
    }

    String protocolName() {
        return protocolName;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(final String memberId) {
        return memberId.equals(leaderId);
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    int size() {
        return members.size();
    }

    boolean hasMember(final String memberId) {
        return members.containsKey(memberId);
    }

    GroupMember member(final String memberId) {
        return members.get(memberId);
    }

    Collection<GroupMember> members() {
        return members.values();
    }

    String staticMemberId(final String groupInstanceId) {
        return staticMembers.get(groupInstanceId);
    }

    boolean newMemberAdded() {
        return newMemberAdded;
    }

    void newMemberAdded(final boolean value) {
        newMemberAdded = value;
    }

    /** The longest rebalance timeout of the members (how long a rebalance waits for them to rejoin). */
    int rebalanceTimeoutMs() {
        int most = 0;
        for (final GroupMember m : members.values()) {
            most = Math.max(most, m.rebalanceTimeoutMs());
        }
        return most;
    }

    int awaitingJoinCount() {
        return awaitingJoin;
    }

    // ------------------------------------------------------------------------------------------------ members

    void add(final GroupMember member, final CompletableFuture<JoinResult> joinFuture) {
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        members.put(member.memberId(), member);
        for (final Protocol p : member.protocols()) {
            supportedProtocols.merge(p.name(), 1, Integer::sum);
        }
        if (member.isStatic()) {
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (joinFuture != null) {
            member.awaitingJoin(joinFuture);
            awaitingJoin++;
        }
        pendingJoinMembers.remove(member.memberId());
        if (leaderId == null) {
            leaderId = member.memberId();
        }
    }

    void remove(final String memberId) {
        final GroupMember removed = members.remove(memberId);
        if (removed != null) {
            for (final Protocol p : removed.protocols()) {
                supportedProtocols.merge(p.name(), -1, (a, b) -> a + b == 0 ? null : a + b);
            }
            if (removed.isAwaitingJoin()) {
                awaitingJoin--;
            }
            if (removed.isStatic()) {
                staticMembers.remove(removed.groupInstanceId());
            }
        }
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
        pendingJoinMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
    }

    /** A member's new protocols and timeouts, and the JoinGroup it now waits on (null: none). */
    void update(final GroupMember member, final List<Protocol> protocols, final int rebalanceTimeoutMs,
                final int sessionTimeoutMs, final CompletableFuture<JoinResult> joinFuture) {
        for (final Protocol p : member.protocols()) {
            supportedProtocols.merge(p.name(), -1, (a, b) -> a + b == 0 ? null : a + b);
        }
        member.update(protocols, rebalanceTimeoutMs, sessionTimeoutMs);
        for (final Protocol p : protocols) {
            supportedProtocols.merge(p.name(), 1, Integer::sum);
        }
        if (joinFuture != null) {
            if (!member.isAwaitingJoin()) {
                awaitingJoin++;
            } else {
                // A second JoinGroup while one is parked: the first is answered as superseded.
                member.awaitingJoin().complete(JoinResult.error(GroupError.REBALANCE_IN_PROGRESS, member.memberId()));
            }
            member.awaitingJoin(joinFuture);
        }
    }

    /**
     * Gives a static member's instance id a new member id: the old member's parked requests are answered
     * FENCED_INSTANCE_ID, the member keeps its protocols, timeouts and assignment under the new id.
     */
    GroupMember replaceStaticMember(final String groupInstanceId, final String oldMemberId, final String newMemberId) {
        final GroupMember member = members.remove(oldMemberId);
        if (member == null) {
            throw new IllegalStateException("group " + groupId + ": no member " + oldMemberId + " to replace");
        }
        completeJoin(member, JoinResult.error(GroupError.FENCED_INSTANCE_ID, oldMemberId));
        completeSync(member, SyncResult.error(GroupError.FENCED_INSTANCE_ID));
        member.memberId(newMemberId);
        members.put(newMemberId, member);
        staticMembers.put(groupInstanceId, newMemberId);
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
        pendingSyncMembers.remove(oldMemberId);
        return member;
    }

    void addPendingJoin(final String memberId) {
        pendingJoinMembers.add(memberId);
    }

    Set<String> pendingJoinMembers() {
        return pendingJoinMembers;
    }

    boolean isPendingJoin(final String memberId) {
        return pendingJoinMembers.contains(memberId);
    }

    void addPendingSync(final String memberId) {
        pendingSyncMembers.add(memberId);
    }

    void removePendingSync(final String memberId) {
        pendingSyncMembers.remove(memberId);
    }

    Set<String> pendingSyncMembers() {
        return pendingSyncMembers;
    }

    void clearPendingSync() {
        pendingSyncMembers.clear();
    }

    // ------------------------------------------------------------------------------------------------ rules

    boolean hasAllMembersJoined() {
        return members.size() == awaitingJoin && pendingJoinMembers.isEmpty();
    }

    boolean canRebalance() {
        return GroupState.PREPARING_REBALANCE.validPreviousStates().contains(state);
    }

    /** Whether a member with this type and these protocols may join: the type matches and a protocol is common. */
    boolean supports(final String type, final List<Protocol> protocols) {
        if (members.isEmpty()) {
            return !type.isEmpty() && !protocols.isEmpty();
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        for (final Protocol p : protocols) {
            if (supportedProtocols.getOrDefault(p.name(), 0) == members.size()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Kafka's {@code validateMember}: a static member's instance id must map to this member id (else
     * FENCED_INSTANCE_ID), and the member must be in the group (else UNKNOWN_MEMBER_ID).
     *
     * @return NONE or the error
     */
    GroupError validateMember(final String memberId, final String groupInstanceId) {
        if (groupInstanceId != null) {
            final String existing = staticMembers.get(groupInstanceId);
            if (existing == null) {
                return GroupError.UNKNOWN_MEMBER_ID;
            }
            if (!existing.equals(memberId)) {
                return GroupError.FENCED_INSTANCE_ID;
            }
        }
        return members.containsKey(memberId) ? GroupError.NONE : GroupError.UNKNOWN_MEMBER_ID;
    }

    /**
     * Keeps the leader if it rejoined, else makes the first rejoined member the leader.
     *
     * @return false when nobody rejoined
     */
    boolean maybeElectNewJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        if (members.get(leaderId).isAwaitingJoin()) {
            return true;
        }
        for (final GroupMember m : members.values()) {
            if (m.isAwaitingJoin()) {
                leaderId = m.memberId();
                return true;
            }
        }
        return false;
    }

    /**
     * The protocol every member supports that most members prefer (Kafka's vote). A tie goes to the protocol the
     * first member (in joining order) prefers among the tied ones, where Kafka's answer depends on a HashMap's order.
     */
    String selectProtocol() {
        final Set<String> candidates = new LinkedHashSet<>();
        for (final Map.Entry<String, Integer> e : new TreeMap<>(supportedProtocols).entrySet()) {
            if (e.getValue() == members.size()) {
                candidates.add(e.getKey());
            }
        }
        final Map<String, Integer> votes = new HashMap<>();
        for (final GroupMember m : members.values()) {
            votes.merge(m.vote(candidates), 1, Integer::sum);
        }
        final int most = votes.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        for (final Protocol p : members.values().iterator().next().protocols()) {
            if (votes.getOrDefault(p.name(), 0) == most) {
                return p.name();
            }
        }
        throw new IllegalStateException("group " + groupId + ": no protocol won the vote " + votes);
    }

    /** The next generation: a protocol chosen from the members, CompletingRebalance; or Empty without members. */
    void initNextGeneration(final long nowMs) {
        generationId++;
        if (!members.isEmpty()) {
            protocolName = selectProtocol();
            transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
        } else {
            protocolName = null;
            transitionTo(GroupState.EMPTY, nowMs);
        }
        pendingSyncMembers.clear();
    }

    /** The members with their metadata for the chosen protocol, as the leader's JoinGroup answer lists them. */
    List<JoinedMember> joinedMembers() {
        final List<JoinedMember> out = new ArrayList<>(members.size());
        for (final GroupMember m : members.values()) {
            out.add(new JoinedMember(m.memberId(), m.groupInstanceId(), m.metadata(protocolName)));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ answers

    /** Answers a member's parked JoinGroup, if it has one. */
    boolean completeJoin(final GroupMember member, final JoinResult result) {
        final CompletableFuture<JoinResult> future = member.awaitingJoin();
        if (future == null) {
            return false;
        }
        member.awaitingJoin(null);
        awaitingJoin--;
        future.complete(result);
        return true;
    }

    /** Answers a member's parked SyncGroup, if it has one. */
    boolean completeSync(final GroupMember member, final SyncResult result) {
        final CompletableFuture<SyncResult> future = member.awaitingSync();
        if (future == null) {
            return false;
        }
        member.awaitingSync(null);
        future.complete(result);
        return true;
    }

    /** Kafka's restored generation: a group read back from its log. */
    void restore(final int generation, final String type, final String protocol, final String leader,
                 final long timestampMs) {
        this.generationId = generation;
        this.protocolType = type;
        this.protocolName = protocol;
        this.leaderId = leader;
        this.stateTimestampMs = timestampMs;
        this.state = members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
        this.previousState = state;
    }

    @Override
    public String toString() {
        return "group " + groupId + " (" + state.kafkaName() + ", generation " + generationId + ")";
    }
}
