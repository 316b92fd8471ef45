package io.seglog.replication.broker;

import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.controller.TopicExistsException;
import io.seglog.replication.wire.AdminStore;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.TopicConfigZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The admin APIs' state in Kafka's ZooKeeper layout, through the broker's session, as Kafka's {@code AdminZkClient}
 * writes it: a topic's overrides in {@code /config/topics/<t>} before its assignment in {@code /brokers/topics/<t>}
 * (created through {@link TopicAdmin}, which the controller watches), added partitions as a rewrite of the assignment
 * at the version read, deletions under {@code /admin/delete_topics}.
 *
 * <p>Thread-safe (stateless apart from the store it reaches).
 */
final class ZkAdminStore implements AdminStore {
    private final Supplier<KafkaZkStore> store;
    private final Supplier<TopicAdmin> admin;

    /**
     * @param store the broker's ZooKeeper store (read at each call: the broker's session may be replaced)
     * @param admin topic administration over that store
     */
    ZkAdminStore(final Supplier<KafkaZkStore> store, final Supplier<TopicAdmin> admin) {
        this.store = store;
        this.admin = admin;
    }

    @Override
    public Map<Integer, Optional<String>> brokers() {
        final Map<Integer, Optional<String>> racks = new TreeMap<>();
        for (final BrokerInfo b : store.get().brokers(null).values()) {
            racks.put(b.id(), b.registration().rack());
        }
        return racks;
    }

    @Override
    public Set<String> topics() {
        return store.get().topics(null);
    }

    @Override
    public Set<String> topicsMarkedForDeletion() {
        return store.get().topicDeletions(null);
    }

    @Override
    public Optional<TopicState> topic(final String topic) {
        return store.get().topicAssignment(topic, null).map(v -> new TopicState(v.value().partitions(),
            v.value().topicId(), !v.value().addingReplicas().isEmpty() || !v.value().removingReplicas().isEmpty(),
            v.version()));
    }

    @Override
    public Optional<String> topicNameById(final String topicId) {
        final KafkaZkStore s = store.get();
        for (final String topic : s.topics(null)) {
            final Optional<Versioned<TopicAssignmentZnode>> a = s.topicAssignment(topic, null);
            if (a.isPresent() && a.get().value().topicId().filter(topicId::equals).isPresent()) {
                return Optional.of(topic);
            }
        }
        return Optional.empty();
    }

    @Override
    public Map<String, String> topicConfig(final String topic) {
        return store.get().admin().topicConfig(topic).map(TopicConfigZnode::config).orElse(Map.of());
    }

    @Override
    public void changeTopicConfig(final String topic, final Map<String, String> configs) {
        store.get().admin().changeTopicConfig(topic, new TopicConfigZnode(configs));
    }

    @Override
    public void createTopic(final String topic, final Map<Integer, List<Integer>> assignment,
                            final Map<String, String> configs) {
        final KafkaZkStore s = store.get();
        if (s.topicAssignment(topic, null).isPresent()) {
            throw new TopicExistsException(topic); // never overwrite a live topic's configuration
        }
        // Kafka's order: the configuration first, so the topic never exists without it.
        s.admin().setTopicConfig(topic, new TopicConfigZnode(configs));
        admin.get().createTopic(topic, assignment);
    }

    @Override
    public boolean addPartitions(final String topic, final TopicState read, final Map<Integer, List<Integer>> added) {
        final KafkaZkStore s = store.get();
        final Optional<Versioned<TopicAssignmentZnode>> current = s.topicAssignment(topic, null);
        if (current.isEmpty() || current.get().version() != read.version()) {
            return false;
        }
        final TopicAssignmentZnode was = current.get().value();
        final Map<Integer, List<Integer>> all = new TreeMap<>(was.partitions());
        all.putAll(added);
        try {
            s.setTopicAssignment(topic, new TopicAssignmentZnode(all, was.addingReplicas(), was.removingReplicas(),
                was.topicId()), read.version());
            return true;
        } catch (final ZkException e) {
            if (e.error() == ZkError.BAD_VERSION || e.error() == ZkError.NO_NODE) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void deleteTopic(final String topic) {
        admin.get().deleteTopic(topic);
    }
}
