package io.seglog.replication.broker;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlRequestHandler;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.ReplicaStateListener;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.transport.StaleControllerEpochException;
import io.seglog.replication.transport.StaleLeaderEpochException;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies control messages on a broker, refusing stale ones as Kafka does:
 * <ul>
 *   <li>a controller epoch below the highest this broker has accepted: the whole message
 *       ({@link StaleControllerEpochException});</li>
 *   <li>a broker epoch older than this broker's current registration, or that of a registration that ended
 *       with its session: the whole message ({@link StaleBrokerEpochException}). An epoch newer than any this
 *       broker was told of is accepted, as Kafka does: the controller may see a new registration before the
 *       registering thread has set its epoch here;</li>
 *   <li>per partition of a LeaderAndIsr, a leader epoch not newer than the one held
 *       ({@link StaleLeaderEpochException} in the response).</li>
 * </ul>
 * It keeps the partitions this broker replicates and a metadata cache, and tells a {@link ReplicaStateListener}
 * (the replica layer) what to do about each accepted message, in order. Thread-safe: messages are applied under one
 * lock; the metadata cache is published as immutable snapshots, so readers (Metadata requests) never wait.
 */
public final class BrokerControlHandler implements ControlRequestHandler {
    /** Broker epoch while the broker has no registration: only messages for a newer registration are accepted. */
    static final long NO_BROKER_EPOCH = BrokerMembership.NO_BROKER_EPOCH;
    private static final Logger LOG = LoggerFactory.getLogger(BrokerControlHandler.class);

    private final int brokerId;
    /** This broker's epoch and the live brokers: read without the lock (the replica layer), written under it. */
    private final BrokerMembership membership;
    /** The largest epoch this broker was ever told of: a registration's czxid, so later ones are larger. */
    private long highestBrokerEpoch = NO_BROKER_EPOCH;
    private int controllerEpoch = -1;
    private volatile int controllerId = -1;
    private final Map<TopicPartition, PartitionStateInfo> replicas = new HashMap<>();
    /** The metadata cache: written under the lock, published whole so that readers never wait for a message. */
    private volatile Map<TopicPartition, PartitionStateInfo> metadata = Map.of();
    /** The topic ids of {@link #metadata}, both ways, published with it (see {@link #publish}). */
    private volatile TopicIdIndex topicIds = TopicIdIndex.EMPTY;
    /** Addresses of brokers named as leaders by a LeaderAndIsr that no UpdateMetadata has described yet. */
    private volatile Map<Integer, LiveBroker> leaderAddresses = Map.of();
    private final AtomicLong refused = new AtomicLong();
    private final ReplicaStateListener listener;

    /**
     * Creates the handler of one broker with a control plane only (no replicas act on its messages).
     *
     * @param brokerId the broker
     */
    BrokerControlHandler(final int brokerId) {
        this(brokerId, ReplicaStateListener.NONE);
    }

    /**
     * Creates the handler of one broker.
     *
     * @param brokerId the broker
     * @param listener told every accepted change to this broker's replicas, in order
     */
    public BrokerControlHandler(final int brokerId, final ReplicaStateListener listener) {
        this(brokerId, new BrokerMembership(), listener);
    }

    /**
     * Creates the handler of one broker, publishing its epoch and the live brokers to a membership view that the
     * replica layer, built before it, reads.
     *
     * @param brokerId   the broker
     * @param membership written by this handler only
     * @param listener   told every accepted change to this broker's replicas, in order
     */
    BrokerControlHandler(final int brokerId, final BrokerMembership membership, final ReplicaStateListener listener) {
        this.brokerId = brokerId;
        this.membership = membership;
        this.listener = listener;
    }

    /**
     * Sets the broker epoch after (re-)registration, or {@link #NO_BROKER_EPOCH} when the session is gone.
     *
     * @param epoch the registration's czxid
     */
    public synchronized void brokerEpoch(final long epoch) {
        membership.brokerEpoch(epoch);
        this.highestBrokerEpoch = Math.max(highestBrokerEpoch, epoch);
    }

    /**
     * Raises the controller epoch below which messages are refused to ZooKeeper's {@code /controller_epoch}, read
     * before this broker's handler becomes reachable. A restarted broker otherwise starts knowing no epoch, and until
     * its new registration is known it cannot tell its old registration's epoch from a new one: a deposed controller
     * that still holds the old registration (paused past its session) would have its LeaderAndIsr accepted, and the
     * broker would follow a leader ZooKeeper no longer names, which then acknowledges records on the strength of that
     * follower (found by the cluster simulation, seed 2199). Kafka avoids it by serving no request before it has
     * registered; a controller elected after the deposed one has written a higher epoch, so the deposed one's
     * messages are refused here.
     *
     * @param epoch the controller epoch read from ZooKeeper (-1 when none was ever elected)
     */
    public synchronized void controllerEpochAtLeast(final int epoch) {
        controllerEpoch = Math.max(controllerEpoch, epoch);
    }

