package io.seglog.replication.group;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.GroupValue;
import io.seglog.replication.group.GroupRecords.MemberValue;
import io.seglog.replication.group.GroupRecords.OffsetKey;
import io.seglog.replication.group.GroupRecords.OffsetValue;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.DescribedGroup;
import io.seglog.replication.group.GroupRequests.DescribedMember;
import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.LeaveResult;
import io.seglog.replication.group.GroupRequests.Leaving;
import io.seglog.replication.group.GroupRequests.ListedGroup;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.OffsetDeleteResult;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic group protocol for the groups of one {@code __consumer_offsets} partition (Kafka's classic part of
 * {@code GroupMetadataManager}): JoinGroup with the two-step join of KIP-394, the initial rebalance delay, the
 * rebalance timeout and the leader's SyncGroup, Heartbeat, LeaveGroup, static membership (KIP-345), session and
 * pending-sync expiry; the group's metadata written to the log after each assignment (the answers wait for it).
 *
 * <p>Every method runs on the {@link GroupScheduler}'s thread, which also runs its timers and the completions of its
 * writes: the state needs no lock, and one seeded scheduler replays a run exactly. Answers to parked requests complete
 * the futures given with them.
 *
 * <p>Where Kafka's choice depends on a hash map's order (the protocol vote on a tie, the next leader when the leader
 * leaves), this one takes the members in the order they joined.
 */
public final class GroupManager {
    private static final Logger LOG = LoggerFactory.getLogger(GroupManager.class);
    private static final byte[] EMPTY_ASSIGNMENT = new byte[0];
    private static final AtomicLong INSTANCES = new AtomicLong();
    /** The type ListGroups gives every group here (Kafka's {@code GroupType.CLASSIC}). */
    private static final String CLASSIC_TYPE = "classic";
    private static final String EXPIRY_KEY = "expire-offsets";
    private static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final GroupConfig config;
    private final GroupScheduler scheduler;
    private final GroupLog log;
    private final RandomGenerator ids;
    private final LongSupplier wallClockMs;
    /** Scopes this manager's timer keys: another manager of the same partition (a reload) shares the scheduler. */
    private final String keyPrefix = "groups-" + INSTANCES.incrementAndGet() + "-";
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    /** Set by {@link #unload}: timers and write completions that fire after it do nothing. */
    private boolean unloaded;
    /** Committed offsets per group, per "topic-partition" key, as written (a commit shows once it is committed). */
    private final Map<String, Map<TopicPartition, OffsetValue>> offsets = new HashMap<>();
    /**
     * Every write to the offsets partition takes the next number, in the order the writes go to the log. Writes can
     * complete in another order (two acks=all writes wait on different followers), so memory follows the log by
     * applying a write's outcome for a partition only if no later write's is already shown.
     */
    private long writeSequence;
    /**
     * Offset writes (commits and tombstones) written but not yet completed, per group and partition. Offset expiry
     * leaves such a group alone until they complete, and a deletion tombstones their partitions too.
     */
    private final Map<String, Map<TopicPartition, Integer>> offsetWritesInFlight = new HashMap<>();
    /**
     * While a group has offset writes in flight: per partition, the sequence number of the write whose outcome is
     * shown. Once none is in flight every later write is newer than all of these, so they are dropped.
     */
    private final Map<String, Map<TopicPartition, Long>> shownWrite = new HashMap<>();

    /**
     * @param config    the settings
     * @param scheduler the coordinator's thread, timers and clock
     * @param log       the offsets partition the group records go to
     * @param ids       where new member ids come from (seeded in a simulation)
     * @param wallClockMs the wall clock, ms since the epoch: the timestamps written in records (commit time, state
     *                  time), which Kafka's tools and offset retention read as such; timers use the scheduler's clock
     */
    public GroupManager(final GroupConfig config, final GroupScheduler scheduler, final GroupLog log,
                        final RandomGenerator ids, final LongSupplier wallClockMs) {
        this.config = config;
        this.scheduler = scheduler;
        this.log = log;
        this.ids = ids;
        this.wallClockMs = wallClockMs;
    }

    /** A timer of this manager (its key scoped to it); it does nothing once the manager is unloaded. */
    private void schedule(final String key, final long delayMs, final Runnable task) {
        scheduler.schedule(keyPrefix + key, delayMs, () -> {
            if (!unloaded) {
                task.run();
            }
        });
    }

    private void cancel(final String key) {
        scheduler.cancel(keyPrefix + key);
    }

    /** A task on the coordinator's thread (a write's completion); it does nothing once the manager is unloaded. */
    private void execute(final Runnable task) {
        execute(task, () -> { });
    }

