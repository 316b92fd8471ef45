package io.seglog.replication.group;

/**
 * The outcomes the group coordinator gives, each with Kafka's error code (its {@code Errors} enum), so that the wire
 * layer answers with the code a Kafka client expects and the coordinator needs no Kafka class.
 */
public enum GroupError {
    /** Success. */
    NONE(0),
    /** Something the coordinator did not expect. */
    UNKNOWN_SERVER_ERROR(-1),
    /** A committed offset's metadata is longer than {@code offset.metadata.max.bytes}. */
    OFFSET_METADATA_TOO_LARGE(12),
    /** The write of the group's records did not reach the offsets partition's replicas in time. */
    REQUEST_TIMED_OUT(7),
    /** The coordinator is loading the group's offsets partition; retry. */
    COORDINATOR_LOAD_IN_PROGRESS(14),
    /** The group is being removed or moved; find the coordinator again. */
    COORDINATOR_NOT_AVAILABLE(15),
    /** This broker is not the group's coordinator; find it again. */
    NOT_COORDINATOR(16),
    /** The request's generation is not the group's. */
    ILLEGAL_GENERATION(22),
    /** The member's protocol type or protocols do not fit the group's. */
    INCONSISTENT_GROUP_PROTOCOL(23),
    /** An empty or otherwise invalid group id. */
    INVALID_GROUP_ID(24),
    /** The member is not in the group (it expired, left, or never joined). */
    UNKNOWN_MEMBER_ID(25),
    /** The session timeout is outside {@code group.min/max.session.timeout.ms}. */
    INVALID_SESSION_TIMEOUT(26),
    /** A rebalance is in progress; rejoin. */
    REBALANCE_IN_PROGRESS(27),
    /** The group still has members. */
    NON_EMPTY_GROUP(68),
    /** No such group. */
    GROUP_ID_NOT_FOUND(69),
    /** A new member must join again with the member id given (KIP-394). */
    MEMBER_ID_REQUIRED(79),
    /** The group has {@code group.max.size} members. */
    GROUP_MAX_SIZE_REACHED(81),
    /** Another member took this static member's instance id. */
    FENCED_INSTANCE_ID(82),
    /** OffsetDelete: a member of the group consumes the topic, so its offsets stay. */
    GROUP_SUBSCRIBED_TO_TOPIC(86);

    private final short code;

    GroupError(final int code) {
        this.code = (short) code;
    }

    /**
     * Kafka's error code.
     *
     * @return the code
     */
    public short code() {
        return code;
    }
}
