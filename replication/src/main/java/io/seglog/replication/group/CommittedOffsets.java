package io.seglog.replication.group;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.OffsetKey;
import io.seglog.replication.group.GroupRecords.OffsetValue;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.OffsetDeleteResult;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed offsets of one {@code __consumer_offsets} partition's groups: OffsetCommit (checked against the
 * group's generation and member), OffsetFetch, OffsetDelete and offset expiry, each write's outcome shown once it is
 * committed.
 *
 * <p>It owns the offsets as written, per group and partition; the offset writes (commits and tombstones) still in
 * flight; while a group has some, the sequence number of the write whose outcome each partition shows; and the
 * expiry timer. It is their only writer: every offset write, its own or {@link GroupManager}'s deletion of groups,
 * announces itself through {@link #offsetWriteStarted} and reaches memory through {@link #offsetWriteCompleted}, the
 * one place an outcome is shown; a reload goes through {@link #replay}. It reads the groups and changes their map
 * only through {@link GroupMembership}'s methods; its writes take their numbers from {@link GroupWrites}.
 *
 * <p>Touched only on the coordinator's thread.
 */
final class CommittedOffsets {
    /** Logs under the manager's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(GroupManager.class);
    private static final String EXPIRY_KEY = "expire-offsets";
    private static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final GroupConfig config;
    private final GroupTasks tasks;
    private final GroupWrites writes;
    private final GroupMembership groups;
    private final LongSupplier wallClockMs;
    /** Committed offsets per group, per partition, as written (a commit shows once it is committed). */
    private final Map<String, Map<TopicPartition, OffsetValue>> offsets = new HashMap<>();
    /**
     * Offset writes (commits and tombstones) written but not yet completed, per group and partition. Offset expiry
     * leaves such a group alone until they complete, and a deletion tombstones their partitions too.
     */
    private final Map<String, Map<TopicPartition, Integer>> offsetWritesInFlight = new HashMap<>();
    /**
     * While a group has offset writes in flight: per partition, the sequence number ({@link GroupWrites}) of the
     * write whose outcome is shown. Writes can complete out of log order, so memory follows the log by applying a
     * write's outcome for a partition only if no later write's is already shown. Once none is in flight every later
     * write is newer than all of these, so they are dropped.
     */
    private final Map<String, Map<TopicPartition, Long>> shownWrite = new HashMap<>();

    CommittedOffsets(final GroupConfig config, final GroupTasks tasks, final GroupWrites writes,
                     final GroupMembership groups, final LongSupplier wallClockMs) {
        this.config = config;
        this.tasks = tasks;
        this.writes = writes;
        this.groups = groups;
        this.wallClockMs = wallClockMs;
    }

    /**
     * An OffsetCommit: checked against the group's generation and member (Kafka's {@code validateOffsetCommit}),
     * written, and visible to OffsetFetch once committed.
     *
     * @param request the request
     * @param answer  completed with each offset's outcome, in the request's order
     */
    void commit(final OffsetCommit request, final CompletableFuture<List<GroupError>> answer) {
        ClassicGroup group = groups.group(request.groupId());
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
            group = groups.create(request.groupId());
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
            groups.signOfLife(group, request.memberId());
        }
        if (entries.isEmpty()) {
            answer.complete(out);
            return;
        }
        final String groupId = group.groupId();
        final long sequence = writes.nextSequence();
        offsetWriteStarted(groupId, written.keySet());
        writes.append(entries, "offsets of " + group).whenComplete((ok, failure) -> {
            final List<GroupError> outcome = failure == null ? out
                : out.stream().map(e -> e == GroupError.NONE ? GroupWrites.errorOf(failure) : e).toList();
            tasks.execute(() -> {
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
    List<FetchedOffset> fetchOffsets(final String groupId, final List<TopicPartition> partitions) {
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
    void deleteOffsets(final String groupId, final List<TopicPartition> partitions,
                              final CompletableFuture<OffsetDeleteResult> answer) {
        final ClassicGroup group = groups.group(groupId);
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
        final long sequence = writes.nextSequence();
        offsetWriteStarted(groupId, gone.keySet());
        writes.append(entries, "the deletion of offsets of " + group).whenComplete((ok, failure) -> {
            final OffsetDeleteResult outcome = failure == null ? new OffsetDeleteResult(GroupError.NONE, out)
                : new OffsetDeleteResult(GroupWrites.errorOf(failure), List.of());
            tasks.execute(() -> {
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
    void expireOffsets() {
        final long now = wallClockMs.getAsLong();
        final List<GroupLog.Entry> entries = new ArrayList<>();
        final Map<String, Map<TopicPartition, OffsetValue>> expired = new TreeMap<>();
        final List<ClassicGroup> emptied = new ArrayList<>();
        final Set<String> ids = new TreeSet<>(groups.groupIds());
        ids.addAll(offsets.keySet());
        for (final String groupId : ids) {
            if (offsetWritesInFlight.containsKey(groupId)) {
                continue;
            }
            final ClassicGroup group = groups.group(groupId);
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
        final long sequence = writes.nextSequence();
        expired.forEach((groupId, gone) -> offsetWriteStarted(groupId, gone.keySet()));
        writes.append(entries, "expired offsets").whenComplete((ok, failure) -> tasks.execute(() -> {
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
                if (groups.group(group.groupId()) == group && group.isIn(GroupState.EMPTY)
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

    void scheduleOffsetExpiry() {
        tasks.schedule(EXPIRY_KEY, config.offsetsRetentionCheckIntervalMs(), () -> {
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
    static Map<TopicPartition, OffsetValue> tombstones(final String groupId,
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
    Set<TopicPartition> offsetPartitions(final String groupId) {
        final Set<TopicPartition> held = new TreeSet<>(BY_TOPIC_PARTITION);
        held.addAll(offsets.getOrDefault(groupId, Map.of()).keySet());
        held.addAll(offsetWritesInFlight.getOrDefault(groupId, Map.of()).keySet());
        return held;
    }

    /** An offset write of these partitions of a group goes to the log (its sequence number already taken). */
    void offsetWriteStarted(final String groupId, final Collection<TopicPartition> partitions) {
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
    void offsetWriteCompleted(final String groupId, final long sequence,
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
     * Applies an offset record read back from the log: the commit, or its tombstone.
     *
     * @param key   the record's key
     * @param value the commit, or null for a tombstone
     */
    void replay(final OffsetKey key, final OffsetValue value) {
        final TopicPartition tp = new TopicPartition(key.topic(), key.partition());
        if (value == null) {
            final Map<TopicPartition, OffsetValue> group = offsets.get(key.group());
            if (group != null) {
                group.remove(tp);
                if (group.isEmpty()) {
                    offsets.remove(key.group());
                }
            }
        } else {
            offsets.computeIfAbsent(key.group(), g -> new HashMap<>()).put(tp, value);
        }
    }

    /** Stops the expiry timer and drops the offsets (the new leader loads them from the log). */
    void unload() {
        tasks.cancel(EXPIRY_KEY);
        offsets.clear();
        offsetWritesInFlight.clear();
        shownWrite.clear();
    }
}
