package io.seglog.replication.controller;

import io.seglog.replication.transport.NotControllerException;
import io.seglog.storage.TopicPartition;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The work items of the controller's event loop. ZooKeeper watches, session callbacks and broker requests only
 * create these; the loop's single thread re-reads ZooKeeper and acts (Kafka's {@code ControllerEvent}s).
 */
sealed interface ControllerEvent {
    /** Called when the event is dropped unprocessed (session expiry clears the queue). */
    default void preempt(final int brokerId) {
    }

    /** The ZooKeeper session ended: resign before anything else. */
    record SessionExpired(long sessionId) implements ControllerEvent {
    }

    /** Whether a session expiry keeps this event queued (behind the expiry) instead of dropping it. */
    default boolean survivesExpiry() {
        return false;
    }

    /** A new ZooKeeper session: register the broker, then try to become controller. */
    record NewSession(long sessionId) implements ControllerEvent {
        @Override
        public boolean survivesExpiry() {
            return true; // a late "lost" verdict must not cost the broker its registration in the next session
        }
    }

    /** {@code /controller} was created, changed or deleted. */
    record ControllerChange() implements ControllerEvent {
    }

    /** The children of {@code /brokers/ids} changed. */
    record BrokerChange() implements ControllerEvent {
    }

    /** The children of {@code /brokers/topics} changed. */
    record TopicChange() implements ControllerEvent {
    }

    /** A topic's assignment znode changed (partitions added). */
    record PartitionModifications(String topic) implements ControllerEvent {
    }

    /** The children of {@code /admin/delete_topics} changed. */
    record TopicDeletion() implements ControllerEvent {
    }

    /** The children of {@code /isr_change_notification} changed (leaders changed ISRs). */
    record IsrChange() implements ControllerEvent {
    }

    /** {@code /admin/preferred_replica_election} was created (or changed or deleted). */
    record PreferredElection() implements ControllerEvent {
    }

    /** A broker asks to shut down. */
    record ControlledShutdown(int brokerId, long brokerEpoch, CompletableFuture<Set<TopicPartition>> result)
        implements ControllerEvent {
        @Override
        public void preempt(final int controllerBrokerId) {
            result.completeExceptionally(new NotControllerException(controllerBrokerId));
        }
    }

    /** Work run on the event thread (tests use it to act as a paused, then resumed, controller). */
    record Custom(Runnable action) implements ControllerEvent {
    }
}
