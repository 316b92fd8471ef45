package io.seglog.replication.controller;

import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkWatch;
import io.seglog.storage.TopicId;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's topic ids (KIP-516 in ZooKeeper mode): a topic read without a {@code topic_id} gets one, written
 * into {@code /brokers/topics/<topic>} at the version read and fenced by the controller epoch, as Kafka's ZooKeeper
 * controller does when it loads topics ({@code KafkaController.setTopicIds}). An id already there is never changed.
 * Confined to the controller's event thread.
 */
final class TopicIds {
    private static final Logger LOG = LoggerFactory.getLogger(TopicIds.class);
    /** A concurrent writer (an admin adding partitions) can move the version; a few re-reads settle it. */
    private static final int MAX_ATTEMPTS = 5;

    private final KafkaZkStore store;
    private final RandomGenerator random;

    TopicIds(final KafkaZkStore store, final RandomGenerator random) {
        this.store = store;
        this.random = random;
    }

    /**
     * The topic's id, assigned now if its znode has none.
     *
     * @param topic          the topic
     * @param read           its assignment as just read
     * @param epochZkVersion the controller's fencing token
     * @param watch          the assignment watch to leave on a re-read
     * @return the id; empty when the topic vanished meanwhile
     * @throws io.seglog.replication.zk.ControllerMovedException when fenced
     * @throws ZkException when ZooKeeper fails, or the version kept moving
     */
    Optional<TopicId> ensure(final String topic, final Versioned<TopicAssignmentZnode> read, final int epochZkVersion,
                             final ZkWatch watch) {
        Versioned<TopicAssignmentZnode> current = read;
        for (int attempt = 1; ; attempt++) {
            final Optional<String> existing = current.value().topicId();
            if (existing.isPresent()) {
                return Optional.of(TopicId.fromString(existing.get()));
            }
            final TopicId id = TopicId.random(random);
            final TopicAssignmentZnode withId = new TopicAssignmentZnode(current.value().partitions(),
                current.value().addingReplicas(), current.value().removingReplicas(), Optional.of(id.toString()));
            try {
                store.admin().setTopicAssignmentFenced(topic, withId, current.version(), epochZkVersion);
                LOG.info("topic {} had no topic id: assigned {}", topic, id);
                return Optional.of(id);
            } catch (final ZkException e) {
                if (e.error() != ZkError.BAD_VERSION && e.error() != ZkError.NO_NODE || attempt == MAX_ATTEMPTS) {
                    throw e;
                }
            }
            final Optional<Versioned<TopicAssignmentZnode>> again = store.topicAssignment(topic, watch);
            if (again.isEmpty()) {
                return Optional.empty();
            }
            current = again.get();
        }
    }
}
