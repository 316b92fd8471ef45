package io.seglog.replication.zk;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * <p>Thread-safe (stateless apart from the client).
 */
public final class KafkaZkStore {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaZkStore.class);
    private static final byte[] EMPTY = new byte[0];

    private final ZkConnection zk;
    private final AdminZkStore admin;
    /** KAFKA-6082: every controller write checks the controller epoch's version. Off only in a simulation's proof. */
    private final boolean fenced;

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
        this.fenced = fenced;
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
        final String path = ZkPaths.brokerPath(registration.id());
        final byte[] json = registration.toJson();
        final long deadlineNs = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        long toldOwner = 0;
        while (true) {
            try {
                // create + setData in one multi: the setData result carries the stat, hence the czxid.
                final List<ZkStat> stats = zk.multi(List.of(new ZkOp.Create(path, EMPTY, true),
                    new ZkOp.SetData(path, json, 0)));
                return stats.get(1).czxid();
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
            final Optional<ZkNode> existing = zk.getData(path, null);
            if (existing.isEmpty()) {
                continue;
            }
            final ZkStat stat = existing.get().stat();
            final long owner = stat.ephemeralOwner();
            if (owner == zk.sessionId()) {
                // A retry after CONNECTIONLOSS: our own create had landed.
                if (!java.util.Arrays.equals(existing.get().data(), json)) {
                    zk.setData(path, json, stat.version());
                }
                return stat.czxid();
            }
            if (owner != 0 && owner == previousSessionId) {
                LOG.info("Deleting {} left by this broker's expired session 0x{}", path, Long.toHexString(owner));
                try {
                    zk.delete(path, stat.version());
                } catch (final ZkException e) {
                    if (e.error() != ZkError.NO_NODE && e.error() != ZkError.BAD_VERSION) {
                        throw e;
                    }
                }
                continue;
            }
            final long remainingNs = deadlineNs - nanoClock.getAsLong();
            if (remainingNs <= 0) {
                throw new ZkException(ZkError.NODE_EXISTS, path, new IllegalStateException("broker.id="
                    + registration.id() + " is registered by another live session 0x" + Long.toHexString(owner)));
            }
            if (owner != toldOwner) {
                // Once per holder, not per wait: a previous process of this broker whose session has not expired yet,
                // or another live broker with this id (then this one never registers).
                LOG.info("{} is held by session 0x{} (this broker's previous process, or another broker with broker.id="
                    + "{}); waiting up to {} ms for it to go", path, Long.toHexString(owner), registration.id(),
                    TimeUnit.NANOSECONDS.toMillis(remainingNs));
                toldOwner = owner;
            }
            awaitDeletion(path, remainingNs);
        }
    }

    private void awaitDeletion(final String path, final long timeoutNs) {
        final CountDownLatch changed = new CountDownLatch(1);
        if (zk.exists(path, p -> changed.countDown()).isEmpty()) {
            return;
        }
        try {
            changed.await(Math.min(timeoutNs, TimeUnit.MILLISECONDS.toNanos(zk.requestTimeoutMs())),
                TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException(ZkError.OTHER, path, e);
        }
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
        final List<String> children = zk.children(ZkPaths.BROKER_IDS, watch).orElse(List.of());
        final Map<Integer, CompletableFuture<Optional<ZkNode>>> pending = new LinkedHashMap<>();
        for (final String child : children) {
            final int id;
            try {
                id = ZkPaths.brokerIdFromChild(child);
            } catch (final MalformedZnodeException e) {
                logMalformed(e);
                continue;
            }
            pending.put(id, zk.getDataAsync(ZkPaths.brokerPath(id), null));
        }
        final Map<Integer, BrokerInfo> brokers = new HashMap<>();
        final long deadlineNs = deadlineNs();
        for (final Map.Entry<Integer, CompletableFuture<Optional<ZkNode>>> e : pending.entrySet()) {
            final Optional<ZkNode> node = awaitBy(e.getValue(), ZkPaths.brokerPath(e.getKey()), deadlineNs);
            if (node.isEmpty()) {
                continue;
            }
            try {
                brokers.put(e.getKey(), new BrokerInfo(BrokerRegistration.fromJson(e.getKey(), node.get().data()),
                    node.get().stat().czxid()));
            } catch (final MalformedZnodeException ex) {
                logMalformed(ex);
            }
        }
        return brokers;
    }

    /**
     * Reads one broker's registration.
     *
     * @param id the broker id
     * @return the broker, or empty when it is not registered (or its registration cannot be parsed, logged)
     * @throws ZkException on failure
     */
    public Optional<BrokerInfo> broker(final int id) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.brokerPath(id), null);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new BrokerInfo(BrokerRegistration.fromJson(id, node.get().data()),
                node.get().stat().czxid()));
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            return Optional.empty();
        }
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
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER, watch);
        if (node.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(ControllerZnode.fromJson(node.get().data()).brokerId());
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            return OptionalInt.of(-1);
        }
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
        Optional<ZkNode> epochNode = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
        if (epochNode.isEmpty()) {
            try {
                zk.create(ZkPaths.CONTROLLER_EPOCH, ControllerEpochZnode.toBytes(ControllerEpochZnode.INITIAL_EPOCH),
                    false);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
            epochNode = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
            if (epochNode.isEmpty()) {
                return Optional.empty();
            }
        }
        final int epoch = parseEpoch(epochNode.get());
        final int newEpoch = epoch + 1;
        try {
            final List<ZkStat> stats = zk.multi(List.of(
                new ZkOp.Create(ZkPaths.CONTROLLER, new ControllerZnode(brokerId, timestampMs).toJson(), true),
                new ZkOp.SetData(ZkPaths.CONTROLLER_EPOCH, ControllerEpochZnode.toBytes(newEpoch),
                    epochNode.get().stat().version())));
            return Optional.of(new ControllerElection(newEpoch, stats.get(1).version()));
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS && e.error() != ZkError.BAD_VERSION
                && e.error() != ZkError.CONNECTION_LOSS && e.error() != ZkError.TIMEOUT) {
                throw e;
            }
            // A retried multi may have landed the first time: if /controller is ours at newEpoch, we won.
            final OptionalInt current = controllerId(null);
            final Optional<ZkNode> after = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
            if (current.isPresent() && current.getAsInt() == brokerId && after.isPresent()
                && parseEpoch(after.get()) == newEpoch) {
                return Optional.of(new ControllerElection(newEpoch, after.get().stat().version()));
            }
            return Optional.empty();
        }
    }

    private static int parseEpoch(final ZkNode node) {
        try {
            return ControllerEpochZnode.fromBytes(node.data());
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            throw new ZkException(ZkError.OTHER, ZkPaths.CONTROLLER_EPOCH, e);
        }
    }

    /**
     * The zxid at or below which every broker registration made so far was created: {@code /brokers/ids}'s pzxid.
     * A registration made after this read has a larger czxid (a larger broker epoch).
     *
     * @return the zxid, 0 when {@code /brokers/ids} does not exist
     * @throws ZkException on failure
     */
    public long registrationsUpTo() {
        return zk.exists(ZkPaths.BROKER_IDS, null).map(ZkStat::pzxid).orElse(0L);
    }

    /**
     * Reads the controller epoch.
     *
     * @return the epoch and the znode's version, or empty when absent or malformed
     * @throws ZkException on failure
     */
    public Optional<Versioned<Integer>> controllerEpoch() {
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Versioned<>(ControllerEpochZnode.fromBytes(node.get().data()),
                node.get().stat().version()));
        } catch (final MalformedZnodeException e) {
            logMalformed(e);
            return Optional.empty();
        }
    }

    /**
     * Resigning controller: deletes {@code /controller} if it still is this controller's term (epoch-checked).
     *
     * @param epochZkVersion the fencing token
     * @throws ZkException on failure other than "already gone"
     */
    public void deleteController(final int epochZkVersion) {
        try {
            fencedMulti(epochZkVersion, List.of(new ZkOp.Delete(ZkPaths.CONTROLLER, -1)));
        } catch (final ControllerMovedException e) {
            LOG.info("Not deleting {}: {}", ZkPaths.CONTROLLER, e.getMessage());
        } catch (final ZkException e) {
            if (e.error() != ZkError.NO_NODE) {
                throw e;
            }
        }
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
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER, null);
        if (node.isEmpty() || node.get().stat().ephemeralOwner() != sessionId) {
            return false;
        }
        try {
            LOG.info("Deleting {} held by this broker's session 0x{} after it gave up the controllership",
                ZkPaths.CONTROLLER, Long.toHexString(sessionId));
            zk.delete(ZkPaths.CONTROLLER, node.get().stat().version());
            return true;
        } catch (final ZkException e) {
            if (e.error() == ZkError.NO_NODE || e.error() == ZkError.BAD_VERSION) {
                return false;
            }
            throw e;
        }
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
        return awaitFenced(fencedMultiAsync(epochZkVersion, ops), ops.isEmpty() ? "multi" : ops.get(0).path());
    }

    private CompletableFuture<List<ZkStat>> fencedMultiAsync(final int epochZkVersion, final List<ZkOp> ops) {
        final List<ZkOp> all = new ArrayList<>(ops.size() + 1);
        all.add(fenced ? new ZkOp.Check(ZkPaths.CONTROLLER_EPOCH, epochZkVersion)
            : new ZkOp.Check(ZkPaths.CONTROLLER_EPOCH, -1));
        all.addAll(ops);
        return zk.multiAsync(all).handle((stats, failure) -> {
            if (failure == null) {
                return stats.subList(1, stats.size());
            }
            final Throwable cause = failure instanceof java.util.concurrent.CompletionException ? failure.getCause()
                : failure;
            if (cause instanceof ZkException z && z.path().equals(ZkPaths.CONTROLLER_EPOCH)
                && (z.error() == ZkError.BAD_VERSION || z.error() == ZkError.NO_NODE)) {
                throw new ControllerMovedException(epochZkVersion, "writing " + ops.stream().map(ZkOp::path).toList());
            }
            throw cause instanceof RuntimeException r ? r : new ZkException(ZkError.OTHER, "multi", cause);
        });
    }

    private long deadlineNs() {
        return ZkCalls.deadlineNs(zk.requestTimeoutMs());
    }

    private <T> T awaitBy(final CompletableFuture<T> f, final String what, final long deadlineNs) {
        return ZkCalls.awaitBy(f, what, deadlineNs, zk.requestTimeoutMs());
    }

    private <T> T awaitFenced(final CompletableFuture<T> f, final String what) {
        return awaitFenced(f, what, deadlineNs());
    }

    private <T> T awaitFenced(final CompletableFuture<T> f, final String what, final long deadlineNs) {
        try {
            return awaitBy(f, what, deadlineNs);
        } catch (final ZkException e) {
            if (e.getCause() instanceof ControllerMovedException moved) {
                throw moved;
            }
            throw e;
        }
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
        final Map<TopicPartition, CompletableFuture<Optional<ZkNode>>> pending = new LinkedHashMap<>();
        for (final TopicPartition tp : partitions) {
            pending.put(tp, zk.getDataAsync(ZkPaths.partitionStatePath(tp), null));
        }
        final Map<TopicPartition, Optional<PartitionStateZnode>> states = new LinkedHashMap<>();
        final long deadlineNs = deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<Optional<ZkNode>>> e : pending.entrySet()) {
            final String path = ZkPaths.partitionStatePath(e.getKey());
            final Optional<ZkNode> node = awaitBy(e.getValue(), path, deadlineNs);
            if (node.isEmpty()) {
                states.put(e.getKey(), Optional.empty());
                continue;
            }
            try {
                states.put(e.getKey(), Optional.of(PartitionStateZnode.fromJson(path, node.get().data(),
                    node.get().stat().version())));
            } catch (final MalformedZnodeException ex) {
                logMalformed(ex);
            }
        }
        return states;
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
        final Set<String> topics = new TreeSet<>();
        states.keySet().forEach(tp -> topics.add(tp.topic()));
        final List<CompletableFuture<List<ZkStat>>> containers = new ArrayList<>();
        for (final String topic : topics) {
            containers.add(fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionsPath(topic), EMPTY, false))));
        }
        awaitIgnoringExists(containers);
        containers.clear();
        for (final TopicPartition tp : states.keySet()) {
            containers.add(fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionPath(tp), EMPTY, false))));
        }
        awaitIgnoringExists(containers);
        final Map<TopicPartition, CompletableFuture<List<ZkStat>>> pending = new LinkedHashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateZnode> e : states.entrySet()) {
            pending.put(e.getKey(), fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionStatePath(e.getKey()), e.getValue().toJson(), false))));
        }
        final Set<TopicPartition> created = new TreeSet<>(KafkaZkStore::compare);
        final long deadlineNs = deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<List<ZkStat>>> e : pending.entrySet()) {
            try {
                awaitFenced(e.getValue(), ZkPaths.partitionStatePath(e.getKey()), deadlineNs);
                created.add(e.getKey());
            } catch (final ZkException ex) {
                if (ex.error() != ZkError.NODE_EXISTS) {
                    throw ex;
                }
            }
        }
        return created;
    }

    private void awaitIgnoringExists(final List<CompletableFuture<List<ZkStat>>> futures) {
        final long deadlineNs = deadlineNs();
        for (final CompletableFuture<List<ZkStat>> f : futures) {
            try {
                awaitFenced(f, "create", deadlineNs);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
        }
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
        final Map<TopicPartition, CompletableFuture<List<ZkStat>>> pending = new LinkedHashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateZnode> e : states.entrySet()) {
            pending.put(e.getKey(), fencedMultiAsync(epochZkVersion, List.of(new ZkOp.SetData(
                ZkPaths.partitionStatePath(e.getKey()), e.getValue().toJson(),
                e.getValue().leaderAndIsr().partitionEpoch()))));
        }
        final Map<TopicPartition, LeaderAndIsr> written = new LinkedHashMap<>();
        final long deadlineNs = deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<List<ZkStat>>> e : pending.entrySet()) {
            try {
                final List<ZkStat> stats = awaitFenced(e.getValue(), ZkPaths.partitionStatePath(e.getKey()), deadlineNs);
                written.put(e.getKey(), states.get(e.getKey()).leaderAndIsr().withPartitionEpoch(stats.get(0).version()));
            } catch (final ZkException ex) {
                if (ex.error() != ZkError.BAD_VERSION && ex.error() != ZkError.NO_NODE) {
                    throw ex;
                }
            }
        }
        return written;
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
        final LeaderAndIsr next = current.leaderAndIsr().newIsr(isr);
        final PartitionStateZnode written = new PartitionStateZnode(next, current.controllerEpoch(),
            current.leaderRecovering());
        final ZkStat stat = zk.setData(ZkPaths.partitionStatePath(tp), written.toJson(),
            current.leaderAndIsr().partitionEpoch());
        zk.multi(List.of(new ZkOp.CreateSequential(ZkPaths.isrChangeSequencePrefix(),
            new IsrChangeNotificationZnode(Set.of(tp)).toJson())));
        return new PartitionStateZnode(next.withPartitionEpoch(stat.version()), current.controllerEpoch(),
            current.leaderRecovering());
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
        final Map<String, Set<TopicPartition>> result = new TreeMap<>();
        for (final String child : zk.children(ZkPaths.ISR_CHANGE, watch).orElse(List.of())) {
            final String path;
            try {
                path = ZkPaths.isrChangePath(child);
            } catch (final IllegalArgumentException e) {
                LOG.warn("Skipping {}/{}: {}", ZkPaths.ISR_CHANGE, child, e.getMessage());
                continue;
            }
            final Optional<ZkNode> node = zk.getData(path, null);
            if (node.isEmpty()) {
                continue;
            }
            try {
                result.put(child, IsrChangeNotificationZnode.fromJson(path, node.get().data()).partitions());
            } catch (final MalformedZnodeException e) {
                logMalformed(e);
                result.put(child, Set.of());
            }
        }
        return result;
    }

    /**
     * Controller: deletes processed ISR change notifications, epoch-fenced.
     *
     * @param children       the notification child names
     * @param epochZkVersion the fencing token
     * @throws ControllerMovedException when fenced
     */
    public void deleteIsrChangeNotifications(final Collection<String> children, final int epochZkVersion) {
        final List<CompletableFuture<List<ZkStat>>> pending = new ArrayList<>();
        for (final String child : children) {
            pending.add(fencedMultiAsync(epochZkVersion, List.of(new ZkOp.Delete(ZkPaths.isrChangePath(child), -1))));
        }
        final long deadlineNs = deadlineNs();
        for (final CompletableFuture<List<ZkStat>> f : pending) {
            try {
                awaitFenced(f, ZkPaths.ISR_CHANGE, deadlineNs);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NO_NODE) {
                    throw e;
                }
            }
        }
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
