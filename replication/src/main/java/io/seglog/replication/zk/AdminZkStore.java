package io.seglog.replication.zk;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kafka's topic-configuration overrides ({@code /config/topics/<topic>}), partition-reassignment request
 * ({@code /admin/reassign_partitions}) and the dropping of stale {@code /admin/delete_topics} entries over a {@link KafkaZkStore}'s session; controller writes are fenced by the
 * controller epoch like every other ({@link KafkaZkStore#fencedMulti}). Malformed payloads are logged with their
 * path and read as absent (configuration) or empty (request). Obtained from {@link KafkaZkStore#admin()}.
 *
 * <p>Thread-safe (stateless apart from the store).
 */
public final class AdminZkStore {
    private final KafkaZkStore store;

    AdminZkStore(final KafkaZkStore store) {
        this.store = store;
    }

    /**
     * Reads a topic's configuration overrides ({@code /config/topics/<topic>}).
     *
     * @param topic the topic
     * @return the overrides; empty when the znode is absent, or malformed (logged with its path)
     * @throws ZkException on failure
     */
    public Optional<TopicConfigZnode> topicConfig(final String topic) {
        final String path = ZkPaths.topicConfigPath(topic);
        final Optional<ZkNode> node = store.client().getData(path, null);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(TopicConfigZnode.fromJson(path, node.get().data()));
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            return Optional.empty();
        }
    }

    /**
     * Admin: creates or replaces a topic's configuration overrides, without a change notification: Kafka's order at
     * topic creation (the configuration is written before the topic exists, and each broker reads it when it creates
     * the topic's logs). A change to an existing topic goes through {@link #changeTopicConfig}.
     *
     * @param topic  the topic
     * @param config the overrides
     * @throws ZkException on failure
     */
    public void setTopicConfig(final String topic, final TopicConfigZnode config) {
        final String path = ZkPaths.topicConfigPath(topic);
        try {
            store.client().create(path, config.toJson(), false);
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS) {
                throw e;
            }
            store.client().setData(path, config.toJson(), -1);
        }
    }

    /**
     * Admin: replaces a topic's configuration overrides and tells every broker, as Kafka's
     * {@code AdminZkClient.changeTopicConfig} does: the znode and a persistent-sequential
     * {@code /config/changes/config_change_<seq>} ({@code {"version":2,"entity_path":"topics/<topic>"}}) in one
     * ZooKeeper transaction, so no broker sees the one without the other.
     *
     * @param topic  the topic
     * @param config the overrides (the whole set: names absent from it fall back to the broker's defaults)
     * @throws ZkException on failure
     */
    public void changeTopicConfig(final String topic, final TopicConfigZnode config) {
        final String path = ZkPaths.topicConfigPath(topic);
        final ZkOp notify = new ZkOp.CreateSequential(ZkPaths.configChangeSequencePrefix(),
            ConfigChangeNotificationZnode.topic(topic).toJson());
        final boolean exists = store.client().exists(path, null).isPresent();
        try {
            store.client().multi(List.of(exists ? new ZkOp.SetData(path, config.toJson(), -1)
                : new ZkOp.Create(path, config.toJson(), false), notify));
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS && e.error() != ZkError.NO_NODE) {
                throw e;
            }
            // Created or deleted meanwhile by another writer: once more with the other operation.
            store.client().multi(List.of(exists ? new ZkOp.Create(path, config.toJson(), false)
                : new ZkOp.SetData(path, config.toJson(), -1), notify));
        }
    }

    /**
     * Broker: reads the config change notifications and leaves a children watch on {@code /config/changes}.
     *
     * @param watch the watch, or null
     * @return notification child name to its payload, in sequence order (malformed ones logged and left out)
     * @throws ZkException on failure
     */
    public java.util.SortedMap<String, ConfigChangeNotificationZnode> configChangeNotifications(final ZkWatch watch) {
        final java.util.SortedMap<String, ConfigChangeNotificationZnode> result = new java.util.TreeMap<>();
        for (final String child : store.client().children(ZkPaths.CONFIG_CHANGES, watch).orElse(List.of())) {
            final String path;
            try {
                path = ZkPaths.configChangePath(child);
            } catch (final IllegalArgumentException e) {
                continue; // not a notification (Kafka skips other names too)
            }
            final Optional<ZkNode> node = store.client().getData(path, null);
            if (node.isEmpty()) {
                continue; // purged meanwhile
            }
            try {
                result.put(child, ConfigChangeNotificationZnode.fromJson(path, node.get().data()));
            } catch (final MalformedZnodeException e) {
                KafkaZkStore.logMalformed(e);
            }
        }
        return result;
    }

    /**
     * Reads a pending partition-reassignment request and leaves an exists-watch on its path.
     *
     * @param watch the watch, or null
     * @return the request, or empty when there is none; a malformed one (logged) reads as an empty request
     * @throws ZkException on failure
     */
    public Optional<ReassignPartitionsZnode> reassignmentRequest(final ZkWatch watch) {
        final Optional<ZkNode> node = store.client().getData(ZkPaths.REASSIGN, watch);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ReassignPartitionsZnode.fromJson(node.get().data()));
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            return Optional.of(new ReassignPartitionsZnode(Map.of()));
        }
    }

    /**
     * Admin: asks the controller to move partitions to new replica lists.
     *
     * @param request the targets
     * @throws ZkException {@link ZkError#NODE_EXISTS} when a request is already pending
     */
    public void requestReassignment(final ReassignPartitionsZnode request) {
        store.client().create(ZkPaths.REASSIGN, request.toJson(), false);
    }

    /**
     * Controller: rewrites the reassignment request with what remains, or deletes it when nothing does,
     * epoch-fenced.
     *
     * @param remaining      the partitions still to reassign
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on failure other than "already gone"
     */
    public void updateReassignmentRequest(final ReassignPartitionsZnode remaining, final int epochZkVersion) {
        try {
            store.fencedMulti(epochZkVersion, List.of(remaining.reassignments().isEmpty()
                ? new ZkOp.Delete(ZkPaths.REASSIGN, -1)
                : new ZkOp.SetData(ZkPaths.REASSIGN, remaining.toJson(), -1)));
        } catch (final ZkException e) {
            if (e.error() != ZkError.NO_NODE) {
                throw e;
            }
        }
    }

    /**
     * Controller: replaces a topic's assignment (during a reassignment) at the version read, epoch-fenced, so that
     * partitions an admin added meanwhile are not overwritten.
     *
     * @param topic          the topic
     * @param assignment     the new assignment
     * @param version        the version read
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on failure ({@link ZkError#BAD_VERSION} when it changed meanwhile)
     */
    public void setTopicAssignmentFenced(final String topic, final TopicAssignmentZnode assignment, final int version,
                                         final int epochZkVersion) {
        store.fencedMulti(epochZkVersion, List.of(new ZkOp.SetData(ZkPaths.topicPath(topic), assignment.toJson(), version)));
    }

    /**
     * Controller: removes deletion requests for topics that do not exist (Kafka drops them), including requests
     * whose name is not a legal topic name (written by another client), epoch-fenced.
     *
     * @param topics         the children of {@code /admin/delete_topics} to remove, as listed
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on failure other than "already gone"
     */
    public void deleteTopicDeletionRequests(final Collection<String> topics, final int epochZkVersion) {
        for (final String topic : topics) {
            try {
                store.fencedMulti(epochZkVersion, List.of(new ZkOp.Delete(ZkPaths.deleteTopicRequestPath(topic), -1)));
            } catch (final ZkException e) {
                if (e.error() != ZkError.NO_NODE) {
                    throw e;
                }
            }
        }
    }
}
