package io.seglog.replication.transport;

/**
 * A controller-to-broker message. Every one names the controller's epoch and the epoch of the broker it was meant
 * for, so that a broker refuses messages of a deposed controller and messages meant for an earlier incarnation
 * of itself.
 */
public sealed interface ControlRequest permits LeaderAndIsrRequest, UpdateMetadataRequest, StopReplicaRequest {
    /**
     * The sending controller's broker id.
     *
     * @return the id
     */
    int controllerId();

    /**
     * The sending controller's epoch.
     *
     * @return the epoch
     */
    int controllerEpoch();

    /**
     * The epoch (registration czxid) of the broker the message is for.
     *
     * @return the broker epoch
     */
    long brokerEpoch();
}
