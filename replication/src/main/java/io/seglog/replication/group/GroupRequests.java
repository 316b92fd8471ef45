package io.seglog.replication.group;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The classic group protocol's requests and answers as the coordinator takes and gives them, free of any wire
 * format (the wire layer maps Kafka's JoinGroup, SyncGroup, Heartbeat and LeaveGroup to these).
 */
public final class GroupRequests {
    private GroupRequests() {
    }

    /**
     * One protocol a member supports, in its order of preference.
     *
     * @param name     the protocol (for consumers, an assignor's name)
     * @param metadata its metadata (for consumers, the subscription), not copied
     */
    public record Protocol(String name, byte[] metadata) {
        /**
         * Checks the fields.
         *
         * @param name     the protocol
         * @param metadata its metadata
         */
        public Protocol {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(metadata, "metadata");
        }
    }

    /**
     * A JoinGroup.
     *
     * @param groupId               the group
     * @param memberId              the member id, or "" for a member without one yet
     * @param groupInstanceId       the static member's instance id, or null
     * @param clientId              the client id
     * @param clientHost            the client's address
     * @param protocolType          the protocol type ("consumer")
     * @param protocols             the protocols, in preference order
     * @param sessionTimeoutMs      the session timeout
     * @param rebalanceTimeoutMs    the rebalance timeout (v0 requests: the session timeout)
     * @param requireKnownMemberId  whether a member without an id must join again with one (JoinGroup v4+)
     * @param supportsSkipAssignment whether the leader may be told to skip the assignment (JoinGroup v9+)
     */
    public record Join(String groupId, String memberId, String groupInstanceId, String clientId, String clientHost,
                       String protocolType, List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
                       boolean requireKnownMemberId, boolean supportsSkipAssignment) {
        /**
         * Checks and copies the fields.
         *
         * @param groupId               the group
         * @param memberId              the member id, or ""
         * @param groupInstanceId       the instance id, or null
         * @param clientId              the client id
         * @param clientHost            the client's address
         * @param protocolType          the protocol type
         * @param protocols             the protocols
         * @param sessionTimeoutMs      the session timeout
         * @param rebalanceTimeoutMs    the rebalance timeout
         * @param requireKnownMemberId  whether a new member must join again with its id
         * @param supportsSkipAssignment whether the leader may skip the assignment
         */
        public Join {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(protocolType, "protocolType");
            protocols = List.copyOf(protocols);
        }
    }

    /**
     * A member as the leader's JoinGroup answer lists it.
     *
     * @param memberId        the member id
     * @param groupInstanceId the instance id, or null
     * @param metadata        its metadata for the chosen protocol
     */
    public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
    }

    /**
     * A JoinGroup's answer.
     *
     * @param error          NONE or the error
     * @param generationId   the generation, or -1
     * @param protocolType   the group's protocol type, or null
     * @param protocolName   the chosen protocol, or null
     * @param leader         the leader's member id ("" when none)
     * @param skipAssignment whether the leader must not assign (a static leader rejoined a stable group)
     * @param memberId       the member's id (a new one, for a new member)
     * @param members        the members with their metadata (the leader's answer only)
     */
    public record JoinResult(GroupError error, int generationId, String protocolType, String protocolName,
                             String leader, boolean skipAssignment, String memberId, List<JoinedMember> members) {
        /**
         * Copies the members.
         *
         * @param error          NONE or the error
         * @param generationId   the generation
         * @param protocolType   the protocol type
         * @param protocolName   the protocol
         * @param leader         the leader
         * @param skipAssignment whether to skip the assignment
         * @param memberId       the member id
         * @param members        the members
         */
        public JoinResult {
            members = List.copyOf(members);
        }

        static JoinResult error(final GroupError error, final String memberId) {
            return new JoinResult(error, -1, null, null, "", false, memberId, List.of());
        }

        /**
         * An answer with an error and nothing else.
         *
         * @param error    the error
         * @param memberId the member id to echo
         * @return the answer
         */
        public static JoinResult failed(final GroupError error, final String memberId) {
            return error(error, memberId);
        }
    }

    /**
     * A SyncGroup.
     *
     * @param groupId         the group
     * @param generationId    the generation
     * @param memberId        the member id
     * @param groupInstanceId the instance id, or null
     * @param protocolType    the protocol type (v5+), or null
     * @param protocolName    the protocol (v5+), or null
     * @param assignments     the leader's assignment per member id (empty from the others), not copied
     */
    public record Sync(String groupId, int generationId, String memberId, String groupInstanceId,
                       String protocolType, String protocolName, Map<String, byte[]> assignments) {
        /**
         * Copies the assignments.
         *
         * @param groupId         the group
         * @param generationId    the generation
         * @param memberId        the member id
         * @param groupInstanceId the instance id
         * @param protocolType    the protocol type
         * @param protocolName    the protocol
         * @param assignments     the assignments
         */
        public Sync {
            assignments = Map.copyOf(assignments);
        }
    }

    /**
     * A SyncGroup's answer.
     *
     * @param error        NONE or the error
     * @param protocolType the protocol type, or null
     * @param protocolName the protocol, or null
     * @param assignment   the member's assignment
     */
    public record SyncResult(GroupError error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(final GroupError error) {
            return new SyncResult(error, null, null, new byte[0]);
        }

        /**
         * An answer with an error and an empty assignment.
         *
         * @param error the error
         * @return the answer
         */
        public static SyncResult failed(final GroupError error) {
            return error(error);
        }
    }

    /**
     * A Heartbeat.
     *
     * @param groupId         the group
     * @param generationId    the generation
     * @param memberId        the member id
     * @param groupInstanceId the instance id, or null
     */
    public record Heartbeat(String groupId, int generationId, String memberId, String groupInstanceId) {
    }

    /**
     * One member leaving (LeaveGroup v3+ names several).
     *
     * @param memberId        the member id, or "" for a static member named by its instance id
     * @param groupInstanceId the instance id, or null
     */
    public record Leaving(String memberId, String groupInstanceId) {
    }

    /**
     * A LeaveGroup's answer.
     *
     * @param error   a group-level error, or NONE
     * @param members each leaving member's own outcome, in the request's order
     */
    public record LeaveResult(GroupError error, List<GroupError> members) {
    }

    /**
     * One partition's offset in an OffsetCommit.
     *
     * @param topic       the topic
     * @param partition   the partition
     * @param offset      the next offset to consume
     * @param leaderEpoch the leader epoch of the last record consumed, or -1
     * @param metadata    the client's metadata ("" for none)
     */
    public record CommittedOffset(String topic, int partition, long offset, int leaderEpoch, String metadata) {
    }

    /**
     * An OffsetCommit.
     *
     * @param groupId         the group
     * @param generationId    the generation, or -1 for a consumer outside group management (assign())
     * @param memberId        the member id, or ""
     * @param groupInstanceId the instance id, or null
     * @param unknownGroupIsNotFound whether a commit with a generation to a group that does not exist answers
     *                        GROUP_ID_NOT_FOUND (OffsetCommit v9+) rather than ILLEGAL_GENERATION
     * @param offsets         the offsets
     */
    public record OffsetCommit(String groupId, int generationId, String memberId, String groupInstanceId,
                               boolean unknownGroupIsNotFound, List<CommittedOffset> offsets) {
        /**
         * Copies the offsets.
         *
         * @param groupId                the group
         * @param generationId           the generation
         * @param memberId               the member id
         * @param groupInstanceId        the instance id
         * @param unknownGroupIsNotFound the v9+ answer for an unknown group
         * @param offsets                the offsets
         */
        public OffsetCommit {
            offsets = List.copyOf(offsets);
        }
    }

    /**
     * A committed offset as OffsetFetch answers it.
     *
     * @param topic       the topic
     * @param partition   the partition
     * @param offset      the committed offset, or -1 when none
     * @param leaderEpoch its leader epoch, or -1
     * @param metadata    its metadata ("" when none)
     */
    public record FetchedOffset(String topic, int partition, long offset, int leaderEpoch, String metadata) {
    }
    /**
     * A group as ListGroups answers it (every group here is a classic group).
     *
     * @param groupId      the group
     * @param protocolType its protocol type ("consumer", "connect", ...), or "" for a group that only holds offsets
     * @param state        its state
     */
    public record ListedGroup(String groupId, String protocolType, GroupState state) {
    }

    /**
     * A member as DescribeGroups answers it.
     *
     * @param memberId        the member id
     * @param groupInstanceId the instance id, or null
     * @param clientId        the client id
     * @param clientHost      the client's host
     * @param metadata        its subscription in the group's protocol (empty unless the group is Stable)
     * @param assignment      its assignment (empty until it has one)
     */
    public record DescribedMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                                  byte[] metadata, byte[] assignment) {
    }

    /**
     * A group as DescribeGroups answers it.
     *
     * @param groupId      the group
     * @param error        NONE, or GROUP_ID_NOT_FOUND when no such group is here (then the state is Dead)
     * @param state        its state
     * @param protocolType its protocol type, or ""
     * @param protocolName the protocol chosen (the assignor, for consumers), or "" unless the group is Stable
     * @param members      its members, in the order they joined
     */
    public record DescribedGroup(String groupId, GroupError error, GroupState state, String protocolType,
                                 String protocolName, List<DescribedMember> members) {
        /**
         * Copies the members.
         *
         * @param groupId      the group
         * @param error        the error
         * @param state        the state
         * @param protocolType the protocol type
         * @param protocolName the protocol
         * @param members      the members
         */
        public DescribedGroup {
            members = List.copyOf(members);
        }
    }

    /**
     * An OffsetDelete's answer.
     *
     * @param error      a group-level error (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ...), or NONE
     * @param partitions each partition's outcome, in the request's order (empty on a group-level error):
     *                   GROUP_SUBSCRIBED_TO_TOPIC when a member of the group consumes its topic
     */
    public record OffsetDeleteResult(GroupError error, List<GroupError> partitions) {
        /**
         * Copies the outcomes.
         *
         * @param error      the group-level error
         * @param partitions the partitions' outcomes
         */
        public OffsetDeleteResult {
            partitions = List.copyOf(partitions);
        }
    }
}
