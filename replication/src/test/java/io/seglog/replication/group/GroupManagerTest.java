package io.seglog.replication.group;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.group.GroupRecords.GroupValue;
import io.seglog.replication.group.GroupRecords.MemberValue;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.JoinedMember;
import io.seglog.replication.group.GroupRequests.LeaveResult;
import io.seglog.replication.group.GroupRequests.Leaving;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The classic group protocol's rules, on a clock the test moves and a log whose writes the test completes: the
 * two-step join, the initial rebalance delay, rebalances when members come, go, expire or miss the rebalance, the
 * leader's assignment written before anyone gets it, static members replaced without a rebalance, and the errors
 * Kafka answers for stale generations, unknown and fenced members.
 */
class GroupManagerTest {
    private static final String GROUP = "orders-readers";
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    private static final GroupConfig CONFIG = GroupConfig.defaults();
    private static final long WALL_CLOCK_START_MS = 1_764_633_600_000L;

    private ManualGroupScheduler scheduler;
    private RecordingGroupLog log;
    private GroupManager groups;

    /** The wall clock the records are stamped with: the epoch-ms time at the scheduler's current instant. */
    private long wallClock() {
        return WALL_CLOCK_START_MS + scheduler.nowMs();
    }

    @BeforeEach
    void setUp() {
        scheduler = new ManualGroupScheduler();
        log = new RecordingGroupLog();
        groups = new GroupManager(CONFIG, scheduler, log, new SplittableRandom(1), this::wallClock);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static List<Protocol> range(final String topics) {
        return List.of(new Protocol("range", ("sub:" + topics).getBytes(UTF_8)));
    }

    private static Join join(final String memberId, final String instanceId, final List<Protocol> protocols) {
        return new Join(GROUP, memberId, instanceId, "client", "/127.0.0.1", "consumer", protocols, SESSION_MS,
            REBALANCE_MS, true, true);
    }

    private CompletableFuture<JoinResult> send(final Join request) {
        final CompletableFuture<JoinResult> answer = new CompletableFuture<>();
        groups.join(request, answer);
        scheduler.runPending();
        return answer;
    }

    /** The two-step join of a new dynamic member: MEMBER_ID_REQUIRED, then the join with that id (parked). */
    private CompletableFuture<JoinResult> newMember(final List<Protocol> protocols) {
        final JoinResult first = send(join("", null, protocols)).getNow(null);
        assertEquals(GroupError.MEMBER_ID_REQUIRED, first.error());
        assertFalse(first.memberId().isEmpty(), "the coordinator names the new member's id");
        return send(join(first.memberId(), null, protocols));
    }

    private CompletableFuture<SyncResult> sync(final String memberId, final int generation,
                                               final Map<String, byte[]> assignment) {
        final CompletableFuture<SyncResult> answer = new CompletableFuture<>();
        groups.sync(new Sync(GROUP, generation, memberId, null, "consumer", "range", assignment), answer);
        scheduler.runPending();
        return answer;
    }

    private GroupError heartbeat(final String memberId, final int generation) {
        return groups.heartbeat(new Heartbeat(GROUP, generation, memberId, null));
    }

    /** One member through its first rebalance: joined, leader, synced; returns its id. */
    private String stableWithOneMember() {
        final CompletableFuture<JoinResult> joined = newMember(range("orders"));
        assertFalse(joined.isDone(), "the first rebalance waits group.initial.rebalance.delay.ms for more members");
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        final JoinResult result = joined.getNow(null);
        assertEquals(GroupError.NONE, result.error());
        assertEquals(1, result.generationId());
        final SyncResult synced = sync(result.memberId(), 1, Map.of(result.memberId(), bytes("a-all"))).getNow(null);
        assertEquals(GroupError.NONE, synced.error());
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        return result.memberId();
    }

    /**
     * A stable one-member group, then a second member joining and the first rejoining: generation 2, both answered,
     * neither synced yet.
     *
     * @return {first member, second member}
     */
    private String[] joinedGenerationTwo() {
        final String a = stableWithOneMember();
        final CompletableFuture<JoinResult> bJoin = newMember(range("orders"));
        send(join(a, null, range("orders")));
        assertEquals(2, bJoin.getNow(null).generationId());
        return new String[] {a, bJoin.getNow(null).memberId()};
    }

    /** A static member ("instance-1", joined in one step) through the first rebalance, owning orders-0. */
    private String stableStaticMember() {
        final CompletableFuture<JoinResult> joined = send(join("", "instance-1", range("orders")));
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        final String member = joined.getNow(null).memberId();
        sync(member, 1, Map.of(member, bytes("orders-0")));
        return member;
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(UTF_8);
    }

    // ------------------------------------------------------------------------------------------------ tests

    @Test
    void aNewMemberJoinsInTwoStepsLeadsTheFirstGenerationAndGetsItsAssignmentOnceWritten() {
        final CompletableFuture<JoinResult> joined = newMember(range("orders"));
        assertEquals(GroupState.PREPARING_REBALANCE, groups.state(GROUP));
        scheduler.advance(CONFIG.initialRebalanceDelayMs() - 1);
        assertFalse(joined.isDone(), "still within the initial delay");
        scheduler.advance(1);
        final JoinResult result = joined.getNow(null);
        assertEquals(GroupError.NONE, result.error());
        assertEquals(1, result.generationId());
        assertEquals("range", result.protocolName());
        assertEquals("consumer", result.protocolType());
        assertEquals(result.memberId(), result.leader(), "the only member leads");
        assertEquals(1, result.members().size(), "the leader gets the members' subscriptions");
        assertArrayEquals(bytes("sub:orders"), result.members().get(0).metadata());
        assertEquals(GroupState.COMPLETING_REBALANCE, groups.state(GROUP));

        log.auto = false;
        final CompletableFuture<SyncResult> synced = sync(result.memberId(), 1,
            Map.of(result.memberId(), bytes("orders-0,orders-1")));
        assertFalse(synced.isDone(), "the assignment is given out only once the group's record is written");
        final GroupValue written = log.last();
        assertEquals(1, written.generation());
        assertEquals("range", written.protocol());
        assertEquals(result.memberId(), written.leader());
        final MemberValue stored = written.members().get(0);
        assertArrayEquals(bytes("sub:orders"), stored.subscription());
        assertArrayEquals(bytes("orders-0,orders-1"), stored.assignment());
        assertEquals(SESSION_MS, stored.sessionTimeout());
        assertEquals(REBALANCE_MS, stored.rebalanceTimeout());
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertArrayEquals(bytes("orders-0,orders-1"), synced.getNow(null).assignment());
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        assertEquals(GroupError.NONE, heartbeat(result.memberId(), 1));
    }

    @Test
    void theInitialDelayIsExtendedWhileMembersKeepComingWithinTheRebalanceTimeout() {
        final CompletableFuture<JoinResult> first = newMember(range("orders"));
        scheduler.advance(2_000);
        final CompletableFuture<JoinResult> second = newMember(range("orders"));
        scheduler.advance(1_000); // the first delay ends: a member came meanwhile, so another delay
        assertFalse(first.isDone());
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        assertEquals(1, first.getNow(null).generationId(), "both in generation 1");
        assertEquals(1, second.getNow(null).generationId(), "both in generation 1");
        assertEquals(2, groups.members(GROUP).size());
        final JoinResult leader = first.getNow(null).leader().equals(first.getNow(null).memberId()) ? first.getNow(null) : second.getNow(null);
        assertEquals(2, leader.members().size(), "the leader's answer lists both members");
        final JoinResult follower = leader == first.getNow(null) ? second.getNow(null) : first.getNow(null);
        assertTrue(follower.members().isEmpty(), "a follower's answer lists nobody");
    }

    @Test
    void aMemberJoiningAStableGroupStartsARebalanceTheOthersLearnOfByHeartbeat() {
        final String a = stableWithOneMember();
        final CompletableFuture<JoinResult> bJoin = newMember(range("orders"));
        assertEquals(GroupState.PREPARING_REBALANCE, groups.state(GROUP));
        assertFalse(bJoin.isDone(), "the rebalance waits for the old member to rejoin");
        assertEquals(GroupError.REBALANCE_IN_PROGRESS, heartbeat(a, 1), "a learns of the rebalance");
        final CompletableFuture<JoinResult> aJoin = send(join(a, null, range("orders")));
        assertTrue(aJoin.isDone() && bJoin.isDone(), "everyone rejoined: the join phase ends at once");
        assertEquals(2, aJoin.getNow(null).generationId());
        assertEquals(a, aJoin.getNow(null).leader(), "the leader keeps its place when it rejoins");
        assertEquals(2, aJoin.getNow(null).members().size());
        final String b = bJoin.getNow(null).memberId();
        final CompletableFuture<SyncResult> bSync = sync(b, 2, Map.of());
        assertFalse(bSync.isDone(), "a follower's SyncGroup waits for the leader's");
        final SyncResult aSync = sync(a, 2, Map.of(a, bytes("orders-0"), b, bytes("orders-1"))).getNow(null);
        assertArrayEquals(bytes("orders-0"), aSync.assignment());
        assertArrayEquals(bytes("orders-1"), bSync.getNow(null).assignment());
        assertEquals(GroupError.ILLEGAL_GENERATION, heartbeat(a, 1), "generation 1 is over");
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedAfterItsSessionTimeoutAndTheGroupRebalances() {
        final String[] ab = joinedGenerationTwo();
        final String a = ab[0];
        final String b = ab[1];
        sync(b, 2, Map.of());
        sync(a, 2, Map.of(a, bytes("x"), b, bytes("y")));
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        // a keeps heartbeating, b goes silent.
        for (int t = 0; t < SESSION_MS; t += 3_000) {
            scheduler.advance(3_000);
            heartbeat(a, 2);
        }
        assertEquals(List.of(a), groups.members(GROUP), "b expired after " + SESSION_MS + " ms of silence");
        assertEquals(GroupState.PREPARING_REBALANCE, groups.state(GROUP));
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, heartbeat(b, 2));
        final JoinResult rejoined = send(join(a, null, range("orders"))).getNow(null);
        assertEquals(3, rejoined.generationId());
        assertEquals(1, rejoined.members().size());
    }

    @Test
    void aMemberThatDoesNotRejoinWithinTheRebalanceTimeoutIsDropped() {
        final String a = stableWithOneMember();
        // a heartbeats (so its session holds) but never rejoins.
        final CompletableFuture<JoinResult> bJoin = newMember(range("orders"));
        int t = 0;
        for (; t + 3_000 < REBALANCE_MS; t += 3_000) {
            scheduler.advance(3_000);
            assertEquals(GroupError.REBALANCE_IN_PROGRESS, heartbeat(a, 1));
        }
        assertFalse(bJoin.isDone(), "the rebalance waits its timeout for a");
        scheduler.advance(REBALANCE_MS - t);
        final JoinResult b = bJoin.getNow(null);
        assertEquals(2, b.generationId());
        assertEquals(b.memberId(), b.leader(), "the only member that rejoined leads");
        assertEquals(List.of(b.memberId()), groups.members(GROUP));
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, heartbeat(a, 1));
    }

