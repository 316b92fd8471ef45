package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ControlChannel} between brokers in one JVM: a message is handed to the target's handler on the
 * sender's thread, so delivery is immediate and in order (a network channel gives the same guarantees per
 * broker). Thread-safe.
 */
public final class InJvmControlChannel implements ControlChannel {
    private final Map<Integer, ControlRequestHandler> brokers = new ConcurrentHashMap<>();
    private final Map<Integer, ControllerRequestHandler> controllers = new ConcurrentHashMap<>();

    /** Creates an empty channel. */
    public InJvmControlChannel() {
    }

    /**
     * Makes a broker reachable.
     *
     * @param brokerId   the broker
     * @param broker     its control-message handler
     * @param controller its controller-request handler (answers only while it is the active controller)
     */
    public void register(final int brokerId, final ControlRequestHandler broker, final ControllerRequestHandler controller) {
        brokers.put(brokerId, broker);
        controllers.put(brokerId, controller);
    }

    /**
     * Makes a broker unreachable.
     *
     * @param brokerId the broker
     */
    public void unregister(final int brokerId) {
        brokers.remove(brokerId);
        controllers.remove(brokerId);
    }

    @Override
    public CompletableFuture<ControlResponse> send(final int brokerId, final ControlRequest request) {
        final ControlRequestHandler handler = brokers.get(brokerId);
        if (handler == null) {
            return CompletableFuture.failedFuture(new BrokerUnreachableException(brokerId));
        }
        try {
            return CompletableFuture.completedFuture(handler.handle(request));
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Set<TopicPartition>> controlledShutdown(final int controllerId, final int brokerId,
                                                                     final long brokerEpoch) {
        final ControllerRequestHandler handler = controllers.get(controllerId);
        if (handler == null) {
            return CompletableFuture.failedFuture(new BrokerUnreachableException(controllerId));
        }
        return handler.controlledShutdown(brokerId, brokerEpoch);
    }
}
