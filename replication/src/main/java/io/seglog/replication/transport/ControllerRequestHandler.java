package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The controller side of a {@link ControlChannel}: requests that brokers send to the active controller.
 */
@FunctionalInterface
public interface ControllerRequestHandler {
    /**
     * A broker asks to shut down: the controller moves its leaderships away first (Kafka's ControlledShutdown).
     *
     * @param brokerId    the broker
     * @param brokerEpoch its current epoch (a stale one is refused with {@link StaleBrokerEpochException})
     * @return completes with the partitions the broker still leads (empty: safe to stop)
     */
    CompletableFuture<Set<TopicPartition>> controlledShutdown(int brokerId, long brokerEpoch);
}
