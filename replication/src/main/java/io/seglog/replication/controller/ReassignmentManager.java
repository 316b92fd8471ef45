package io.seglog.replication.controller;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ReassignPartitionsZnode;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkWatch;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's ZooKeeper-mode partition reassignment ({@code /admin/reassign_partitions}, the controller's
 * {@code onPartitionReassignment}), simplified. With ORS the original replicas, TRS the target and
 * RS = TRS + ORS (target first):
 * <ol>
 *   <li>Phase A: the assignment znode gets RS with {@code adding_replicas = TRS - ORS} and
 *       {@code removing_replicas = ORS - TRS} (epoch-fenced); the adding replicas go New; the leader epoch is raised
 *       and LeaderAndIsr goes to RS.</li>
 *   <li>Wait until every target replica is in the ISR. Followers do not exist in this module yet, so the ISR is
 *       whatever the state znode says: the step completes when a leader writes an ISR holding all of TRS (and its
 *       ISR change notification reaches the controller), or at once when the ISR already holds them.</li>
 *   <li>Phase B: the target replicas go Online; the assignment becomes TRS in memory; if the leader is not in TRS
 *       (or not live) a leader is elected with {@code LeaderElection.reassignment}, else the leader epoch is raised;
 *       the removed replicas leave the ISR and get {@code StopReplica(delete=true)} and go NonExistent; the assignment
 *       znode becomes TRS without adding/removing; the partition leaves {@code /admin/reassign_partitions}, which
 *       is deleted when empty.</li>
 * </ol>
 * Requests for unknown partitions, topics being deleted or brokers that are not live are dropped from the znode
 * (logged), as Kafka does; a request for a reassignment already under way is never dropped. A new controller takes
 * up the reassignments the assignment znodes record as under way ({@link #resume}), even when no request names them
 * any more. Simplified: a removed replica's deletion is not awaited (no ack bookkeeping).
 *
 * <p>Confined to the controller's event thread.
 */
final class ReassignmentManager {
    private static final Logger LOG = LoggerFactory.getLogger(ReassignmentManager.class);

    private final ControllerContext ctx;
    private final PartitionStateMachine partitions;
    private final KafkaZkStore store;

    ReassignmentManager(final ControllerContext ctx, final PartitionStateMachine partitions, final KafkaZkStore store) {
        this.ctx = ctx;
        this.partitions = partitions;
        this.store = store;
    }

    /** Reads the request (arming the watch), starts new reassignments and completes any already in sync. */
    void onRequest(final ZkWatch watch, final ControlBatch batch) {
        final Optional<ReassignPartitionsZnode> request = store.admin().reassignmentRequest(watch);
        if (request.isEmpty()) {
            return;
        }
        if (request.get().reassignments().isEmpty()) {
            store.admin().updateReassignmentRequest(request.get(), ctx.epochZkVersion); // empty or unreadable: drop it
            return;
        }
        final Set<TopicPartition> finished = new HashSet<>();
        for (final Map.Entry<TopicPartition, List<Integer>> e : request.get().reassignments().entrySet()) {
            final TopicPartition tp = e.getKey();
            final List<Integer> target = e.getValue();
            if (!ctx.leadership.containsKey(tp) || ctx.topicsBeingDeleted.contains(tp.topic())) {
                LOG.warn("controller epoch {}: dropping reassignment of {}: unknown, not yet created or being deleted",
                    ctx.epoch, tp);
                finished.add(tp);
            } else if (target.equals(ctx.reassigning.get(tp))) {
                continue; // under way (perhaps resumed from the assignment znode): it stays named until complete
            } else if (!ctx.liveBrokers.keySet().containsAll(target)) {
                LOG.warn("controller epoch {}: dropping reassignment of {} to {}: not every broker is live ({})",
                    ctx.epoch, tp, target, ctx.liveBrokers.keySet());
                finished.add(tp);
            } else if (target.equals(ctx.replicas(tp)) && !ctx.reassigning.containsKey(tp)) {
                finished.add(tp);
            } else if (!target.equals(ctx.reassigning.get(tp))) {
                start(tp, target, batch);
                if (maybeComplete(tp, batch)) {
                    finished.add(tp);
                }
            }
        }
        removeFromRequest(finished);
    }

    /**
     * On becoming controller: takes up every reassignment the topics' assignment znodes record as under way (adding or
     * removing replicas), whether or not {@code /admin/reassign_partitions} still names it, as Kafka's controller does
     * since KIP-455. The target is the replica list without the removing replicas; phase A is written again (the
     * znode, a leader-epoch bump and LeaderAndIsr to every replica, which a controller that failed halfway may not
     * have sent) and a target already in sync completes at once. Without this, a reassignment whose request was
     * dropped or deleted after phase A kept its removing replicas for good.
     *
     * @param batch the failover's control batch
     */
    void resume(final ControlBatch batch) {
        final Set<TopicPartition> finished = new HashSet<>();
        for (final String topic : new TreeMap<>(ctx.assignments).keySet()) {
            if (ctx.topicsBeingDeleted.contains(topic)) {
                continue;
            }
            final Optional<Versioned<TopicAssignmentZnode>> read = store.topicAssignment(topic, null);
            if (read.isEmpty()) {
                continue;
            }
            final TopicAssignmentZnode znode = read.get().value();
            final Set<Integer> underWay = new TreeSet<>(znode.addingReplicas().keySet());
            underWay.addAll(znode.removingReplicas().keySet());
            for (final int partition : underWay) {
                final TopicPartition tp = new TopicPartition(topic, partition);
                final List<Integer> replicas = znode.partitions().get(partition);
                if (replicas == null || !ctx.leadership.containsKey(tp) || ctx.reassigning.containsKey(tp)) {
                    continue;
                }
                final List<Integer> target = new ArrayList<>(replicas);
                target.removeAll(znode.removingReplicas().getOrDefault(partition, List.of()));
                if (target.isEmpty()) {
                    continue;
                }
                LOG.info("controller epoch {}: resuming the reassignment of {} to {} recorded in its assignment",
                    ctx.epoch, tp, target);
                start(tp, List.copyOf(target), batch);
                if (maybeComplete(tp, batch)) {
                    finished.add(tp);
                }
            }
        }
        removeFromRequest(finished);
    }

    /** Leaders changed these ISRs: reassignments whose targets are now all in sync complete. */
    void onIsrChange(final Set<TopicPartition> changed, final ControlBatch batch) {
        final Set<TopicPartition> finished = new HashSet<>();
        for (final TopicPartition tp : changed) {
            if (ctx.reassigning.containsKey(tp) && maybeComplete(tp, batch)) {
                finished.add(tp);
            }
        }
        removeFromRequest(finished);
    }

    /** Phase A. */
    private void start(final TopicPartition tp, final List<Integer> target, final ControlBatch batch) {
        final Versioned<TopicAssignmentZnode> current = store.topicAssignment(tp.topic(), null).orElseThrow(
            () -> new IllegalStateException("assignment of " + tp.topic() + " vanished"));
        final List<Integer> replicas = current.value().partitions().get(tp.partition());
        // A reassignment cut short (failover, or a new target) left RS in the znode: its original replicas are RS
        // minus the ones it was adding.
        final List<Integer> original = new ArrayList<>(replicas);
        original.removeAll(current.value().addingReplicas().getOrDefault(tp.partition(), List.of()));
        final LinkedHashSet<Integer> all = new LinkedHashSet<>(target);
        all.addAll(original);
        final List<Integer> rs = List.copyOf(all);
        final List<Integer> adding = target.stream().filter(r -> !original.contains(r)).toList();
        final List<Integer> removing = original.stream().filter(r -> !target.contains(r)).toList();
        writeAssignment(tp, current, rs, adding, removing);
        ctx.reassigning.put(tp, target);
        LOG.info("controller epoch {}: reassigning {} from {} to {} (adding {}, removing {})", ctx.epoch, tp, original,
            target, adding, removing);
        partitions.replicaTransition(tp, adding.stream().filter(r -> !ctx.replicaStates
            .getOrDefault(tp, Map.of()).containsKey(r)).toList(), ReplicaState.NEW);
        partitions.elect(Set.of(tp), PartitionStateMachine.ElectionKind.LEADER_EPOCH_BUMP, batch);
    }

    /** Phase B when every target replica is in the ISR; returns whether the reassignment completed. */
    private boolean maybeComplete(final TopicPartition tp, final ControlBatch batch) {
        final List<Integer> target = ctx.reassigning.get(tp);
        final PartitionStateZnode state = ctx.leadership.get(tp);
        if (target == null || state == null || !state.leaderAndIsr().isr().containsAll(target)) {
            return false;
        }
        final List<Integer> rs = ctx.replicas(tp);
        final List<Integer> removing = rs.stream().filter(r -> !target.contains(r)).toList();
        partitions.replicaTransition(tp, target.stream().filter(ctx.liveBrokers::containsKey).toList(),
            ReplicaState.ONLINE);
        ctx.assignments.get(tp.topic()).put(tp.partition(), target);
        // Elects from the target when the leader is being removed (or is down), else raises the leader epoch.
        partitions.elect(Set.of(tp), PartitionStateMachine.ElectionKind.REASSIGNMENT, batch);
        final Set<Integer> removed = new HashSet<>(removing);
        partitions.removeReplicasFromIsr(removed, Set.of(tp), batch);
        for (final int r : removing) {
            batch.stopReplica(r, tp, true);
            partitions.replicaTransition(tp, List.of(r), ReplicaState.OFFLINE);
            partitions.replicaTransition(tp, List.of(r), ReplicaState.REPLICA_DELETION_STARTED);
            partitions.replicaTransition(tp, List.of(r), ReplicaState.REPLICA_DELETION_SUCCESSFUL);
            partitions.replicaTransition(tp, List.of(r), ReplicaState.NON_EXISTENT);
        }
        final Versioned<TopicAssignmentZnode> current = store.topicAssignment(tp.topic(), null).orElseThrow(
            () -> new IllegalStateException("assignment of " + tp.topic() + " vanished"));
        writeAssignment(tp, current, target, List.of(), List.of());
        ctx.reassigning.remove(tp);
        final LeaderAndIsr lai = ctx.leadership.get(tp).leaderAndIsr();
        LOG.info("controller epoch {}: reassignment of {} to {} complete, leader {} isr {}", ctx.epoch, tp, target,
            lai.leader(), lai.isr());
        return true;
    }

    /** Writes at the version read: a BAD_VERSION (an admin added partitions) makes the controller re-read all. */
    private void writeAssignment(final TopicPartition tp, final Versioned<TopicAssignmentZnode> read,
                                 final List<Integer> replicas, final List<Integer> adding,
                                 final List<Integer> removing) {
        final TopicAssignmentZnode current = read.value();
        final Map<Integer, List<Integer>> all = new TreeMap<>(current.partitions());
        all.put(tp.partition(), replicas);
        final Map<Integer, List<Integer>> addingAll = new HashMap<>(current.addingReplicas());
        final Map<Integer, List<Integer>> removingAll = new HashMap<>(current.removingReplicas());
        addingAll.remove(tp.partition());
        removingAll.remove(tp.partition());
        if (!adding.isEmpty()) {
            addingAll.put(tp.partition(), adding);
        }
        if (!removing.isEmpty()) {
            removingAll.put(tp.partition(), removing);
        }
        store.admin().setTopicAssignmentFenced(tp.topic(), new TopicAssignmentZnode(all, addingAll, removingAll,
            current.topicId()), read.version(), ctx.epochZkVersion);
        ctx.assignments.get(tp.topic()).put(tp.partition(), replicas);
    }

    private void removeFromRequest(final Set<TopicPartition> finished) {
        if (finished.isEmpty()) {
            return;
        }
        final Optional<ReassignPartitionsZnode> request = store.admin().reassignmentRequest(null);
        if (request.isEmpty()) {
            return;
        }
        final Map<TopicPartition, List<Integer>> remaining = new HashMap<>(request.get().reassignments());
        remaining.keySet().removeAll(finished);
        store.admin().updateReassignmentRequest(new ReassignPartitionsZnode(remaining), ctx.epochZkVersion);
    }
}
