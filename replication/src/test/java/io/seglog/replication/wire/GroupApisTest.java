package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.group.GroupError;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
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
import io.seglog.replication.group.GroupState;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The group APIs' version rules over a coordinator that records what it is given: OffsetCommit and OffsetFetch v10
 * name topics by id (resolved in the metadata cache; an unknown id is UNKNOWN_TOPIC_ID and never reaches the
 * coordinator), and DescribeGroups v6 reports a missing group as GROUP_ID_NOT_FOUND where older versions say Dead.
 */
class GroupApisTest {
    private static final TopicId ORDERS_ID = TopicId.of(UUID.fromString("7b0c2e4a-1f3d-4c5b-9a8e-6d7f8e9a0b1c"));
    private static final Uuid ORDERS = new Uuid(ORDERS_ID.mostSignificantBits(), ORDERS_ID.leastSignificantBits());
    private static final Uuid UNKNOWN = new Uuid(1, 2);

    /** Records commits; answers NONE to each offset and the offsets it is told to for fetches. */
    private static final class RecordingCoordinator implements GroupApis.Coordinator {
        final List<OffsetCommit> commits = new ArrayList<>();
        final List<List<TopicPartition>> fetches = new ArrayList<>();
        List<FetchedOffset> fetched = List.of();

        @Override
        public int partitionFor(final String groupId) {
            return 0;
        }

