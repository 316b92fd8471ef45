package io.seglog.replication.group;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.OffsetKey;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.DescribedGroup;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.Leaving;
import io.seglog.replication.group.GroupRequests.ListedGroup;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.OffsetDeleteResult;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The administration of groups as Kafka's group coordinator does it: ListGroups and DescribeGroups, DeleteGroups of
 * Empty groups, OffsetDelete of topics the group no longer consumes, and the expiry of offsets
 * ({@code offsets.retention.minutes}); every deletion a tombstone in the log, visible once written. Subscriptions
 * are kafka-clients' own consumer-protocol bytes.
 */
class GroupAdministrationTest {
    private static final String GROUP = "orders-readers";
    private static final String STANDALONE = "standalone-reader";
    /** Kafka's defaults but a one-minute retention checked every five seconds, so a member can keep up heartbeats. */
    private static final GroupConfig CONFIG = new GroupConfig(6_000, 1_800_000, 3_000, Integer.MAX_VALUE, 300_000,
        4_096, 60_000, 5_000);
    private static final long RETENTION_MS = CONFIG.offsetsRetentionMs();
    private static final long WALL_CLOCK_START_MS = 1_764_633_600_000L;

    private ManualGroupScheduler scheduler;
    private RecordingGroupLog log;
    private GroupManager groups;

    @BeforeEach
    void setUp() {
        scheduler = new ManualGroupScheduler();
        log = new RecordingGroupLog();
        groups = new GroupManager(CONFIG, scheduler, log, new SplittableRandom(1), this::wallClock);
        groups.loaded(); // starts the expiry timer, as after a load
    }

