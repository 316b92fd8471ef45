package io.seglog.replication.group;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.OffsetKey;
import io.seglog.replication.group.GroupRecords.OffsetValue;
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
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The groups of one {@code __consumer_offsets} partition: the one entry point the coordinator calls for the classic
 * group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), the committed offsets (OffsetCommit, OffsetFetch,
 * OffsetDelete, expiry), the administration of groups (ListGroups, DescribeGroups, DeleteGroups) and the load and
 * unload of the partition.
 *
 * <p>It composes the owners of the state and owns none of it itself:
 * <ul>
 *   <li>{@link GroupMembership} owns the groups by id, the membership protocol and its timers (join, pending sync,
 *       sessions);</li>
 *   <li>{@link CommittedOffsets} owns the offsets as written, the offset writes in flight, the write each partition
 *       shows, and the expiry timer;</li>
 *   <li>{@link GroupWrites} owns the offsets partition's writer and the sequence that numbers every write in log
 *       order;</li>
 *   <li>{@link GroupTasks} owns the scope of the timer keys and whether the manager still runs (stopped by
 *       {@link #unload}).</li>
 * </ul>
 * What spans two owners is here, as calls to their methods: DeleteGroups (groups leave the map, their offsets are
 * tombstoned in the same write) and the replay of records read back from the log.
 *
 * <p>Every method runs on the {@link GroupScheduler}'s thread, which also runs its timers and the completions of its
 * writes: the state needs no lock, and one seeded scheduler replays a run exactly. Answers to parked requests complete
 * the futures given with them.
 */
public final class GroupManager {
    private static final Logger LOG = LoggerFactory.getLogger(GroupManager.class);
    private static final byte[] EMPTY_ASSIGNMENT = new byte[0];
    /** The type ListGroups gives every group here (Kafka's {@code GroupType.CLASSIC}). */
    private static final String CLASSIC_TYPE = "classic";

    private final GroupTasks tasks;
    private final GroupWrites writes;
    private final GroupMembership membership;
    private final CommittedOffsets offsets;
    private final LongSupplier wallClockMs;

    /**
     * A manager that has its scheduler to itself (its timer keys are scoped as those of partition 0's).
     *
     * @param config    the settings
     * @param scheduler the coordinator's thread, timers and clock
     * @param log       the offsets partition the group records go to
     * @param ids       where new member ids come from (seeded in a simulation)
     * @param wallClockMs the wall clock, ms since the epoch: the timestamps written in records (commit time, state
     *                  time), which Kafka's tools and offset retention read as such; timers use the scheduler's clock
     */
    GroupManager(final GroupConfig config, final GroupScheduler scheduler, final GroupLog log,
                 final RandomGenerator ids, final LongSupplier wallClockMs) {
        this(config, scheduler, log, ids, wallClockMs, 0);
    }

    /**
     * A manager of one offsets partition, whose scheduler the managers of other partitions may share: its timer keys
     * are scoped by the partition's number, unique per scheduler as long as one manager per partition is loaded at a
     * time (a manager loaded again after an {@link #unload} may reuse the number).
     *
     * @param config           the settings
     * @param scheduler        the coordinator's thread, timers and clock
     * @param log              the offsets partition the group records go to
     * @param ids              where new member ids come from (seeded in a simulation)
     * @param wallClockMs      the wall clock, ms since the epoch: the timestamps written in records (commit time, state
     *                         time), which Kafka's tools and offset retention read as such; timers use the scheduler's
     *                         clock
     * @param offsetsPartition the number of the {@code __consumer_offsets} partition, 0 or more
     * @throws IllegalArgumentException when the partition number is negative
     */
    public GroupManager(final GroupConfig config, final GroupScheduler scheduler, final GroupLog log,
                        final RandomGenerator ids, final LongSupplier wallClockMs, final int offsetsPartition) {
        this.tasks = new GroupTasks(scheduler, offsetsPartition);
        this.writes = new GroupWrites(log);
        this.membership = new GroupMembership(config, tasks, writes, ids, wallClockMs);
        this.offsets = new CommittedOffsets(config, tasks, writes, membership, wallClockMs);
        this.wallClockMs = wallClockMs;
    }

    // ------------------------------------------------------------------------------------------------ views

    /**
     * A group's state.
     *
     * @param groupId the group
     * @return its state, or null when the group is not here
     */
    GroupState state(final String groupId) {
        final ClassicGroup group = membership.group(groupId);
        return group == null ? null : group.state();
    }

    /**
     * A group's generation.
     *
     * @param groupId the group
     * @return the generation, or -1 when the group is not here
     */
    int generation(final String groupId) {
        final ClassicGroup group = membership.group(groupId);
        return group == null ? -1 : group.generationId();
    }

    /**
     * A group's member ids, in the order they joined.
     *
     * @param groupId the group
     * @return the member ids (empty when the group is not here)
     */
    List<String> members(final String groupId) {
        final ClassicGroup group = membership.group(groupId);
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
    String leader(final String groupId) {
        final ClassicGroup group = membership.group(groupId);
        return group == null ? null : group.leaderId();
    }

    // ------------------------------------------------------------------------------------------------ membership

    /**
     * A JoinGroup: answered at once (an error, MEMBER_ID_REQUIRED, the current generation for a member with
     * nothing new) or parked until the rebalance completes.
     *
     * @param request the request
     * @param answer  completed with the answer
     */
    public void join(final Join request, final CompletableFuture<JoinResult> answer) {
        membership.join(request, answer);
    }

    /**
     * A SyncGroup: the leader's assignment is written, then every member gets its part; a follower's waits for it.
     *
     * @param request the request
     * @param answer  completed with the answer
     */
    public void sync(final Sync request, final CompletableFuture<SyncResult> answer) {
        membership.sync(request, answer);
    }

    /**
     * A Heartbeat.
     *
     * @param request the request
     * @return NONE, REBALANCE_IN_PROGRESS (rejoin), or the error
     */
    public GroupError heartbeat(final Heartbeat request) {
        return membership.heartbeat(request);
    }

    /**
     * A LeaveGroup of one or more members.
     *
     * @param groupId the group
     * @param leaving the members leaving
     * @return the group's error and each member's
     */
    public LeaveResult leave(final String groupId, final List<Leaving> leaving) {
        return membership.leave(groupId, leaving);
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
        offsets.commit(request, answer);
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
        return offsets.fetchOffsets(groupId, partitions);
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
        offsets.deleteOffsets(groupId, partitions, answer);
    }

    /**
     * Offset expiry (Kafka's {@code cleanupGroupMetadata}, run every {@code offsets.retention.check.interval.ms}):
     * an offset expires {@code offsets.retention.minutes} after its base time: when its group became Empty, or, for a
     * group outside group management and for a Stable consumer group's topics it no longer consumes, its commit
     * (an old client's explicit expire timestamp wins). Groups in other states keep their offsets. An Empty group
     * left without offsets is deleted. A group with commits not yet committed is left for the next run.
     */
    void expireOffsets() {
        offsets.expireOffsets();
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
        for (final ClassicGroup group : membership.byGroupId()) {
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
            final ClassicGroup group = membership.group(groupId);
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
            final ClassicGroup group = groupId == null ? null : membership.group(groupId);
            if (groupId == null || groupId.isEmpty()) {
                out.add(GroupError.INVALID_GROUP_ID);
            } else if (group == null || group.isIn(GroupState.DEAD) || deleted.containsKey(groupId)) {
                out.add(GroupError.GROUP_ID_NOT_FOUND);
            } else if (!group.isIn(GroupState.EMPTY)) {
                out.add(GroupError.NON_EMPTY_GROUP);
            } else {
                final Map<TopicPartition, OffsetValue> gone = CommittedOffsets.tombstones(groupId,
                    offsets.offsetPartitions(groupId), entries);
                if (!gone.isEmpty()) {
                    deletedOffsets.put(groupId, gone);
                }
                entries.add(new GroupLog.Entry(GroupRecords.encode(new GroupKey(groupId)), null));
                membership.remove(groupId);
                deleted.put(groupId, group);
                out.add(GroupError.NONE);
            }
        }
        if (entries.isEmpty()) {
            answer.complete(out);
            return;
        }
        final long sequence = writes.nextSequence();
        deletedOffsets.forEach((groupId, gone) -> offsets.offsetWriteStarted(groupId, gone.keySet()));
        writes.append(entries, "the deletion of groups " + deleted.keySet()).whenComplete((ok, failure) -> {
            final List<GroupError> outcome = failure == null ? out
                : out.stream().map(e -> e == GroupError.NONE ? GroupWrites.errorOf(failure) : e).toList();
            tasks.execute(() -> {
                deletedOffsets.forEach((groupId, gone) -> offsets.offsetWriteCompleted(groupId, sequence, gone,
                    failure == null));
                if (failure != null) {
                    deleted.values().forEach(membership::putBack);
                } else {
                    final long now = wallClockMs.getAsLong();
                    deleted.values().forEach(g -> g.transitionTo(GroupState.DEAD, now));
                    LOG.info("groups {} deleted", deleted.keySet());
                }
                answer.complete(outcome);
            }, () -> answer.complete(outcome));
        });
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
    void replay(final ByteBuffer key, final ByteBuffer value) {
        final GroupRecords.Key k = GroupRecords.decodeKey(key);
        if (k instanceof OffsetKey o) {
            if (value == null) {
                offsets.replay(o, null);
            } else {
                offsets.replay(o, GroupRecords.decodeOffsetValue(value));
                membership.replayOffset(o.group());
            }
        } else if (k instanceof GroupKey g) {
            membership.replayMetadata(g.group(), value == null ? null : GroupRecords.decodeGroupValue(value));
        }
    }

    /**
     * After loading: every member's session timer starts now (a member that does not heartbeat to the new
     * coordinator within its session timeout expires, and the group rebalances).
     */
    public void loaded() {
        membership.loaded();
        offsets.scheduleOffsetExpiry();
    }

    /**
     * This coordinator no longer leads the offsets partition: every parked JoinGroup and SyncGroup is answered
     * NOT_COORDINATOR (the clients find the new coordinator), every session timer stops, and the groups and offsets
     * are dropped (the new leader loads them from the log). The manager schedules nothing after it and is not called
     * again; a manager of the partition loaded later is a new one.
     */
    public void unload() {
        tasks.stop();
        membership.unload();
        offsets.unload();
    }
}