    @Test
    void aMemberThatSendsNoSyncGroupWithinTheRebalanceTimeoutIsDropped() {
        final String[] ab = joinedGenerationTwo();
        final String a = ab[0];
        final String b = ab[1];
        sync(a, 2, Map.of(a, bytes("x"), b, bytes("y")));
        assertEquals(GroupState.STABLE, groups.state(GROUP), "the leader's SyncGroup completes the generation");
        for (int t = 0; t < REBALANCE_MS; t += 3_000) {
            assertEquals(List.of(a, b), groups.members(GROUP), "at " + t + " ms");
            scheduler.advance(3_000);
            heartbeat(a, 2);
            heartbeat(b, 2); // b stays alive too, but never asks for its assignment
        }
        assertEquals(List.of(a), groups.members(GROUP), "b never asked for its assignment");
        assertEquals(GroupState.PREPARING_REBALANCE, groups.state(GROUP));
    }

    @Test
    void leavingRemovesTheMemberAndRebalancesTheRest() {
        final String[] ab = joinedGenerationTwo();
        final String a = ab[0];
        final String b = ab[1];
        sync(b, 2, Map.of());
        sync(a, 2, Map.of());
        final LeaveResult left = groups.leave(GROUP, List.of(new Leaving(a, null), new Leaving("nobody", null)));
        assertEquals(GroupError.NONE, left.error());
        assertEquals(List.of(GroupError.NONE, GroupError.UNKNOWN_MEMBER_ID), left.members());
        assertEquals(List.of(b), groups.members(GROUP));
        assertEquals(b, groups.leader(GROUP), "the leader left: the next member leads");
        final JoinResult rejoined = send(join(b, null, range("orders"))).getNow(null);
        assertEquals(3, rejoined.generationId());
        groups.leave(GROUP, List.of(new Leaving(b, null)));
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        assertEquals(GroupState.EMPTY, groups.state(GROUP), "the last member left");
        assertEquals(4, groups.generation(GROUP));
        assertEquals(0, log.last().members().size(), "the empty generation is written too");
    }

