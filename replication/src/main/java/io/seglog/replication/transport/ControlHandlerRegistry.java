package io.seglog.replication.transport;

/**
 * Where a broker makes its handlers reachable through a {@link ControlChannel}: the in-JVM channel keeps them in a
 * map; a network transport would bind them to a listener. Together with {@link ControlChannel} this is the whole
 * seam between a broker and its transport.
 *
 * <p>Implementations are thread-safe: brokers register and leave from their own threads.
 */
public interface ControlHandlerRegistry {
    /**
     * Makes a broker reachable.
     *
     * @param brokerId   the broker
     * @param broker     its control-message handler
     * @param controller its controller-request handler (answers only while it is the active controller)
     */
    void register(int brokerId, ControlRequestHandler broker, ControllerRequestHandler controller);

    /**
     * Makes a broker unreachable (messages to it fail with {@link BrokerUnreachableException}). Idempotent.
     *
     * @param brokerId the broker
     */
    void unregister(int brokerId);
}
