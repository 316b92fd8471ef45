package io.seglog.replication.tools;

import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.ClusterIdZnode;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ReassignPartitionsZnode;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkNode;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A cluster's state as Kafka's ZooKeeper layout holds it, read once for {@code seglog zk}: the controller and its
 * epoch, the live brokers, each topic's partitions with replicas, leader, leader epoch and ISR, and the admin
 * requests still pending. Immutable; everything sorted, so two reads of the same state print the same.
 *
 * @param clusterId          the cluster id, or null before a broker created it
 * @param controllerId       the controller's broker id, or -1 when there is none
 * @param controllerEpoch    the controller epoch, or -1 before the first election
 * @param brokers            the live brokers, by id
 * @param topics             the topics, by name
 * @param pendingDeletions   topics whose deletion was asked for and is not done
 * @param pendingReassignment partitions of a reassignment request not yet taken by the controller, with their target
 *                           replicas
 * @param pendingPreferredElection partitions of a preferred-leader election request not yet taken
 */
record ClusterView(String clusterId, int controllerId, int controllerEpoch, List<Broker> brokers,
                          List<Topic> topics, List<String> pendingDeletions, Map<String, List<Integer>> pendingReassignment,
                          List<String> pendingPreferredElection) {
    /**
     * Copies the collections.
     *
     * @param clusterId                the cluster id
     * @param controllerId             the controller
     * @param controllerEpoch          its epoch
     * @param brokers                  the brokers
     * @param topics                   the topics
     * @param pendingDeletions         pending topic deletions
     * @param pendingReassignment      a pending reassignment
     * @param pendingPreferredElection a pending preferred election
     */
    public ClusterView {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        pendingDeletions = List.copyOf(pendingDeletions);
        pendingReassignment = java.util.Collections.unmodifiableMap(new TreeMap<>(pendingReassignment));
        pendingPreferredElection = List.copyOf(pendingPreferredElection);
    }

    /**
     * A live broker.
     *
     * @param id        its id
     * @param endpoints its listeners, as {@code NAME://host:port}
     * @param rack      its rack, or null
     * @param epoch     its broker epoch (the czxid of its registration)
     */
    public record Broker(int id, List<String> endpoints, String rack, long epoch) {
        /**
         * Copies the list.
         *
         * @param id        the id
         * @param endpoints the endpoints
         * @param rack      the rack
         * @param epoch     the epoch
         */
        public Broker {
            endpoints = List.copyOf(endpoints);
        }
    }

    /**
     * A topic.
     *
     * @param name       its name
     * @param topicId    Kafka's topic id, or null
     * @param partitions its partitions, by number
     */
    public record Topic(String name, String topicId, List<Partition> partitions) {
        /**
         * Copies the list.
         *
         * @param name       the name
         * @param topicId    the id
         * @param partitions the partitions
         */
        public Topic {
            partitions = List.copyOf(partitions);
        }
    }

    /**
     * A partition.
     *
     * @param partition       its number
     * @param replicas        its assigned replicas, preferred leader first
     * @param adding          replicas a reassignment adds (empty otherwise)
     * @param removing        replicas a reassignment removes (empty otherwise)
     * @param leader          the leader, or -1 (none, or no state yet)
     * @param leaderEpoch     the leader epoch, or -1 without a state
     * @param isr             the in-sync replicas
     * @param controllerEpoch the controller epoch that last wrote the state, or -1
     */
    public record Partition(int partition, List<Integer> replicas, List<Integer> adding, List<Integer> removing,
                            int leader, int leaderEpoch, List<Integer> isr, int controllerEpoch) {
        /**
         * Copies the lists.
         *
         * @param partition       the number
         * @param replicas        the replicas
         * @param adding          replicas being added
         * @param removing        replicas being removed
         * @param leader          the leader
         * @param leaderEpoch     the leader epoch
         * @param isr             the ISR
         * @param controllerEpoch the controller epoch of the state
         */
        public Partition {
            replicas = List.copyOf(replicas);
            adding = List.copyOf(adding);
            removing = List.copyOf(removing);
            isr = List.copyOf(isr);
        }

        /**
         * Whether the ISR is smaller than the replica set (Kafka's under-replicated partition).
         *
         * @return true when under-replicated
         */
        public boolean underReplicated() {
            return isr.size() < replicas.size();
        }
    }

    /**
     * Reads the state. Each znode is read once, without watches; a znode that cannot be parsed is an error naming it.
     *
     * @param store the store over a connected client
     * @return the view
     * @throws MalformedZnodeException naming the znode when one cannot be parsed
     */
    public static ClusterView read(final KafkaZkStore store) throws MalformedZnodeException {
        final Optional<ZkNode> clusterIdNode = store.client().getData(ZkPaths.CLUSTER_ID, null);
        final String clusterId = clusterIdNode.isPresent() ? ClusterIdZnode.fromJson(clusterIdNode.get().data()) : null;
        final OptionalInt controller = store.controllerId(null);
        final int controllerEpoch = store.controllerEpoch().map(Versioned::value).orElse(-1);
        final List<Broker> brokers = new ArrayList<>();
        for (final BrokerInfo b : new TreeMap<>(store.brokers(null)).values()) {
            final List<String> endpoints = new ArrayList<>();
            b.registration().endpoints().forEach(e -> endpoints.add(e.listenerName() + "://" + e.host() + ":"
                + e.port()));
            brokers.add(new Broker(b.id(), endpoints, b.registration().rack().orElse(null), b.epoch()));
        }
        final List<Topic> topics = new ArrayList<>();
        for (final String name : new TreeSet<>(store.topics(null))) {
            final Optional<Versioned<TopicAssignmentZnode>> assignment = store.topicAssignment(name, null);
            if (assignment.isEmpty()) {
                continue; // deleted between the two reads
            }
            final TopicAssignmentZnode a = assignment.get().value();
            final List<TopicPartition> tps = new ArrayList<>();
            new TreeMap<>(a.partitions()).keySet().forEach(p -> tps.add(new TopicPartition(name, p)));
            final Map<TopicPartition, Optional<PartitionStateZnode>> states = store.partitionStates(tps);
            final List<Partition> partitions = new ArrayList<>();
            for (final TopicPartition tp : tps) {
                final Optional<PartitionStateZnode> state = states.getOrDefault(tp, Optional.empty());
                partitions.add(new Partition(tp.partition(), a.partitions().get(tp.partition()),
                    a.addingReplicas().getOrDefault(tp.partition(), List.of()),
                    a.removingReplicas().getOrDefault(tp.partition(), List.of()),
                    state.map(s -> s.leaderAndIsr().leader()).orElse(-1),
                    state.map(s -> s.leaderAndIsr().leaderEpoch()).orElse(-1),
                    state.map(s -> s.leaderAndIsr().isr()).orElse(List.of()),
                    state.map(PartitionStateZnode::controllerEpoch).orElse(-1)));
            }
            topics.add(new Topic(name, a.topicId().orElse(null), partitions));
        }
        final List<String> deletions = new ArrayList<>(new TreeSet<>(store.topicDeletions(null)));
        final Map<String, List<Integer>> reassignment = new TreeMap<>();
        store.admin().reassignmentRequest(null).ifPresent((ReassignPartitionsZnode r) ->
            r.reassignments().forEach((tp, replicas) -> reassignment.put(tp.toString(), replicas)));
        final List<String> preferred = new ArrayList<>();
        store.preferredElectionRequest(null).ifPresent(set -> set.stream().map(TopicPartition::toString).sorted()
            .forEach(preferred::add));
        return new ClusterView(clusterId, controller.orElse(-1), controllerEpoch, brokers, topics, deletions,
            reassignment, preferred);
    }
}
