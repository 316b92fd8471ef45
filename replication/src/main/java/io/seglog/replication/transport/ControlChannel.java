package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * How the controller reaches brokers and brokers reach the controller. The in-JVM implementation is
 * {@link InJvmControlChannel}; a network one comes with the data path.
 */
public interface ControlChannel {
    /**
     * Sends a control message to a broker.
     *
     * @param brokerId the target broker
     * @param request  the message
     * @return completes with the broker's response, or exceptionally with a {@link ControlRequestRefusedException}
     *         when the broker refused the whole message, or {@link BrokerUnreachableException}
     */
    CompletableFuture<ControlResponse> send(int brokerId, ControlRequest request);

    /**
     * Sends a controlled-shutdown request to the broker believed to be the controller.
     *
     * @param controllerId the controller's broker id
     * @param brokerId     the broker shutting down
     * @param brokerEpoch  its epoch
     * @return completes with the partitions it still leads, or exceptionally (not controller, unreachable, stale)
     */
    CompletableFuture<Set<TopicPartition>> controlledShutdown(int controllerId, int brokerId, long brokerEpoch);
}
