package io.seglog.replication.zk;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's ZooKeeper-mode layout on top of a {@link ZkConnection}: broker registration, controller election, topic
 * assignments, partition states and admin requests, each in Kafka's JSON.
 *
 * <p>Fencing: every controller write goes through {@link #fencedMulti}, which prepends
 * {@code check(/controller_epoch, epochZkVersion)} so that a controller whose term has ended changes nothing
 * ({@link ControllerMovedException}). Partition states are also written at their expected version (the
 * partition epoch), so a concurrent writer is detected and the election retried.
 *
 * <p>Malformed payloads written by other clients are logged with their path and skipped; they never throw out of
 * a read.
 *
 * <p>This class is the one entry point for the znodes; it keeps the topics, admin requests, cluster id and producer
 * id blocks itself and hands the other families to package-private classes, none of which holds state beyond the
 * connection: {@code BrokerZnodes} (registrations), {@code ControllerZnodes} (the seat and the epoch),
 * {@code PartitionStateZnodes} (partition states and ISR change notifications) and {@code FencedWrites}, which owns
 * the fence's on/off switch and the waits for ZooKeeper's answers; {@link AdminZkStore} holds topic configurations
 * and reassignments.
 *
 * <p>Thread-safe (stateless apart from the client).
 */
public final class KafkaZkStore {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaZkStore.class);
    private static final byte[] EMPTY = new byte[0];

    private final ZkConnection zk;
    private final FencedWrites fencing;
    private final BrokerZnodes brokerZnodes;
    private final ControllerZnodes controllerZnodes;
    private final PartitionStateZnodes partitionStateZnodes;
    private final AdminZkStore admin;

    /**
     * Wraps a connection.
     *
     * @param zk the connection ({@link ZkClient} in production; not owned: the caller closes it)
     */
    public KafkaZkStore(final ZkConnection zk) {
        this(zk, true);
    }

    /**
     * Wraps a connection, with the controller-epoch check on writes on or off. Off is Kafka before KAFKA-6082 (a
     * controller that lost its session keeps writing until it hears that it did); only the deterministic simulation
     * turns it off, to prove that it finds what the check prevents.
     *
     * @param zk     the connection (not owned)
     * @param fenced whether every controller write is fenced by the controller epoch's znode version
     */
    public KafkaZkStore(final ZkConnection zk, final boolean fenced) {
        this.zk = zk;
        this.fencing = new FencedWrites(zk, fenced);
        this.brokerZnodes = new BrokerZnodes(zk, fencing);
        this.controllerZnodes = new ControllerZnodes(zk, fencing);
        this.partitionStateZnodes = new PartitionStateZnodes(zk, fencing);
        this.admin = new AdminZkStore(this);
    }

    /**
     * The underlying connection.
     *
     * @return the connection
     */
    public ZkConnection client() {
        return zk;
    }

    /**
     * The topic-configuration and reassignment znodes over the same session.
     *
     * @return a view sharing this store's client
     */
    public AdminZkStore admin() {
        return admin;
    }

    /**
     * Creates Kafka's persistent paths if absent (Kafka does this at every broker start).
     *
     * @throws ZkException when one cannot be created
     */
    public void createPersistentPaths() {
        zk.ensurePersistentPaths(ZkPaths.PERSISTENT_PATHS);
    }

    // ---------------------------------------------------------------------------------------------- brokers

    /**
     * Registers this broker: creates the ephemeral {@code /brokers/ids/<id>} as Kafka's {@code checkedEphemeralCreate}
     * does. When the znode exists, it is this session's (an earlier attempt landed: keep it), or an expired
     * session's: deleted at once when it is {@code previousSessionId}'s, else waited for until ZooKeeper removes it
     * (ZOOKEEPER-2985 / KAFKA-7165).
     *
     * @param registration      the payload
     * @param previousSessionId the session this broker had before an expiry, 0 if none
     * @param waitMs            how long to wait for a foreign ephemeral to go
     * @param nanoClock         monotonic clock for the wait
     * @return the broker epoch (the znode's czxid)
     * @throws ZkException {@link ZkError#NODE_EXISTS} when a live foreign session keeps the id past the wait
     */
    public long registerBroker(final BrokerRegistration registration, final long previousSessionId, final long waitMs,
                               final LongSupplier nanoClock) {
        return brokerZnodes.registerBroker(registration, previousSessionId, waitMs, nanoClock);
    }

    /**
     * Reads the live brokers and leaves a child watch on {@code /brokers/ids}. Registrations that cannot be parsed
     * are logged and left out.
     *
     * @param watch the child watch, or null
     * @return broker id to broker
     * @throws ZkException on failure
     */
    public Map<Integer, BrokerInfo> brokers(final ZkWatch watch) {
        return brokerZnodes.brokers(watch);
    }

    /**
     * Reads one broker's registration.
     *
     * @param id the broker id
     * @return the broker, or empty when it is not registered (or its registration cannot be parsed, logged)
     * @throws ZkException on failure
     */
    public Optional<BrokerInfo> broker(final int id) {
        return brokerZnodes.broker(id);
    }

    // ------------------------------------------------------------------------------------------ controller

    /**
     * Reads {@code /controller} and leaves an exists-watch on it (fires on create, change and delete).
     *
     * @param watch the watch, or null
     * @return the controller's broker id; {@code -1} when a controller znode exists but cannot be parsed; empty
     *         when there is no controller
     * @throws ZkException on failure
     */
    public OptionalInt controllerId(final ZkWatch watch) {
        return controllerZnodes.controllerId(watch);
    }

    /**
     * Tries to become controller: one atomic {@code multi(create ephemeral /controller, setData /controller_epoch
     * at the version read)}. Creates {@code /controller_epoch} as {@code 0} when absent.
     *
     * @param brokerId    this broker
     * @param timestampMs wall-clock time for the payload
     * @return the new epoch and fencing token, or empty when another broker is controller or won the race
     * @throws ZkException on failure (including a malformed {@code /controller_epoch}, which stops elections)
     */
    public Optional<ControllerElection> tryElectController(final int brokerId, final long timestampMs) {
        return controllerZnodes.tryElectController(brokerId, timestampMs);
    }

    /**
     * The zxid at or below which every broker registration made so far was created: {@code /brokers/ids}'s pzxid.
     * A registration made after this read has a larger czxid (a larger broker epoch).
     *
     * @return the zxid, 0 when {@code /brokers/ids} does not exist
     * @throws ZkException on failure
     */
    public long registrationsUpTo() {
        return brokerZnodes.registrationsUpTo();
    }

    /**
     * Reads the controller epoch.
     *
     * @return the epoch and the znode's version, or empty when absent or malformed
     * @throws ZkException on failure
     */
    public Optional<Versioned<Integer>> controllerEpoch() {
        return controllerZnodes.controllerEpoch();
    }

    /**
     * Resigning controller: deletes {@code /controller} if it still is this controller's term (epoch-checked).
     *
     * @param epochZkVersion the fencing token
     * @throws ZkException on failure other than "already gone"
     */
    public void deleteController(final int epochZkVersion) {
        controllerZnodes.deleteController(epochZkVersion);
    }

    /**
     * Deletes {@code /controller} if it is an ephemeral of the given session (a controller that resigned locally
     * after an error, but whose znode still names it, frees the seat this way).
     *
     * @param sessionId the owning session
     * @return whether it was deleted
     * @throws ZkException on failure
     */
    public boolean deleteControllerIfOwnedBy(final long sessionId) {
        return controllerZnodes.deleteControllerIfOwnedBy(sessionId);
    }

    /**
     * Runs controller writes atomically behind {@code check(/controller_epoch, epochZkVersion)}.
     *
     * @param epochZkVersion the fencing token from {@link ControllerElection#epochZkVersion()}
     * @param ops            the writes
     * @return the stats of {@code ops} (the check's is dropped)
     * @throws ControllerMovedException when the check fails: this controller must resign
     * @throws ZkException              when one of {@code ops} fails
     */
    List<ZkStat> fencedMulti(final int epochZkVersion, final List<ZkOp> ops) {
        return fencing.fencedMulti(epochZkVersion, ops);
    }

    // --------------------------------------------------------------------------------------------- topics

    /**
     * Lists the topics and leaves a child watch on {@code /brokers/topics}.
     *
     * @param watch the watch, or null
     * @return topic names; invalid names are logged and left out
     * @throws ZkException on failure
     */
    public Set<String> topics(final ZkWatch watch) {
        final Set<String> topics = new TreeSet<>();
        for (final String t : zk.children(ZkPaths.TOPICS, watch).orElse(List.of())) {
            try {
                io.seglog.storage.TopicPartition.validateTopic(t);
                topics.add(t);
            } catch (final IllegalArgumentException e) {
                LOG.warn("Skipping {}/{}: {}", ZkPaths.TOPICS, t, e.getMessage());
            }
        }
        return topics;
    }

    /**
     * Reads a topic's replica assignment and leaves a data watch on it.
     *
     * @param topic the topic
     * @param watch the watch, or null
     * @return the assignment with the znode version; empty when absent or malformed (logged)
     * @throws ZkException on failure
     */
    public Optional<Versioned<TopicAssignmentZnode>> topicAssignment(final String topic, final ZkWatch watch) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.topicPath(topic), watch);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Versioned<>(TopicAssignmentZnode.fromJson(topic, node.get().data()),
                node.get().stat().version()));
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            return Optional.empty();
        }
    }

    /**
     * Admin: creates {@code /brokers/topics/<topic>} with its assignment (the controller creates the partitions).
     *
     * @param topic      the topic
     * @param assignment partition to replicas, preferred leader first
     * @throws ZkException {@link ZkError#NODE_EXISTS} when the topic exists
     */
    public void createTopic(final String topic, final Map<Integer, List<Integer>> assignment) {
        zk.create(ZkPaths.topicPath(topic), new TopicAssignmentZnode(assignment).toJson(), false);
    }

    /**
     * Admin: creates {@code /brokers/topics/<topic>} with its assignment and topic id (Kafka's
     * {@code AdminZkClient.createTopicWithAssignment} since KIP-516).
     *
     * @param topic      the topic
     * @param assignment partition to replicas, preferred leader first
     * @param topicId    the new topic's id, Kafka's base64 text
     * @throws ZkException {@link ZkError#NODE_EXISTS} when the topic exists
     */
    public void createTopic(final String topic, final Map<Integer, List<Integer>> assignment, final String topicId) {
        zk.create(ZkPaths.topicPath(topic), new TopicAssignmentZnode(assignment, Map.of(), Map.of(),
            Optional.of(topicId)).toJson(), false);
    }

    /**
     * Admin: replaces a topic's assignment at an expected version (adding partitions).
     *
     * @param topic      the topic
     * @param assignment the new assignment
     * @param version    the version read
     * @throws ZkException {@link ZkError#BAD_VERSION} when it changed meanwhile
     */
    public void setTopicAssignment(final String topic, final TopicAssignmentZnode assignment, final int version) {
        zk.setData(ZkPaths.topicPath(topic), assignment.toJson(), version);
    }

    /**
     * Lists pending topic deletions and leaves a child watch on {@code /admin/delete_topics}.
     *
     * @param watch the watch, or null
     * @return the children as listed: topics whose deletion was requested, and any name another client wrote that
     *     is not a legal topic (it names no topic, so the controller drops it as a request for an unknown topic)
     * @throws ZkException on failure
     */
    public Set<String> topicDeletions(final ZkWatch watch) {
        return new TreeSet<>(zk.children(ZkPaths.DELETE_TOPICS, watch).orElse(List.of()));
    }

    /**
     * Admin: requests a topic's deletion.
     *
     * @param topic the topic
     * @throws ZkException on failure other than "already requested"
     */
    public void requestTopicDeletion(final String topic) {
        try {
            zk.create(ZkPaths.deleteTopicPath(topic), EMPTY, false);
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS) {
                throw e;
            }
        }
    }

    /**
     * Controller: removes a topic's znodes (states, partitions, assignment, configuration overrides) and its deletion
     * request, atomically and epoch-fenced.
     *
     * @param topic          the topic
     * @param partitions     its partition numbers
     * @param withStates     the partitions whose state znode exists
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on failure
     */
    public void deleteTopic(final String topic, final Collection<Integer> partitions, final Set<Integer> withStates,
                            final int epochZkVersion) {
        final List<ZkOp> ops = new ArrayList<>();
        final Optional<List<String>> partitionChildren = zk.children(ZkPaths.partitionsPath(topic), null);
        for (final String child : partitionChildren.orElse(List.of())) {
            final int p;
            try {
                p = ZkPaths.partitionFromChild(topic, child);
            } catch (final MalformedZnodeException e) {
                logMalformed(e);
                continue;
            }
            final String partitionPath = ZkPaths.partitionPath(topic, p);
            for (final String leaf : zk.children(partitionPath, null).orElse(List.of())) {
                ops.add(new ZkOp.Delete(partitionPath + "/" + leaf, -1));
            }
            ops.add(new ZkOp.Delete(partitionPath, -1));
        }
        if (partitionChildren.isPresent()) {
            ops.add(new ZkOp.Delete(ZkPaths.partitionsPath(topic), -1));
        }
        if (zk.exists(ZkPaths.topicPath(topic), null).isPresent()) {
            ops.add(new ZkOp.Delete(ZkPaths.topicPath(topic), -1));
        }
        if (zk.exists(ZkPaths.topicConfigPath(topic), null).isPresent()) {
            ops.add(new ZkOp.Delete(ZkPaths.topicConfigPath(topic), -1));
        }
        if (zk.exists(ZkPaths.deleteTopicPath(topic), null).isPresent()) {
            ops.add(new ZkOp.Delete(ZkPaths.deleteTopicPath(topic), -1));
        }
        if (!ops.isEmpty()) {
            fencedMulti(epochZkVersion, ops);
        }
    }

    // ---------------------------------------------------------------------------------- partition states

    /**
     * Reads partition states, all requests in flight at once.
     *
     * @param partitions the partitions
     * @return per partition: the state (its {@code partitionEpoch} = the znode version), or empty when the znode
     *         does not exist; partitions whose znode is malformed are logged and left out of the map
     * @throws ZkException on failure
     */
    public Map<TopicPartition, Optional<PartitionStateZnode>> partitionStates(final Collection<TopicPartition> partitions) {
        return partitionStateZnodes.partitionStates(partitions);
    }

    /**
     * Controller: creates the state znodes of new partitions (with their container znodes), epoch-fenced.
     *
     * @param states         the initial states
     * @param epochZkVersion the fencing token
     * @return the partitions created; absent ones already had a state znode
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on other failures
     */
    public Set<TopicPartition> createPartitionStates(final Map<TopicPartition, PartitionStateZnode> states,
                                                     final int epochZkVersion) {
        return partitionStateZnodes.createPartitionStates(states, epochZkVersion);
    }

    /**
     * Controller: writes partition states, each conditional on its expected version
     * ({@code leaderAndIsr.partitionEpoch()}) and epoch-fenced, all in flight at once.
     *
     * @param states         the new states; the partition epoch of each is the version expected in ZooKeeper
     * @param epochZkVersion the fencing token
     * @return the partitions written, with their new partition epoch; absent ones met a version conflict or a
     *         missing znode and must be re-read and retried
     * @throws ControllerMovedException when fenced
     * @throws ZkException              on other failures
     */
    public Map<TopicPartition, LeaderAndIsr> updatePartitionStates(final Map<TopicPartition, PartitionStateZnode> states,
                                                                   final int epochZkVersion) {
        return partitionStateZnodes.updatePartitionStates(states, epochZkVersion);
    }

    /**
     * Partition leader (Kafka &le; 2.6 ZooKeeper path): writes a new ISR at the state's version, keeping the leader,
     * the leader epoch and the epoch of the controller that made the leadership decision, then records an ISR
     * change notification for the controller. Not epoch-fenced: the version check is the fence.
     *
     * @param tp      the partition
     * @param current the state the leader holds (its partition epoch is the expected version)
     * @param isr     the new ISR
     * @return the new state with its partition epoch
     * @throws ZkException {@link ZkError#BAD_VERSION} when the state changed (a controller wrote a new leader):
     *                     the leader must wait for the controller's LeaderAndIsr
     */
    public PartitionStateZnode updateIsrAsLeader(final TopicPartition tp, final PartitionStateZnode current,
                                                 final List<Integer> isr) {
        return partitionStateZnodes.updateIsrAsLeader(tp, current, isr);
    }

    /**
     * The cluster id: read from {@code /cluster/id}, or created there with {@code proposed} when no broker has yet
     * (Kafka's {@code getOrGenerateClusterId}: create, and on NODEEXISTS read).
     *
     * @param proposed the id to create when there is none
     * @return the cluster's id
     * @throws ZkException on failure
     * @throws MalformedZnodeException when the znode holds something else than Kafka's format
     */
    public String getOrCreateClusterId(final String proposed) throws MalformedZnodeException {
        zk.ensurePersistentPaths(List.of(ZkPaths.CLUSTER));
        try {
            zk.create(ZkPaths.CLUSTER_ID, ClusterIdZnode.toJson(proposed), false);
            return proposed;
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS) {
                throw e;
            }
        }
        final Optional<ZkNode> node = zk.getData(ZkPaths.CLUSTER_ID, null);
        if (node.isEmpty()) {
            throw new ZkException(ZkError.NO_NODE, ZkPaths.CLUSTER_ID, null);
        }
        return ClusterIdZnode.fromJson(node.get().data());
    }

    /**
     * Controller: reads the pending ISR change notifications and leaves a child watch.
     *
     * @param watch the watch, or null
     * @return notification child name to the partitions it names (malformed ones map to an empty set, logged)
     * @throws ZkException on failure
     */
    public Map<String, Set<TopicPartition>> isrChangeNotifications(final ZkWatch watch) {
        return partitionStateZnodes.isrChangeNotifications(watch);
    }

    /**
     * Controller: deletes processed ISR change notifications, epoch-fenced.
     *
     * @param children       the notification child names
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     */
    public void deleteIsrChangeNotifications(final Collection<String> children, final int epochZkVersion) {
        partitionStateZnodes.deleteIsrChangeNotifications(children, epochZkVersion);
    }

    // -------------------------------------------------------------------------------- preferred election

    /**
     * Reads a pending preferred-replica-election request and leaves an exists-watch on its path.
     *
     * @param watch the watch, or null
     * @return the partitions requested, or empty when there is no request (or it is malformed: logged)
     * @throws ZkException on failure
     */
    public Optional<Set<TopicPartition>> preferredElectionRequest(final ZkWatch watch) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.PREFERRED, watch);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PreferredReplicaElectionZnode.fromJson(node.get().data()).partitions());
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            return Optional.of(Set.of());
        }
    }

    /**
     * Admin: asks the controller to move the leadership of these partitions to their preferred replicas.
     *
     * @param partitions the partitions
     * @throws ZkException {@link ZkError#NODE_EXISTS} when a request is already pending
     */
    public void requestPreferredElection(final Set<TopicPartition> partitions) {
        zk.create(ZkPaths.PREFERRED, new PreferredReplicaElectionZnode(partitions).toJson(), false);
    }

    /**
     * Controller: removes the finished preferred-election request, epoch-fenced.
     *
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     */
    public void deletePreferredElectionRequest(final int epochZkVersion) {
        try {
            fencedMulti(epochZkVersion, List.of(new ZkOp.Delete(ZkPaths.PREFERRED, -1)));
        } catch (final ZkException e) {
            if (e.error() != ZkError.NO_NODE) {
                throw e;
            }
        }
    }

    // ---------------------------------------------------------------------------------------- producer ids

    /**
     * Reserves the next block of {@link ProducerIdBlockZnode#BLOCK_SIZE} producer ids for a broker, as Kafka's
     * ZooKeeper mode does ({@code ZkProducerIdManager.getNewProducerIdBlock}): read {@code /latest_producer_id_block}
     * with its version, write the block that follows at that version, and on BADVERSION (another broker reserved one
     * meanwhile) read again. The znode is created with the first block when absent. Blocking: call it off any event
     * loop.
     *
     * @param brokerId the broker reserving the block
     * @return the block, now this broker's alone
     * @throws ZkException on a ZooKeeper failure (a write whose outcome is unknown may have used up a block; no block
     *     is ever handed out twice)
     * @throws MalformedZnodeException when the znode holds something else than Kafka's format (ids could then
     *     repeat: refused rather than guessed)
     * @throws IllegalStateException when the producer ids are exhausted
     */
    public ProducerIdBlockZnode reserveProducerIdBlock(final int brokerId) throws MalformedZnodeException {
        final String path = ZkPaths.LATEST_PRODUCER_ID_BLOCK;
        while (true) {
            final Optional<ZkNode> node = zk.getData(path, null);
            if (node.isEmpty()) {
                final ProducerIdBlockZnode first = ProducerIdBlockZnode.next(brokerId, null);
                try {
                    zk.create(path, first.toJson(), false);
                    return first;
                } catch (final ZkException e) {
                    if (e.error() != ZkError.NODE_EXISTS) {
                        throw e;
                    }
                    continue; // another broker created it: read theirs
                }
            }
            final byte[] data = node.get().data();
            final ProducerIdBlockZnode next = ProducerIdBlockZnode.next(brokerId,
                data.length == 0 ? null : ProducerIdBlockZnode.fromJson(data));
            try {
                zk.setData(path, next.toJson(), node.get().stat().version());
                return next;
            } catch (final ZkException e) {
                if (e.error() != ZkError.BAD_VERSION) {
                    throw e;
                }
                LOG.debug("{} changed under broker {} at version {}; reading it again", path, brokerId,
                    node.get().stat().version());
            }
        }
    }

    // --------------------------------------------------------------------------------------------- misc

    static int compare(final TopicPartition a, final TopicPartition b) {
        final int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }

    static void logMalformed(final MalformedZnodeException e) {
        LOG.warn("Skipping malformed znode {}: {}", e.path(), e.getMessage());
    }
}