    /**
     * A write's completion on the coordinator's thread; once the manager is unloaded only {@code afterUnload} runs,
     * which answers the request with the write's outcome and touches no state. As Kafka's coordinator, a request whose
     * write ends after its partition moved away is still answered (with NONE when the write was committed): left
     * unanswered it would hold its connection, whose later requests wait behind it, until the client gives up.
     */
    private void execute(final Runnable task, final Runnable afterUnload) {
        scheduler.execute(() -> {
            if (!unloaded) {
                task.run();
            } else {
                afterUnload.run();
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ views

    /**
     * A group's state.
     *
     * @param groupId the group
     * @return its state, or null when the group is not here
     */
    public GroupState state(final String groupId) {
        final ClassicGroup group = groups.get(groupId);
        return group == null ? null : group.state();
    }

    /**
     * A group's generation.
     *
     * @param groupId the group
     * @return the generation, or -1 when the group is not here
     */
    public int generation(final String groupId) {
        final ClassicGroup group = groups.get(groupId);
        return group == null ? -1 : group.generationId();
    }

    /**
     * A group's member ids, in the order they joined.
     *
     * @param groupId the group
     * @return the member ids (empty when the group is not here)
     */
    public List<String> members(final String groupId) {
        final ClassicGroup group = groups.get(groupId);
        final List<String> out = new ArrayList<>();
        if (group != null) {
            group.members().forEach(m -> out.add(m.memberId()));
        }
        return out;
    }

    /**
     * A group's leader.
     *
     * @param groupId the group
     * @return the leader's member id, or null
     */
    public String leader(final String groupId) {
        final ClassicGroup group = groups.get(groupId);
        return group == null ? null : group.leaderId();
    }

    // ------------------------------------------------------------------------------------------------ join

    /**
     * A JoinGroup: answered at once (an error, MEMBER_ID_REQUIRED, the current generation for a member with
     * nothing new) or parked until the rebalance completes.
     *
     * @param request the request
     * @param answer  completed with the answer
     */
    public void join(final Join request, final CompletableFuture<JoinResult> answer) {
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
        cancel(heartbeatKey(group, oldMemberId));
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
            write(group, assignments(group)).whenComplete((ok, failure) -> execute(() -> {
                // Only this JoinGroup's answer: a second restart of the same instance may have parked another since.
                if (member.awaitingJoin() != answer || !member.memberId().equals(newMemberId)
                    || group.generationId() != generation) {
                    return;
                }
                if (failure != null) {
                    // As Kafka: the new id is not stored, so the member goes back to its old id and settings, and
                    // the restarted client is told the error without an id (it joins again).
                    LOG.warn("{}: storing static member {} under {} failed ({}); it keeps {}", group,
                        request.groupInstanceId(), newMemberId, errorOf(failure), oldMemberId);
                    group.completeJoin(member, JoinResult.error(errorOf(failure), ""));
                    group.update(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
                    group.replaceStaticMember(request.groupInstanceId(), newMemberId, oldMemberId);
                    cancel(heartbeatKey(group, newMemberId));
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
        cancel(syncKey(group));
        final boolean initial = group.isIn(GroupState.EMPTY);
        if (initial) {
            final int delay = config.initialRebalanceDelayMs();
            final int remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
            schedule(joinKey(group), delay, () -> tryCompleteInitialRebalance(group.groupId(), delay,
                remaining));
        }
        group.transitionTo(GroupState.PREPARING_REBALANCE, wallClockMs.getAsLong());
        LOG.info("{}: preparing to rebalance ({})", group, reason);
        if (!initial) {
            if (group.hasAllMembersJoined()) {
                completeJoin(group);
            } else {
                schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group.groupId()));
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
            schedule(joinKey(group), next, () -> tryCompleteInitialRebalance(groupId, next, left));
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
        cancel(joinKey(group));
        if (!group.isIn(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        // Dynamic members that did not rejoin in time are out; static ones keep their place.
        for (final GroupMember m : List.copyOf(group.members())) {
            if (!m.isAwaitingJoin() && !m.isStatic()) {
                LOG.info("{}: {} did not rejoin in time; removed", group, m);
                group.remove(m.memberId());
                cancel(heartbeatKey(group, m.memberId()));
            }
        }
        if (!group.maybeElectNewJoinedLeader() && !group.isEmpty()) {
            // Only static members that have not rejoined: wait another rebalance timeout for them or their expiry.
            schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group.groupId()));
            return;
        }
        group.initNextGeneration(wallClockMs.getAsLong());
        if (group.isIn(GroupState.EMPTY)) {
            write(group, Map.of()).whenComplete((ok, failure) -> {
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
        schedule(syncKey(group), group.rebalanceTimeoutMs(),
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
    public void sync(final Sync request, final CompletableFuture<SyncResult> answer) {
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
                    write(group, assignment).whenComplete((ok, failure) -> execute(() -> {
                        if (!group.isIn(GroupState.COMPLETING_REBALANCE) || group.generationId() != generation) {
                            return; // another rebalance began meanwhile
                        }
                        if (failure != null) {
                            propagateAssignment(group, errorOf(failure), null);
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
    public GroupError heartbeat(final Heartbeat request) {
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
        schedule(heartbeatKey(group, memberId), timeoutMs, () -> expireHeartbeat(groupId, memberId));
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
    public LeaveResult leave(final String groupId, final List<Leaving> leaving) {
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
                cancel(heartbeatKey(group, l.memberId()));
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

    // ------------------------------------------------------------------------------------------------ offsets

    /**
     * An OffsetCommit: checked against the group's generation and member (Kafka's {@code validateOffsetCommit}),
     * written, and visible to OffsetFetch once committed.
     *
     * @param request the request
     * @param answer  completed with each offset's outcome, in the request's order
     */
    public void commit(final OffsetCommit request, final CompletableFuture<List<GroupError>> answer) {
        ClassicGroup group = groups.get(request.groupId());
        if (request.groupId().isEmpty()) {
            answer.complete(all(request, GroupError.INVALID_GROUP_ID));
            return;
        }
        if (group == null) {
            if (request.generationId() >= 0) {
                answer.complete(all(request, request.unknownGroupIsNotFound() ? GroupError.GROUP_ID_NOT_FOUND
                    : GroupError.ILLEGAL_GENERATION));
                return;
            }
            // A consumer outside group management (assign()): its group exists to hold the offsets.
            group = new ClassicGroup(request.groupId(), wallClockMs.getAsLong());
            groups.put(request.groupId(), group);
        }
        final GroupError invalid = validateCommit(group, request);
        if (invalid != GroupError.NONE) {
            answer.complete(all(request, invalid));
            return;
        }
        final List<GroupError> out = new ArrayList<>(request.offsets().size());
        final List<GroupLog.Entry> entries = new ArrayList<>();
        final Map<TopicPartition, OffsetValue> written = new HashMap<>();
        final long now = wallClockMs.getAsLong();
        for (final CommittedOffset o : request.offsets()) {
            final String metadata = o.metadata() == null ? "" : o.metadata();
            if (metadata.length() > config.offsetMetadataMaxBytes()) {
                out.add(GroupError.OFFSET_METADATA_TOO_LARGE);
                continue;
            }
            final OffsetValue value = new OffsetValue(o.offset(), o.leaderEpoch(), metadata, now, -1, null);
            entries.add(new GroupLog.Entry(GroupRecords.encode(new OffsetKey(group.groupId(), o.topic(),
                o.partition())), GroupRecords.encode(value)));
            written.put(new TopicPartition(o.topic(), o.partition()), value);
            out.add(GroupError.NONE);
        }
        if (request.generationId() >= 0 && group.hasMember(request.memberId())) {
            // A commit from a live member counts as a sign of life.
            scheduleHeartbeatExpiry(group, request.memberId(), group.member(request.memberId()).sessionTimeoutMs());
        }
        if (entries.isEmpty()) {
            answer.complete(out);
            return;
        }
        final String groupId = group.groupId();
        final long sequence = ++writeSequence;
        offsetWriteStarted(groupId, written.keySet());
        append(entries, "offsets of " + group).whenComplete((ok, failure) -> {
            final List<GroupError> outcome = failure == null ? out
                : out.stream().map(e -> e == GroupError.NONE ? errorOf(failure) : e).toList();
            execute(() -> {
                offsetWriteCompleted(groupId, sequence, written, failure == null);
                answer.complete(outcome);
            }, () -> answer.complete(outcome));
        });
    }

    private static List<GroupError> all(final OffsetCommit request, final GroupError error) {
        return request.offsets().stream().map(o -> error).toList();
    }

    private static GroupError validateCommit(final ClassicGroup group, final OffsetCommit request) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        if (request.generationId() < 0 && group.isIn(GroupState.EMPTY)) {
            return GroupError.NONE; // an admin client, or a consumer outside group management
        }
        if (request.generationId() >= 0 || !request.memberId().isEmpty() || request.groupInstanceId() != null) {
            final GroupError member = group.validateMember(request.memberId(), request.groupInstanceId());
            if (member != GroupError.NONE) {
                return member;
            }
            if (request.generationId() != group.generationId()) {
                return GroupError.ILLEGAL_GENERATION;
            }
        } else if (!group.isIn(GroupState.EMPTY)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            return GroupError.REBALANCE_IN_PROGRESS;
        }
        return GroupError.NONE;
    }

    /**
     * An OffsetFetch: the committed offsets of the partitions asked for (-1 for none), or of every partition the
     * group committed, by topic then partition.
     *
     * @param groupId    the group
     * @param partitions the partitions, or null for all
     * @return the offsets
     */
    public List<FetchedOffset> fetchOffsets(final String groupId, final List<TopicPartition> partitions) {
        final Map<TopicPartition, OffsetValue> committed = offsets.getOrDefault(groupId, Map.of());
        final List<FetchedOffset> out = new ArrayList<>();
        if (partitions == null) {
            final List<TopicPartition> all = new ArrayList<>(committed.keySet());
            all.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            for (final TopicPartition tp : all) {
                final OffsetValue v = committed.get(tp);
                out.add(new FetchedOffset(tp.topic(), tp.partition(), v.offset(), v.leaderEpoch(), v.metadata()));
            }
            return out;
        }
        for (final TopicPartition tp : partitions) {
            final OffsetValue v = committed.get(tp);
            out.add(v == null ? new FetchedOffset(tp.topic(), tp.partition(), -1, -1, "")
                : new FetchedOffset(tp.topic(), tp.partition(), v.offset(), v.leaderEpoch(), v.metadata()));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ administration

    /**
     * ListGroups: the groups here (Kafka's {@code listGroups}), by group id.
     *
     * @param states the states asked for, case-insensitive ("stable", "Empty", ...), or empty for all
     * @param types  the group types asked for, case-insensitive, or empty for all: every group here is "classic"
     * @return the groups
     */
    public List<ListedGroup> listGroups(final Set<String> states, final Set<String> types) {
        final Set<String> wantedStates = new HashSet<>();
        states.forEach(st -> wantedStates.add(st.trim().toLowerCase(Locale.ROOT)));
        final boolean classicWanted = types.isEmpty()
            || types.stream().anyMatch(t -> CLASSIC_TYPE.equalsIgnoreCase(t.trim()));
        final List<ListedGroup> out = new ArrayList<>();
        if (!classicWanted) {
            return out;
        }
        for (final ClassicGroup group : new TreeMap<>(groups).values()) {
            if (wantedStates.isEmpty()
                || wantedStates.contains(group.state().kafkaName().toLowerCase(Locale.ROOT))) {
                out.add(new ListedGroup(group.groupId(), group.protocolType() == null ? "" : group.protocolType(),
                    group.state()));
            }
        }
        return out;
    }

    /**
     * DescribeGroups (Kafka's {@code describeGroups}): each group's state, protocol and members. A Stable group's
     * members carry their subscription in the chosen protocol; in any other state the protocol is "" and the
     * subscriptions are empty, as Kafka answers.
     *
     * @param groupIds the groups
     * @return one answer per group, in the request's order; GROUP_ID_NOT_FOUND (state Dead) for a group not here
     */
    public List<DescribedGroup> describeGroups(final List<String> groupIds) {
        final List<DescribedGroup> out = new ArrayList<>(groupIds.size());
        for (final String groupId : groupIds) {
            final ClassicGroup group = groups.get(groupId);
            if (group == null || group.isIn(GroupState.DEAD)) {
                out.add(new DescribedGroup(groupId, GroupError.GROUP_ID_NOT_FOUND, GroupState.DEAD, "", "",
                    List.of()));
                continue;
            }
            final boolean stable = group.isIn(GroupState.STABLE) && group.protocolName() != null;
            final List<DescribedMember> members = new ArrayList<>(group.size());
            for (final GroupMember m : group.members()) {
                final byte[] metadata = stable ? m.metadata(group.protocolName()) : null;
                members.add(new DescribedMember(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                    metadata == null ? EMPTY_ASSIGNMENT : metadata, m.assignment()));
            }
            out.add(new DescribedGroup(groupId, GroupError.NONE, group.state(),
                group.protocolType() == null ? "" : group.protocolType(), stable ? group.protocolName() : "",
                members));
        }
        return out;
    }

    /**
     * DeleteGroups (Kafka's {@code deleteGroups}): each Empty group's offsets, including those of commits still
     * being written, and its metadata are tombstoned in one write. The groups leave at once (a join meanwhile starts
     * a new group, as in Kafka); their offsets stay visible until the tombstones are committed, as any offset write.
     * The answer waits for the write; a failed write puts back each group that nothing has replaced.
     *
     * @param groupIds the groups
     * @param answer   completed with each group's outcome, in the request's order: NONE, GROUP_ID_NOT_FOUND,
     *                 NON_EMPTY_GROUP (it has members), or the write's error
     */
    public void deleteGroups(final List<String> groupIds, final CompletableFuture<List<GroupError>> answer) {
        final List<GroupError> out = new ArrayList<>(groupIds.size());
        final List<GroupLog.Entry> entries = new ArrayList<>();
        final Map<String, ClassicGroup> deleted = new HashMap<>();
        final Map<String, Map<TopicPartition, OffsetValue>> deletedOffsets = new TreeMap<>();
        for (final String groupId : groupIds) {
            final ClassicGroup group = groupId == null ? null : groups.get(groupId);
            if (groupId == null || groupId.isEmpty()) {
                out.add(GroupError.INVALID_GROUP_ID);
            } else if (group == null || group.isIn(GroupState.DEAD) || deleted.containsKey(groupId)) {
                out.add(GroupError.GROUP_ID_NOT_FOUND);
            } else if (!group.isIn(GroupState.EMPTY)) {
                out.add(GroupError.NON_EMPTY_GROUP);
            } else {
                final Map<TopicPartition, OffsetValue> gone = tombstones(groupId, offsetPartitions(groupId), entries);
                if (!gone.isEmpty()) {
                    deletedOffsets.put(groupId, gone);
                }
                entries.add(new GroupLog.Entry(GroupRecords.encode(new GroupKey(groupId)), null));
                groups.remove(groupId);
                deleted.put(groupId, group);
                out.add(GroupError.NONE);
            }
        }
        if (entries.isEmpty()) {
            answer.complete(out);
            return;
        }
        final long sequence = ++writeSequence;
        deletedOffsets.forEach((groupId, gone) -> offsetWriteStarted(groupId, gone.keySet()));
        append(entries, "the deletion of groups " + deleted.keySet()).whenComplete((ok, failure) -> {
            final List<GroupError> outcome = failure == null ? out
                : out.stream().map(e -> e == GroupError.NONE ? errorOf(failure) : e).toList();
            execute(() -> {
                deletedOffsets.forEach((groupId, gone) -> offsetWriteCompleted(groupId, sequence, gone,
                    failure == null));
                if (failure != null) {
                    deleted.forEach(groups::putIfAbsent);
                } else {
                    final long now = wallClockMs.getAsLong();
                    deleted.values().forEach(g -> g.transitionTo(GroupState.DEAD, now));
                    LOG.info("groups {} deleted", deleted.keySet());
                }
                answer.complete(outcome);
            }, () -> answer.complete(outcome));
        });
    }

    /**
     * OffsetDelete (Kafka's {@code deleteOffsets}): tombstones a group's offsets of partitions whose topic no member
     * consumes; they stay visible until the tombstones are committed.
     *
     * @param groupId    the group
     * @param partitions the partitions
     * @param answer     completed with GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (a live group of another protocol type
     *                   than consumer), a write's error, or NONE and each partition's outcome (NONE, also when it
     *                   had no offset, or GROUP_SUBSCRIBED_TO_TOPIC)
     */
    public void deleteOffsets(final String groupId, final List<TopicPartition> partitions,
                              final CompletableFuture<OffsetDeleteResult> answer) {
        final ClassicGroup group = groups.get(groupId);
        if (group == null || group.isIn(GroupState.DEAD)) {
            answer.complete(new OffsetDeleteResult(GroupError.GROUP_ID_NOT_FOUND, List.of()));
            return;
        }
        if (!group.isIn(GroupState.EMPTY) && !SubscribedTopics.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
            answer.complete(new OffsetDeleteResult(GroupError.NON_EMPTY_GROUP, List.of()));
            return;
        }
        final Set<TopicPartition> held = offsetPartitions(groupId);
        final List<GroupError> out = new ArrayList<>(partitions.size());
        final Set<TopicPartition> deleting = new TreeSet<>(BY_TOPIC_PARTITION);
        for (final TopicPartition tp : partitions) {
            if (SubscribedTopics.isSubscribed(group, tp.topic())) {
                out.add(GroupError.GROUP_SUBSCRIBED_TO_TOPIC);
            } else {
                if (held.contains(tp)) {
                    deleting.add(tp); // committed, or a commit still being written
                }
                out.add(GroupError.NONE);
            }
        }
        if (deleting.isEmpty()) {
            answer.complete(new OffsetDeleteResult(GroupError.NONE, out));
            return;
        }
        final List<GroupLog.Entry> entries = new ArrayList<>(deleting.size());
        final Map<TopicPartition, OffsetValue> gone = tombstones(groupId, deleting, entries);
        final long sequence = ++writeSequence;
        offsetWriteStarted(groupId, gone.keySet());
        append(entries, "the deletion of offsets of " + group).whenComplete((ok, failure) -> {
            final OffsetDeleteResult outcome = failure == null ? new OffsetDeleteResult(GroupError.NONE, out)
                : new OffsetDeleteResult(errorOf(failure), List.of());
            execute(() -> {
                offsetWriteCompleted(groupId, sequence, gone, failure == null);
                answer.complete(outcome);
            }, () -> answer.complete(outcome));
        });
    }

    /**
     * Offset expiry (Kafka's {@code cleanupGroupMetadata}, run every {@code offsets.retention.check.interval.ms}):
     * an offset expires {@code offsets.retention.minutes} after its base time: when its group became Empty, or, for a
     * group outside group management and for a Stable consumer group's topics it no longer consumes, its commit
     * (an old client's explicit expire timestamp wins). Groups in other states keep their offsets. An Empty group
     * left without offsets is deleted. A group with commits not yet committed is left for the next run.
     */
    public void expireOffsets() {
        final long now = wallClockMs.getAsLong();
        final List<GroupLog.Entry> entries = new ArrayList<>();
        final Map<String, Map<TopicPartition, OffsetValue>> expired = new TreeMap<>();
        final List<ClassicGroup> emptied = new ArrayList<>();
        final Set<String> ids = new TreeSet<>(groups.keySet());
        ids.addAll(offsets.keySet());
        for (final String groupId : ids) {
            if (offsetWritesInFlight.containsKey(groupId)) {
                continue;
            }
            final ClassicGroup group = groups.get(groupId);
            final Map<TopicPartition, OffsetValue> committed = offsets.getOrDefault(groupId, Map.of());
            boolean allExpired = true;
            if (!committed.isEmpty()) {
                final Map<TopicPartition, OffsetValue> sorted = new TreeMap<>(BY_TOPIC_PARTITION);
                sorted.putAll(committed);
                final Map<TopicPartition, OffsetValue> gone = new TreeMap<>(BY_TOPIC_PARTITION);
                for (final Map.Entry<TopicPartition, OffsetValue> e : sorted.entrySet()) {
                    final OffsetValue v = e.getValue();
                    final long base = expiryBase(group, e.getKey().topic(), v);
                    // Kafka's condition: only an offset that can expire now, and then an explicit expire time wins.
                    final boolean over = base >= 0 && (v.expireTimestamp() >= 0 ? now >= v.expireTimestamp()
                        : now - base >= config.offsetsRetentionMs());
                    if (over) {
                        gone.put(e.getKey(), v);
                    } else {
                        allExpired = false;
                    }
                }
                if (!gone.isEmpty()) {
                    expired.put(groupId, tombstones(groupId, gone.keySet(), entries));
                }
            }
            if (allExpired && group != null && group.isIn(GroupState.EMPTY) && group.pendingJoinMembers().isEmpty()) {
                entries.add(new GroupLog.Entry(GroupRecords.encode(new GroupKey(groupId)), null));
                emptied.add(group);
            }
        }
        if (entries.isEmpty()) {
            return;
        }
        final long sequence = ++writeSequence;
        expired.forEach((groupId, gone) -> offsetWriteStarted(groupId, gone.keySet()));
        append(entries, "expired offsets").whenComplete((ok, failure) -> execute(() -> {
            expired.forEach((groupId, gone) -> offsetWriteCompleted(groupId, sequence, gone, failure == null));
            if (failure != null) {
                LOG.warn("expiring the offsets of groups {} failed; the next run tries again", expired.keySet(),
                    failure);
                return;
            }
            final long at = wallClockMs.getAsLong();
            for (final ClassicGroup group : emptied) {
                // Only if nothing came back meanwhile: a join or a commit made it live again, or its metadata was
                // written after the tombstone (a member joined and left), which a reload would read back.
                if (groups.get(group.groupId()) == group && group.isIn(GroupState.EMPTY)
                    && group.metadataSequence() < sequence && !offsets.containsKey(group.groupId())) {
                    groups.remove(group.groupId());
                    group.transitionTo(GroupState.DEAD, at);
                }
            }
            LOG.info("expired the offsets of {} group(s); deleted {} empty group(s)", expired.size(), emptied.size());
        }));
    }

    /**
     * The time an offset's retention counts from, or -1 when it does not expire now (Kafka's
     * {@code offsetExpirationCondition}).
     */
    private static long expiryBase(final ClassicGroup group, final String topic, final OffsetValue v) {
        if (group == null || group.protocolType() == null) {
            return v.commitTimestamp(); // outside group management: from each commit
        }
        if (group.isIn(GroupState.EMPTY)) {
            return group.stateTimestampMs() >= 0 ? group.stateTimestampMs() : v.commitTimestamp();
        }
        if (group.isIn(GroupState.STABLE) && SubscribedTopics.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
            final Optional<Set<String>> topics = SubscribedTopics.of(group);
            if (topics.isPresent() && !topics.get().contains(topic)) {
                return v.commitTimestamp(); // a topic the group no longer consumes
            }
        }
        return -1;
    }

    private void scheduleOffsetExpiry() {
        schedule(EXPIRY_KEY, config.offsetsRetentionCheckIntervalMs(), () -> {
            try {
                expireOffsets();
            } finally {
                scheduleOffsetExpiry();
            }
        });
    }

    /**
     * Tombstones for a group's offsets of these partitions, in the given order.
     *
     * @return the tombstones as an offset write's outcome: each partition mapped to null
     */
    private static Map<TopicPartition, OffsetValue> tombstones(final String groupId,
                                                              final Collection<TopicPartition> partitions,
                                                              final List<GroupLog.Entry> into) {
        final Map<TopicPartition, OffsetValue> gone = new HashMap<>();
        for (final TopicPartition tp : partitions) {
            into.add(new GroupLog.Entry(GroupRecords.encode(new OffsetKey(groupId, tp.topic(), tp.partition())),
                null));
            gone.put(tp, null);
        }
        return gone;
    }

    /** The partitions a group holds an offset of or has a commit in flight for, in order. */
    private Set<TopicPartition> offsetPartitions(final String groupId) {
        final Set<TopicPartition> held = new TreeSet<>(BY_TOPIC_PARTITION);
        held.addAll(offsets.getOrDefault(groupId, Map.of()).keySet());
        held.addAll(offsetWritesInFlight.getOrDefault(groupId, Map.of()).keySet());
        return held;
    }

    /** An offset write of these partitions of a group goes to the log (its sequence number already taken). */
    private void offsetWriteStarted(final String groupId, final Collection<TopicPartition> partitions) {
        final Map<TopicPartition, Integer> inFlight = offsetWritesInFlight.computeIfAbsent(groupId,
            g -> new HashMap<>());
        for (final TopicPartition tp : partitions) {
            inFlight.merge(tp, 1, Integer::sum);
        }
    }

    /**
     * The one place an offset write's outcome reaches memory: each partition's value (null for a tombstone) is shown
     * unless a write later in the log has already completed for it, so memory holds what a reload of the log would.
     *
     * @param sequence the write's sequence number
     * @param values   the partitions written, each with its value or null for a tombstone
     * @param written  whether the write was committed (a failed write changes nothing but its in-flight count)
     */
    private void offsetWriteCompleted(final String groupId, final long sequence,
                                      final Map<TopicPartition, OffsetValue> values, final boolean written) {
        final Map<TopicPartition, Integer> inFlight = offsetWritesInFlight.get(groupId);
        final Map<TopicPartition, Long> shown = shownWrite.computeIfAbsent(groupId, g -> new HashMap<>());
        for (final Map.Entry<TopicPartition, OffsetValue> e : values.entrySet()) {
            final TopicPartition tp = e.getKey();
            if (inFlight != null) {
                inFlight.computeIfPresent(tp, (k, n) -> n == 1 ? null : n - 1);
            }
            if (!written || shown.getOrDefault(tp, 0L) >= sequence) {
                continue;
            }
            shown.put(tp, sequence);
            if (e.getValue() != null) {
                offsets.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, e.getValue());
            } else {
                final Map<TopicPartition, OffsetValue> committed = offsets.get(groupId);
                if (committed != null && committed.remove(tp) != null && committed.isEmpty()) {
                    offsets.remove(groupId);
                }
            }
        }
        if (inFlight == null || inFlight.isEmpty()) {
            offsetWritesInFlight.remove(groupId);
            shownWrite.remove(groupId);
        }
    }

    // ------------------------------------------------------------------------------------------------ loading

    /**
     * Applies one record read back from the offsets partition (a new coordinator loading it, oldest first): an offset
     * commit or its tombstone, a group's metadata or its tombstone. Records of other kinds of group are skipped.
     *
     * @param key   the record's key
     * @param value its value, or null for a tombstone
     * @throws MalformedGroupRecordException when the record is not one Kafka's schemas allow
     */
    public void replay(final ByteBuffer key, final ByteBuffer value) {
        final GroupRecords.Key k = GroupRecords.decodeKey(key);
        if (k instanceof OffsetKey o) {
            final TopicPartition tp = new TopicPartition(o.topic(), o.partition());
            if (value == null) {
                final Map<TopicPartition, OffsetValue> group = offsets.get(o.group());
                if (group != null) {
                    group.remove(tp);
                    if (group.isEmpty()) {
                        offsets.remove(o.group());
                    }
                }
            } else {
                offsets.computeIfAbsent(o.group(), g -> new HashMap<>()).put(tp, GroupRecords.decodeOffsetValue(value));
                // As Kafka: a group known only by its offsets (a consumer outside group management) exists, Empty.
                groups.computeIfAbsent(o.group(), g -> new ClassicGroup(g, wallClockMs.getAsLong()));
            }
        } else if (k instanceof GroupKey g) {
            if (value == null) {
                groups.remove(g.group());
            } else {
                groups.put(g.group(), restore(g.group(), GroupRecords.decodeGroupValue(value)));
            }
        }
    }

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

    /**
     * After loading: every member's session timer starts now (a member that does not heartbeat to the new
     * coordinator within its session timeout expires, and the group rebalances).
     */
    public void loaded() {
        for (final ClassicGroup group : groups.values()) {
            for (final GroupMember m : group.members()) {
                scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
        scheduleOffsetExpiry();
    }

    /**
     * This coordinator no longer leads the offsets partition: every parked JoinGroup and SyncGroup is answered
     * NOT_COORDINATOR (the clients find the new coordinator), every session timer stops, and the groups and offsets
     * are dropped (the new leader loads them from the log).
     */
    public void unload() {
        unloaded = true;
        for (final ClassicGroup group : groups.values()) {
            for (final GroupMember m : List.copyOf(group.members())) {
                group.completeJoin(m, JoinResult.error(GroupError.NOT_COORDINATOR, m.memberId()));
                group.completeSync(m, SyncResult.error(GroupError.NOT_COORDINATOR));
                cancel(heartbeatKey(group, m.memberId()));
            }
            for (final String pending : group.pendingJoinMembers()) {
                cancel(heartbeatKey(group, pending));
            }
            cancel(joinKey(group));
            cancel(syncKey(group));
            group.transitionTo(GroupState.DEAD, wallClockMs.getAsLong());
        }
        cancel(EXPIRY_KEY);
        groups.clear();
        offsets.clear();
        offsetWritesInFlight.clear();
        shownWrite.clear();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Removes a member, answering what it has parked, and stops its session timer. */
    private void removeMember(final ClassicGroup group, final String memberId, final GroupError error) {
        final GroupMember member = group.member(memberId);
        if (member != null) {
            group.completeJoin(member, JoinResult.error(error, ""));
            group.completeSync(member, SyncResult.error(error));
        }
        group.remove(memberId);
        cancel(heartbeatKey(group, memberId));
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

    /** Writes the group's metadata with these assignments. */
    private CompletableFuture<Void> write(final ClassicGroup group, final Map<String, byte[]> assignment) {
        group.metadataSequence(++writeSequence);
        final List<MemberValue> members = new ArrayList<>(group.size());
        for (final GroupMember m : group.members()) {
            final byte[] subscription = group.protocolName() == null ? null : m.metadata(group.protocolName());
            members.add(new MemberValue(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), subscription == null ? EMPTY_ASSIGNMENT : subscription,
                assignment.getOrDefault(m.memberId(), EMPTY_ASSIGNMENT)));
        }
        final GroupValue value = new GroupValue(group.protocolType() == null ? "" : group.protocolType(),
            group.generationId(), group.protocolName(), group.leaderId(), group.stateTimestampMs(), members);
        return append(List.of(new GroupLog.Entry(GroupRecords.encode(new GroupKey(group.groupId())),
            GroupRecords.encode(value))), group.toString());
    }

    private CompletableFuture<Void> append(final List<GroupLog.Entry> entries, final String what) {
        try {
            return log.append(entries);
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(new GroupWriteException(GroupError.UNKNOWN_SERVER_ERROR,
                "writing " + what + " failed: " + e));
        }
    }

    private static GroupError errorOf(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
        return cause instanceof GroupWriteException w ? w.error() : GroupError.UNKNOWN_SERVER_ERROR;
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
}