        @Override
        public CompletableFuture<JoinResult> join(final Join request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<SyncResult> sync(final Sync request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<GroupError> heartbeat(final Heartbeat request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<LeaveResult> leave(final String groupId, final List<Leaving> leaving) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<List<GroupError>> commit(final OffsetCommit request) {
            commits.add(request);
            return CompletableFuture.completedFuture(request.offsets().stream().map(o -> GroupError.NONE).toList());
        }

        @Override
        public CompletableFuture<Map.Entry<GroupError, List<FetchedOffset>>> fetchOffsets(
            final String groupId, final List<TopicPartition> partitions) {
            fetches.add(partitions);
            return CompletableFuture.completedFuture(Map.entry(GroupError.NONE, fetched));
        }

        @Override
        public CompletableFuture<Map.Entry<GroupError, List<ListedGroup>>> listGroups(final Set<String> states,
                                                                                    final Set<String> types) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<List<DescribedGroup>> describeGroups(final List<String> groupIds) {
            return CompletableFuture.completedFuture(groupIds.stream().map(g -> new DescribedGroup(g,
                GroupError.GROUP_ID_NOT_FOUND, GroupState.DEAD, "", "", List.of())).toList());
        }

        @Override
        public CompletableFuture<List<GroupError>> deleteGroups(final List<String> groupIds) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<OffsetDeleteResult> deleteOffsets(final String groupId,
                                                                   final List<TopicPartition> partitions) {
            throw new UnsupportedOperationException();
        }
    }

    private final RecordingCoordinator coordinator = new RecordingCoordinator();
    private final GroupApis apis = new GroupApis("__consumer_offsets", coordinator, new ClusterView() {
        @Override
        public String clusterId() {
            return "cluster";
        }

        @Override
        public int controllerId() {
            return 1;
        }

        @Override
        public Map<Integer, LiveBroker> liveBrokers() {
            return Map.of();
        }

        @Override
        public Map<TopicPartition, PartitionStateInfo> partitions() {
            return Map.of(new TopicPartition("orders", 0), new PartitionStateInfo(1,
                LeaderAndIsr.initial(1, List.of(1)), List.of(1), false, ORDERS_ID),
                new TopicPartition("legacy", 0), new PartitionStateInfo(1, LeaderAndIsr.initial(1, List.of(1)),
                    List.of(1), false, TopicId.ZERO));
        }
    }, () -> { });

    private ApiMessage call(final ApiKeys key, final short version, final ApiMessage body) {
        final KafkaApi api = apis.apis().stream().filter(a -> a.key() == key).findFirst().orElseThrow();
        return api.handler().handle(new KafkaRequest(key, version, new RequestHeaderData().setClientId("test"), body,
            new InetSocketAddress("127.0.0.1", 5555))).toCompletableFuture().join();
    }

    @Test
    void offsetCommitV10NamesTopicsByIdAndAnUnknownIdNeverReachesTheCoordinator() {
        final OffsetCommitRequestData request = new OffsetCommitRequestData().setGroupId("g")
            .setGenerationIdOrMemberEpoch(-1).setMemberId("");
        request.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setTopicId(ORDERS)
            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                .setCommittedOffset(42))));
        request.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setTopicId(UNKNOWN)
            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(3)
                .setCommittedOffset(7))));
        final OffsetCommitResponseData resp = (OffsetCommitResponseData) call(ApiKeys.OFFSET_COMMIT, (short) 10,
            request);
        assertEquals(List.of(new CommittedOffset("orders", 0, 42, -1, "")), coordinator.commits.get(0).offsets(),
            "the id resolved to its name; the unknown one left out");
        assertEquals(ORDERS, resp.topics().get(0).topicId());
        assertEquals(Errors.NONE.code(), resp.topics().get(0).partitions().get(0).errorCode());
        assertEquals(UNKNOWN, resp.topics().get(1).topicId());
        assertEquals(3, resp.topics().get(1).partitions().get(0).partitionIndex());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), resp.topics().get(1).partitions().get(0).errorCode());

        final OffsetCommitRequestData byName = new OffsetCommitRequestData().setGroupId("g")
            .setGenerationIdOrMemberEpoch(-1).setMemberId("");
        byName.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders")
            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(1)
                .setCommittedOffset(5))));
        final OffsetCommitResponseData v9 = (OffsetCommitResponseData) call(ApiKeys.OFFSET_COMMIT, (short) 9, byName);
        assertEquals("orders", v9.topics().get(0).name());
        assertEquals("orders", coordinator.commits.get(1).offsets().get(0).topic());
    }

    @Test
    void offsetFetchV10AnswersByIdAndLeavesOutTopicsWithoutOne() {
        coordinator.fetched = List.of(new FetchedOffset("legacy", 0, 3, -1, ""),
            new FetchedOffset("orders", 0, 42, 5, "m"));
        final OffsetFetchRequestData all = new OffsetFetchRequestData();
        all.groups().add(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g").setTopics(null));
        final OffsetFetchResponseData every = (OffsetFetchResponseData) call(ApiKeys.OFFSET_FETCH, (short) 10, all);
        assertNull(coordinator.fetches.get(0), "every partition the group committed");
        final List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = every.groups().get(0).topics();
        assertEquals(1, topics.size(), "the topic without an id cannot be named by a client using ids: " + topics);
        assertEquals(ORDERS, topics.get(0).topicId());
        assertEquals(42, topics.get(0).partitions().get(0).committedOffset());

        coordinator.fetched = List.of(new FetchedOffset("orders", 2, 9, -1, ""));
        final OffsetFetchRequestData some = new OffsetFetchRequestData();
        some.groups().add(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g").setTopics(List.of(
            new OffsetFetchRequestData.OffsetFetchRequestTopics().setTopicId(ORDERS).setPartitionIndexes(List.of(2)),
            new OffsetFetchRequestData.OffsetFetchRequestTopics().setTopicId(UNKNOWN)
                .setPartitionIndexes(List.of(0, 1)))));
        final OffsetFetchResponseData named = (OffsetFetchResponseData) call(ApiKeys.OFFSET_FETCH, (short) 10, some);
        assertEquals(List.of(new TopicPartition("orders", 2)), coordinator.fetches.get(1));
        final List<OffsetFetchResponseData.OffsetFetchResponseTopics> answered = named.groups().get(0).topics();
        assertEquals(ORDERS, answered.get(0).topicId());
        assertEquals(9, answered.get(0).partitions().get(0).committedOffset());
        assertEquals(UNKNOWN, answered.get(1).topicId());
        assertEquals(2, answered.get(1).partitions().size());
        answered.get(1).partitions().forEach(p -> assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), p.errorCode()));
    }

    @Test
    void describeGroupsV6ReportsAMissingGroupAsNotFoundAndOlderVersionsAsDead() {
        final DescribeGroupsRequestData request = new DescribeGroupsRequestData().setGroups(List.of("gone"));
        final DescribeGroupsResponseData v6 = (DescribeGroupsResponseData) call(ApiKeys.DESCRIBE_GROUPS, (short) 6,
            request);
        assertEquals(Errors.GROUP_ID_NOT_FOUND.code(), v6.groups().get(0).errorCode());
        assertEquals("Group gone not found.", v6.groups().get(0).errorMessage());
        assertEquals("Dead", v6.groups().get(0).groupState());
        final DescribeGroupsResponseData v5 = (DescribeGroupsResponseData) call(ApiKeys.DESCRIBE_GROUPS, (short) 5,
            request);
        assertEquals(Errors.NONE.code(), v5.groups().get(0).errorCode());
        assertEquals("Dead", v5.groups().get(0).groupState());
    }
}
