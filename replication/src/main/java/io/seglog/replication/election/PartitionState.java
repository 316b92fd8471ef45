package io.seglog.replication.election;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The controller's view of a partition (Kafka's {@code PartitionStateMachine}), with Kafka's table of valid
 * previous states. A transition to a state is legal only from one of that state's valid previous states:
 *
 * <pre>
 * target         valid previous states          side effect in Kafka
 * NEW            NON_EXISTENT                   assignment known, no leader yet
 * ONLINE         NEW, ONLINE, OFFLINE           NEW: create the state znode (first leader); else: an election
 * OFFLINE        NEW, ONLINE, OFFLINE           mark only (its leader died)
 * NON_EXISTENT   OFFLINE                        mark only (topic deleted)
 * </pre>
 *
 * <p>Immutable and thread-safe.
 */
public enum PartitionState {
    /** The partition does not exist, or its topic was deleted. */
    NON_EXISTENT(3),
    /** Created with an assignment, no leader elected yet. */
    NEW(0),
    /** Has a live leader. */
    ONLINE(1),
    /** Its leader died, or no leader could be elected. */
    OFFLINE(2);

    private final byte code;

    PartitionState(final int code) {
        this.code = (byte) code;
    }

    /**
     * Kafka's byte for this state ({@code PartitionState.state}), as it appears in its logs and metrics.
     *
     * @return the code
     */
    public byte code() {
        return code;
    }

    /**
     * The states from which this state may be entered.
     *
     * @return an unmodifiable set
     */
    public Set<PartitionState> validPreviousStates() {
        return Collections.unmodifiableSet(switch (this) {
            case NEW -> EnumSet.of(NON_EXISTENT);
            case ONLINE, OFFLINE -> EnumSet.of(NEW, ONLINE, OFFLINE);
            case NON_EXISTENT -> EnumSet.of(OFFLINE);
        });
    }

    /**
     * Whether a partition in this state may move to {@code target}.
     *
     * @param target the state to enter
     * @return {@code true} when this state is one of the target's valid previous states
     */
    public boolean canTransitionTo(final PartitionState target) {
        return target.validPreviousStates().contains(this);
    }
}
