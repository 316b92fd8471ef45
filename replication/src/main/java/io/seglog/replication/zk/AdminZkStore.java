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
     * Admin: creates or replaces a topic's configuration overrides. (Kafka also writes a change notification under
     * {@code /config/changes} for brokers; the controller reads the znode itself when it needs a value.)
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