    @Test
    void aStaticMemberRestartingWithTheSameSubscriptionTakesItsPlaceWithoutARebalance() {
        // Static members join in one step (no MEMBER_ID_REQUIRED).
        final CompletableFuture<JoinResult> joined = send(join("", "instance-1", range("orders")));
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        final JoinResult result = joined.getNow(null);
        assertEquals(GroupError.NONE, result.error());
        final String old = result.memberId();
        assertTrue(old.startsWith("instance-1-"), old);
        sync(old, result.generationId(), Map.of(old, bytes("orders-0")));
        final int generation = groups.generation(GROUP);
        // The process restarts: the same instance id, no member id.
        final JoinResult again = send(join("", "instance-1", range("orders"))).getNow(null);
        assertEquals(GroupError.NONE, again.error());
        assertNotEquals(old, again.memberId(), "a new member id");
        assertEquals(generation, again.generationId(), "no rebalance: the same generation");
        assertTrue(again.skipAssignment(), "the static leader rejoining is told not to assign again");
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        assertEquals(GroupError.FENCED_INSTANCE_ID, groups.heartbeat(new Heartbeat(GROUP, generation, old,
            "instance-1")), "the old incarnation is fenced");
        final SyncResult synced = sync(again.memberId(), generation, Map.of()).getNow(null);
        assertArrayEquals(bytes("orders-0"), synced.assignment(), "it keeps its assignment");
    }