    private long wallClock() {
        return WALL_CLOCK_START_MS + scheduler.nowMs();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static byte[] subscription(final String... topics) {
        final ByteBuffer b = ConsumerProtocol.serializeSubscription(new Subscription(List.of(topics)));
        final byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** A consumer joining in two steps with the range protocol; returns its answer (parked). */
    private CompletableFuture<JoinResult> join(final String type, final byte[] metadata) {
        final CompletableFuture<JoinResult> first = new CompletableFuture<>();
        final List<Protocol> protocols = List.of(new Protocol("range", metadata));
        groups.join(new Join(GROUP, "", null, "client-1", "/127.0.0.1", type, protocols, 10_000, 30_000, true, true),
            first);
        scheduler.runPending();
        final CompletableFuture<JoinResult> second = new CompletableFuture<>();
        groups.join(new Join(GROUP, first.getNow(null).memberId(), null, "client-1", "/127.0.0.1", type, protocols,
            10_000, 30_000, true, true), second);
        scheduler.runPending();
        return second;
    }

    /** A one-member group of this protocol type, Stable, its member assigned "assigned"; returns the member id. */
    private String stable(final String type, final byte[] metadata) {
        final CompletableFuture<JoinResult> joined = join(type, metadata);
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        final String member = joined.getNow(null).memberId();
        groups.sync(new Sync(GROUP, 1, member, null, type, "range", Map.of(member, "assigned".getBytes(UTF_8))),
            new CompletableFuture<>());
        scheduler.runPending();
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        return member;
    }

    private List<GroupError> commit(final String group, final int generation, final String member,
                                    final CommittedOffset... offsets) {
        final CompletableFuture<List<GroupError>> answer = new CompletableFuture<>();
        groups.commit(new OffsetCommit(group, generation, member, null, true, List.of(offsets)), answer);
        scheduler.runPending();
        return answer.getNow(null);
    }

    private static CommittedOffset at(final String topic, final int partition, final long offset) {
        return new CommittedOffset(topic, partition, offset, -1, "");
    }

    private long committed(final String group, final String topic, final int partition) {
        return groups.fetchOffsets(group, List.of(new TopicPartition(topic, partition))).get(0).offset();
    }

    /** Moves the clock on while the member heartbeats (its session is 10 s). */
    private void keepAlive(final String member, final long ms) {
        for (long left = ms; left > 0; left -= Math.min(left, 4_000)) {
            scheduler.advance(Math.min(left, 4_000));
            assertEquals(GroupError.NONE, groups.heartbeat(new Heartbeat(GROUP, 1, member, null)));
        }
    }

    private void leave(final String member) {
        groups.leave(GROUP, List.of(new Leaving(member, null)));
        scheduler.runPending();
        assertEquals(GroupState.EMPTY, groups.state(GROUP));
    }

    private List<GroupError> delete(final String... ids) {
        final CompletableFuture<List<GroupError>> answer = new CompletableFuture<>();
        groups.deleteGroups(List.of(ids), answer);
        scheduler.runPending();
        return answer.getNow(null);
    }

    /** Starts a commit whose write the test completes; returns its write. */
    private CompletableFuture<Void> commitInFlight(final String group, final CommittedOffset... offsets) {
        groups.commit(new OffsetCommit(group, -1, "", null, true, List.of(offsets)), new CompletableFuture<>());
        return log.lastWrite();
    }

    /** What memory shows of a group equals what a new coordinator reads back from the log. */
    private void assertMatchesReload(final String group) {
        final GroupManager reloaded = new GroupManager(CONFIG, new ManualGroupScheduler(), new RecordingGroupLog(),
            new SplittableRandom(2), this::wallClock);
        log.replayInto(reloaded);
        assertEquals(reloaded.state(group) == null, groups.state(group) == null,
            "the group exists here as it does after a reload");
        assertEquals(reloaded.fetchOffsets(group, null), groups.fetchOffsets(group, null),
            "the offsets shown are those a reload reads back");
    }

    // ------------------------------------------------------------------------------------------------ tests

    @Test
    void listGroupsNamesEveryGroupHereFilteredByStateAndType() {
        stable("consumer", subscription("orders"));
        assertEquals(List.of(GroupError.NONE), commit(STANDALONE, -1, "", at("orders", 0, 5)));
        final ListedGroup consumers = new ListedGroup(GROUP, "consumer", GroupState.STABLE);
        final ListedGroup standalone = new ListedGroup(STANDALONE, "", GroupState.EMPTY);
        assertEquals(List.of(consumers, standalone), groups.listGroups(Set.of(), Set.of()), "by group id");
        assertEquals(List.of(consumers), groups.listGroups(Set.of("stable"), Set.of()), "states: case-insensitive");
        assertEquals(List.of(standalone), groups.listGroups(Set.of(" EMPTY "), Set.of()));
        assertEquals(List.of(consumers, standalone), groups.listGroups(Set.of(), Set.of("Classic")));
        assertEquals(List.of(), groups.listGroups(Set.of(), Set.of("consumer")), "no KIP-848 groups here");
    }

    @Test
    void describeGroupsShowsAStableGroupsSubscriptionsAndNoneInAnyOtherState() {
        final byte[] sub = subscription("orders");
        final String member = stable("consumer", sub);
        final DescribedGroup stable = groups.describeGroups(List.of(GROUP)).get(0);
        assertEquals(GroupError.NONE, stable.error());
        assertEquals(GroupState.STABLE, stable.state());
        assertEquals("consumer", stable.protocolType());
        assertEquals("range", stable.protocolName());
        assertEquals(1, stable.members().size());
        assertEquals(member, stable.members().get(0).memberId());
        assertEquals("client-1", stable.members().get(0).clientId());
        assertEquals("/127.0.0.1", stable.members().get(0).clientHost());
        assertArrayEquals(sub, stable.members().get(0).metadata());
        assertArrayEquals("assigned".getBytes(UTF_8), stable.members().get(0).assignment());

        join("consumer", sub); // a second member: the group prepares a rebalance
        final DescribedGroup rebalancing = groups.describeGroups(List.of(GROUP)).get(0);
        assertEquals(GroupState.PREPARING_REBALANCE, rebalancing.state());
        assertEquals("", rebalancing.protocolName(), "Kafka names the protocol only when Stable");
        assertEquals(0, rebalancing.members().get(0).metadata().length);
        assertArrayEquals("assigned".getBytes(UTF_8), rebalancing.members().get(0).assignment(),
            "the assignment it still holds");

        final DescribedGroup missing = groups.describeGroups(List.of("nobody")).get(0);
        assertEquals(GroupError.GROUP_ID_NOT_FOUND, missing.error());
        assertEquals(GroupState.DEAD, missing.state());
        assertTrue(missing.members().isEmpty());
    }

    @Test
    void deleteGroupsTombstonesAnEmptyGroupAndItsOffsetsAndRefusesALiveOne() {
        final String member = stable("consumer", subscription("orders"));
        assertEquals(List.of(GroupError.NONE, GroupError.NONE), commit(GROUP, 1, member, at("orders", 0, 42),
            at("orders", 1, 7)));
        assertEquals(List.of(GroupError.NON_EMPTY_GROUP, GroupError.GROUP_ID_NOT_FOUND, GroupError.INVALID_GROUP_ID),
            delete(GROUP, "nobody", ""));
        leave(member);

        log.auto = false;
        final int before = log.keys.size();
        final CompletableFuture<List<GroupError>> answer = new CompletableFuture<>();
        groups.deleteGroups(List.of(GROUP), answer);
        scheduler.runPending();
        assertFalse(answer.isDone(), "answered once the tombstones are written");
        assertEquals(List.of(new OffsetKey(GROUP, "orders", 0), new OffsetKey(GROUP, "orders", 1),
            new GroupKey(GROUP)), log.keysFrom(before), "the offsets' tombstones, then the group's");
        for (int i = before; i < log.values.size(); i++) {
            assertNull(log.values.get(i), "a tombstone");
        }
        assertNull(groups.state(GROUP), "the group is gone at once: a join now starts a new group");
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE), answer.getNow(null));
        assertEquals(-1, committed(GROUP, "orders", 0));
        assertEquals(List.of(), groups.listGroups(Set.of(), Set.of()));

        final GroupManager reloaded = new GroupManager(CONFIG, new ManualGroupScheduler(), new RecordingGroupLog(),
            new SplittableRandom(2), this::wallClock);
        log.replayInto(reloaded);
        assertNull(reloaded.state(GROUP), "the deletion holds for the next coordinator");
        assertEquals(List.of(), reloaded.fetchOffsets(GROUP, null));
    }

