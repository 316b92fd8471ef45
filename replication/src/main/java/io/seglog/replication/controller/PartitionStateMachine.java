package io.seglog.replication.controller;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.ElectionResult;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.LeaderElection;
import io.seglog.replication.election.PartitionState;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.TopicConfigZnode;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's partition state machine (Kafka's {@code PartitionStateMachine} with the ISR part of its
 * {@code ReplicaStateMachine}): creates new partitions' states, runs elections and takes offline replicas out of
 * ISRs. Every write is conditional on the state znode's version and fenced by the controller epoch; partitions
 * that meet a concurrent write are read again and retried. Confined to the controller's event thread.
 */
final class PartitionStateMachine {
    /** Rounds of read-elect-write for partitions whose state znode changed under a conditional write. */
    private static final int MAX_ELECTION_ROUNDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStateMachine.class);

    private final ControllerContext ctx;
    private final KafkaZkStore store;
    private final ReplicationConfig config;
    /** Unclean elections written (Kafka's UncleanLeaderElectionsPerSec), across terms. */
    private final java.util.concurrent.atomic.AtomicLong uncleanElections = new java.util.concurrent.atomic.AtomicLong();
    /** Runs between the read and the conditional write of an election round; tests race a writer here. */
    private volatile java.util.function.Consumer<Set<TopicPartition>> beforeElectionWrite = tps -> { };

    /**
     * Unclean elections this controller wrote, in every term.
     *
     * @return the count
     */
    long uncleanElections() {
        return uncleanElections.get();
    }

    PartitionStateMachine(final ControllerContext ctx, final KafkaZkStore store, final ReplicationConfig config) {
        this.ctx = ctx;
        this.store = store;
        this.config = config;
    }


    void transition(final TopicPartition tp, final PartitionState target) {
        final PartitionState current = ctx.states.getOrDefault(tp, PartitionState.NON_EXISTENT);
        if (current != target && !current.canTransitionTo(target)) {
            throw new IllegalStateException(tp + " cannot go from " + current + " to " + target);
        }
        if (target == PartitionState.NON_EXISTENT) {
            ctx.states.remove(tp);
        } else {
            ctx.states.put(tp, target);
        }
    }

    /**
     * Moves replicas to a state (Kafka's ReplicaStateMachine). An invalid transition is logged and skipped, as
     * Kafka's state machine does, rather than stopping the controller.
     */
    void replicaTransition(final TopicPartition tp, final Iterable<Integer> brokers, final ReplicaState target) {
        final Map<Integer, ReplicaState> states = ctx.replicaStates.computeIfAbsent(tp, t -> new HashMap<>());
        for (final int broker : brokers) {
            final ReplicaState current = states.getOrDefault(broker, ReplicaState.NON_EXISTENT);
            if (!current.canTransitionTo(target)) {
                LOG.error("{} replica on broker.id={}: invalid transition {} -> {}", tp, broker, current, target);
                continue;
            }
            if (target == ReplicaState.NON_EXISTENT) {
                states.remove(broker);
            } else {
                states.put(broker, target);
            }
        }
        if (states.isEmpty()) {
            ctx.replicaStates.remove(tp);
        }
    }

    /** Live replicas go online, the others offline (after a failover read, new partitions, restarts). */
    void replicasOnlineOrOffline(final TopicPartition tp) {
        final List<Integer> live = new java.util.ArrayList<>();
        final List<Integer> dead = new java.util.ArrayList<>();
        for (final int r : ctx.replicas(tp)) {
            (ctx.liveBrokers.containsKey(r) ? live : dead).add(r);
        }
        replicaTransition(tp, live, ReplicaState.ONLINE);
        replicaTransition(tp, dead, ReplicaState.OFFLINE);
    }

    PartitionStateInfo info(final TopicPartition tp, final boolean isNew) {
        final PartitionStateZnode state = ctx.leadership.get(tp);
        return new PartitionStateInfo(state.controllerEpoch(), state.leaderAndIsr(), ctx.replicas(tp), isNew,
            ctx.topicId(tp.topic()));
    }

    /** LeaderAndIsr with the partition's current state to its live replicas. */
    void notifyReplicas(final TopicPartition tp, final ControlBatch batch, final boolean isNew) {
        final PartitionStateInfo info = info(tp, isNew);
        batch.metadata(tp, info);
        for (final int replica : ctx.replicas(tp)) {
            if (ctx.liveBrokers.containsKey(replica)) {
                batch.leaderAndIsr(replica, tp, info);
            }
        }
    }

    void triggerOnlinePartitionStateChange(final ControlBatch batch) {
        initializePartitions(ctx.partitionsInState(PartitionState.NEW), batch);
        elect(ctx.partitionsInState(PartitionState.OFFLINE), ElectionKind.OFFLINE, batch);
    }

    /** New partitions: first live replica leads, every live replica is in the ISR (Kafka's New → Online). */
    void initializePartitions(final Set<TopicPartition> partitions, final ControlBatch batch) {
        final Map<TopicPartition, PartitionStateZnode> toCreate = new HashMap<>();
        final Set<Integer> live = ctx.electableBrokers();
        for (final TopicPartition tp : partitions) {
            if (!ctx.replicaStates.containsKey(tp)) {
                replicaTransition(tp, ctx.replicas(tp), ReplicaState.NEW);
            }
            final ElectionResult r = LeaderElection.newPartition(ctx.replicas(tp), live);
            if (!r.hasLeader()) {
                LOG.warn("{} has no live replica among {}; it stays NEW", tp, ctx.replicas(tp));
                continue;
            }
            toCreate.put(tp, new PartitionStateZnode(LeaderAndIsr.initial(r.leader(), r.isr()), ctx.epoch));
        }
        if (toCreate.isEmpty()) {
            return;
        }
        final Set<TopicPartition> created = store.createPartitionStates(toCreate, ctx.epochZkVersion);
        for (final TopicPartition tp : created) {
            ctx.leadership.put(tp, toCreate.get(tp));
            transition(tp, PartitionState.ONLINE);
            replicasOnlineOrOffline(tp);
            notifyReplicas(tp, batch, true);
        }
        final Set<TopicPartition> existing = new HashSet<>(toCreate.keySet());
        existing.removeAll(created);
        if (!existing.isEmpty()) {
            // Someone (an earlier term) created them already: adopt what is there.
            store.partitionStates(existing).forEach((tp, state) -> state.ifPresent(s -> {
                ctx.leadership.put(tp, s);
                transition(tp, ctx.isLeaderLive(tp) ? PartitionState.ONLINE : PartitionState.OFFLINE);
                replicasOnlineOrOffline(tp);
                notifyReplicas(tp, batch, false);
            }));
            elect(ctx.partitionsInState(PartitionState.OFFLINE), ElectionKind.OFFLINE, batch);
        }
    }

    /** Test seam: an action run after an election round has read the states and before it writes them. */
    void beforeElectionWrite(final java.util.function.Consumer<Set<TopicPartition>> action) {
        beforeElectionWrite = action;
    }

    /** The election rules this controller runs. */
    enum ElectionKind {
        OFFLINE, PREFERRED, CONTROLLED_SHUTDOWN,
        /** Leader from the (target) assignment when the current one is not in it or not live, else an epoch bump. */
        REASSIGNMENT,
        /** Same leader and ISR at leader epoch + 1 (Kafka's updateLeaderEpochAndSendRequest). */
        LEADER_EPOCH_BUMP
    }

    /**
     * Elects leaders: reads each state znode, applies the rule, writes the result at the version read (leader
     * epoch + 1) behind the controller fence; partitions that met a concurrent write are read and tried again.
     *
     * @return the partitions that got a new leader
     */
    Set<TopicPartition> elect(final Set<TopicPartition> partitions, final ElectionKind kind, final ControlBatch batch) {
        final Set<TopicPartition> elected = new HashSet<>();
        final Map<String, Boolean> uncleanByTopic = new HashMap<>();
        Set<TopicPartition> pending = new HashSet<>(partitions);
        for (int round = 0; round < MAX_ELECTION_ROUNDS && !pending.isEmpty(); round++) {
            final Map<TopicPartition, PartitionStateZnode> toWrite = new HashMap<>();
            for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e
                : store.partitionStates(pending).entrySet()) {
                if (e.getValue().isEmpty()) {
                    continue;
                }
                final TopicPartition tp = e.getKey();
                final PartitionStateZnode state = checkedState(tp, e.getValue().get());
                final LeaderAndIsr lai = state.leaderAndIsr();
                final List<Integer> replicas = ctx.replicas(tp);
                final ElectionResult r = switch (kind) {
                    case OFFLINE -> offline(tp, replicas, lai.isr(), uncleanByTopic);
                    case PREFERRED -> LeaderElection.preferred(replicas, lai.isr(), ctx.electableBrokers());
                    case CONTROLLED_SHUTDOWN -> LeaderElection.controlledShutdown(replicas, lai.isr(),
                        ctx.liveBrokers.keySet(), ctx.shuttingDown);
                    case REASSIGNMENT -> replicas.contains(lai.leader()) && lai.isr().contains(lai.leader())
                        && ctx.electableBrokers().contains(lai.leader()) ? new ElectionResult(lai.leader(), lai.isr(), false)
                        : LeaderElection.reassignment(replicas, lai.isr(), ctx.electableBrokers());
                    case LEADER_EPOCH_BUMP -> lai.isr().contains(lai.leader())
                        ? new ElectionResult(lai.leader(), lai.isr(), false)
                        : ElectionResult.none(lai.isr());
                };
                ctx.leadership.put(tp, state);
                if (!r.hasLeader() || (kind == ElectionKind.PREFERRED && r.leader() == lai.leader())) {
                    continue;
                }
                if (r.unclean()) {
                    LOG.warn("{}: unclean leader election of broker.id={} (no live ISR member in {})", tp, r.leader(),
                        lai.isr());
                }
                toWrite.put(tp, new PartitionStateZnode(lai.newLeader(r.leader(), r.isr()), ctx.epoch, r.unclean()));
            }
            beforeElectionWrite.accept(toWrite.keySet());
            final Map<TopicPartition, LeaderAndIsr> written = store.updatePartitionStates(toWrite, ctx.epochZkVersion);
            for (final Map.Entry<TopicPartition, LeaderAndIsr> w : written.entrySet()) {
                if (toWrite.get(w.getKey()).leaderRecovering()) {
                    uncleanElections.incrementAndGet();
                }
                ctx.leadership.put(w.getKey(), new PartitionStateZnode(w.getValue(), ctx.epoch,
                    toWrite.get(w.getKey()).leaderRecovering()));
                transition(w.getKey(), PartitionState.ONLINE);
                notifyReplicas(w.getKey(), batch, false);
                elected.add(w.getKey());
            }
            pending = new HashSet<>(toWrite.keySet());
            pending.removeAll(written.keySet());
        }
        if (!pending.isEmpty()) {
            LOG.warn("{} partitions kept meeting concurrent writes; the next event retries them", pending.size());
        }
        return elected;
    }

    /**
     * Kafka's offline election with its per-partition unclean decision ({@code collectUncleanLeaderElectionState}):
     * only when no ISR member is live is {@code unclean.leader.election.enable} consulted, the topic's override in
     * {@code /config/topics/<topic>} first, then the cluster's value. The override is read once per topic and
     * election, and only for such partitions, so a healthy election costs no extra ZooKeeper read.
     */
    private ElectionResult offline(final TopicPartition tp, final List<Integer> replicas, final List<Integer> isr,
                                   final Map<String, Boolean> uncleanByTopic) {
        final Set<Integer> live = ctx.electableBrokers();
        final ElectionResult clean = LeaderElection.offline(replicas, isr, live, false);
        if (clean.hasLeader() || isr.stream().anyMatch(live::contains)) {
            return clean;
        }
        final boolean unclean = uncleanByTopic.computeIfAbsent(tp.topic(), this::uncleanLeaderElectionEnable);
        return unclean ? LeaderElection.offline(replicas, isr, live, true) : clean;
    }

    /** The topic's {@code unclean.leader.election.enable}: its override when set and readable, else the cluster's. */
    private boolean uncleanLeaderElectionEnable(final String topic) {
        final Optional<TopicConfigZnode> overrides = store.admin().topicConfig(topic);
        if (overrides.isPresent()) {
            try {
                final Optional<Boolean> value =
                    overrides.get().uncleanLeaderElectionEnable(ZkPaths.topicConfigPath(topic));
                if (value.isPresent()) {
                    return value.get();
                }
            } catch (final MalformedZnodeException e) {
                LOG.warn("Ignoring malformed topic config {} field {}: {}; using the cluster's "
                    + "unclean.leader.election.enable={}", e.path(), e.field(), e.getMessage(),
                    config.uncleanLeaderElectionEnable());
            }
        }
        return config.uncleanLeaderElectionEnable();
    }

    /** Kafka's "soft failure" check: a state decided by a newer controller means this one is stale. */
    private PartitionStateZnode checkedState(final TopicPartition tp, final PartitionStateZnode state) {
        if (state.controllerEpoch() > ctx.epoch) {
            throw new ControllerMovedException(ctx.epochZkVersion, tp + " was written by controller epoch "
                + state.controllerEpoch() + " > " + ctx.epoch);
        }
        return state;
    }

    /**
     * Replicas going offline leave the ISR (never emptying it); a leader going offline leaves the partition
     * leaderless. Each write raises the leader epoch by one, as Kafka's OfflineReplica transition does.
     */
    void removeReplicasFromIsr(final Set<Integer> brokers, final Set<TopicPartition> partitions,
                                       final ControlBatch batch) {
        Set<TopicPartition> pending = new HashSet<>(partitions);
        for (int round = 0; round < MAX_ELECTION_ROUNDS && !pending.isEmpty(); round++) {
            final Map<TopicPartition, PartitionStateZnode> toWrite = new HashMap<>();
            for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e
                : store.partitionStates(pending).entrySet()) {
                if (e.getValue().isEmpty()) {
                    continue;
                }
                final PartitionStateZnode state = checkedState(e.getKey(), e.getValue().get());
                final LeaderAndIsr lai = state.leaderAndIsr();
                LeaderAndIsr next = lai;
                for (final int broker : new java.util.TreeSet<>(brokers)) {
                    next = LeaderElection.removeFromIsr(next, broker).orElse(next);
                }
                ctx.leadership.put(e.getKey(), state);
                if (next.leader() == lai.leader() && next.isr().equals(lai.isr())) {
                    continue;
                }
                final LeaderAndIsr written = new LeaderAndIsr(next.leader(), lai.leaderEpoch() + 1, next.isr(),
                    lai.partitionEpoch());
                toWrite.put(e.getKey(), new PartitionStateZnode(written, ctx.epoch, state.leaderRecovering()));
            }
            final Map<TopicPartition, LeaderAndIsr> written = store.updatePartitionStates(toWrite, ctx.epochZkVersion);
            for (final Map.Entry<TopicPartition, LeaderAndIsr> w : written.entrySet()) {
                ctx.leadership.put(w.getKey(), new PartitionStateZnode(w.getValue(), ctx.epoch,
                    toWrite.get(w.getKey()).leaderRecovering()));
                if (!w.getValue().hasLeader()) {
                    transition(w.getKey(), PartitionState.OFFLINE);
                }
                notifyReplicas(w.getKey(), batch, false);
            }
            pending = new HashSet<>(toWrite.keySet());
            pending.removeAll(written.keySet());
        }
    }
}
