package io.seglog.replication.wire;

import io.seglog.replication.group.GroupError;
import io.seglog.replication.group.GroupRequests.CommittedOffset;
import io.seglog.replication.group.GroupRequests.DescribedGroup;
import io.seglog.replication.group.GroupRequests.DescribedMember;
import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.Heartbeat;
import io.seglog.replication.group.GroupRequests.Join;
import io.seglog.replication.group.GroupRequests.JoinResult;
import io.seglog.replication.group.GroupRequests.JoinedMember;
import io.seglog.replication.group.GroupRequests.LeaveResult;
import io.seglog.replication.group.GroupRequests.Leaving;
import io.seglog.replication.group.GroupRequests.ListedGroup;
import io.seglog.replication.group.GroupRequests.OffsetCommit;
import io.seglog.replication.group.GroupRequests.OffsetDeleteResult;
import io.seglog.replication.group.GroupRequests.Protocol;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic consumer-group APIs (what kafka-clients' consumers use by default): FindCoordinator 0-6, JoinGroup
 * 0-9, SyncGroup 0-5, Heartbeat 0-4, LeaveGroup 0-5, OffsetCommit 2-10, OffsetFetch 1-10 (v10 of the last two
 * name topics by id, resolved in this broker's metadata cache; an id it does not know answers UNKNOWN_TOPIC_ID), and the administration of groups: ListGroups 0-5, DescribeGroups 0-6,
 * DeleteGroups 0-3, OffsetDelete 0. Requests are mapped to the coordinator's own types and answered when it
 * answers (a JoinGroup waits for the rebalance). A group's coordinator is the leader of its {@code __consumer_offsets}
 * partition in this broker's metadata cache; a missing offsets topic is asked for and the request answered
 * COORDINATOR_NOT_AVAILABLE (retriable) meanwhile. Transaction coordinators are not served: FindCoordinator for a
 * transactional id answers INVALID_REQUEST, which kafka-clients reports as a fatal error naming the key.
 */
public final class GroupApis {
    /** FindCoordinator versions served. */
    static final short FIND_COORDINATOR_MAX = 6;
    /** JoinGroup versions served. */
    static final short JOIN_GROUP_MAX = 9;
    /** SyncGroup versions served. */
    static final short SYNC_GROUP_MAX = 5;
    /** Heartbeat versions served. */
    static final short HEARTBEAT_MAX = 4;
    /** LeaveGroup versions served. */
    static final short LEAVE_GROUP_MAX = 5;
    /** OffsetCommit versions served (v10 names topics by id). */
    static final short OFFSET_COMMIT_MIN = 2;
    static final short OFFSET_COMMIT_MAX = 10;
    /** OffsetFetch versions served (v10 names topics by id). */
    static final short OFFSET_FETCH_MIN = 1;
    static final short OFFSET_FETCH_MAX = 10;
    /** ListGroups versions served. */
    static final short LIST_GROUPS_MAX = 5;
    /** DescribeGroups versions served. */
    static final short DESCRIBE_GROUPS_MAX = 6;
    /** DeleteGroups versions served. */
    static final short DELETE_GROUPS_MAX = 3;

    private static final byte GROUP_KEY = 0;

    /** The coordinator the APIs hand requests to (the broker's, or a test's). */
    public interface Coordinator {
        /**
         * The offsets partition of a group.
         *
         * @param groupId the group
         * @return the partition of {@code __consumer_offsets}
         */
        int partitionFor(String groupId);

        /**
         * A JoinGroup.
         *
         * @param request the request
         * @return the answer
         */
        CompletableFuture<JoinResult> join(Join request);

        /**
         * A SyncGroup.
         *
         * @param request the request
         * @return the answer
         */
        CompletableFuture<SyncResult> sync(Sync request);

        /**
         * A Heartbeat.
         *
         * @param request the request
         * @return the outcome
         */
        CompletableFuture<GroupError> heartbeat(Heartbeat request);

        /**
         * A LeaveGroup.
         *
         * @param groupId the group
         * @param leaving the members
         * @return the outcome
         */
        CompletableFuture<LeaveResult> leave(String groupId, List<Leaving> leaving);

        /**
         * An OffsetCommit.
         *
         * @param request the request
         * @return each offset's outcome, in order
         */
        CompletableFuture<List<GroupError>> commit(OffsetCommit request);

        /**
         * An OffsetFetch.
         *
         * @param groupId    the group
         * @param partitions the partitions, or null for all
         * @return the coordinator's error (NONE) and the offsets
         */
        CompletableFuture<Map.Entry<GroupError, List<FetchedOffset>>> fetchOffsets(String groupId,
                                                                                   List<TopicPartition> partitions);

        /**
         * A ListGroups of the groups this broker coordinates.
         *
         * @param states the states asked for (case-insensitive), or empty for all
         * @param types  the group types asked for (case-insensitive), or empty for all
         * @return the error (NONE, or COORDINATOR_LOAD_IN_PROGRESS) and the groups
         */
        CompletableFuture<Map.Entry<GroupError, List<ListedGroup>>> listGroups(Set<String> states, Set<String> types);

        /**
         * A DescribeGroups.
         *
         * @param groupIds the groups
         * @return one answer per group, in order
         */
        CompletableFuture<List<DescribedGroup>> describeGroups(List<String> groupIds);

        /**
         * A DeleteGroups.
         *
         * @param groupIds the groups
         * @return each group's outcome, in order
         */
        CompletableFuture<List<GroupError>> deleteGroups(List<String> groupIds);

        /**
         * An OffsetDelete.
         *
         * @param groupId    the group
         * @param partitions the partitions
         * @return the outcome
         */
        CompletableFuture<OffsetDeleteResult> deleteOffsets(String groupId, List<TopicPartition> partitions);
    }

    /** Asks for the offsets topic to be created; must not block. */
    @FunctionalInterface
    public interface OffsetsTopicCreator {
        /** Requests the creation of {@code __consumer_offsets} (repeated requests are harmless). */
        void requestCreation();
    }

    private final String offsetsTopic;
    private final Coordinator coordinator;
    private final ClusterView cluster;
    private final OffsetsTopicCreator creator;

    /**
     * @param offsetsTopic the offsets topic's name ({@code __consumer_offsets})
     * @param coordinator  the coordinator
     * @param cluster      the metadata cache
     * @param creator      creates the offsets topic when it is missing
     */
    public GroupApis(final String offsetsTopic, final Coordinator coordinator, final ClusterView cluster,
                     final OffsetsTopicCreator creator) {
        this.offsetsTopic = offsetsTopic;
        this.coordinator = coordinator;
        this.cluster = cluster;
        this.creator = creator;
    }

    /**
     * The APIs to serve.
     *
     * @return the APIs
     */
    public List<KafkaApi> apis() {
        return List.of(
            new KafkaApi(ApiKeys.FIND_COORDINATOR, (short) 0, FIND_COORDINATOR_MAX,
                r -> CompletableFuture.completedFuture(findCoordinator(r))),
            new KafkaApi(ApiKeys.JOIN_GROUP, (short) 0, JOIN_GROUP_MAX, this::joinGroup),
            new KafkaApi(ApiKeys.SYNC_GROUP, (short) 0, SYNC_GROUP_MAX, this::syncGroup),
            new KafkaApi(ApiKeys.HEARTBEAT, (short) 0, HEARTBEAT_MAX, this::heartbeat),
            new KafkaApi(ApiKeys.LEAVE_GROUP, (short) 0, LEAVE_GROUP_MAX, this::leaveGroup),
            new KafkaApi(ApiKeys.OFFSET_COMMIT, OFFSET_COMMIT_MIN, OFFSET_COMMIT_MAX, this::offsetCommit),
            new KafkaApi(ApiKeys.OFFSET_FETCH, OFFSET_FETCH_MIN, OFFSET_FETCH_MAX, this::offsetFetch),
            new KafkaApi(ApiKeys.LIST_GROUPS, (short) 0, LIST_GROUPS_MAX, this::listGroups),
            new KafkaApi(ApiKeys.DESCRIBE_GROUPS, (short) 0, DESCRIBE_GROUPS_MAX, this::describeGroups),
            new KafkaApi(ApiKeys.DELETE_GROUPS, (short) 0, DELETE_GROUPS_MAX, this::deleteGroups),
            new KafkaApi(ApiKeys.OFFSET_DELETE, (short) 0, (short) 0, this::offsetDelete));
    }

    // ------------------------------------------------------------------------------------------ FindCoordinator

    private ApiMessage findCoordinator(final KafkaRequest request) {
        final FindCoordinatorRequestData data = (FindCoordinatorRequestData) request.body();
        final FindCoordinatorResponseData resp = new FindCoordinatorResponseData();
        if (request.version() >= 4) {
            for (final String key : data.coordinatorKeys()) {
                final FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator()
                    .setKey(key);
                locate(data.keyType(), key, c);
                resp.coordinators().add(c);
            }
            return resp;
        }
        final FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator();
        locate(data.keyType(), data.key(), c);
        return resp.setErrorCode(c.errorCode()).setErrorMessage(c.errorMessage()).setNodeId(c.nodeId())
            .setHost(c.host()).setPort(c.port());
    }

    private void locate(final byte keyType, final String key, final FindCoordinatorResponseData.Coordinator into) {
        into.setNodeId(-1).setHost("").setPort(-1);
        if (keyType != GROUP_KEY) {
            into.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("coordinator key type " + keyType
                + " is not served: Seglog has no transaction or share-group coordinator (key " + key + ")");
            return;
        }
        if (key == null || key.isEmpty()) {
            into.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("empty group id");
            return;
        }
        final TopicPartition tp = new TopicPartition(offsetsTopic, coordinator.partitionFor(key));
        final Map<TopicPartition, PartitionStateInfo> partitions = cluster.partitions();
        final PartitionStateInfo state = partitions.get(tp);
        if (state == null) {
            if (partitions.keySet().stream().noneMatch(p -> p.topic().equals(offsetsTopic))) {
                creator.requestCreation();
            }
            into.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage(offsetsTopic
                + " is being created");
            return;
        }
        final LiveBroker leader = cluster.liveBrokers().get(state.leaderAndIsr().leader());
        if (leader == null) {
            into.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage(tp + " has no live leader");
            return;
        }
        into.setErrorCode(Errors.NONE.code()).setErrorMessage(null).setNodeId(leader.id()).setHost(leader.host())
            .setPort(leader.port());
    }

    // ------------------------------------------------------------------------------------------ membership

    private CompletionStage<ApiMessage> joinGroup(final KafkaRequest request) {
        final JoinGroupRequestData data = (JoinGroupRequestData) request.body();
        final List<Protocol> protocols = new ArrayList<>();
        data.protocols().forEach(p -> protocols.add(new Protocol(p.name(), p.metadata())));
        final int rebalanceTimeout = request.version() >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
        final Join join = new Join(data.groupId(), data.memberId(), data.groupInstanceId(),
            request.header().clientId(), clientHost(request.peer()), data.protocolType(), protocols,
            data.sessionTimeoutMs(), rebalanceTimeout, request.version() >= 4, request.version() >= 9);
        return coordinator.join(join).thenApply(r -> {
            final JoinGroupResponseData resp = new JoinGroupResponseData().setErrorCode(r.error().code())
                .setGenerationId(r.generationId()).setProtocolType(r.protocolType())
                .setProtocolName(request.version() < 7 && r.protocolName() == null ? "" : r.protocolName())
                .setLeader(r.leader()).setSkipAssignment(r.skipAssignment()).setMemberId(r.memberId());
            for (final JoinedMember m : r.members()) {
                resp.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId()).setMetadata(m.metadata()));
            }
            return resp;
        });
    }

    /** The member's host as Kafka shows it: the client's address without its port ("/127.0.0.1"). */
    static String clientHost(final SocketAddress peer) {
        return peer instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress().toString()
            : String.valueOf(peer);
    }

    private CompletionStage<ApiMessage> syncGroup(final KafkaRequest request) {
        final SyncGroupRequestData data = (SyncGroupRequestData) request.body();
        final Map<String, byte[]> assignments = new HashMap<>();
        data.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        return coordinator.sync(new Sync(data.groupId(), data.generationId(), data.memberId(), data.groupInstanceId(),
            data.protocolType(), data.protocolName(), assignments)).thenApply(r -> new SyncGroupResponseData()
            .setErrorCode(r.error().code()).setProtocolType(r.protocolType()).setProtocolName(r.protocolName())
            .setAssignment(r.assignment()));
    }

    private CompletionStage<ApiMessage> heartbeat(final KafkaRequest request) {
        final HeartbeatRequestData data = (HeartbeatRequestData) request.body();
        return coordinator.heartbeat(new Heartbeat(data.groupId(), data.generationId(), data.memberId(),
            data.groupInstanceId())).thenApply(e -> new HeartbeatResponseData().setErrorCode(e.code()));
    }

    private CompletionStage<ApiMessage> leaveGroup(final KafkaRequest request) {
        final LeaveGroupRequestData data = (LeaveGroupRequestData) request.body();
        final List<Leaving> leaving = new ArrayList<>();
        if (request.version() >= 3) {
            data.members().forEach(m -> leaving.add(new Leaving(m.memberId(), m.groupInstanceId())));
        } else {
            leaving.add(new Leaving(data.memberId(), null));
        }
        return coordinator.leave(data.groupId(), leaving).thenApply(r -> {
            final LeaveGroupResponseData resp = new LeaveGroupResponseData().setErrorCode(r.error().code());
            if (request.version() >= 3) {
                for (int i = 0; i < leaving.size() && i < r.members().size(); i++) {
                    resp.members().add(new LeaveGroupResponseData.MemberResponse()
                        .setMemberId(leaving.get(i).memberId()).setGroupInstanceId(leaving.get(i).groupInstanceId())
                        .setErrorCode(r.members().get(i).code()));
                }
            } else if (r.error() == GroupError.NONE && !r.members().isEmpty()) {
                resp.setErrorCode(r.members().get(0).code());
            }
            return resp;
        });
    }

    // ------------------------------------------------------------------------------------------ offsets

    private CompletionStage<ApiMessage> offsetCommit(final KafkaRequest request) {
        final OffsetCommitRequestData data = (OffsetCommitRequestData) request.body();
        final boolean byId = request.version() >= 10;
        final Map<TopicId, String> names = byId ? cluster.topicNames() : Map.of();
        final List<CommittedOffset> offsets = new ArrayList<>();
        // Per topic, its name (null: an id this broker does not know, each partition answered UNKNOWN_TOPIC_ID).
        final List<String> topicNames = new ArrayList<>();
        for (final OffsetCommitRequestData.OffsetCommitRequestTopic t : data.topics()) {
            final String name = byId ? names.get(TopicIds.of(t.topicId())) : t.name();
            topicNames.add(name);
            if (name == null) {
                continue;
            }
            for (final OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                offsets.add(new CommittedOffset(name, p.partitionIndex(), p.committedOffset(),
                    request.version() >= 6 ? p.committedLeaderEpoch() : -1, p.committedMetadata()));
            }
        }
        return coordinator.commit(new OffsetCommit(data.groupId(), data.generationIdOrMemberEpoch(), data.memberId(),
            data.groupInstanceId(), request.version() >= 9, offsets)).thenApply(errors -> {
                final OffsetCommitResponseData resp = new OffsetCommitResponseData();
                int i = 0;
                int topicIndex = 0;
                for (final OffsetCommitRequestData.OffsetCommitRequestTopic t : data.topics()) {
                    final String name = topicNames.get(topicIndex++);
                    final OffsetCommitResponseData.OffsetCommitResponseTopic topic =
                        new OffsetCommitResponseData.OffsetCommitResponseTopic();
                    if (byId) {
                        topic.setTopicId(t.topicId());
                    } else {
                        topic.setName(t.name());
                    }
                    for (final OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                        topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(name == null
                                ? Errors.UNKNOWN_TOPIC_ID.code() : errors.get(i++).code()));
                    }
                    resp.topics().add(topic);
                }
                return resp;
            });
    }

    private CompletionStage<ApiMessage> offsetFetch(final KafkaRequest request) {
        final OffsetFetchRequestData data = (OffsetFetchRequestData) request.body();
        if (request.version() < 8) {
            final List<TopicPartition> wanted = data.topics() == null ? null : new ArrayList<>();
            if (wanted != null) {
                data.topics().forEach(t -> t.partitionIndexes().forEach(p -> wanted.add(new TopicPartition(t.name(),
                    p))));
            }
            return coordinator.fetchOffsets(data.groupId(), wanted).thenApply(answer -> {
                final OffsetFetchResponseData resp = new OffsetFetchResponseData()
                    .setErrorCode(answer.getKey().code());
                resp.setTopics(oldTopics(answer.getKey(), answer.getValue(), wanted, request.version()));
                return resp;
            });
        }
        final boolean byId = request.version() >= 10;
        final Map<TopicId, String> names = byId ? cluster.topicNames() : Map.of();
        final Map<String, TopicId> ids = byId ? cluster.topicIds() : Map.of();
        final List<CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup>> groups = new ArrayList<>();
        for (final OffsetFetchRequestData.OffsetFetchRequestGroup g : data.groups()) {
            final List<TopicPartition> wanted = g.topics() == null ? null : new ArrayList<>();
            // v10: the topics named by an id this broker does not know, answered UNKNOWN_TOPIC_ID.
            final List<OffsetFetchRequestData.OffsetFetchRequestTopics> unknown = new ArrayList<>();
            if (wanted != null) {
                for (final OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                    final String name = byId ? names.get(TopicIds.of(t.topicId())) : t.name();
                    if (name == null) {
                        unknown.add(t);
                    } else {
                        t.partitionIndexes().forEach(p -> wanted.add(new TopicPartition(name, p)));
                    }
                }
            }
            groups.add(coordinator.fetchOffsets(g.groupId(), wanted).thenApply(answer -> {
                final OffsetFetchResponseData.OffsetFetchResponseGroup out =
                    new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(g.groupId())
                        .setErrorCode(answer.getKey().code());
                final Map<String, OffsetFetchResponseData.OffsetFetchResponseTopics> topics =
                    new java.util.LinkedHashMap<>();
                for (final FetchedOffset o : answer.getValue()) {
                    final TopicId id = byId ? ids.get(o.topic()) : null;
                    if (byId && id == null) {
                        continue; // a topic without an id here (deleted): a client by id cannot name it
                    }
                    topics.computeIfAbsent(o.topic(), n -> byId
                        ? new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(TopicIds.uuid(id))
                        : new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(n))
                        .partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                        .setPartitionIndex(o.partition()).setCommittedOffset(o.offset())
                        .setCommittedLeaderEpoch(o.leaderEpoch()).setMetadata(o.metadata()));
                }
                out.setTopics(new ArrayList<>(topics.values()));
                for (final OffsetFetchRequestData.OffsetFetchRequestTopics t : unknown) {
                    final OffsetFetchResponseData.OffsetFetchResponseTopics topic =
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(t.topicId());
                    t.partitionIndexes().forEach(p -> topic.partitions().add(
                        new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(p)
                            .setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("")
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
                    out.topics().add(topic);
                }
                return out;
            }));
        }
        return CompletableFuture.allOf(groups.toArray(new CompletableFuture<?>[0])).thenApply(x -> {
            final OffsetFetchResponseData resp = new OffsetFetchResponseData();
            groups.forEach(g -> resp.groups().add(g.join()));
            return resp;
        });
    }

    // ------------------------------------------------------------------------------------------ administration

    private CompletionStage<ApiMessage> listGroups(final KafkaRequest request) {
        final ListGroupsRequestData data = (ListGroupsRequestData) request.body();
        return coordinator.listGroups(Set.copyOf(data.statesFilter()), Set.copyOf(data.typesFilter()))
            .thenApply(answer -> {
                final ListGroupsResponseData resp = new ListGroupsResponseData()
                    .setErrorCode(answer.getKey().code());
                for (final ListedGroup g : answer.getValue()) {
                    resp.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.groupId())
                        .setProtocolType(g.protocolType()).setGroupState(g.state().kafkaName())
                        .setGroupType("classic"));
                }
                return resp;
            });
    }

    private CompletionStage<ApiMessage> describeGroups(final KafkaRequest request) {
        final DescribeGroupsRequestData data = (DescribeGroupsRequestData) request.body();
        return coordinator.describeGroups(data.groups()).thenApply(described -> {
            final DescribeGroupsResponseData resp = new DescribeGroupsResponseData();
            for (final DescribedGroup g : described) {
                GroupError error = g.error();
                String message = null;
                if (error == GroupError.GROUP_ID_NOT_FOUND) {
                    // Before v6 a missing group is described as Dead without an error (KIP-1043).
                    error = request.version() >= 6 ? error : GroupError.NONE;
                    message = request.version() >= 6 ? "Group " + g.groupId() + " not found." : null;
                }
                final DescribeGroupsResponseData.DescribedGroup out = new DescribeGroupsResponseData.DescribedGroup()
                    .setGroupId(g.groupId()).setErrorCode(error.code()).setErrorMessage(message)
                    .setGroupState(g.state().kafkaName()).setProtocolType(g.protocolType())
                    .setProtocolData(g.protocolName());
                for (final DescribedMember m : g.members()) {
                    out.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.memberId())
                        .setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId())
                        .setClientHost(m.clientHost()).setMemberMetadata(m.metadata())
                        .setMemberAssignment(m.assignment()));
                }
                resp.groups().add(out);
            }
            return resp;
        });
    }

    private CompletionStage<ApiMessage> deleteGroups(final KafkaRequest request) {
        final DeleteGroupsRequestData data = (DeleteGroupsRequestData) request.body();
        final List<String> ids = data.groupsNames();
        return coordinator.deleteGroups(ids).thenApply(errors -> {
            final DeleteGroupsResponseData resp = new DeleteGroupsResponseData();
            for (int i = 0; i < ids.size(); i++) {
                final GroupError e = errors.get(i);
                resp.results().add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(ids.get(i))
                    .setErrorCode(e.code()).setErrorMessage(request.version() >= 3 ? deleteMessage(ids.get(i), e)
                        : null));
            }
            return resp;
        });
    }

    private static String deleteMessage(final String groupId, final GroupError error) {
        return switch (error) {
            case NONE -> null;
            case GROUP_ID_NOT_FOUND -> "Group " + groupId + " not found.";
            case NON_EMPTY_GROUP -> "Group " + groupId + " has members: only an Empty group can be deleted.";
            default -> "Group " + groupId + ": " + error;
        };
    }

    private CompletionStage<ApiMessage> offsetDelete(final KafkaRequest request) {
        final OffsetDeleteRequestData data = (OffsetDeleteRequestData) request.body();
        final List<TopicPartition> partitions = new ArrayList<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> partitions.add(new TopicPartition(t.name(),
            p.partitionIndex()))));
        return coordinator.deleteOffsets(data.groupId(), partitions).thenApply(r -> {
            final OffsetDeleteResponseData resp = new OffsetDeleteResponseData().setErrorCode(r.error().code());
            if (r.error() != GroupError.NONE) {
                return resp;
            }
            int i = 0;
            for (final OffsetDeleteRequestData.OffsetDeleteRequestTopic t : data.topics()) {
                OffsetDeleteResponseData.OffsetDeleteResponseTopic topic = resp.topics().find(t.name());
                if (topic == null) {
                    topic = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
                    resp.topics().add(topic);
                }
                for (final OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                    final short code = r.partitions().get(i++).code();
                    // Partitions are keyed by index: one named twice is answered once.
                    if (topic.partitions().find(p.partitionIndex()) == null) {
                        topic.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(code));
                    }
                }
            }
            return resp;
        });
    }

    private static List<OffsetFetchResponseData.OffsetFetchResponseTopic> oldTopics(final GroupError error,
                                                                                   final List<FetchedOffset> offsets,
                                                                                   final List<TopicPartition> wanted,
                                                                                   final short version) {
        final Map<String, OffsetFetchResponseData.OffsetFetchResponseTopic> topics = new java.util.LinkedHashMap<>();
        if (error != GroupError.NONE && wanted != null && version < 2) {
            // v0-1 have no top-level error: each partition carries it.
            for (final TopicPartition tp : wanted) {
                topics.computeIfAbsent(tp.topic(), n -> new OffsetFetchResponseData.OffsetFetchResponseTopic()
                    .setName(n)).partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                    .setPartitionIndex(tp.partition()).setCommittedOffset(-1).setMetadata("")
                    .setErrorCode(error.code()));
            }
            return new ArrayList<>(topics.values());
        }
        for (final FetchedOffset o : offsets) {
            topics.computeIfAbsent(o.topic(), n -> new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(n))
                .partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                    .setPartitionIndex(o.partition()).setCommittedOffset(o.offset())
                    .setCommittedLeaderEpoch(o.leaderEpoch()).setMetadata(o.metadata()));
        }
        return new ArrayList<>(topics.values());
    }
}