    @Test
    void aFailedDeletionPutsTheGroupAndItsOffsetsBack() {
        assertEquals(List.of(GroupError.NONE), commit(STANDALONE, -1, "", at("orders", 0, 9)));
        log.auto = false;
        final CompletableFuture<List<GroupError>> answer = new CompletableFuture<>();
        groups.deleteGroups(List.of(STANDALONE), answer);
        log.lastWrite().completeExceptionally(new GroupWriteException(GroupError.NOT_COORDINATOR, "moved"));
        scheduler.runPending();
        assertEquals(List.of(GroupError.NOT_COORDINATOR), answer.getNow(null));
        assertEquals(GroupState.EMPTY, groups.state(STANDALONE));
        assertEquals(9, committed(STANDALONE, "orders", 0));
    }

    @Test
    void offsetDeleteKeepsTheTopicsAMemberConsumesAndTombstonesTheRest() {
        final String member = stable("consumer", subscription("orders"));
        commit(GROUP, 1, member, at("orders", 0, 42), at("payments", 0, 3));
        log.auto = false;
        final int before = log.keys.size();
        final CompletableFuture<OffsetDeleteResult> answer = new CompletableFuture<>();
        groups.deleteOffsets(GROUP, List.of(new TopicPartition("orders", 0), new TopicPartition("payments", 0),
            new TopicPartition("payments", 1)), answer);
        scheduler.runPending();
        assertEquals(List.of(new OffsetKey(GROUP, "payments", 0)), log.keysFrom(before),
            "only the committed offset of a topic nobody consumes");
        assertEquals(3, committed(GROUP, "payments", 0), "visible until the tombstone is written");
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertEquals(new OffsetDeleteResult(GroupError.NONE, List.of(GroupError.GROUP_SUBSCRIBED_TO_TOPIC,
            GroupError.NONE, GroupError.NONE)), answer.getNow(null));
        assertEquals(-1, committed(GROUP, "payments", 0));
        assertEquals(42, committed(GROUP, "orders", 0));

        final CompletableFuture<OffsetDeleteResult> missing = new CompletableFuture<>();
        groups.deleteOffsets("nobody", List.of(new TopicPartition("orders", 0)), missing);
        assertEquals(GroupError.GROUP_ID_NOT_FOUND, missing.getNow(null).error());
    }