    /**
     * Refuses control requests for every broker registration made up to a zxid, read from ZooKeeper
     * ({@code KafkaZkStore.registrationsUpTo}) before this broker's handler becomes reachable. A restarted broker
     * otherwise knows no broker epoch until it has registered, and accepts what its controller had queued for its
     * previous registration: LeaderAndIsr for a partition its previous process led, whose ISR has since grown with a
     * follower the new process never heard from. Found by the cluster simulation (seed 5840): the restarted broker led
     * again in the old leader epoch and moved its high watermark past that ISR member's log end. Kafka avoids it by
     * serving no request before it has registered; a request for the new registration (a larger czxid) is accepted
     * here even before the registering thread has set the epoch.
     *
     * @param zxid the zxid every earlier registration's czxid is at most
     */
    synchronized void registrationsUpTo(final long zxid) {
        highestBrokerEpoch = Math.max(highestBrokerEpoch, zxid);
    }

    /**
     * This broker's current epoch.
     *
     * @return the epoch, or {@link #NO_BROKER_EPOCH}
     */
    public long brokerEpoch() {
        return membership.brokerEpoch();
    }

    /**
     * The highest controller epoch accepted.
     *
     * @return the epoch, -1 before the first message
     */
    public synchronized int controllerEpoch() {
        return controllerEpoch;
    }

    /**
     * The controller whose message this broker accepted last.
     *
     * @return its broker id, -1 before the first message
     */
    public int controllerId() {
        return controllerId;
    }

    /**
     * How many messages or partitions were refused so far.
     *
     * @return the count
     */
    public long refusedCount() {
        return refused.get();
    }

    /**
     * The state of a partition this broker replicates, as the last accepted LeaderAndIsr set it.
     *
     * @param tp the partition
     * @return the state, or empty when this broker does not replicate it
     */
    public synchronized Optional<PartitionStateInfo> replica(final TopicPartition tp) {
        return Optional.ofNullable(replicas.get(tp));
    }

    /**
     * All partitions this broker replicates.
     *
     * @return a snapshot
     */
    public synchronized Map<TopicPartition, PartitionStateInfo> replicas() {
        return Collections.unmodifiableMap(new HashMap<>(replicas));
    }

    /**
     * The metadata cache: a partition's state as the last UpdateMetadata described it.
     *
     * @param tp the partition
     * @return the state, or empty when unknown
     */
    public Optional<PartitionStateInfo> metadata(final TopicPartition tp) {
        return Optional.ofNullable(metadata.get(tp));
    }

    /**
     * The whole metadata cache. Never waits for a control message being applied.
     *
     * @return an immutable snapshot: partition to its state
     */
    public Map<TopicPartition, PartitionStateInfo> metadata() {
        return metadata;
    }

    /**
     * The topic ids of the metadata cache's topics (those whose controller sent one). Never waits.
     *
     * @return an immutable snapshot: topic name to id
     */
    Map<String, TopicId> topicIds() {
        return topicIds.byName();
    }

    /**
     * The metadata cache's topics by id. Never waits.
     *
     * @return an immutable snapshot: topic id to name
     */
    Map<TopicId, String> topicNames() {
        return topicIds.byId();
    }

    /** Publishes a new metadata cache and its topic-id index (writers hold the lock). */
    private void publish(final Map<TopicPartition, PartitionStateInfo> next) {
        metadata = Collections.unmodifiableMap(new HashMap<>(next));
        topicIds = TopicIdIndex.of(next);
    }

    /** Topic ids both ways; a topic whose partitions carry no id is left out. */
    private record TopicIdIndex(Map<String, TopicId> byName, Map<TopicId, String> byId) {
        static final TopicIdIndex EMPTY = new TopicIdIndex(Map.of(), Map.of());

        static TopicIdIndex of(final Map<TopicPartition, PartitionStateInfo> states) {
            final Map<String, TopicId> byName = new HashMap<>();
            final Map<TopicId, String> byId = new HashMap<>();
            states.forEach((tp, state) -> {
                if (!state.topicId().isZero()) {
                    byName.put(tp.topic(), state.topicId());
                    byId.put(state.topicId(), tp.topic());
                }
            });
            return new TopicIdIndex(Collections.unmodifiableMap(byName), Collections.unmodifiableMap(byId));
        }
    }

    /**
     * The live brokers as the last UpdateMetadata described them.
     *
     * @return broker id to epoch
     */
    public Map<Integer, Long> liveBrokers() {
        final Map<Integer, Long> epochs = new HashMap<>();
        membership.liveBrokers().forEach((id, b) -> epochs.put(id, b.epoch()));
        return epochs;
    }

