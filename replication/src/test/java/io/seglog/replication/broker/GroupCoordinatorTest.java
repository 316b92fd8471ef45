package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.group.GroupConfig;
import io.seglog.replication.group.GroupError;
import io.seglog.replication.group.GroupRecords;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.replication.replica.IsrWriter;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's group coordinator over a real replica layer and log: a group formed and its offsets committed land in
 * the {@code __consumer_offsets} partition as Kafka's records; a coordinator that stops leading answers
 * NOT_COORDINATOR; one that leads again reads the log back to the same group and offsets.
 */
class GroupCoordinatorTest {
    private static final int BROKER = 1;
    private static final int PARTITIONS = 4;
    private static final String GROUP = "audit";
    private static final long WAIT_S = 30;

    @TempDir
    Path dir;

    private LogManager logs;
    private ReplicaManager replicas;
    private GroupCoordinator coordinator;
    private TopicPartition offsetsPartition;
    private final AtomicReference<GroupCoordinator> listener = new AtomicReference<>();

    @BeforeEach
    void start() {
        logs = LogManager.open(LogManagerConfig.builder().logDirs(dir).build());
        final IsrWriter isr = (tp, proposal) -> CompletableFuture.completedFuture(
            new IsrWriter.Written(proposal.partitionEpoch() + 1));
        final AtomicReference<ReplicaManager> ref = new AtomicReference<>();
        coordinator = newCoordinator(ref);
        listener.set(coordinator);
        replicas = new ReplicaManager(BROKER, logs, ReplicaManagerConfig.defaults(), System::currentTimeMillis,
            () -> 1L, isr, id -> true, (id, host, port) -> {
                throw new AssertionError("broker " + BROKER + " follows nothing");
            }, Thread::new, new io.seglog.replication.replica.LeadershipListener() {
                @Override
                public void onBecomeLeader(final TopicPartition tp, final int epoch) {
                    listener.get().onBecomeLeader(tp, epoch);
                }

                @Override
                public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int epoch) {
                    listener.get().onBecomeFollower(tp, leaderId, epoch);
                }
            });
        ref.set(replicas);
        offsetsPartition = new TopicPartition(GroupCoordinator.OFFSETS_TOPIC, coordinator.partitionFor(GROUP));
    }

    private GroupCoordinator newCoordinator(final AtomicReference<ReplicaManager> ref) {
        return new GroupCoordinator(GroupConfig.defaults(),
            PARTITIONS, 5_000, new GroupCoordinator.Replicas() {
                @Override
                public CompletableFuture<io.seglog.replication.replica.AppendResult> appendAll(
                    final TopicPartition tp, final ByteBuffer batch, final long timeoutMs) {
                    return ref.get().produce((short) -1, timeoutMs, Map.of(tp, batch)).thenApply(r -> r.get(tp));
                }

                @Override
                public java.util.Optional<PartitionLog> log(final TopicPartition tp) {
                    return ref.get().partition(tp).map(Partition::log);
                }
            }, Thread::new, () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), System::currentTimeMillis,
            new SplittableRandom(9), "group-coordinator-test");
    }

    @AfterEach
    void stop() {
        if (listener.get() != null) {
            listener.get().close();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (logs != null) {
            logs.close();
        }
    }

    private void lead(final int epoch) {
        replicas.onLeaderAndIsr(Map.of(offsetsPartition, new PartitionStateInfo(1, new LeaderAndIsr(BROKER, epoch,
            List.of(BROKER), epoch), List.of(BROKER), true, TopicId.ZERO)), Map.of());
    }

    private void follow(final int epoch) {
        replicas.onLeaderAndIsr(Map.of(offsetsPartition, new PartitionStateInfo(1, new LeaderAndIsr(2, epoch,
            List.of(2), epoch), List.of(BROKER, 2), false, TopicId.ZERO)), Map.of());
    }

    private static <T> T await(final CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_S, TimeUnit.SECONDS);
    }

    /** Asks until the coordinator has loaded (COORDINATOR_LOAD_IN_PROGRESS until then), with a deadline. */
    private JoinResult joinWhenLoaded(final Join join) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (true) {
            final JoinResult r = await(coordinator.join(join));
            if (r.error() != GroupError.COORDINATOR_LOAD_IN_PROGRESS || System.nanoTime() > deadline) {
                return r;
            }
            Thread.onSpinWait();
        }
    }

    private static Join join(final String memberId) {
        return new Join(GROUP, memberId, null, "app", "/127.0.0.1", "consumer",
            List.of(new Protocol("range", "sub:orders".getBytes(StandardCharsets.UTF_8))), 10_000, 20_000, false,
            true);
    }

    @Test
    void aGroupAndItsOffsetsAreWrittenAsKafkasRecordsAndReadBackByTheNextLeader() throws Exception {
        assertEquals(GroupError.NOT_COORDINATOR, await(coordinator.join(join(""))).error(), "nothing led yet");
        lead(1);
        final JoinResult joined = joinWhenLoaded(join(""));
        assertEquals(GroupError.NONE, joined.error());
        final String member = joined.memberId();
        final byte[] assignment = "orders-0".getBytes(StandardCharsets.UTF_8);
        final SyncResult synced = await(coordinator.sync(new Sync(GROUP, 1, member, null, null, null,
            Map.of(member, assignment))));
        assertArrayEquals(assignment, synced.assignment());
        assertEquals(List.of(GroupError.NONE), await(coordinator.commit(new OffsetCommit(GROUP, 1, member, null, true,
            List.of(new CommittedOffset("orders", 0, 1234, 2, "done"))))));

        // The log holds the group's metadata and the commit, in Kafka's schemas, committed (below the HW).
        final PartitionLog log = replicas.partition(offsetsPartition).orElseThrow().log();
        final List<GroupRecords.Key> keys = keysIn(log);
        assertTrue(keys.contains(new GroupRecords.GroupKey(GROUP)), keys.toString());
        assertTrue(keys.contains(new GroupRecords.OffsetKey(GROUP, "orders", 0)), keys.toString());
        assertEquals(log.logEndOffset(), log.highWatermark(), "acks=all: answered once committed");

        // Leadership moves away: requests are told to find the new coordinator.
        follow(2);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        GroupError error;
        do {
            error = await(coordinator.heartbeat(new Heartbeat(GROUP, 1, member, null)));
        } while (error == GroupError.NONE && System.nanoTime() < deadline);
        assertEquals(GroupError.NOT_COORDINATOR, error);

        // A new coordinator (as after a restart) leads again and loads the partition.
        coordinator.close();
        coordinator = newCoordinator(new AtomicReference<>(replicas));
        listener.set(coordinator);
        lead(3);
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        Map.Entry<GroupError, List<FetchedOffset>> offsets;
        do {
            offsets = await(coordinator.fetchOffsets(GROUP, null));
        } while (offsets.getKey() == GroupError.COORDINATOR_LOAD_IN_PROGRESS && System.nanoTime() < waitUntil);
        assertEquals(GroupError.NONE, offsets.getKey());
        assertEquals(List.of(new FetchedOffset("orders", 0, 1234, 2, "done")), offsets.getValue());
        assertEquals(GroupError.NONE, await(coordinator.heartbeat(new Heartbeat(GROUP, 1, member, null))),
            "the member carries on with the loaded group, same generation");
        final SyncResult again = await(coordinator.sync(new Sync(GROUP, 1, member, null, null, null, Map.of())));
        assertArrayEquals(assignment, again.assignment(), "its assignment was loaded");
    }

    @Test
    void aNewLeaderEpochOfTheSameLeaderKeepsTheGroupsAndTheirParkedRequests() throws Exception {
        lead(1);
        final JoinResult first = joinWhenLoaded(join(""));
        final String a = first.memberId();
        await(coordinator.sync(new Sync(GROUP, 1, a, null, null, null, Map.of(a, new byte[] {1}))));
        // A second member's join is parked: the rebalance waits for a to rejoin.
        final CompletableFuture<JoinResult> parked = coordinator.join(join(""));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (await(coordinator.heartbeat(new Heartbeat(GROUP, 1, a, null))) != GroupError.REBALANCE_IN_PROGRESS
            && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // The controller bumps the epoch (a follower went away); this broker still leads.
        lead(2);
        final JoinResult rejoined = await(coordinator.join(join(a)));
        assertEquals(GroupError.NONE, rejoined.error(), "the group was kept, not reloaded from its last record");
        assertEquals(2, rejoined.generationId());
        assertEquals(GroupError.NONE, await(parked).error(), "the parked join was answered");
        assertEquals(2, await(parked).generationId());
    }

    @Test
    void aLogThatCannotBeLoadedLeavesItsGroupsUnavailableRatherThanHalfLoaded() throws Exception {
        lead(1);
        assertEquals(GroupError.NONE, joinWhenLoaded(join("")).error());
        // A record without a key lands in the offsets partition (written by something other than a coordinator).
        final ByteBuffer bad = ByteBuffer.allocate(256);
        final io.seglog.storage.format.RecordBatchBuilder builder = new io.seglog.storage.format.RecordBatchBuilder()
            .wrap(new UnsafeBuffer(bad), 0, 256);
        builder.appendRecord(System.currentTimeMillis(), null, new byte[] {1, 2, 3});
        bad.limit(builder.build());
        assertEquals(io.seglog.replication.replica.ReplicaError.NONE, await(replicas.produce((short) -1, 5_000,
            Map.of(offsetsPartition, bad))).get(offsetsPartition).error());
        follow(2);
        coordinator.close();
        coordinator = newCoordinator(new AtomicReference<>(replicas));
        listener.set(coordinator);
        lead(3);
        // The load ran on the coordinator's thread before this request (its tasks run in order) and failed.
        assertEquals(GroupError.COORDINATOR_LOAD_IN_PROGRESS, await(coordinator.heartbeat(new Heartbeat(GROUP, 1,
            "any", null))), "the groups stay unavailable; none is answered from a partial state");
    }

    private static List<GroupRecords.Key> keysIn(final PartitionLog log) throws Exception {
        final LogSlice slice = log.read(log.logStartOffset(), 1 << 20, Long.MAX_VALUE, true);
        final ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
        slice.readInto(bytes);
        bytes.flip();
        final List<GroupRecords.Key> keys = new ArrayList<>();
        final UnsafeBuffer view = new UnsafeBuffer(bytes);
        final RecordBatch batch = new RecordBatch();
        final RecordView record = new RecordView();
        try (BatchRecordReader reader = new BatchRecordReader(1 << 20)) {
            for (int p = 0; p < bytes.limit(); p += batch.sizeInBytes()) {
                batch.wrap(view, p);
                reader.open(batch);
                while (reader.next(record)) {
                    keys.add(GroupRecords.decodeKey(ByteBuffer.wrap(record.keyBytes())));
                }
            }
        }
        return keys;
    }
}
