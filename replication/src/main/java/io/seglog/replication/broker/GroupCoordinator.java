package io.seglog.replication.broker;

import io.seglog.replication.group.GroupConfig;
import io.seglog.replication.group.GroupError;
import io.seglog.replication.group.GroupLoader;
import io.seglog.replication.group.GroupLog;
import io.seglog.replication.group.GroupManager;
import io.seglog.replication.group.GroupRequests.DescribedGroup;
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
import io.seglog.replication.group.GroupScheduler;
import io.seglog.replication.group.GroupState;
import io.seglog.replication.group.GroupWriteException;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.LeadershipListener;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.wire.GroupApis;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's group coordinator (the classic protocol): the coordinator of a group is the leader of its
 * {@code __consumer_offsets} partition ({@link #partitionFor}). When this broker becomes that leader, the partition's
 * log is read into a {@link GroupManager} (requests for its groups answer COORDINATOR_LOAD_IN_PROGRESS meanwhile);
 * when it stops leading, the groups are dropped (NOT_COORDINATOR). Records are appended as acks=all produces of the
 * broker's own replica layer, and a request that wrote waits for them to be committed.
 *
 * <p>Everything runs on one {@link GroupCoordinatorThread}: requests, timers, write completions and loading (a large
 * offsets partition holds the other partitions' requests while it loads).
 *
 * <p>Thread-safe: requests come from any thread and are answered by the futures returned.
 */
final class GroupCoordinator implements LeadershipListener, GroupApis.Coordinator, AutoCloseable {
    /** Kafka's internal topic of group offsets and metadata. */
    public static final String OFFSETS_TOPIC = "__consumer_offsets";

    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
    private static final int LOAD_READ_BYTES = 1 << 20;

    /** What the coordinator needs of the replica layer. */
    public interface Replicas {
        /**
         * Appends batches as a producer with acks=all.
         *
         * @param tp        the offsets partition
         * @param batch     one batch
         * @param timeoutMs how long to wait for the ISR
         * @return the partition's result
         */
        CompletableFuture<AppendResult> appendAll(TopicPartition tp, ByteBuffer batch, long timeoutMs);

        /**
         * The local log of a partition.
         *
         * @param tp the partition
         * @return its log, if hosted here
         */
        Optional<PartitionLog> log(TopicPartition tp);
    }

    /** One offsets partition this broker leads. */
    private static final class Shard {
        int leaderEpoch;
        final GroupManager groups;
        boolean loaded;

        Shard(final int leaderEpoch, final GroupManager groups) {
            this.leaderEpoch = leaderEpoch;
            this.groups = groups;
        }
    }

    private final GroupConfig config;
    private final int partitions;
    private final long appendTimeoutMs;
    private final Replicas replicas;
    private final RandomGenerator ids;
    private final LongSupplier wallClockMs;
    /** Where everything runs: the coordinator's thread ({@link GroupCoordinatorThread}), or a simulation's events. */
    private final GroupScheduler thread;
    private final Runnable stop;
    private final Map<Integer, Shard> shards = new HashMap<>();

    /**
     * Starts the coordinator's thread (it leads nothing until told).
     *
     * @param config          the groups' settings
     * @param partitions      {@code offsets.topic.num.partitions}
     * @param appendTimeoutMs how long a write waits for the offsets partition's ISR
     *                        ({@code offsets.commit.timeout.ms})
     * @param replicas        the replica layer
     * @param threadFactory   makes the coordinator's thread
     * @param clockMs         a monotonic clock (session and rebalance timers)
     * @param wallClockMs     the wall clock (record timestamps)
     * @param ids             where member ids come from
     * @param threadName      the coordinator thread's name
     */
    GroupCoordinator(final GroupConfig config, final int partitions, final long appendTimeoutMs,
                     final Replicas replicas, final ThreadFactory threadFactory, final LongSupplier clockMs,
                     final LongSupplier wallClockMs, final RandomGenerator ids, final String threadName) {
        this(config, partitions, appendTimeoutMs, replicas, new GroupCoordinatorThread(threadName, threadFactory, clockMs),
            wallClockMs, ids);
    }

    private GroupCoordinator(final GroupConfig config, final int partitions, final long appendTimeoutMs,
                             final Replicas replicas, final GroupCoordinatorThread thread,
                             final LongSupplier wallClockMs, final RandomGenerator ids) {
        this(config, partitions, appendTimeoutMs, replicas, thread, thread::close, wallClockMs, ids);
    }

    /**
     * A coordinator whose work runs on a given scheduler instead of a thread of its own (the cluster simulation runs
     * it as events): the scheduler must run one task at a time, in the order given.
     *
     * @param scheduler runs the requests, timers, write completions and loads
     * @param stop      stops the scheduler (at {@link #close()})
     */
    GroupCoordinator(final GroupConfig config, final int partitions, final long appendTimeoutMs,
                     final Replicas replicas, final GroupScheduler scheduler, final Runnable stop,
                     final LongSupplier wallClockMs, final RandomGenerator ids) {
        if (partitions < 1) {
            stop.run();
            throw new IllegalArgumentException("offsets.topic.num.partitions=" + partitions + ": must be >= 1");
        }
        this.thread = scheduler;
        this.stop = stop;
        this.config = config;
        this.partitions = partitions;
        this.appendTimeoutMs = appendTimeoutMs;
        this.replicas = replicas;
        this.ids = ids;
        this.wallClockMs = wallClockMs;
    }

    /**
     * The offsets partition of a group (Kafka's {@code Utils.abs(groupId.hashCode()) % partitions}).
     *
     * @param groupId the group
     * @return the partition
     */
    @Override
    public int partitionFor(final String groupId) {
        final int hash = groupId.hashCode();
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }

    // ------------------------------------------------------------------------------------------------ leadership

    @Override
    public void onBecomeLeader(final TopicPartition tp, final int leaderEpoch) {
        if (OFFSETS_TOPIC.equals(tp.topic())) {
            thread.execute(() -> load(tp, leaderEpoch));
        }
    }

    @Override
    public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int leaderEpoch) {
        if (OFFSETS_TOPIC.equals(tp.topic())) {
            thread.execute(() -> unload(tp));
        }
    }

    @Override
    public void onStopped(final TopicPartition tp, final boolean deleted) {
        if (OFFSETS_TOPIC.equals(tp.topic())) {
            thread.execute(() -> unload(tp));
        }
    }

    private void load(final TopicPartition tp, final int leaderEpoch) {
        final Shard current = shards.get(tp.partition());
        if (current != null) {
            // Still the leader, in a newer epoch (the controller bumps it when a follower goes): the groups, their
            // rebalances and parked requests carry on; nothing is read again (Kafka's runtime does the same).
            current.leaderEpoch = Math.max(current.leaderEpoch, leaderEpoch);
            return;
        }
        final GroupManager groups = new GroupManager(config, thread, new OffsetsLog(tp), ids, wallClockMs,
            tp.partition());
        final Shard shard = new Shard(leaderEpoch, groups);
        shards.put(tp.partition(), shard);
        final Optional<PartitionLog> log = replicas.log(tp);
        if (log.isEmpty()) {
            LOG.warn("{} is led here in epoch {} but its log is not: its groups cannot be loaded", tp, leaderEpoch);
            shards.remove(tp.partition());
            groups.unload();
            return;
        }
        try (GroupLoader loader = new GroupLoader(LOAD_READ_BYTES * 64)) {
            final PartitionLog partition = log.get();
            long next = partition.logStartOffset();
            final long end = partition.logEndOffset();
            ByteBuffer buffer = ByteBuffer.allocate(LOAD_READ_BYTES);
            while (next < end) {
                final LogSlice slice = partition.read(next, LOAD_READ_BYTES, end, true);
                if (slice.isEmpty()) {
                    break;
                }
                if (buffer.capacity() < slice.sizeInBytes()) {
                    buffer = ByteBuffer.allocate(slice.sizeInBytes());
                }
                buffer.clear();
                slice.readInto(buffer);
                buffer.flip();
                final long after = loader.load(buffer, groups, tp.toString());
                if (after <= next) {
                    break;
                }
                next = after;
            }
            groups.loaded();
            shard.loaded = true;
            LOG.info("{}: loaded {} records in epoch {} (to offset {})", tp, loader.records(), leaderEpoch, next);
        } catch (final IOException | RuntimeException e) {
            // Its groups stay unavailable (COORDINATOR_LOAD_IN_PROGRESS) rather than answer from a partial state.
            LOG.error("{}: loading the groups failed; they stay unavailable until the next leadership", tp, e);
        }
    }

    private void unload(final TopicPartition tp) {
        final Shard shard = shards.remove(tp.partition());
        if (shard != null) {
            LOG.info("{}: no longer led here; its groups are dropped", tp);
            shard.groups.unload();
        }
    }

    // ------------------------------------------------------------------------------------------------ requests

    /** Runs an operation on the group's shard, or answers the coordinator error. */
    private <T> CompletableFuture<T> onShard(final String groupId, final Function<GroupError, T> error,
                                             final BiConsumer<GroupManager, CompletableFuture<T>> op) {
        final CompletableFuture<T> answer = new CompletableFuture<>();
        thread.execute(() -> {
            final Shard shard = shards.get(partitionFor(groupId));
            if (shard == null) {
                answer.complete(error.apply(GroupError.NOT_COORDINATOR));
            } else if (!shard.loaded) {
                answer.complete(error.apply(GroupError.COORDINATOR_LOAD_IN_PROGRESS));
            } else {
                try {
                    op.accept(shard.groups, answer);
                } catch (final RuntimeException e) {
                    LOG.error("group {}: a request failed", groupId, e);
                    answer.complete(error.apply(GroupError.UNKNOWN_SERVER_ERROR));
                }
            }
        });
        return answer;
    }

    /**
     * A JoinGroup.
     *
     * @param request the request
     * @return the answer (parked until the rebalance completes)
     */
    @Override
    public CompletableFuture<JoinResult> join(final Join request) {
        return onShard(request.groupId(), e -> JoinResult.failed(e, request.memberId()),
            (groups, answer) -> groups.join(request, answer));
    }

    /**
     * A SyncGroup.
     *
     * @param request the request
     * @return the answer
     */
    @Override
    public CompletableFuture<SyncResult> sync(final Sync request) {
        return onShard(request.groupId(), SyncResult::failed, (groups, answer) -> groups.sync(request, answer));
    }

    /**
     * A Heartbeat.
     *
     * @param request the request
     * @return the outcome
     */
    @Override
    public CompletableFuture<GroupError> heartbeat(final Heartbeat request) {
        return onShard(request.groupId(), e -> e, (groups, answer) -> answer.complete(groups.heartbeat(request)));
    }

    /**
     * A LeaveGroup.
     *
     * @param groupId the group
     * @param leaving the members
     * @return the outcome
     */
    @Override
    public CompletableFuture<LeaveResult> leave(final String groupId, final List<Leaving> leaving) {
        return onShard(groupId, e -> new LeaveResult(e, List.of()),
            (groups, answer) -> answer.complete(groups.leave(groupId, leaving)));
    }

    /**
     * An OffsetCommit.
     *
     * @param request the request
     * @return each offset's outcome
     */
    @Override
    public CompletableFuture<List<GroupError>> commit(final OffsetCommit request) {
        return onShard(request.groupId(), e -> request.offsets().stream().map(o -> e).toList(),
            (groups, answer) -> groups.commit(request, answer));
    }

    /**
     * An OffsetFetch.
     *
     * @param groupId    the group
     * @param partitions the partitions, or null for all the group committed
     * @return the coordinator's error (NONE) and the offsets (empty on an error)
     */
    @Override
    public CompletableFuture<Map.Entry<GroupError, List<FetchedOffset>>> fetchOffsets(
        final String groupId, final List<TopicPartition> partitions) {
        return onShard(groupId, e -> Map.entry(e, List.of()),
            (groups, answer) -> answer.complete(Map.entry(GroupError.NONE, groups.fetchOffsets(groupId, partitions))));
    }

    // ------------------------------------------------------------------------------------------------ administration

    /**
     * A ListGroups: the groups of every offsets partition this broker leads (the admin client asks every broker).
     *
     * @param states the states asked for (case-insensitive), or empty for all
     * @param types  the group types asked for (case-insensitive), or empty for all
     * @return COORDINATOR_LOAD_IN_PROGRESS while any of them loads (as Kafka), else NONE and the groups
     */
    @Override
    public CompletableFuture<Map.Entry<GroupError, List<ListedGroup>>> listGroups(final Set<String> states,
                                                                                final Set<String> types) {
        final CompletableFuture<Map.Entry<GroupError, List<ListedGroup>>> answer = new CompletableFuture<>();
        thread.execute(() -> {
            final List<ListedGroup> out = new ArrayList<>();
            for (final Shard shard : shards.values()) {
                if (!shard.loaded) {
                    answer.complete(Map.entry(GroupError.COORDINATOR_LOAD_IN_PROGRESS, List.of()));
                    return;
                }
                out.addAll(shard.groups.listGroups(states, types));
            }
            out.sort(Comparator.comparing(ListedGroup::groupId));
            answer.complete(Map.entry(GroupError.NONE, out));
        });
        return answer;
    }

    /**
     * A DescribeGroups.
     *
     * @param groupIds the groups
     * @return one answer per group, in order (NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS for a group whose
     *         offsets partition is not led or not loaded here)
     */
    @Override
    public CompletableFuture<List<DescribedGroup>> describeGroups(final List<String> groupIds) {
        final CompletableFuture<List<DescribedGroup>> answer = new CompletableFuture<>();
        thread.execute(() -> {
            final List<DescribedGroup> out = new ArrayList<>(groupIds.size());
            for (final String groupId : groupIds) {
                final Shard shard = shards.get(partitionFor(groupId));
                final GroupError error = shard == null ? GroupError.NOT_COORDINATOR
                    : shard.loaded ? GroupError.NONE : GroupError.COORDINATOR_LOAD_IN_PROGRESS;
                out.add(error == GroupError.NONE ? shard.groups.describeGroups(List.of(groupId)).get(0)
                    : new DescribedGroup(groupId, error, GroupState.DEAD, "", "",
                        List.of()));
            }
            answer.complete(out);
        });
        return answer;
    }

    /**
     * A DeleteGroups.
     *
     * @param groupIds the groups (not null)
     * @return each group's outcome, in order, once the tombstones are committed
     */
    @Override
    public CompletableFuture<List<GroupError>> deleteGroups(final List<String> groupIds) {
        final Map<Integer, List<String>> byPartition = new HashMap<>();
        for (final String groupId : groupIds) {
            byPartition.computeIfAbsent(partitionFor(groupId), p -> new ArrayList<>()).add(groupId);
        }
        final Map<Integer, CompletableFuture<List<GroupError>>> parts = new HashMap<>();
        byPartition.forEach((partition, ids) -> parts.put(partition, onShard(ids.get(0),
            e -> ids.stream().map(id -> e).toList(), (groups, answer) -> groups.deleteGroups(ids, answer))));
        return CompletableFuture.allOf(parts.values().toArray(new CompletableFuture<?>[0])).thenApply(x -> {
            final Map<Integer, Iterator<GroupError>> results = new HashMap<>();
            parts.forEach((partition, f) -> results.put(partition, f.join().iterator()));
            final List<GroupError> out = new ArrayList<>(groupIds.size());
            for (final String groupId : groupIds) {
                out.add(results.get(partitionFor(groupId)).next());
            }
            return out;
        });
    }

    /**
     * An OffsetDelete.
     *
     * @param groupId    the group
     * @param partitions the partitions
     * @return the outcome
     */
    @Override
    public CompletableFuture<OffsetDeleteResult> deleteOffsets(final String groupId,
                                                               final List<TopicPartition> partitions) {
        return onShard(groupId, e -> new OffsetDeleteResult(e, List.of()),
            (groups, answer) -> groups.deleteOffsets(groupId, partitions, answer));
    }

    // ------------------------------------------------------------------------------------------------ writes

    /** A shard's records, written as acks=all batches of the offsets partition. */
    private final class OffsetsLog implements GroupLog {
        private final TopicPartition tp;

        OffsetsLog(final TopicPartition tp) {
            this.tp = tp;
        }

        @Override
        public CompletableFuture<Void> append(final List<Entry> entries) {
            int capacity = RecordBatchDescriptor.BATCH_HEADER_LENGTH;
            for (final Entry e : entries) {
                capacity += RecordBatchBuilder.maxRecordSize(e.key().length, e.value() == null ? 0 : e.value().length,
                    0);
            }
            final ByteBuffer bytes = ByteBuffer.allocate(capacity);
            final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(new UnsafeBuffer(bytes), 0, capacity);
            final long now = wallClockMs.getAsLong();
            for (final Entry e : entries) {
                builder.appendRecord(now, e.key(), e.value());
            }
            bytes.limit(builder.build());
            return replicas.appendAll(tp, bytes, appendTimeoutMs).thenApply(result -> {
                if (result.error() != ReplicaError.NONE) {
                    throw new CompletionException(new GroupWriteException(mapped(result.error()), tp + ": "
                        + result.error() + (result.message() == null ? "" : " (" + result.message() + ")")));
                }
                return null;
            });
        }
    }

    /** Kafka's mapping of an append error to what the group's requests answer. */
    static GroupError mapped(final ReplicaError error) {
        return switch (error) {
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                REQUEST_TIMED_OUT -> GroupError.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> GroupError.NOT_COORDINATOR;
            default -> GroupError.UNKNOWN_SERVER_ERROR;
        };
    }

    /** Stops the thread; requests waiting are dropped. Idempotent. */
    @Override
    public void close() {
        stop.run();
    }
}
