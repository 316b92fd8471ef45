package io.seglog.replication.zk;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition states ({@code /brokers/topics/<topic>/partitions/<n>/state}, each written at its expected version,
 * the partition epoch) and the ISR change notifications ({@code /isr_change_notification}): the controller's fenced
 * creates, updates and deletes, all in flight at once, and a partition leader's ISR write. Each method is documented
 * where it is public, on {@link KafkaZkStore}; this class owns nothing but its view of the connection.
 *
 * <p>Thread-safe (stateless apart from the client).
 */
final class PartitionStateZnodes {
    /** Logs under the store's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(KafkaZkStore.class);
    private static final byte[] EMPTY = new byte[0];

    private final ZkConnection zk;
    private final FencedWrites fencing;

    PartitionStateZnodes(final ZkConnection zk, final FencedWrites fencing) {
        this.zk = zk;
        this.fencing = fencing;
    }

    Map<TopicPartition, Optional<PartitionStateZnode>> partitionStates(final Collection<TopicPartition> partitions) {
        final Map<TopicPartition, CompletableFuture<Optional<ZkNode>>> pending = new LinkedHashMap<>();
        for (final TopicPartition tp : partitions) {
            pending.put(tp, zk.getDataAsync(ZkPaths.partitionStatePath(tp), null));
        }
        final Map<TopicPartition, Optional<PartitionStateZnode>> states = new LinkedHashMap<>();
        final long deadlineNs = fencing.deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<Optional<ZkNode>>> e : pending.entrySet()) {
            final String path = ZkPaths.partitionStatePath(e.getKey());
            final Optional<ZkNode> node = fencing.awaitBy(e.getValue(), path, deadlineNs);
            if (node.isEmpty()) {
                states.put(e.getKey(), Optional.empty());
                continue;
            }
            try {
                states.put(e.getKey(), Optional.of(PartitionStateZnode.fromJson(path, node.get().data(),
                    node.get().stat().version())));
            } catch (final MalformedZnodeException ex) {
                KafkaZkStore.logMalformed(ex);
            }
        }
        return states;
    }

    Set<TopicPartition> createPartitionStates(final Map<TopicPartition, PartitionStateZnode> states,
                                                     final int epochZkVersion) {
        final Set<String> topics = new TreeSet<>();
        states.keySet().forEach(tp -> topics.add(tp.topic()));
        final List<CompletableFuture<List<ZkStat>>> containers = new ArrayList<>();
        for (final String topic : topics) {
            containers.add(fencing.fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionsPath(topic), EMPTY, false))));
        }
        awaitIgnoringExists(containers);
        containers.clear();
        for (final TopicPartition tp : states.keySet()) {
            containers.add(fencing.fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionPath(tp), EMPTY, false))));
        }
        awaitIgnoringExists(containers);
        final Map<TopicPartition, CompletableFuture<List<ZkStat>>> pending = new LinkedHashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateZnode> e : states.entrySet()) {
            pending.put(e.getKey(), fencing.fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Create(ZkPaths.partitionStatePath(e.getKey()), e.getValue().toJson(), false))));
        }
        final Set<TopicPartition> created = new TreeSet<>(KafkaZkStore::compare);
        final long deadlineNs = fencing.deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<List<ZkStat>>> e : pending.entrySet()) {
            try {
                fencing.awaitFenced(e.getValue(), ZkPaths.partitionStatePath(e.getKey()), deadlineNs);
                created.add(e.getKey());
            } catch (final ZkException ex) {
                if (ex.error() != ZkError.NODE_EXISTS) {
                    throw ex;
                }
            }
        }
        return created;
    }

    void awaitIgnoringExists(final List<CompletableFuture<List<ZkStat>>> futures) {
        final long deadlineNs = fencing.deadlineNs();
        for (final CompletableFuture<List<ZkStat>> f : futures) {
            try {
                fencing.awaitFenced(f, "create", deadlineNs);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
        }
    }

    Map<TopicPartition, LeaderAndIsr> updatePartitionStates(final Map<TopicPartition, PartitionStateZnode> states,
                                                                   final int epochZkVersion) {
        final Map<TopicPartition, CompletableFuture<List<ZkStat>>> pending = new LinkedHashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateZnode> e : states.entrySet()) {
            pending.put(e.getKey(), fencing.fencedMultiAsync(epochZkVersion, List.of(new ZkOp.SetData(
                ZkPaths.partitionStatePath(e.getKey()), e.getValue().toJson(),
                e.getValue().leaderAndIsr().partitionEpoch()))));
        }
        final Map<TopicPartition, LeaderAndIsr> written = new LinkedHashMap<>();
        final long deadlineNs = fencing.deadlineNs();
        for (final Map.Entry<TopicPartition, CompletableFuture<List<ZkStat>>> e : pending.entrySet()) {
            try {
                final List<ZkStat> stats = fencing.awaitFenced(e.getValue(), ZkPaths.partitionStatePath(e.getKey()),
                    deadlineNs);
                written.put(e.getKey(), states.get(e.getKey()).leaderAndIsr().withPartitionEpoch(stats.get(0).version()));
            } catch (final ZkException ex) {
                if (ex.error() != ZkError.BAD_VERSION && ex.error() != ZkError.NO_NODE) {
                    throw ex;
                }
            }
        }
        return written;
    }

    PartitionStateZnode updateIsrAsLeader(final TopicPartition tp, final PartitionStateZnode current,
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

    Map<String, Set<TopicPartition>> isrChangeNotifications(final ZkWatch watch) {
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
                KafkaZkStore.logMalformed(e);
                result.put(child, Set.of());
            }
        }
        return result;
    }

    void deleteIsrChangeNotifications(final Collection<String> children, final int epochZkVersion) {
        final List<CompletableFuture<List<ZkStat>>> pending = new ArrayList<>();
        for (final String child : children) {
            pending.add(fencing.fencedMultiAsync(epochZkVersion,
                List.of(new ZkOp.Delete(ZkPaths.isrChangePath(child), -1))));
        }
        final long deadlineNs = fencing.deadlineNs();
        for (final CompletableFuture<List<ZkStat>> f : pending) {
            try {
                fencing.awaitFenced(f, ZkPaths.ISR_CHANGE, deadlineNs);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NO_NODE) {
                    throw e;
                }
            }
        }
    }
}
