package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.controller.TopicExistsException;
import io.seglog.replication.election.ReplicaAssignment;
import io.seglog.replication.metrics.BrokerTopicMetrics;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.wire.AdminApis;
import io.seglog.replication.wire.ClusterView;
import io.seglog.replication.wire.GroupApis;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.KafkaApis;
import io.seglog.replication.wire.ProducerIdSource;
import io.seglog.replication.wire.WireServerConfig;
import io.seglog.replication.zk.KafkaZkStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.agrona.CloseHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka APIs a broker's listener serves, and the threads their ZooKeeper work runs on: the data path
 * ({@link KafkaApis}, with Kafka's auto topic creation on a thread of its own), topic administration ({@link AdminApis},
 * whose ZooKeeper work and waits run on an admin thread) and the group APIs ({@link GroupApis}, creating
 * {@code __consumer_offsets} on a thread of its own). Owns those three executors: it is their only creator and closes
 * them; the broker owns it and closes it before its replicas and logs.
 */
final class ServedApis implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SeglogBroker.class);

    private final ScheduledExecutorService adminThread;
    /** Null when {@code auto.create.topics.enable=false}. */
    private final ScheduledExecutorService topicCreation;
    private final ScheduledExecutorService offsetsTopicCreation;
    private final List<KafkaApi> apis;

    /**
     * @param config      the broker's configuration
     * @param replicas    the replica layer the data path serves
     * @param handler     the broker's control handler (the live brokers, for topic creation)
     * @param view        the cluster as the handler knows it
     * @param store       the broker's store
     * @param producerIds hands out producer ids
     * @param metrics     where the data path's topic metrics go
     * @param groups      the group coordinator
     * @param seams       the executors, the clock and the randoms
     */
    ServedApis(final SeglogBrokerConfig config, final ReplicaManager replicas, final BrokerControlHandler handler,
               final ClusterView view, final KafkaZkStore store, final ProducerIdSource producerIds,
               final KafkaMetrics metrics, final GroupCoordinator groups, final BrokerSeams seams) {
        final int id = config.replication().brokerId();
        adminThread = seams.executors().single("admin-" + id);
        topicCreation = config.autoCreateTopics() ? seams.executors().single("topic-creation-" + id) : null;
        offsetsTopicCreation = seams.executors().single("offsets-topic-creation-" + id);
        try {
            final Function<KafkaZkStore, TopicAdmin> admins = topicAdmins(seams.randoms());
            final AdminApis admin = new AdminApis(id, view, new ZkAdminStore(() -> store, () -> admins.apply(store)),
                config.numPartitions(), config.defaultReplicationFactor(), config.logs().logConfig(),
                SeglogBrokerConfig.configDef(), brokerConfigView(config), adminThread, seams.clockMs(),
                seams.randoms().splittable("admin-assignments"));
            final List<KafkaApi> served = new ArrayList<>(new KafkaApis(id, replicas, view,
                topicCreator(config, handler, admins.apply(store), topicCreation), producerIds,
                new BrokerTopicMetrics(metrics)).apis());
            served.addAll(admin.apis());
            // Creates __consumer_offsets when a FindCoordinator first needs it, as Kafka does.
            served.addAll(new GroupApis(GroupCoordinator.OFFSETS_TOPIC, groups, view, offsetsTopicCreator(id,
                config.groups(), offsetsTopicCreation, () -> handler, () -> store,
                seams.randoms().splittable("offsets-topic-assignment"), admins)).apis());
            apis = List.copyOf(served);
        } catch (final RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Topic administration over a store: assignments drawn from a splittable random (split under its lock: several
     * threads create topics), topic ids from the broker's id source (secure but in a simulation).
     */
    static Function<KafkaZkStore, TopicAdmin> topicAdmins(final BrokerSeams.Randoms randoms) {
        final SplittableRandom draws = randoms.splittable("topic-assignments");
        final java.util.random.RandomGenerator ids = randoms.generator("topic-ids");
        return s -> {
            final SplittableRandom mine;
            synchronized (draws) {
                mine = draws.split();
            }
            return new TopicAdmin(s, mine, ids);
        };
    }

    /** @return every API the listener serves */
    List<KafkaApi> apis() {
        return apis;
    }

    @Override
    public void close() {
        CloseHelper.closeAll(BrokerThreads.shutdown(topicCreation), BrokerThreads.shutdown(offsetsTopicCreation),
            BrokerThreads.shutdown(adminThread));
    }

    /**
     * The creation of {@code __consumer_offsets} on an executor (one at a time; a request while one is under way
     * does nothing), as a broker wires it; the simulation
     * wires it on its own executor.
     *
     * @param brokerId the broker
     * @param groups   the offsets topic's settings
     * @param executor runs the creation (ZooKeeper calls block)
     * @param handler  the broker's control handler (its live brokers), or null before it is registered
     * @param store    the broker's current store
     * @param random   draws the assignment's start broker (seeded only in the simulation)
     * @param admins   topic administration over a store (topic ids from a secure source, but in the simulation)
     * @return the creator
     */
    static GroupApis.OffsetsTopicCreator offsetsTopicCreator(final int brokerId, final GroupCoordinatorConfig groups,
                                                             final Executor executor,
                                                             final Supplier<BrokerControlHandler> handler,
                                                             final Supplier<KafkaZkStore> store,
                                                             final SplittableRandom random,
                                                             final Function<KafkaZkStore, TopicAdmin> admins) {
        final AtomicBoolean pending = new AtomicBoolean();
        return () -> {
            if (!pending.compareAndSet(false, true)) {
                return;
            }
            try {
                executor.execute(() -> {
                    try {
                        final BrokerControlHandler h = handler.get();
                        if (h == null || h.liveBrokerEndpoints().isEmpty()) {
                            LOG.debug("{} is not created yet: no live brokers known", GroupCoordinator.OFFSETS_TOPIC);
                            return; // not registered, or no UpdateMetadata yet: the client asks again
                        }
                        final Map<Integer, Optional<String>> brokers = new TreeMap<>();
                        h.liveBrokerEndpoints().forEach((bid, b) -> brokers.put(bid, b.rack()));
                        if (brokers.size() < groups.offsetsReplication()) {
                            LOG.warn("{} is not created: {}={} but {} brokers are alive", GroupCoordinator.OFFSETS_TOPIC,
                                GroupCoordinatorConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, groups.offsetsReplication(),
                                brokers.size());
                            return;
                        }
                        final SplittableRandom draws;
                        synchronized (random) {
                            draws = random.split();
                        }
                        final Map<Integer, List<Integer>> assignment = ReplicaAssignment
                            .assign(brokers, groups.offsetsPartitions(), groups.offsetsReplication(), -1, 0, draws);
                        new ZkAdminStore(store, () -> admins.apply(store.get())).createTopic(GroupCoordinator.OFFSETS_TOPIC,
                            assignment,
                            Map.of("cleanup.policy", "compact",
                                "segment.bytes", String.valueOf(groups.offsetsSegmentBytes()),
                                "compression.type", "producer"));
                        LOG.info("broker.id={} created {} ({} partitions, replication factor {})", brokerId,
                            GroupCoordinator.OFFSETS_TOPIC, groups.offsetsPartitions(), groups.offsetsReplication());
                    } catch (final TopicExistsException exists) {
                        LOG.debug("{} exists", GroupCoordinator.OFFSETS_TOPIC);
                    } catch (final RuntimeException e) {
                        LOG.warn("creating {} failed: {}", GroupCoordinator.OFFSETS_TOPIC, e.toString());
                    } finally {
                        pending.set(false);
                    }
                });
            } catch (final RejectedExecutionException e) {
                pending.set(false); // the broker is closing
            }
        };
    }

    /** The broker's configuration for DescribeConfigs: explicit = what differs from a configuration of defaults. */
    private static AdminApis.BrokerConfigView brokerConfigView(final SeglogBrokerConfig config) {
        final Map<String, String> values = config.kafkaProperties();
        Map<String, String> defaults;
        try {
            defaults = SeglogBrokerConfig.fromProperties(Map.of(ReplicationConfig.BROKER_ID,
                config.replication().brokerId(), ReplicationConfig.ZOOKEEPER_CONNECT,
                config.replication().zookeeperConnect(), WireServerConfig.LISTENERS,
                values.get(WireServerConfig.LISTENERS))).kafkaProperties();
        } catch (final IllegalArgumentException e) {
            defaults = Map.of(); // no configuration of defaults to compare with: every value counts as set
        }
        // The keys a configuration must have are set, whatever their values.
        final Set<String> explicit = new TreeSet<>(Set.of(ReplicationConfig.BROKER_ID,
            ReplicationConfig.ZOOKEEPER_CONNECT, WireServerConfig.LISTENERS));
        for (final Map.Entry<String, String> e : values.entrySet()) {
            if (!e.getValue().equals(defaults.get(e.getKey()))) {
                explicit.add(e.getKey());
            }
        }
        return new AdminApis.BrokerConfigView(values, explicit);
    }

    /**
     * Kafka's auto topic creation: the topic is created in ZooKeeper on a thread of its own (the request that named
     * it is answered LEADER_NOT_AVAILABLE meanwhile), with {@code num.partitions} and
     * {@code default.replication.factor}, capped at the live brokers.
     */
    private static KafkaApis.TopicCreator topicCreator(final SeglogBrokerConfig config,
                                                       final BrokerControlHandler handler, final TopicAdmin admin,
                                                       final ExecutorService topicCreation) {
        if (topicCreation == null) {
            return KafkaApis.TopicCreator.NONE;
        }
        final Set<String> requested = ConcurrentHashMap.newKeySet();
        return topic -> {
            if (!requested.add(topic)) {
                return true; // already on its way
            }
            topicCreation.execute(() -> {
                try {
                    final int live = handler.liveBrokerEndpoints().size();
                    if (handler.brokerEpoch() == BrokerControlHandler.NO_BROKER_EPOCH || live == 0) {
                        // Not registered, or no UpdateMetadata yet: the live brokers are unknown, and a topic created
                        // now would get a replication factor of 1 for good. The client asks again.
                        return;
                    }
                    admin.createTopic(topic, config.numPartitions(), Math.min(config.defaultReplicationFactor(), live));
                    LOG.info("broker.id={} created topic {} ({} partitions) for a client", config.replication()
                        .brokerId(), topic, config.numPartitions());
                } catch (final TopicExistsException exists) {
                    LOG.debug("topic {} exists", topic);
                } catch (final RuntimeException e) {
                    LOG.warn("auto-creating topic {} failed: {}", topic, e.toString());
                } finally {
                    requested.remove(topic);
                }
            });
            return true;
        };
    }
}
