package io.seglog.replication.group;

import io.seglog.replication.group.GroupRecords.GroupValue;
import io.seglog.replication.group.GroupRecords.MemberValue;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.LeaveResult;
import io.seglog.replication.group.GroupRequests.Leaving;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic groups of one {@code __consumer_offsets} partition and their membership protocol (Kafka's classic part
 * of {@code GroupMetadataManager}): JoinGroup with the two-step join of KIP-394, the initial rebalance delay, the
 * rebalance timeout and the leader's SyncGroup, Heartbeat, LeaveGroup, static membership (KIP-345), session and
 * pending-sync expiry; the group's metadata written to the log after each assignment (the answers wait for it).
 *
 * <p>It owns the map of groups by id and their timers (join, pending sync, each member's session), and is the only
 * writer of the map: {@link CommittedOffsets} creates a group for a consumer outside group management and deletes an
 * emptied one through {@link #create} and {@link #remove}; {@link GroupManager} deletes, puts back and reloads groups
 * through {@link #remove}, {@link #putBack}, {@link #replayOffset} and {@link #replayMetadata}. Each
 * {@link ClassicGroup} owns its own state; the rules that move it between states are here.
 *
 * <p>Where Kafka's choice depends on a hash map's order (the protocol vote on a tie, the next leader when the leader
 * leaves), this one takes the members in the order they joined. Touched only on the coordinator's thread.
 */
final class GroupMembership {
    /** Logs under the manager's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(GroupManager.class);
    private static final byte[] EMPTY_ASSIGNMENT = new byte[0];

    private final GroupConfig config;
    private final GroupTasks tasks;
    private final GroupWrites writes;
    private final RandomGenerator ids;
    private final LongSupplier wallClockMs;
    private final Map<String, ClassicGroup> groups = new HashMap<>();

    GroupMembership(final GroupConfig config, final GroupTasks tasks, final GroupWrites writes,
                    final RandomGenerator ids, final LongSupplier wallClockMs) {
        this.config = config;
        this.tasks = tasks;
        this.writes = writes;
        this.ids = ids;
        this.wallClockMs = wallClockMs;
    }

    // ------------------------------------------------------------------------------------------------ the groups

    /** A group, or null when it is not here. */
    ClassicGroup group(final String groupId) {
        return groups.get(groupId);
    }

    /** The ids of the groups here (a copy). */
    Set<String> groupIds() {
        return Set.copyOf(groups.keySet());
    }

    /** The groups here, by group id. */
    List<ClassicGroup> byGroupId() {
        return List.copyOf(new TreeMap<>(groups).values());
    }

    /** A new Empty group (a consumer outside group management commits to it), replacing none. */
    ClassicGroup create(final String groupId) {
        final ClassicGroup group = new ClassicGroup(groupId, wallClockMs.getAsLong());
        groups.put(groupId, group);
        return group;
    }

    /** The group leaves the map (deleted); it keeps its state for {@link #putBack}. */
    void remove(final String groupId) {
        groups.remove(groupId);
    }

    /** Puts back a group whose deletion failed, unless another group took its id meanwhile. */
    void putBack(final ClassicGroup group) {
        groups.putIfAbsent(group.groupId(), group);
    }

    /**
     * An offset of the group was read back from the log: as Kafka, a group known only by its offsets (a consumer
     * outside group management) exists, Empty.
     */
    void replayOffset(final String groupId) {
        groups.computeIfAbsent(groupId, g -> new ClassicGroup(g, wallClockMs.getAsLong()));
    }

    /**
     * A group's metadata record was read back from the log: it restores the group; its tombstone removes it.
     *
     * @param groupId the group
     * @param value   the metadata, or null for a tombstone
     */
    void replayMetadata(final String groupId, final GroupValue value) {
        if (value == null) {
            groups.remove(groupId);
        } else {
            groups.put(groupId, restore(groupId, value));
        }
    }

    // ------------------------------------------------------------------------------------------------ join

    /**
     * A JoinGroup: answered at once (an error, MEMBER_ID_REQUIRED, the current generation for a member with
     * nothing new) or parked until the rebalance completes.
     *
     * @param request the request
     * @param answer  completed with the answer
     */
    void join(final Join request, final CompletableFuture<JoinResult> answer) {
        final String memberId = request.memberId();
        if (request.groupId().isEmpty()) {
            answer.complete(JoinResult.error(GroupError.INVALID_GROUP_ID, memberId));
            return;
        }
        if (request.sessionTimeoutMs() < config.minSessionTimeoutMs()
            || request.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            answer.complete(JoinResult.error(GroupError.INVALID_SESSION_TIMEOUT, memberId));
            return;
        }
        final boolean unknownMember = memberId.isEmpty();
        ClassicGroup group = groups.get(request.groupId());
        if (group == null) {
            if (!unknownMember) {
                answer.complete(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
                return;
            }
            group = new ClassicGroup(request.groupId(), wallClockMs.getAsLong());
            groups.put(request.groupId(), group);
        }
        if (!acceptJoiningMember(group, memberId)) {
            removeMember(group, memberId, GroupError.GROUP_MAX_SIZE_REACHED);
            answer.complete(JoinResult.error(GroupError.GROUP_MAX_SIZE_REACHED, ""));
        } else if (unknownMember) {
            joinNewMember(group, request, answer);
        } else {
            joinExistingMember(group, request, answer);
        }
    }

    private boolean acceptJoiningMember(final ClassicGroup group, final String memberId) {
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> group.hasMember(memberId) && group.member(memberId).isAwaitingJoin()
                || group.awaitingJoinCount() < config.maxSize();
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.size() < config.maxSize();
        };
    }

    private void joinNewMember(final ClassicGroup group, final Join request,
                               final CompletableFuture<JoinResult> answer) {
        if (group.isIn(GroupState.DEAD)) {
            answer.complete(JoinResult.error(GroupError.COORDINATOR_NOT_AVAILABLE, ""));
            return;
        }
        if (!group.supports(request.protocolType(), request.protocols())) {
            answer.complete(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        final String newMemberId = (request.groupInstanceId() != null ? request.groupInstanceId()
            : request.clientId()) + "-" + new UUID(ids.nextLong(), ids.nextLong());
        if (request.groupInstanceId() != null) {
            final String existing = group.staticMemberId(request.groupInstanceId());
            if (existing != null) {
                LOG.info("{}: static member {} rejoins without its member id; {} replaces {}", group,
                    request.groupInstanceId(), newMemberId, existing);
                replaceStaticMember(group, request, existing, newMemberId, answer);
            } else {
                addMember(group, request, newMemberId, answer);
            }
        } else if (request.requireKnownMemberId()) {
            // KIP-394: the member must come back with this id; until then it holds a place in the rebalance.
            group.addPendingJoin(newMemberId);
            scheduleHeartbeatExpiry(group, newMemberId, request.sessionTimeoutMs());
            answer.complete(JoinResult.error(GroupError.MEMBER_ID_REQUIRED, newMemberId));
        } else {
            addMember(group, request, newMemberId, answer);
        }
    }

    private void joinExistingMember(final ClassicGroup group, final Join request,
                                    final CompletableFuture<JoinResult> answer) {
        final String memberId = request.memberId();
        if (group.isIn(GroupState.DEAD)) {
            answer.complete(JoinResult.error(GroupError.COORDINATOR_NOT_AVAILABLE, memberId));
            return;
        }
        if (!group.supports(request.protocolType(), request.protocols())) {
            answer.complete(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        if (group.isPendingJoin(memberId)) {
            if (request.groupInstanceId() != null) {
                answer.complete(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
                return;
            }
            addMember(group, request, memberId, answer);
            return;
        }
        final GroupError invalid = group.validateMember(memberId, request.groupInstanceId());
        if (invalid != GroupError.NONE) {
            answer.complete(JoinResult.error(invalid, memberId));
            return;
        }
        final GroupMember member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberThenRebalance(group, member, request, answer);
            case COMPLETING_REBALANCE -> {
                if (member.matches(request.protocols())) {
                    // The same metadata (it missed the JoinGroup answer): the current generation again.
                    answer.complete(currentGeneration(group, memberId, group.isLeader(memberId), false));
                } else {
                    updateMemberThenRebalance(group, member, request, answer);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(request.protocols())) {
                    // The leader rejoining asks for a rebalance (its topics' metadata may have changed).
                    updateMemberThenRebalance(group, member, request, answer);
                } else {
                    answer.complete(currentGeneration(group, memberId, false, false));
                }
            }
            default -> answer.complete(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private static JoinResult currentGeneration(final ClassicGroup group, final String memberId,
                                                final boolean withMembers, final boolean skipAssignment) {
        return new JoinResult(GroupError.NONE, group.generationId(), group.protocolType(), group.protocolName(),
            group.leaderId() == null ? "" : group.leaderId(), skipAssignment, memberId,
            withMembers ? group.joinedMembers() : List.of());
    }

    private void addMember(final ClassicGroup group, final Join request, final String memberId,
                           final CompletableFuture<JoinResult> answer) {
        final GroupMember member = new GroupMember(memberId, request.groupInstanceId(), request.clientId(),
            request.clientHost(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs(), request.protocolType(),
            request.protocols());
        member.isNew(true);
        if (group.isIn(GroupState.PREPARING_REBALANCE) && group.previousState() == GroupState.EMPTY) {
            group.newMemberAdded(true);
        }
        group.add(member, answer);
        // A new member cannot heartbeat while its JoinGroup is parked: its join times out instead.
        scheduleHeartbeatExpiry(group, memberId, config.newMemberJoinTimeoutMs());
        maybePrepareRebalanceOrCompleteJoin(group, "new member " + memberId);
    }

    private void updateMemberThenRebalance(final ClassicGroup group, final GroupMember member, final Join request,
                                           final CompletableFuture<JoinResult> answer) {
        group.update(member, request.protocols(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs(), answer);
        maybePrepareRebalanceOrCompleteJoin(group, member + " rejoins");
    }

    private void replaceStaticMember(final ClassicGroup group, final Join request, final String oldMemberId,
                                     final String newMemberId, final CompletableFuture<JoinResult> answer) {
        final String previousLeader = group.leaderId();
        final GroupMember member = group.replaceStaticMember(request.groupInstanceId(), oldMemberId, newMemberId);
        tasks.cancel(heartbeatKey(group, oldMemberId));
        scheduleHeartbeatExpiry(group, newMemberId, member.sessionTimeoutMs());
        final List<Protocol> oldProtocols = member.protocols();
        final int oldRebalanceTimeoutMs = member.rebalanceTimeoutMs();
        final int oldSessionTimeoutMs = member.sessionTimeoutMs();
        group.update(member, request.protocols(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs(), answer);
        if (group.isIn(GroupState.STABLE)) {
            if (!Objects.equals(group.protocolName(), group.selectProtocol())) {
                maybePrepareRebalanceOrCompleteJoin(group, "static member " + request.groupInstanceId()
                    + " rejoined with a protocol that changes the group's");
                return;
            }
            // Kafka's static-member replacement without a rebalance (KIP-345): the group's protocol stays, so the
            // group is stored under the new member id and the member gets the current generation back, whatever
            // else changed in its metadata (a restarted consumer owns nothing yet); the leader is told to skip the
            // assignment where it can be.
            final int generation = group.generationId();
            writes.writeMetadata(group, assignments(group)).whenComplete((ok, failure) -> tasks.execute(() -> {
                // Only this JoinGroup's answer: a second restart of the same instance may have parked another since.
                if (member.awaitingJoin() != answer || !member.memberId().equals(newMemberId)
                    || group.generationId() != generation) {
                    return;
                }
                if (failure != null) {
                    // As Kafka: the new id is not stored, so the member goes back to its old id and settings, and
                    // the restarted client is told the error without an id (it joins again).
                    LOG.warn("{}: storing static member {} under {} failed ({}); it keeps {}", group,
                        request.groupInstanceId(), newMemberId, GroupWrites.errorOf(failure), oldMemberId);
                    group.completeJoin(member, JoinResult.error(GroupWrites.errorOf(failure), ""));
                    group.update(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
                    group.replaceStaticMember(request.groupInstanceId(), newMemberId, oldMemberId);
                    tasks.cancel(heartbeatKey(group, newMemberId));
                    scheduleHeartbeatExpiry(group, oldMemberId, member.sessionTimeoutMs());
                    return;
                }
                final boolean leader = group.isLeader(newMemberId);
                if (request.supportsSkipAssignment()) {
                    group.completeJoin(member, currentGeneration(group, newMemberId, leader, leader));
                } else {
                    // Before v9 the answer names the old leader id, so the member does not run an assignment that a
                    // stable group would never hand out (Kafka's rule).
                    group.completeJoin(member, new JoinResult(GroupError.NONE, group.generationId(),
                        group.protocolType(), group.protocolName(), previousLeader == null ? "" : previousLeader,
                        false, newMemberId, List.of()));
                }
            }));
        } else if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            // The leader may already be assigning to the old id: only a new rebalance gives the new id a share.
            prepareRebalance(group, "static member " + request.groupInstanceId() + " replaced");
        } else {
            maybeCompleteJoinPhase(group);
        }
    }

    // ------------------------------------------------------------------------------------------------ rebalance

    private void maybePrepareRebalanceOrCompleteJoin(final ClassicGroup group, final String reason) {
        if (group.canRebalance()) {
            prepareRebalance(group, reason);
        } else {
            maybeCompleteJoinPhase(group);
        }
    }

    private void maybeCompleteJoinPhase(final ClassicGroup group) {
        if (group.isIn(GroupState.PREPARING_REBALANCE) && group.previousState() != GroupState.EMPTY
            && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    private void prepareRebalance(final ClassicGroup group, final String reason) {
        if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            // Members awaiting their assignment rejoin instead.
            propagateAssignment(group, GroupError.REBALANCE_IN_PROGRESS, null);
        }
        group.clearPendingSync();
        tasks.cancel(syncKey(group));
        final boolean initial = group.isIn(GroupState.EMPTY);
        if (initial) {
            final int delay = config.initialRebalanceDelayMs();
            final int remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
            tasks.schedule(joinKey(group), delay, () -> tryCompleteInitialRebalance(group.groupId(), delay,
                remaining));
        }
        group.transitionTo(GroupState.PREPARING_REBALANCE, wallClockMs.getAsLong());
        LOG.info("{}: preparing to rebalance ({})", group, reason);
        if (!initial) {
            if (group.hasAllMembersJoined()) {
                completeJoin(group);
            } else {
                tasks.schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group.groupId()));
            }
        }
    }

    private void tryCompleteInitialRebalance(final String groupId, final int delayMs, final int remainingMs) {
        final ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return;
        }
        if (group.newMemberAdded() && remainingMs != 0) {
            // Members keep coming: wait another delay, within the rebalance timeout.
            group.newMemberAdded(false);
            final int next = Math.min(config.initialRebalanceDelayMs(), remainingMs);
            final int left = Math.max(remainingMs - delayMs, 0);
            tasks.schedule(joinKey(group), next, () -> tryCompleteInitialRebalance(groupId, next, left));
        } else {
            completeJoin(group);
        }
    }

    private void completeJoin(final String groupId) {
        final ClassicGroup group = groups.get(groupId);
        if (group != null) {
            completeJoin(group);
        }
    }

    private void completeJoin(final ClassicGroup group) {
        tasks.cancel(joinKey(group));
        if (!group.isIn(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        // Dynamic members that did not rejoin in time are out; static ones keep their place.
        for (final GroupMember m : List.copyOf(group.members())) {
            if (!m.isAwaitingJoin() && !m.isStatic()) {
                LOG.info("{}: {} did not rejoin in time; removed", group, m);
                group.remove(m.memberId());
                tasks.cancel(heartbeatKey(group, m.memberId()));
            }
        }
        if (!group.maybeElectNewJoinedLeader() && !group.isEmpty()) {
            // Only static members that have not rejoined: wait another rebalance timeout for them or their expiry.
            tasks.schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group.groupId()));
            return;
        }
        group.initNextGeneration(wallClockMs.getAsLong());
        if (group.isIn(GroupState.EMPTY)) {
            writes.writeMetadata(group, Map.of()).whenComplete((ok, failure) -> {
                if (failure != null) {
                    LOG.warn("{}: writing the empty generation failed: {}", group, failure.toString());
                }
            });
            return;
        }
        LOG.info("{}: generation {} with {} members, protocol {}, leader {}", group, group.generationId(),
            group.size(), group.protocolName(), group.leaderId());
        for (final GroupMember m : group.members()) {
            group.completeJoin(m, currentGeneration(group, m.memberId(), group.isLeader(m.memberId()), false));
            scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            m.isNew(false);
            group.addPendingSync(m.memberId());
        }
        final int generation = group.generationId();
        tasks.schedule(syncKey(group), group.rebalanceTimeoutMs(),
            () -> expirePendingSync(group.groupId(), generation));
    }

    private void expirePendingSync(final String groupId, final int generation) {
        final ClassicGroup group = groups.get(groupId);
        if (group == null || group.generationId() != generation || group.pendingSyncMembers().isEmpty()
            || !(group.isIn(GroupState.COMPLETING_REBALANCE) || group.isIn(GroupState.STABLE))) {
            return;
        }
        final List<String> late = List.copyOf(group.pendingSyncMembers());
        LOG.info("{}: {} sent no SyncGroup within the rebalance timeout; removed", group, late);
        for (final String memberId : late) {
            removeMember(group, memberId, GroupError.UNKNOWN_MEMBER_ID);
        }
        prepareRebalance(group, "members " + late + " sent no SyncGroup");
    }

    // ------------------------------------------------------------------------------------------------ sync

    /**
     * A SyncGroup: the leader's assignment is written, then every member gets its part; a follower's waits for it.
     *
     * @param request the request
     * @param answer  completed with the answer
     */
    void sync(final Sync request, final CompletableFuture<SyncResult> answer) {
        final ClassicGroup group = groups.get(request.groupId());
        if (group == null || group.isEmpty()) {
            answer.complete(SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
            return;
        }
        final GroupError invalid = validateSync(group, request);
        if (invalid != GroupError.NONE) {
            answer.complete(SyncResult.error(invalid));
            return;
        }
        final String memberId = request.memberId();
        switch (group.state()) {
            case PREPARING_REBALANCE -> answer.complete(SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                final GroupMember member = group.member(memberId);
                if (member.isAwaitingSync()) {
                    member.awaitingSync().complete(SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
                }
                member.awaitingSync(answer);
                group.removePendingSync(memberId);
                if (group.isLeader(memberId)) {
                    final Map<String, byte[]> assignment = new HashMap<>();
                    for (final GroupMember m : group.members()) {
                        assignment.put(m.memberId(), request.assignments().getOrDefault(m.memberId(),
                            EMPTY_ASSIGNMENT));
                    }
                    final int generation = group.generationId();
                    writes.writeMetadata(group, assignment).whenComplete((ok, failure) -> tasks.execute(() -> {
                        if (!group.isIn(GroupState.COMPLETING_REBALANCE) || group.generationId() != generation) {
                            return; // another rebalance began meanwhile
                        }
                        if (failure != null) {
                            propagateAssignment(group, GroupWrites.errorOf(failure), null);
                            maybePrepareRebalanceOrCompleteJoin(group, "the assignment could not be written");
                        } else {
                            propagateAssignment(group, GroupError.NONE, assignment);
                            group.transitionTo(GroupState.STABLE, wallClockMs.getAsLong());
                        }
                    }));
                }
            }
            case STABLE -> {
                group.removePendingSync(memberId);
                final GroupMember member = group.member(memberId);
                answer.complete(new SyncResult(GroupError.NONE, group.protocolType(), group.protocolName(),
                    member.assignment()));
            }
            default -> answer.complete(SyncResult.error(GroupError.COORDINATOR_NOT_AVAILABLE));
        }
    }

    private static GroupError validateSync(final ClassicGroup group, final Sync request) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        final GroupError member = group.validateMember(request.memberId(), request.groupInstanceId());
        if (member != GroupError.NONE) {
            return member;
        }
        if (request.generationId() != group.generationId()) {
            return GroupError.ILLEGAL_GENERATION;
        }
        if (request.protocolType() != null && group.protocolType() != null
            && !request.protocolType().equals(group.protocolType())
            || request.protocolName() != null && group.protocolName() != null
            && !request.protocolName().equals(group.protocolName())) {
            return GroupError.INCONSISTENT_GROUP_PROTOCOL;
        }
        return GroupError.NONE;
    }

    /** Gives every member its assignment (or the error, with an empty one) and restarts its session timer. */
    private void propagateAssignment(final ClassicGroup group, final GroupError error,
                                     final Map<String, byte[]> assignment) {
        for (final GroupMember m : group.members()) {
            m.assignment(assignment == null ? EMPTY_ASSIGNMENT : assignment.getOrDefault(m.memberId(),
                EMPTY_ASSIGNMENT));
            final SyncResult result = error == GroupError.NONE
                ? new SyncResult(GroupError.NONE, group.protocolType(), group.protocolName(), m.assignment())
                : SyncResult.error(error);
            if (group.completeSync(m, result)) {
                scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ heartbeat

    /**
     * A Heartbeat.
     *
     * @param request the request
     * @return NONE, REBALANCE_IN_PROGRESS (rejoin), or the error
     */
    GroupError heartbeat(final Heartbeat request) {
        final ClassicGroup group = groups.get(request.groupId());
        if (group == null) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        final GroupError invalid = group.validateMember(request.memberId(), request.groupInstanceId());
        if (invalid != GroupError.NONE) {
            return invalid;
        }
        if (request.generationId() != group.generationId()) {
            return GroupError.ILLEGAL_GENERATION;
        }
        final GroupMember member = group.member(request.memberId());
        return switch (group.state()) {
            case EMPTY -> GroupError.UNKNOWN_MEMBER_ID;
            case PREPARING_REBALANCE -> {
                scheduleHeartbeatExpiry(group, member.memberId(), member.sessionTimeoutMs());
                yield GroupError.REBALANCE_IN_PROGRESS;
            }
            case COMPLETING_REBALANCE, STABLE -> {
                scheduleHeartbeatExpiry(group, member.memberId(), member.sessionTimeoutMs());
                yield GroupError.NONE;
            }
            default -> GroupError.COORDINATOR_NOT_AVAILABLE;
        };
    }

    private void scheduleHeartbeatExpiry(final ClassicGroup group, final String memberId, final long timeoutMs) {
        final String groupId = group.groupId();
        tasks.schedule(heartbeatKey(group, memberId), timeoutMs, () -> expireHeartbeat(groupId, memberId));
    }

    private void expireHeartbeat(final String groupId, final String memberId) {
        final ClassicGroup group = groups.get(groupId);
        if (group == null || group.isIn(GroupState.DEAD)) {
            return;
        }
        if (group.isPendingJoin(memberId)) {
            LOG.info("{}: pending member {} did not join again in its session timeout; removed", group, memberId);
            group.remove(memberId);
            if (group.isIn(GroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
                completeJoin(group);
            }
            return;
        }
        final GroupMember member = group.member(memberId);
        if (member == null || member.hasSatisfiedHeartbeat()) {
            return;
        }
        LOG.info("{}: {} sent no heartbeat within its session timeout ({} ms); removed", group, member,
            member.sessionTimeoutMs());
        removeMemberAndRebalance(group, memberId);
    }

    // ------------------------------------------------------------------------------------------------ leave

    /**
     * A LeaveGroup of one or more members.
     *
     * @param groupId the group
     * @param leaving the members leaving
     * @return the group's error and each member's
     */
    LeaveResult leave(final String groupId, final List<Leaving> leaving) {
        final ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return new LeaveResult(GroupError.UNKNOWN_MEMBER_ID, List.of());
        }
        if (group.isIn(GroupState.DEAD)) {
            return new LeaveResult(GroupError.COORDINATOR_NOT_AVAILABLE, List.of());
        }
        final List<GroupError> out = new ArrayList<>(leaving.size());
        boolean removed = false;
        boolean pendingRemoved = false;
        for (final Leaving l : leaving) {
            if (l.groupInstanceId() != null) {
                final String existing = group.staticMemberId(l.groupInstanceId());
                if (existing == null) {
                    out.add(GroupError.UNKNOWN_MEMBER_ID);
                } else if (!l.memberId().isEmpty() && !l.memberId().equals(existing)) {
                    out.add(GroupError.FENCED_INSTANCE_ID);
                } else {
                    removeMember(group, existing, GroupError.UNKNOWN_MEMBER_ID);
                    removed = true;
                    out.add(GroupError.NONE);
                }
            } else if (group.isPendingJoin(l.memberId())) {
                group.remove(l.memberId());
                tasks.cancel(heartbeatKey(group, l.memberId()));
                pendingRemoved = true;
                out.add(GroupError.NONE);
            } else if (!group.hasMember(l.memberId())) {
                out.add(GroupError.UNKNOWN_MEMBER_ID);
            } else {
                removeMember(group, l.memberId(), GroupError.UNKNOWN_MEMBER_ID);
                removed = true;
                out.add(GroupError.NONE);
            }
        }
        if (removed) {
            maybePrepareRebalanceOrCompleteJoin(group, "members left");
        } else if (pendingRemoved) {
            maybeCompleteJoinPhase(group); // never cuts the initial rebalance delay short
        }
        return new LeaveResult(GroupError.NONE, out);
    }


    // ------------------------------------------------------------------------------------------------ members

    /** Removes a member, answering what it has parked, and stops its session timer. */
    private void removeMember(final ClassicGroup group, final String memberId, final GroupError error) {
        final GroupMember member = group.member(memberId);
        if (member != null) {
            group.completeJoin(member, JoinResult.error(error, ""));
            group.completeSync(member, SyncResult.error(error));
        }
        group.remove(memberId);
        tasks.cancel(heartbeatKey(group, memberId));
    }

    private void removeMemberAndRebalance(final ClassicGroup group, final String memberId) {
        removeMember(group, memberId, GroupError.UNKNOWN_MEMBER_ID);
        if (group.isIn(GroupState.STABLE) || group.isIn(GroupState.COMPLETING_REBALANCE)) {
            maybePrepareRebalanceOrCompleteJoin(group, "member " + memberId + " expired");
        } else if (group.isIn(GroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    /** The members' assignments as they stand (for a write that keeps them). */
    private static Map<String, byte[]> assignments(final ClassicGroup group) {
        final Map<String, byte[]> out = new HashMap<>();
        group.members().forEach(m -> out.put(m.memberId(), m.assignment()));
        return out;
    }

    private static String joinKey(final ClassicGroup group) {
        return "join-" + group.groupId();
    }

    private static String syncKey(final ClassicGroup group) {
        return "sync-" + group.groupId();
    }

    private static String heartbeatKey(final ClassicGroup group, final String memberId) {
        return "heartbeat-" + group.groupId() + "-" + memberId;
    }

    /** A commit from a live member counts as a sign of life: its session timer starts again. */
    void signOfLife(final ClassicGroup group, final String memberId) {
        scheduleHeartbeatExpiry(group, memberId, group.member(memberId).sessionTimeoutMs());
    }

    // ------------------------------------------------------------------------------------------------ loading

    private ClassicGroup restore(final String groupId, final GroupValue value) {
        final ClassicGroup group = new ClassicGroup(groupId, wallClockMs.getAsLong());
        for (final MemberValue m : value.members()) {
            final GroupMember member = new GroupMember(m.memberId(), m.groupInstanceId(), m.clientId(),
                m.clientHost(), m.rebalanceTimeout(), m.sessionTimeout(), value.protocolType(),
                List.of(new Protocol(value.protocol() == null ? "" : value.protocol(), m.subscription())));
            member.assignment(m.assignment());
            group.add(member, null);
        }
        group.restore(value.generation(), value.protocolType().isEmpty() ? null : value.protocolType(),
            value.protocol(), value.leader(), value.currentStateTimestamp());
        return group;
    }

    /** After loading: every member's session timer starts now. */
    void loaded() {
        for (final ClassicGroup group : groups.values()) {
            for (final GroupMember m : group.members()) {
                scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
    }

    /** Answers every parked JoinGroup and SyncGroup NOT_COORDINATOR, stops every timer and drops the groups. */
    void unload() {
        for (final ClassicGroup group : groups.values()) {
            for (final GroupMember m : List.copyOf(group.members())) {
                group.completeJoin(m, JoinResult.error(GroupError.NOT_COORDINATOR, m.memberId()));
                group.completeSync(m, SyncResult.error(GroupError.NOT_COORDINATOR));
                tasks.cancel(heartbeatKey(group, m.memberId()));
            }
            for (final String pending : group.pendingJoinMembers()) {
                tasks.cancel(heartbeatKey(group, pending));
            }
            tasks.cancel(joinKey(group));
            tasks.cancel(syncKey(group));
            group.transitionTo(GroupState.DEAD, wallClockMs.getAsLong());
        }
        groups.clear();
    }
}