    @Test
    void aStaticMemberRestartingWithOtherMetadataButTheSameProtocolStillTakesItsPlaceWithoutARebalance() {
        final String old = stableStaticMember();
        // A restarted consumer's subscription differs (it owns nothing yet) but keeps the group's protocol: Kafka
        // rebalances only when the group's protocol would change.
        final JoinResult again = send(join("", "instance-1", range("orders;owned=none"))).getNow(null);
        assertEquals(GroupError.NONE, again.error());
        assertEquals(1, again.generationId(), "no rebalance");
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        assertArrayEquals(bytes("sub:orders;owned=none"), log.last().members().get(0).subscription(),
            "the group is stored with the new metadata");
        // A restart offering no protocol the group uses is refused before anything is replaced.
        final JoinResult third = send(join("", "instance-1", List.of(new Protocol("roundrobin",
            bytes("sub:orders"))))).getNow(null);
        assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, third.error(),
            "a one-member group accepts no member without a protocol in common with it");
    }

    @Test
    void aStaticReplacementWhoseWriteFailsGoesBackToTheOldMemberId() {
        final String old = stableStaticMember();
        log.auto = false;
        final CompletableFuture<JoinResult> again = send(join("", "instance-1", range("orders")));
        log.lastWrite().completeExceptionally(new GroupWriteException(GroupError.NOT_COORDINATOR, "moved"));
        scheduler.runPending();
        assertEquals(GroupError.NOT_COORDINATOR, again.getNow(null).error());
        assertEquals("", again.getNow(null).memberId(), "no id handed out: the client joins again");
        assertEquals(List.of(old), groups.members(GROUP), "the stored id is still the member's");
        assertEquals(GroupError.NONE, heartbeat(old, 1), "the old incarnation carries on");
        scheduler.advance(SESSION_MS - 1);
        assertEquals(GroupError.NONE, heartbeat(old, 1), "its session timer is its own again");
    }

    @Test
    void requestsAreCheckedAsKafkaChecksThem() {
        final Join noGroup = new Join("", "", null, "c", "/h", "consumer", range("t"), SESSION_MS, REBALANCE_MS,
            true, true);
        assertEquals(GroupError.INVALID_GROUP_ID, send(noGroup).getNow(null).error());
        final Join shortSession = new Join(GROUP, "", null, "c", "/h", "consumer", range("t"),
            CONFIG.minSessionTimeoutMs() - 1, REBALANCE_MS, true, true);
        assertEquals(GroupError.INVALID_SESSION_TIMEOUT, send(shortSession).getNow(null).error());
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, send(join("ghost", null, range("t"))).getNow(null).error(),
            "a member id for a group that does not exist");
        final String a = stableWithOneMember();
        assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, send(join("", null,
            List.of(new Protocol("roundrobin", bytes("x"))))).getNow(null).error(), "no protocol in common");
        final Join otherType = new Join(GROUP, "", null, "c", "/h", "connect", range("t"), SESSION_MS, REBALANCE_MS,
            true, true);
        assertEquals(GroupError.INCONSISTENT_GROUP_PROTOCOL, send(otherType).getNow(null).error());
        assertEquals(GroupError.ILLEGAL_GENERATION, sync(a, 7, Map.of()).getNow(null).error());
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, sync("ghost", 1, Map.of()).getNow(null).error());
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, heartbeat("ghost", 1));
        assertEquals(GroupError.UNKNOWN_MEMBER_ID, groups.heartbeat(new Heartbeat("no-such-group", 1, a, null)));
        assertEquals(new LeaveResult(GroupError.UNKNOWN_MEMBER_ID, List.of()),
            groups.leave("no-such-group", List.of(new Leaving(a, null))));
    }

    @Test
    void aFailedWriteOfTheAssignmentAnswersEveryMemberAndRebalances() {
        final String[] ab = joinedGenerationTwo();
        final String a = ab[0];
        final String b = ab[1];
        log.auto = false;
        final CompletableFuture<SyncResult> bSync = sync(b, 2, Map.of());
        final CompletableFuture<SyncResult> aSync = sync(a, 2, Map.of(a, bytes("x"), b, bytes("y")));
        log.lastWrite().completeExceptionally(
            new GroupWriteException(GroupError.NOT_COORDINATOR, "the offsets partition moved"));
        scheduler.runPending();
        assertEquals(GroupError.NOT_COORDINATOR, aSync.getNow(null).error());
        assertEquals(GroupError.NOT_COORDINATOR, bSync.getNow(null).error());
        assertEquals(0, aSync.getNow(null).assignment().length, "no assignment goes out unwritten");
        assertEquals(GroupState.PREPARING_REBALANCE, groups.state(GROUP));
    }

    @Test
    void groupMaxSizeRefusesTheMemberBeyondIt() {
        groups = new GroupManager(new GroupConfig(6_000, 1_800_000, 0, 1, 300_000, 4_096,
            CONFIG.offsetsRetentionMs(), CONFIG.offsetsRetentionCheckIntervalMs()), scheduler, log,
            new SplittableRandom(2), this::wallClock);
        final CompletableFuture<JoinResult> a = newMember(range("orders"));
        scheduler.runPending();
        assertEquals(GroupError.NONE, a.getNow(null).error());
        // As Kafka: a full group refuses a new member before giving it an id.
        assertEquals(GroupError.GROUP_MAX_SIZE_REACHED, send(join("", null, range("orders"))).getNow(null).error());
        assertEquals(List.of(a.getNow(null).memberId()), groups.members(GROUP));
    }

    @Test
    void thePendingMemberThatNeverComesBackExpiresAndTheRebalanceGoesOnWithoutIt() {
        final String a = stableWithOneMember();
        final JoinResult pending = send(join("", null, range("orders"))).getNow(null);
        assertEquals(GroupError.MEMBER_ID_REQUIRED, pending.error());
        // Its place is held: a's rejoin (the leader asking for a rebalance) waits for it.
        final CompletableFuture<JoinResult> aJoin = send(join(a, null, range("orders")));
        assertFalse(aJoin.isDone(), "a pending member holds the join phase open");
        scheduler.advance(SESSION_MS);
        assertEquals(GroupError.NONE, aJoin.getNow(null).error(), "it expired after its session timeout");
        assertEquals(List.of(a), groups.members(GROUP));
    }

    @Test
    void theVoteChoosesTheProtocolMostMembersPreferAndATieGoesToTheFirstMember() {
        final List<Protocol> rangeFirst = List.of(new Protocol("range", bytes("r")),
            new Protocol("cooperative-sticky", bytes("c")));
        final List<Protocol> stickyFirst = List.of(new Protocol("cooperative-sticky", bytes("c")),
            new Protocol("range", bytes("r")));
        final CompletableFuture<JoinResult> a = newMember(rangeFirst);
        final CompletableFuture<JoinResult> b = newMember(stickyFirst);
        scheduler.advance(2 * CONFIG.initialRebalanceDelayMs());
        assertEquals("range", a.getNow(null).protocolName(), "one vote each: the first member's preference");
        final JoinResult leader = a.getNow(null);
        final Map<String, byte[]> metadata = new HashMap<>();
        for (final JoinedMember m : leader.members()) {
            metadata.put(m.memberId(), m.metadata());
        }
        assertArrayEquals(bytes("r"), metadata.get(b.getNow(null).memberId()), "the chosen protocol's metadata");
    }

    // ------------------------------------------------------------------------------------------------ offsets

    private CompletableFuture<List<GroupError>> commit(final int generation, final String memberId,
                                                       final boolean v9, final CommittedOffset... offsets) {
        final CompletableFuture<List<GroupError>> answer = new CompletableFuture<>();
        groups.commit(new OffsetCommit(GROUP, generation, memberId, null, v9, List.of(offsets)), answer);
        scheduler.runPending();
        return answer;
    }

    private static CommittedOffset at(final int partition, final long offset) {
        return new CommittedOffset("orders", partition, offset, 3, "m" + offset);
    }

    private long committed(final int partition) {
        return groups.fetchOffsets(GROUP, List.of(new TopicPartition("orders", partition))).get(0).offset();
    }

    @Test
    void aMemberCommitsInItsGenerationAndTheOffsetShowsOnceWritten() {
        final String a = stableWithOneMember();
        log.auto = false;
        final CompletableFuture<List<GroupError>> answer = commit(1, a, true, at(0, 42), at(1, 7));
        assertFalse(answer.isDone(), "answered once written");
        assertEquals(-1, committed(0), "not visible before it is committed");
        final ByteBuffer key = ByteBuffer.wrap(log.keys.get(log.keys.size() - 2));
        assertEquals(new GroupRecords.OffsetKey(GROUP, "orders", 0), GroupRecords.decodeKey(key));
        final GroupRecords.OffsetValue value = GroupRecords.decodeOffsetValue(ByteBuffer.wrap(
            log.values.get(log.values.size() - 2)));
        assertEquals(42, value.offset());
        assertEquals(3, value.leaderEpoch());
        assertEquals("m42", value.metadata());
        assertEquals(wallClock(), value.commitTimestamp(), "the wall clock, not the timers' clock");
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE, GroupError.NONE), answer.getNow(null));
        assertEquals(42, committed(0));
        assertEquals(7, committed(1));
        assertEquals(List.of(new FetchedOffset("orders", 0, 42, 3, "m42"), new FetchedOffset("orders", 1, 7, 3, "m7")),
            groups.fetchOffsets(GROUP, null), "every committed partition, in order");
    }

    @Test
    void commitsAreRefusedAsKafkaRefusesThem() {
        assertEquals(List.of(GroupError.GROUP_ID_NOT_FOUND), commit(1, "m", true, at(0, 1)).getNow(null),
            "v9+: a generation for a group that does not exist");
        assertEquals(List.of(GroupError.ILLEGAL_GENERATION), commit(1, "m", false, at(0, 1)).getNow(null),
            "before v9");
        final String a = stableWithOneMember();
        assertEquals(List.of(GroupError.ILLEGAL_GENERATION), commit(0, a, true, at(0, 1)).getNow(null), "stale");
        assertEquals(List.of(GroupError.UNKNOWN_MEMBER_ID), commit(1, "zombie", true, at(0, 1)).getNow(null));
        assertEquals(List.of(GroupError.UNKNOWN_MEMBER_ID), commit(-1, "", true, at(0, 1)).getNow(null),
            "no member id while the group has members");
        final CommittedOffset huge = new CommittedOffset("orders", 2, 5, -1, "x".repeat(4_097));
        assertEquals(List.of(GroupError.NONE, GroupError.OFFSET_METADATA_TOO_LARGE),
            commit(1, a, true, at(1, 9), huge).getNow(null), "each partition answered on its own");
        assertEquals(9, committed(1));
        assertEquals(-1, committed(2));
        // A new member joins: while the group completes its rebalance, commits wait for the new generation.
        newMember(range("orders"));
        send(join(a, null, range("orders")));
        assertEquals(GroupState.COMPLETING_REBALANCE, groups.state(GROUP));
        assertEquals(List.of(GroupError.REBALANCE_IN_PROGRESS), commit(2, a, true, at(0, 1)).getNow(null));
        log.auto = false;
        sync(a, 2, Map.of());
        log.lastWrite().complete(null);
        scheduler.runPending();
        final CompletableFuture<List<GroupError>> failing = commit(2, a, true, at(0, 11));
        log.lastWrite().completeExceptionally(new GroupWriteException(
            GroupError.NOT_COORDINATOR, "moved"));
        scheduler.runPending();
        assertEquals(List.of(GroupError.NOT_COORDINATOR), failing.getNow(null));
        assertEquals(-1, committed(0), "a failed write commits nothing");
    }

    @Test
    void aConsumerOutsideGroupManagementCommitsToAGroupOfItsOwn() {
        assertEquals(List.of(GroupError.NONE), commit(-1, "", true, at(0, 100)).getNow(null));
        assertEquals(GroupState.EMPTY, groups.state(GROUP));
        assertEquals(100, committed(0));
    }

    @Test
    void aNewCoordinatorLoadsTheGroupAndItsOffsetsFromTheRecordsAndTakesOverTheSessions() {
        final String a = stableWithOneMember();
        commit(1, a, true, at(0, 42), at(1, 7));
        commit(1, a, true, at(0, 50));
        final ManualGroupScheduler next = new ManualGroupScheduler();
        final GroupManager loaded = new GroupManager(CONFIG, next, new RecordingGroupLog(), new SplittableRandom(3),
            this::wallClock);
        for (int i = 0; i < log.keys.size(); i++) {
            loaded.replay(ByteBuffer.wrap(log.keys.get(i)), log.values.get(i) == null ? null
                : ByteBuffer.wrap(log.values.get(i)));
        }
        loaded.replay(ByteBuffer.wrap(GroupRecords.encode(new GroupRecords.OffsetKey(GROUP, "orders", 1))), null);
        loaded.loaded();
        assertEquals(GroupState.STABLE, loaded.state(GROUP));
        assertEquals(1, loaded.generation(GROUP));
        assertEquals(List.of(a), loaded.members(GROUP));
        assertEquals(a, loaded.leader(GROUP));
        assertEquals(List.of(new FetchedOffset("orders", 0, 50, 3, "m50")), loaded.fetchOffsets(GROUP, null),
            "the last commit wins; the tombstone removed partition 1");
        final CompletableFuture<SyncResult> synced = new CompletableFuture<>();
        loaded.sync(new Sync(GROUP, 1, a, null, "consumer", "range", Map.of()), synced);
        assertArrayEquals(bytes("a-all"), synced.getNow(null).assignment(), "the assignment came back too");
        assertEquals(GroupError.NONE, loaded.heartbeat(new Heartbeat(GROUP, 1, a, null)));
        next.advance(SESSION_MS);
        assertEquals(List.of(), loaded.members(GROUP), "silent for a session timeout after the load: expired");
    }

    // ------------------------------------------------------------------------------------------------ review cases

    @Test
    void unloadingAnswersWhatIsParkedAndLateCompletionsTouchNothingOfTheNextManager() {
        final String[] ab = joinedGenerationTwo();
        final String a = ab[0];
        final String b = ab[1];
        log.auto = false;
        final CompletableFuture<SyncResult> bSync = sync(b, 2, Map.of());
        final CompletableFuture<SyncResult> aSync = sync(a, 2, Map.of(a, bytes("x"), b, bytes("y")));
        final CompletableFuture<Void> pendingWrite = log.lastWrite();
        groups.unload();
        assertEquals(GroupError.NOT_COORDINATOR, aSync.getNow(null).error());
        assertEquals(GroupError.NOT_COORDINATOR, bSync.getNow(null).error());
        assertEquals(null, groups.state(GROUP));
        // The partition is led here again: a new manager on the same thread; the old write completes late.
        final GroupManager next = new GroupManager(CONFIG, scheduler, log, new SplittableRandom(5), this::wallClock);
        log.auto = true;
        final CompletableFuture<JoinResult> joined = new CompletableFuture<>();
        next.join(join("", null, range("orders")), joined);
        final String id = joined.getNow(null).memberId();
        final CompletableFuture<JoinResult> parked = new CompletableFuture<>();
        next.join(join(id, null, range("orders")), parked);
        pendingWrite.completeExceptionally(new GroupWriteException(GroupError.NOT_COORDINATOR, "moved"));
        scheduler.runPending();
        assertFalse(parked.isDone());
        scheduler.advance(CONFIG.initialRebalanceDelayMs());
        assertEquals(GroupError.NONE, parked.getNow(null).error(), "the old manager's late write did not disturb"
            + " the new one's rebalance timer");
        assertEquals(1, parked.getNow(null).generationId());
    }

    @Test
    void aCommitWhoseWriteEndsAfterTheUnloadIsStillAnsweredWithTheWritesOutcome() {
        // Found by the cluster simulation: the answer was dropped with the unloaded manager, and the connection it
        // came on (whose requests are served in order) waited behind it until the client gave up.
        assertEquals(List.of(GroupError.NONE), commit(-1, "", false, at(2, 30)).getNow(null));
        log.auto = false;
        final CompletableFuture<List<GroupError>> committed = commit(-1, "", false, at(0, 10));
        final CompletableFuture<Void> committedWrite = log.lastWrite();
        final CompletableFuture<List<GroupError>> failed = commit(-1, "", false, at(1, 20));
        final CompletableFuture<Void> failedWrite = log.lastWrite();
        final CompletableFuture<GroupRequests.OffsetDeleteResult> deleted = new CompletableFuture<>();
        groups.deleteOffsets(GROUP, List.of(new TopicPartition("orders", 2)), deleted);
        scheduler.runPending();
        final CompletableFuture<Void> deleteWrite = log.lastWrite();
        groups.unload();
        assertFalse(committed.isDone() || failed.isDone() || deleted.isDone(), "writes in flight wait for their end");
        committedWrite.complete(null);
        failedWrite.completeExceptionally(new GroupWriteException(GroupError.NOT_COORDINATOR, "moved"));
        deleteWrite.complete(null);
        scheduler.runPending();
        assertEquals(List.of(GroupError.NONE), committed.getNow(null), "the write was committed: the offset is");
        assertEquals(List.of(GroupError.NOT_COORDINATOR), failed.getNow(null), "the write's error");
        assertEquals(GroupError.NONE, deleted.getNow(null).error(), "the tombstone was committed");
        assertEquals(null, groups.state(GROUP), "the unloaded manager keeps nothing");
    }

    @Test
    void aStaticMemberRestartingTwiceWhileItsFirstWriteIsPendingGetsTheIdItNowHas() {
        final String first = stableStaticMember();
        log.auto = false;
        final CompletableFuture<JoinResult> second = send(join("", "instance-1", range("orders")));
        final CompletableFuture<Void> secondWrite = log.lastWrite();
        final CompletableFuture<JoinResult> third = send(join("", "instance-1", range("orders")));
        assertEquals(GroupError.FENCED_INSTANCE_ID, second.getNow(null).error(), "the second incarnation is fenced");
        secondWrite.complete(null);
        scheduler.runPending();
        assertFalse(third.isDone(), "the second write's completion does not answer the third join");
        log.lastWrite().complete(null);
        scheduler.runPending();
        assertEquals(GroupError.NONE, third.getNow(null).error());
        assertEquals(groups.members(GROUP), List.of(third.getNow(null).memberId()), "the id it was given is its id");
    }

    @Test
    void aStaticLeaderRestartingBeforeJoinGroupV9IsToldTheOldLeaderSoItDoesNotAssign() {
        final String old = stableStaticMember();
        final Join v8 = new Join(GROUP, "", "instance-1", "client", "/127.0.0.1", "consumer", range("orders"),
            SESSION_MS, REBALANCE_MS, true, false);
        final JoinResult again = send(v8).getNow(null);
        assertEquals(GroupError.NONE, again.error());
        assertEquals(old, again.leader(), "the old leader id, as Kafka answers before v9");
        assertNotEquals(old, again.memberId());
        assertTrue(again.members().isEmpty());
    }
}
