package io.seglog.replication.controller;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.LeaderImbalance;
import io.seglog.replication.election.PartitionState;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkWatch;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this broker does while it is the active controller (Kafka's {@code KafkaController} event handlers): the
 * failover that loads the cluster from ZooKeeper and drives every partition to a valid state, and the handlers of
 * broker changes, controlled shutdowns, topic changes and deletions, reassignments, preferred and automatic leader
 * elections and ISR changes, each ending in one {@link ControlBatch} sent to the brokers.
 *
 * <p>It owns the active term's cache of the cluster ({@link ControllerContext}, which its state machines
 * {@link PartitionStateMachine}, {@link TopicDeletionManager} and {@link ReassignmentManager} read and change as
 * Kafka's do), the watches that turn ZooKeeper changes into events, and the term's epoch and fencing token, set by
 * {@link #begin} and cleared by {@link #end}. {@link Controller} owns the rest: the broker's registration, its seat
 * in {@code /controller}, the event thread and when timed work runs; it calls these handlers only while active.
 *
 * <p>Confined to the controller's event thread.
 */
final class ControllerTerm {
    /** Logs under the controller's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(Controller.class);

    private final ReplicationConfig config;
    private final int brokerId;
    private final ControlChannel channel;
    private final KafkaZkStore store;
    private final AtomicLong refusals;
    /** Where the term's watches and StopReplica results go: the controller's event queue. */
    private final Consumer<ControllerEvent> events;
    private final ControllerContext ctx = new ControllerContext();
    private final TopicIds topicIds;
    private final PartitionStateMachine partitions;
    private final TopicDeletionManager deletion;
    private final ReassignmentManager reassignment;
    private final ZkWatch brokerWatch;
    private final ZkWatch topicWatch;
    private final ZkWatch deletionWatch;
    private final ZkWatch preferredWatch;
    private final ZkWatch reassignWatch;
    private final ZkWatch isrChangeWatch;
    private final ZkWatch assignmentWatch;

    ControllerTerm(final ReplicationConfig config, final ControlChannel channel, final KafkaZkStore store,
                   final RandomGenerator ids, final AtomicLong refusals, final Consumer<ControllerEvent> events) {
        this.config = config;
        this.brokerId = config.brokerId();
        this.channel = channel;
        this.store = store;
        this.refusals = refusals;
        this.events = events;
        this.topicIds = new TopicIds(store, ids);
        this.partitions = new PartitionStateMachine(ctx, store, config);
        this.deletion = new TopicDeletionManager(ctx, partitions, store);
        this.reassignment = new ReassignmentManager(ctx, partitions, store);
        this.brokerWatch = path -> events.accept(new ControllerEvent.BrokerChange());
        this.topicWatch = path -> events.accept(new ControllerEvent.TopicChange());
        this.deletionWatch = path -> events.accept(new ControllerEvent.TopicDeletion());
        this.preferredWatch = path -> events.accept(new ControllerEvent.PreferredElection());
        this.reassignWatch = path -> events.accept(new ControllerEvent.Reassignment());
        this.isrChangeWatch = path -> events.accept(new ControllerEvent.IsrChange());
        this.assignmentWatch = path -> events.accept(
            new ControllerEvent.PartitionModifications(path.substring(ZkPaths.TOPICS.length() + 1)));
    }

    /** The controller epoch of the term (0 between terms). */
    int epoch() {
        return ctx.epoch;
    }

    /** The fencing token of the term (-1 between terms). */
    int epochZkVersion() {
        return ctx.epochZkVersion;
    }

    /** The partition state machine, whose count of unclean elections spans every term. */
    PartitionStateMachine partitions() {
        return partitions;
    }

    /** A term begins with the epoch and fencing token won in the election; the failover follows. */
    void begin(final int epoch, final int epochZkVersion) {
        ctx.reset();
        ctx.epoch = epoch;
        ctx.epochZkVersion = epochZkVersion;
    }

    /** The term ends: its cache of the cluster is dropped. */
    void end() {
        ctx.reset();
    }

    /**
     * Failover (and resynchronisation after a failed ZooKeeper call): arm the watches first so that no change is
     * missed, read brokers, topics, assignments and states, tell every broker, then bring every partition to a
     * valid state.
     */
    void loadAndDrive(final long nowMs) {
        final int epoch = ctx.epoch;
        final int epochZkVersion = ctx.epochZkVersion;
        ctx.reset();
        ctx.epoch = epoch;
        ctx.epochZkVersion = epochZkVersion;
        ctx.liveBrokers.putAll(store.brokers(brokerWatch));
        final Set<String> topics = store.topics(topicWatch);
        // Known before anything is driven, so that no election, ISR write or LeaderAndIsr touches a topic being deleted.
        final Set<String> deleting = store.topicDeletions(deletionWatch);
        deleting.retainAll(topics);
        ctx.topicsBeingDeleted.addAll(deleting);
        // Pending ISR notifications are covered by the full read below: drop them (Kafka does the same).
        store.deleteIsrChangeNotifications(store.isrChangeNotifications(isrChangeWatch).keySet(), ctx.epochZkVersion);
        for (final String topic : topics) {
            store.topicAssignment(topic, assignmentWatch).ifPresent(a -> {
                ctx.assignments.put(topic, new TreeMap<>(a.value().partitions()));
                // Kafka's ZooKeeper controller gives every topic an id when it loads them (KIP-516).
                topicIds.ensure(topic, a, ctx.epochZkVersion, assignmentWatch)
                    .ifPresent(id -> ctx.topicIds.put(topic, id));
            });
        }
        final Map<TopicPartition, Optional<PartitionStateZnode>> states = store.partitionStates(ctx.allPartitions());
        for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e : states.entrySet()) {
            if (e.getValue().isEmpty()) {
                ctx.states.put(e.getKey(), PartitionState.NEW);
            } else {
                ctx.leadership.put(e.getKey(), e.getValue().get());
                ctx.states.put(e.getKey(), ctx.isLeaderLive(e.getKey()) ? PartitionState.ONLINE : PartitionState.OFFLINE);
            }
        }
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            partitions.replicaTransition(tp, ctx.replicas(tp), ReplicaState.NEW);
            partitions.replicasOnlineOrOffline(tp);
        }
        final ControlBatch batch = new ControlBatch();
        ctx.liveBrokers.keySet().forEach(batch::fullMetadata);
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                partitions.notifyReplicas(tp, batch, false);
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        // Replicas on brokers that are not live go offline: they leave the ISRs (Kafka's replica state machine
        // startup), so that a broker that died while no controller was active is not counted in sync.
        final Set<Integer> offline = new HashSet<>();
        final Set<TopicPartition> withOfflineIsr = new HashSet<>();
        ctx.leadership.forEach((tp, state) -> state.leaderAndIsr().isr().forEach(r -> {
            if (!ctx.liveBrokers.containsKey(r) && !ctx.topicsBeingDeleted.contains(tp.topic())) {
                offline.add(r);
                withOfflineIsr.add(tp);
            }
        }));
        partitions.removeReplicasFromIsr(offline, withOfflineIsr, batch);
        reassignment.resume(batch);
        send(batch);
        processTopicDeletion();
        processPreferredElection();
        processReassignment();
        LOG.info("broker.id={} controller epoch {} loaded {} brokers, {} topics, {} partitions", brokerId, ctx.epoch,
            ctx.liveBrokers.size(), ctx.assignments.size(), ctx.states.size());
    }

    // ----------------------------------------------------------------------------------------- brokers

    void processBrokerChange() {
        final Map<Integer, BrokerInfo> current = store.brokers(brokerWatch);
        final Set<Integer> dead = new HashSet<>(ctx.liveBrokers.keySet());
        dead.removeAll(current.keySet());
        final Set<Integer> bounced = new HashSet<>();
        final Set<Integer> added = new HashSet<>();
        for (final BrokerInfo b : current.values()) {
            final BrokerInfo known = ctx.liveBrokers.get(b.id());
            if (known == null) {
                added.add(b.id());
            } else if (known.epoch() != b.epoch()) {
                bounced.add(b.id());
            }
        }
        if (dead.isEmpty() && bounced.isEmpty() && added.isEmpty()) {
            return;
        }
        LOG.info("controller epoch {}: brokers dead={} bounced={} new={}", ctx.epoch, dead, bounced, added);
        final ControlBatch batch = new ControlBatch();
        final Set<Integer> failed = new HashSet<>(dead);
        failed.addAll(bounced);
        ctx.liveBrokers.keySet().removeAll(failed);
        ctx.shuttingDown.removeAll(failed);
        if (!failed.isEmpty()) {
            onBrokerFailure(failed, batch);
        }
        final Set<Integer> started = new HashSet<>(added);
        started.addAll(bounced);
        started.forEach(id -> ctx.liveBrokers.put(id, current.get(id)));
        if (!started.isEmpty()) {
            onBrokerStartup(started, batch);
        }
        batch.liveBrokersChanged();
        send(batch);
    }

    private void onBrokerFailure(final Set<Integer> failed, final ControlBatch batch) {
        deletion.onBrokerFailure(failed);
        for (final TopicPartition tp : ctx.partitionsOnBrokers(failed)) {
            if (ctx.replicaStates.containsKey(tp) && !ctx.topicsBeingDeleted.contains(tp.topic())) {
                partitions.replicaTransition(tp, intersect(ctx.replicas(tp), failed), ReplicaState.OFFLINE);
            }
        }
        for (final TopicPartition tp : ctx.partitionsLedBy(failed)) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic()) && ctx.states.containsKey(tp)) {
                partitions.transition(tp, PartitionState.OFFLINE);
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        final Set<TopicPartition> withReplicas = ctx.partitionsOnBrokers(failed);
        withReplicas.removeIf(tp -> !ctx.leadership.containsKey(tp) || ctx.topicsBeingDeleted.contains(tp.topic()));
        partitions.removeReplicasFromIsr(failed, withReplicas, batch);
    }

    private static List<Integer> intersect(final List<Integer> replicas, final Set<Integer> brokers) {
        return replicas.stream().filter(brokers::contains).toList();
    }

    private void onBrokerStartup(final Set<Integer> started, final ControlBatch batch) {
        started.forEach(batch::fullMetadata);
        for (final TopicPartition tp : ctx.partitionsOnBrokers(started)) {
            if (ctx.topicsBeingDeleted.contains(tp.topic())) {
                continue; // the deletion manager retries them below
            }
            if (ctx.replicaStates.containsKey(tp)) {
                partitions.replicaTransition(tp, intersect(ctx.replicas(tp), started), ReplicaState.ONLINE);
            }
            if (ctx.leadership.containsKey(tp)) {
                final PartitionStateInfo info = partitions.info(tp, false);
                for (final int replica : ctx.replicas(tp)) {
                    if (started.contains(replica)) {
                        batch.leaderAndIsr(replica, tp, info);
                    }
                }
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        deletion.onBrokerStartup(started, batch);
    }

    /** A controlled shutdown asked of the active controller: checked against the broker's epoch, then done. */
    void processControlledShutdown(final ControllerEvent.ControlledShutdown request) {
        final BrokerInfo info = ctx.liveBrokers.get(request.brokerId());
        if (info == null || info.epoch() != request.brokerEpoch()) {
            request.result().completeExceptionally(new StaleBrokerEpochException("controlled shutdown of broker.id="
                + request.brokerId(), request.brokerEpoch(), info == null ? -1 : info.epoch()));
            return;
        }
        try {
            shutDown(request);
        } catch (final RuntimeException e) {
            // Answered whatever happens (Kafka answers its callback with the failure too): a ControlledShutdown left
            // unanswered holds the connection it came on, whose later answers wait behind it, for good. The broker
            // asks again; this controller resigns or re-reads its state (guarded).
            request.result().completeExceptionally(new NotControllerException(brokerId));
            throw e;
        }
    }

    /** The controlled shutdown of a live broker in its current epoch: its leaderships move, its replicas stop. */
    private void shutDown(final ControllerEvent.ControlledShutdown request) {
        final int id = request.brokerId();
        ctx.shuttingDown.add(id);
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> led = ctx.partitionsLedBy(Set.of(id));
        led.removeIf(tp -> ctx.replicas(tp).size() < 2);
        partitions.elect(led, PartitionStateMachine.ElectionKind.CONTROLLED_SHUTDOWN, batch);
        final Set<TopicPartition> followed = ctx.partitionsOnBrokers(Set.of(id));
        followed.removeAll(ctx.partitionsLedBy(Set.of(id)));
        followed.removeIf(tp -> !ctx.leadership.containsKey(tp));
        followed.forEach(tp -> {
            batch.stopReplica(id, tp, false);
            partitions.replicaTransition(tp, List.of(id), ReplicaState.OFFLINE);
        });
        partitions.removeReplicasFromIsr(Set.of(id), followed, batch);
        send(batch);
        request.result().complete(ctx.partitionsLedBy(Set.of(id)));
    }

    // ------------------------------------------------------------------------------------------ topics

    void processTopicChange() {
        final Set<String> topics = store.topics(topicWatch);
        for (final String gone : new HashSet<>(ctx.assignments.keySet())) {
            if (!topics.contains(gone)) {
                ctx.removeTopic(gone);
            }
        }
        final Set<TopicPartition> fresh = new HashSet<>();
        for (final String topic : topics) {
            if (!ctx.assignments.containsKey(topic)) {
                store.topicAssignment(topic, assignmentWatch).ifPresent(a -> {
                    // A topic created without an id (an older tool) gets one before its partitions are announced.
                    topicIds.ensure(topic, a, ctx.epochZkVersion, assignmentWatch)
                        .ifPresent(id -> ctx.topicIds.put(topic, id));
                    fresh.addAll(addPartitions(topic, a));
                });
            }
        }
        if (!fresh.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            partitions.initializePartitions(fresh, batch);
            send(batch);
        }
    }

    private Set<TopicPartition> addPartitions(final String topic, final Versioned<TopicAssignmentZnode> assignment) {
        final Map<Integer, List<Integer>> known = ctx.assignments.computeIfAbsent(topic, t -> new TreeMap<>());
        final Set<TopicPartition> added = new HashSet<>();
        assignment.value().partitions().forEach((p, replicas) -> {
            if (!known.containsKey(p)) {
                known.put(p, replicas);
                final TopicPartition tp = new TopicPartition(topic, p);
                partitions.transition(tp, PartitionState.NEW);
                added.add(tp);
            }
        });
        return added;
    }

    void processPartitionModifications(final String topic) {
        if (!ctx.assignments.containsKey(topic)) {
            return;
        }
        final Optional<Versioned<TopicAssignmentZnode>> assignment = store.topicAssignment(topic, assignmentWatch);
        if (assignment.isEmpty() || ctx.topicsBeingDeleted.contains(topic)) {
            return; // Kafka, too, adds no partitions to a topic being deleted
        }
        final Set<TopicPartition> fresh = addPartitions(topic, assignment.get());
        if (!fresh.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            partitions.initializePartitions(fresh, batch);
            send(batch);
        }
    }

    /**
     * Kafka's TopicDeletion event: requests for unknown topics are dropped, known ones queued; then every queued
     * deletion is driven forward ({@link TopicDeletionManager}).
     */
    void processTopicDeletion() {
        final Set<String> requested = store.topicDeletions(deletionWatch);
        final Set<String> unknown = new HashSet<>(requested);
        unknown.removeAll(ctx.assignments.keySet());
        if (!unknown.isEmpty()) {
            for (final String name : unknown) {
                try {
                    TopicPartition.validateTopic(name);
                } catch (final IllegalArgumentException illegal) {
                    LOG.warn("controller epoch {}: dropping {}/{}: {}", ctx.epoch, ZkPaths.DELETE_TOPICS, name,
                        illegal.getMessage());
                }
            }
            LOG.info("controller epoch {}: dropping deletion requests for unknown topics {}", ctx.epoch, unknown);
            store.admin().deleteTopicDeletionRequests(unknown, ctx.epochZkVersion);
        }
        requested.removeAll(unknown);
        final ControlBatch batch = new ControlBatch();
        deletion.enqueue(requested, batch);
        send(batch);
    }

    void processReassignment() {
        final ControlBatch batch = new ControlBatch();
        reassignment.onRequest(reassignWatch, batch);
        send(batch);
    }

    void processStopReplicaDeletionResult(final ControllerEvent.StopReplicaDeletionResult result) {
        if (result.controllerEpoch() != ctx.epoch) {
            return; // sent in an earlier term: this term re-sends what it needs
        }
        final ControlBatch batch = new ControlBatch();
        deletion.onStopReplicaResult(result.brokerId(), result.deleted(), result.failed(), batch);
        send(batch);
    }

    void processPreferredElection() {
        final Optional<Set<TopicPartition>> request = store.preferredElectionRequest(preferredWatch);
        if (request.isEmpty()) {
            return;
        }
        final Set<TopicPartition> valid = new HashSet<>(request.get());
        valid.removeIf(tp -> !ctx.leadership.containsKey(tp) || ctx.topicsBeingDeleted.contains(tp.topic()));
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> moved = partitions.elect(valid, PartitionStateMachine.ElectionKind.PREFERRED, batch);
        store.deletePreferredElectionRequest(ctx.epochZkVersion);
        send(batch);
        LOG.info("controller epoch {}: preferred election moved {} of {} partitions", ctx.epoch, moved.size(),
            request.get().size());
    }

    /**
     * Kafka's auto-rebalance: for each broker, the share of partitions it is preferred for but does not lead; above
     * {@code leader.imbalance.per.broker.percentage}, those partitions get a preferred election.
     */
    void checkLeaderImbalance() {
        final Map<TopicPartition, List<Integer>> assignments = new HashMap<>();
        final Map<TopicPartition, LeaderAndIsr> leaders = new HashMap<>();
        ctx.leadership.forEach((tp, state) -> {
            assignments.put(tp, ctx.replicas(tp));
            leaders.put(tp, state.leaderAndIsr());
        });
        final Set<TopicPartition> candidates = LeaderImbalance.partitionsToElect(assignments, leaders,
            ctx.electableBrokers(), config.leaderImbalancePerBrokerPercentage(), ctx.topicsBeingDeleted);
        if (!candidates.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            final Set<TopicPartition> moved =
                partitions.elect(candidates, PartitionStateMachine.ElectionKind.PREFERRED, batch);
            send(batch);
            LOG.info("controller epoch {}: leader rebalance moved {} partitions", ctx.epoch, moved.size());
        }
    }

    /** Leaders changed ISRs: re-read those states and tell every broker (Kafka's IsrChangeNotification). */
    void processIsrChange() {
        final Map<String, Set<TopicPartition>> notifications = store.isrChangeNotifications(isrChangeWatch);
        if (notifications.isEmpty()) {
            return;
        }
        final Set<TopicPartition> changed = new HashSet<>();
        notifications.values().forEach(changed::addAll);
        changed.removeIf(tp -> !ctx.states.containsKey(tp));
        final ControlBatch batch = new ControlBatch();
        store.partitionStates(changed).forEach((tp, state) -> state.ifPresent(s -> {
            ctx.leadership.put(tp, s);
            batch.metadata(tp, partitions.info(tp, false));
        }));
        // Kafka watches each reassigning partition's state znode; the leader's ISR notification serves the same end.
        reassignment.onIsrChange(changed, batch);
        store.deleteIsrChangeNotifications(notifications.keySet(), ctx.epochZkVersion);
        send(batch);
    }

    private void send(final ControlBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        final Map<TopicPartition, PartitionStateInfo> all = new HashMap<>();
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                all.put(tp, partitions.info(tp, false));
            }
        }
        final int epoch = ctx.epoch;
        batch.send(brokerId, ctx, channel, all, refusals, (broker, deleted, failed) ->
            events.accept(new ControllerEvent.StopReplicaDeletionResult(epoch, broker, deleted, failed)));
    }

    // ------------------------------------------------------------------------------------------ test hooks

    /** Sends UpdateMetadata with this term's cached view to every broker it believes live. */
    void sendMetadataToAll() {
        final ControlBatch batch = new ControlBatch();
        ctx.liveBrokers.keySet().forEach(batch::fullMetadata);
        send(batch);
    }

    /** A copy of a partition's replica states (empty when the partition is unknown). */
    Map<Integer, ReplicaState> replicaStates(final TopicPartition tp) {
        return Map.copyOf(ctx.replicaStates.getOrDefault(tp, Map.of()));
    }

    /** Re-runs an offline-rule election on these partitions (each write raises the leader epoch). */
    Set<TopicPartition> reelect(final Set<TopicPartition> tps) {
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> elected = partitions.elect(tps, PartitionStateMachine.ElectionKind.OFFLINE, batch);
        send(batch);
        return elected;
    }
}