    @Test
    void offsetDeleteRefusesALiveGroupOfAnotherProtocolAndTreatsUnreadableSubscriptionsAsConsumingAll() {
        final String member = stable("connect", "worker-config".getBytes(UTF_8));
        commit(GROUP, 1, member, at("configs", 0, 1));
        final CompletableFuture<OffsetDeleteResult> connect = new CompletableFuture<>();
        groups.deleteOffsets(GROUP, List.of(new TopicPartition("configs", 0)), connect);
        assertEquals(GroupError.NON_EMPTY_GROUP, connect.getNow(null).error());

        setUp();
        final String consumer = stable("consumer", "not a subscription".getBytes(UTF_8));
        commit(GROUP, 1, consumer, at("orders", 0, 1));
        final CompletableFuture<OffsetDeleteResult> unreadable = new CompletableFuture<>();
        groups.deleteOffsets(GROUP, List.of(new TopicPartition("orders", 0)), unreadable);
        assertEquals(List.of(GroupError.GROUP_SUBSCRIBED_TO_TOPIC), unreadable.getNow(null).partitions(),
            "as Kafka: a consumer group whose topics cannot be read keeps every offset");
    }

    @Test
    void aStandaloneConsumersOffsetsExpireARetentionAfterTheirCommitAndTheGroupGoes() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        scheduler.advance(RETENTION_MS - 1);
        assertEquals(5, committed(STANDALONE, "orders", 0), "not yet: checked every interval, kept until due");
        scheduler.advance(CONFIG.offsetsRetentionCheckIntervalMs());
        assertEquals(-1, committed(STANDALONE, "orders", 0), "expired by the periodic check");
        assertNull(groups.state(STANDALONE), "an Empty group left without offsets is deleted");
        final GroupManager reloaded = new GroupManager(CONFIG, new ManualGroupScheduler(), new RecordingGroupLog(),
            new SplittableRandom(2), this::wallClock);
        log.replayInto(reloaded);
        assertNull(reloaded.state(STANDALONE));
        assertEquals(List.of(), reloaded.fetchOffsets(STANDALONE, null), "the tombstones hold after a reload");
    }

    @Test
    void aConsumerGroupKeepsTheOffsetsOfWhatItConsumesAndTheRestCountFromWhenItBecameEmpty() {
        final String member = stable("consumer", subscription("orders"));
        commit(GROUP, 1, member, at("orders", 0, 42), at("payments", 0, 3));
        keepAlive(member, RETENTION_MS + CONFIG.offsetsRetentionCheckIntervalMs());
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        assertEquals(-1, committed(GROUP, "payments", 0), "Stable: a topic it no longer consumes expires");
        assertEquals(42, committed(GROUP, "orders", 0), "a topic it consumes never does while it is Stable");

        leave(member);
        scheduler.advance(RETENTION_MS - 1);
        groups.expireOffsets();
        scheduler.runPending();
        assertEquals(42, committed(GROUP, "orders", 0), "Empty: the retention counts from when it became Empty");
        assertEquals(GroupState.EMPTY, groups.state(GROUP));
        scheduler.advance(1);
        groups.expireOffsets();
        scheduler.runPending();
        assertEquals(-1, committed(GROUP, "orders", 0));
        assertNull(groups.state(GROUP));
    }

    @Test
    void aGroupWithACommitInFlightIsLeftForTheNextRun() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        scheduler.advance(RETENTION_MS);
        log.auto = false;
        final int before = log.keys.size();
        final CompletableFuture<List<GroupError>> pending = new CompletableFuture<>();
        groups.commit(new OffsetCommit(STANDALONE, -1, "", null, true, List.of(at("orders", 1, 8))), pending);
        groups.expireOffsets();
        assertEquals(1, log.keys.size() - before, "only the commit was written: no tombstone behind it");
        log.lastWrite().complete(null);
        scheduler.runPending();
        log.auto = true;
        groups.expireOffsets();
        scheduler.runPending();
        assertEquals(-1, committed(STANDALONE, "orders", 0), "expired on the next run");
        assertEquals(8, committed(STANDALONE, "orders", 1), "the fresh commit stays");
        assertEquals(GroupState.EMPTY, groups.state(STANDALONE), "and with it the group");
    }

    @Test
    void aGroupKnownOnlyByItsOffsetsIsLoadedAsAnEmptyGroupThatCanBeListedAndDeleted() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        final ManualGroupScheduler next = new ManualGroupScheduler();
        final GroupManager reloaded = new GroupManager(CONFIG, next, log, new SplittableRandom(2), this::wallClock);
        log.replayInto(reloaded);
        reloaded.loaded();
        assertEquals(List.of(new ListedGroup(STANDALONE, "", GroupState.EMPTY)),
            reloaded.listGroups(Set.of(), Set.of()));
        final CompletableFuture<List<GroupError>> deleted = new CompletableFuture<>();
        reloaded.deleteGroups(List.of(STANDALONE), deleted);
        next.runPending();
        assertEquals(List.of(GroupError.NONE), deleted.getNow(null));
        assertEquals(List.of(), reloaded.fetchOffsets(STANDALONE, null));
    }
    @Test
    void aCommitWhoseWriteCompletesAfterALaterOnesDoesNotReplaceIt() {
        log.auto = false;
        final CompletableFuture<List<GroupError>> first = new CompletableFuture<>();
        groups.commit(new OffsetCommit(STANDALONE, -1, "", null, true, List.of(at("orders", 0, 10))), first);
        final CompletableFuture<Void> firstWrite = log.lastWrite();
        final CompletableFuture<List<GroupError>> second = new CompletableFuture<>();
        groups.commit(new OffsetCommit(STANDALONE, -1, "", null, true, List.of(at("orders", 0, 20))), second);
        log.lastWrite().complete(null);
        scheduler.runPending();
        firstWrite.complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE), first.getNow(null));
        assertEquals(List.of(GroupError.NONE), second.getNow(null));
        assertEquals(20, committed(STANDALONE, "orders", 0), "the later commit stays, as the log replays it");
    }

    // Offset writes complete in any order (acks=all writes wait on different followers); memory must end as the log
    // replays, whichever order commits and deletions complete in.

    @Test
    void aCommitWrittenBeforeADeletionButCompletedAfterItDoesNotBringTheOffsetBack() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        log.auto = false;
        final CompletableFuture<Void> commitWrite = commitInFlight(STANDALONE, at("orders", 0, 9));
        final CompletableFuture<List<GroupError>> deleted = new CompletableFuture<>();
        groups.deleteGroups(List.of(STANDALONE), deleted);
        log.lastWrite().complete(null);
        scheduler.runPending();
        commitWrite.complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE), deleted.getNow(null));
        assertEquals(-1, committed(STANDALONE, "orders", 0), "the tombstone follows the commit in the log");
        assertMatchesReload(STANDALONE);
    }

    @Test
    void aCommitWrittenAfterAnOffsetDeletionButCompletedFirstStays() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        log.auto = false;
        final CompletableFuture<OffsetDeleteResult> deleted = new CompletableFuture<>();
        groups.deleteOffsets(STANDALONE, List.of(new TopicPartition("orders", 0)), deleted);
        final CompletableFuture<Void> deletion = log.lastWrite();
        commitInFlight(STANDALONE, at("orders", 0, 9)).complete(null);
        scheduler.runPending();
        deletion.complete(null);
        scheduler.runPending();
        assertEquals(GroupError.NONE, deleted.getNow(null).error());
        assertEquals(9, committed(STANDALONE, "orders", 0), "the commit follows the tombstone in the log");
        assertMatchesReload(STANDALONE);
    }

    @Test
    void deleteGroupsAlsoTombstonesThePartitionsOfCommitsInFlight() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        log.auto = false;
        final CompletableFuture<Void> commitWrite = commitInFlight(STANDALONE, at("orders", 1, 7));
        final int before = log.keys.size();
        final CompletableFuture<List<GroupError>> deleted = new CompletableFuture<>();
        groups.deleteGroups(List.of(STANDALONE), deleted);
        assertEquals(List.of(new OffsetKey(STANDALONE, "orders", 0), new OffsetKey(STANDALONE, "orders", 1),
            new GroupKey(STANDALONE)), log.keysFrom(before), "the commit in flight is tombstoned too");
        commitWrite.complete(null);
        scheduler.runPending();
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE), deleted.getNow(null));
        assertEquals(List.of(), groups.fetchOffsets(STANDALONE, null));
        assertNull(groups.state(STANDALONE));
        assertMatchesReload(STANDALONE);
    }

    @Test
    void offsetDeleteTombstonesAPartitionWhoseCommitIsInFlight() {
        commit(STANDALONE, -1, "", at("orders", 0, 5));
        log.auto = false;
        final CompletableFuture<Void> commitWrite = commitInFlight(STANDALONE, at("orders", 1, 7));
        final int before = log.keys.size();
        final CompletableFuture<OffsetDeleteResult> deleted = new CompletableFuture<>();
        groups.deleteOffsets(STANDALONE, List.of(new TopicPartition("orders", 1)), deleted);
        assertEquals(List.of(new OffsetKey(STANDALONE, "orders", 1)), log.keysFrom(before));
        final CompletableFuture<Void> deletion = log.lastWrite();
        deletion.complete(null);
        scheduler.runPending();
        commitWrite.complete(null);
        scheduler.runPending();
        assertEquals(new OffsetDeleteResult(GroupError.NONE, List.of(GroupError.NONE)), deleted.getNow(null));
        assertEquals(-1, committed(STANDALONE, "orders", 1));
        assertEquals(5, committed(STANDALONE, "orders", 0));
        assertMatchesReload(STANDALONE);
    }

    @Test
    void aFailedDeletionLosesNoOffsetWhenACommitCameInMeanwhile() {
        commit(STANDALONE, -1, "", at("orders", 0, 5), at("orders", 1, 6));
        log.auto = false;
        final CompletableFuture<List<GroupError>> deleted = new CompletableFuture<>();
        groups.deleteGroups(List.of(STANDALONE), deleted);
        final CompletableFuture<Void> deletion = log.lastWrite();
        commitInFlight(STANDALONE, at("orders", 0, 9)).complete(null);
        scheduler.runPending();
        deletion.completeExceptionally(new GroupWriteException(GroupError.NOT_COORDINATOR, "moved"));
        scheduler.runPending();
        assertEquals(List.of(GroupError.NOT_COORDINATOR), deleted.getNow(null));
        assertEquals(9, committed(STANDALONE, "orders", 0));
        assertEquals(6, committed(STANDALONE, "orders", 1), "the partition nobody committed again keeps its offset");
        assertMatchesReload(STANDALONE);
    }

    @Test
    void anExplicitExpireTimeDoesNotExpireAnOffsetTheStableGroupConsumes() {
        stable("consumer", subscription("orders"));
        final long now = wallClock();
        // An old client's commit (record version 1) whose expire time has passed.
        log.append(List.of(new GroupLog.Entry(GroupRecords.encode(new OffsetKey(GROUP, "orders", 0)),
            GroupRecords.encode(new GroupRecords.OffsetValue(42, -1, "", now - 2, now - 1, null)))));
        final ManualGroupScheduler next = new ManualGroupScheduler();
        final GroupManager reloaded = new GroupManager(CONFIG, next, new RecordingGroupLog(), new SplittableRandom(2),
            this::wallClock);
        log.replayInto(reloaded);
        assertEquals(GroupState.STABLE, reloaded.state(GROUP));
        reloaded.expireOffsets();
        next.runPending();
        assertEquals(42, reloaded.fetchOffsets(GROUP, List.of(new TopicPartition("orders", 0))).get(0).offset(),
            "as Kafka: a Stable group's consumed topic never expires, whatever the record says");
    }

    @Test
    void anExpiredGroupThatAMemberJoinedAndLeftDuringTheTombstoneWriteStays() {
        final String member = stable("consumer", subscription("orders"));
        commit(GROUP, 1, member, at("orders", 0, 42));
        leave(member);
        scheduler.advance(RETENTION_MS);
        log.auto = false;
        final int before = log.keys.size();
        groups.expireOffsets();
        assertEquals(List.of(new OffsetKey(GROUP, "orders", 0), new GroupKey(GROUP)), log.keysFrom(before));
        final CompletableFuture<Void> expiry = log.lastWrite();
        log.auto = true;
        final CompletableFuture<JoinResult> joined = join("consumer", subscription("orders"));
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        leave(joined.getNow(null).memberId());
        expiry.complete(null);
        scheduler.runPending();
        assertEquals(GroupState.EMPTY, groups.state(GROUP), "its metadata follows the tombstone in the log");
        assertEquals(-1, committed(GROUP, "orders", 0));
        assertMatchesReload(GROUP);
    }
}