    /**
     * The live brokers with their addresses, as the last UpdateMetadata described them. Never waits.
     *
     * @return an immutable snapshot: broker id to broker
     */
    public Map<Integer, LiveBroker> liveBrokerEndpoints() {
        return membership.liveBrokers();
    }

    /**
     * Where a broker can be reached: from the last UpdateMetadata, else from a LeaderAndIsr that named it leader.
     *
     * @param id the broker
     * @return its address, or empty when no message named it
     */
    Optional<LiveBroker> endpoint(final int id) {
        final LiveBroker live = membership.liveBrokers().get(id);
        return live != null ? Optional.of(live) : Optional.ofNullable(leaderAddresses.get(id));
    }

    @Override
    public synchronized ControlResponse handle(final ControlRequest request) {
        if (request.controllerEpoch() < controllerEpoch) {
            refused.incrementAndGet();
            throw new StaleControllerEpochException("broker.id=" + brokerId + " refuses "
                + request.getClass().getSimpleName() + " from controller.id=" + request.controllerId(),
                request.controllerEpoch(), controllerEpoch);
        }
        // Kafka's rule (KafkaApis.isBrokerEpochStale): a request for the current registration is accepted, and so
        // is one for a newer registration than any this broker was told of: the controller can see a new
        // registration's znode (and send to its czxid) before the registering thread has set the epoch here. One
        // for an older or an ended registration (a zombie's, after the session expired) is refused.
        final long brokerEpoch = membership.brokerEpoch();
        final boolean current = brokerEpoch != NO_BROKER_EPOCH && request.brokerEpoch() == brokerEpoch;
        if (!current && request.brokerEpoch() <= highestBrokerEpoch) {
            refused.incrementAndGet();
            throw new StaleBrokerEpochException("broker.id=" + brokerId + " refuses "
                + request.getClass().getSimpleName() + " from controller.id=" + request.controllerId()
                + " meant for another broker epoch", request.brokerEpoch(), brokerEpoch);
        }
        controllerEpoch = request.controllerEpoch();
        controllerId = request.controllerId();
        if (request instanceof LeaderAndIsrRequest lai) {
            return applyLeaderAndIsr(lai);
        } else if (request instanceof UpdateMetadataRequest um) {
            membership.liveBrokers(um.liveBrokers());
            listener.onLiveBrokers(um.liveBrokers());
            final Map<TopicPartition, PartitionStateInfo> next = new HashMap<>(metadata);
            um.partitions().forEach((tp, state) -> {
                if (state.leaderAndIsr().leader() == LeaderAndIsr.LEADER_DURING_DELETE) {
                    next.remove(tp);
                } else {
                    next.put(tp, state);
                }
            });
            publish(next);
            return ControlResponse.ok();
        } else {
            final StopReplicaRequest stop = (StopReplicaRequest) request;
            final Map<TopicPartition, PartitionStateInfo> next = new HashMap<>(metadata);
            for (final TopicPartition tp : stop.partitions()) {
                replicas.remove(tp);
                if (stop.delete()) {
                    next.remove(tp);
                }
            }
            publish(next);
            listener.onStopReplica(stop.partitions(), stop.delete());
            return ControlResponse.ok();
        }
    }

    private ControlResponse applyLeaderAndIsr(final LeaderAndIsrRequest request) {
        final Map<TopicPartition, ControlRequestRefusedException> errors = new HashMap<>();
        final Map<TopicPartition, PartitionStateInfo> applied = new HashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateInfo> e : request.partitions().entrySet()) {
            final PartitionStateInfo current = replicas.get(e.getKey());
            final int requested = e.getValue().leaderAndIsr().leaderEpoch();
            if (current != null && requested <= current.leaderAndIsr().leaderEpoch()) {
                refused.incrementAndGet();
                errors.put(e.getKey(), new StaleLeaderEpochException("broker.id=" + brokerId + " refuses "
                    + e.getKey() + " leader=" + e.getValue().leaderAndIsr().leader(), requested,
                    current.leaderAndIsr().leaderEpoch()));
                continue;
            }
            replicas.put(e.getKey(), e.getValue());
            applied.put(e.getKey(), e.getValue());
        }
        if (!errors.isEmpty()) {
            LOG.debug("broker.id={} refused {} partitions of a LeaderAndIsr", brokerId, errors.size());
        }
        if (!applied.isEmpty()) {
            final Map<TopicPartition, PartitionStateInfo> next = new HashMap<>(metadata);
            next.putAll(applied);
            publish(next);
            final Map<Integer, LiveBroker> addresses = new HashMap<>(leaderAddresses);
            addresses.putAll(request.liveLeaders());
            leaderAddresses = Collections.unmodifiableMap(addresses);
            listener.onLeaderAndIsr(applied, request.liveLeaders());
        }
        return new ControlResponse(errors);
    }
}
