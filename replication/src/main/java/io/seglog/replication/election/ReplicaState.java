package io.seglog.replication.election;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The controller's view of one replica of a partition (Kafka's {@code ReplicaStateMachine}), with Kafka's table
 * of valid previous states:
 *
 * <pre>
 * target                        valid previous states                            side effect in Kafka
 * NEW                           NON_EXISTENT                                     LeaderAndIsr to the replica
 * ONLINE                        NEW, ONLINE, OFFLINE, REPLICA_DELETION_INELIGIBLE LeaderAndIsr with the current state
 * OFFLINE                       NEW, ONLINE, OFFLINE, REPLICA_DELETION_INELIGIBLE StopReplica; leave the ISR (never empty it)
 * REPLICA_DELETION_STARTED      OFFLINE                                          StopReplica(delete)
 * REPLICA_DELETION_SUCCESSFUL   REPLICA_DELETION_STARTED                         mark only
 * REPLICA_DELETION_INELIGIBLE   OFFLINE, REPLICA_DELETION_STARTED                mark only
 * NON_EXISTENT                  REPLICA_DELETION_SUCCESSFUL                      drop from the assignment
 * </pre>
 *
 * <p>Immutable and thread-safe.
 */
public enum ReplicaState {
    /** Just assigned (new topic, new partition or reassignment target); may only become a follower. */
    NEW(1),
    /** Its broker is up and it has been told its partition's state. */
    ONLINE(2),
    /** Its broker died (or its log directory failed). */
    OFFLINE(3),
    /** Deletion requested (topic deletion or reassignment away). */
    REPLICA_DELETION_STARTED(4),
    /** Its broker confirmed the deletion. */
    REPLICA_DELETION_SUCCESSFUL(5),
    /** Deletion failed or cannot proceed now (its broker is down). */
    REPLICA_DELETION_INELIGIBLE(6),
    /** Gone from the assignment. */
    NON_EXISTENT(7);

    private final byte code;

    ReplicaState(final int code) {
        this.code = (byte) code;
    }

    /**
     * Kafka's byte for this state ({@code ReplicaState.state}).
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
    public Set<ReplicaState> validPreviousStates() {
        return Collections.unmodifiableSet(switch (this) {
            case NEW -> EnumSet.of(NON_EXISTENT);
            case ONLINE, OFFLINE -> EnumSet.of(NEW, ONLINE, OFFLINE, REPLICA_DELETION_INELIGIBLE);
            case REPLICA_DELETION_STARTED -> EnumSet.of(OFFLINE);
            case REPLICA_DELETION_SUCCESSFUL -> EnumSet.of(REPLICA_DELETION_STARTED);
            case REPLICA_DELETION_INELIGIBLE -> EnumSet.of(OFFLINE, REPLICA_DELETION_STARTED);
            case NON_EXISTENT -> EnumSet.of(REPLICA_DELETION_SUCCESSFUL);
        });
    }

    /**
     * Whether a replica in this state may move to {@code target}.
     *
     * @param target the state to enter
     * @return {@code true} when this state is one of the target's valid previous states
     */
    public boolean canTransitionTo(final ReplicaState target) {
        return target.validPreviousStates().contains(this);
    }
}
