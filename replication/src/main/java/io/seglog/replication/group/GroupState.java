package io.seglog.replication.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * A classic group's state (Kafka's {@code ClassicGroupState}), with the names Kafka's tools show.
 */
public enum GroupState {
    /** No members; committed offsets may remain. */
    EMPTY("Empty"),
    /** A rebalance has begun: members are rejoining; JoinGroups are parked until all have or the timeout passes. */
    PREPARING_REBALANCE("PreparingRebalance"),
    /** The members have joined; waiting for the leader's assignment in its SyncGroup. */
    COMPLETING_REBALANCE("CompletingRebalance"),
    /** The assignment is out; members heartbeat. */
    STABLE("Stable"),
    /** Removed from this coordinator (deleted, or its offsets partition moved away). */
    DEAD("Dead");

    private final String kafkaName;

    GroupState(final String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /**
     * The name Kafka's DescribeGroups and ListGroups answer.
     *
     * @return e.g. "Stable"
     */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * The states this one may be entered from (Kafka's {@code validPreviousStates}).
     *
     * @return the states
     */
    Set<GroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.of(STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD);
        };
    }
}
