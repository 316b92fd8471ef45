package io.seglog.replication.transport;

/**
 * The broker side of a {@link ControlChannel}: applies control messages from the controller.
 */
@FunctionalInterface
public interface ControlRequestHandler {
    /**
     * Applies a message.
     *
     * @param request the message
     * @return which partitions were refused
     * @throws StaleControllerEpochException when the whole message comes from a deposed controller
     * @throws StaleBrokerEpochException     when it was meant for another incarnation of this broker
     */
    ControlResponse handle(ControlRequest request);
}
