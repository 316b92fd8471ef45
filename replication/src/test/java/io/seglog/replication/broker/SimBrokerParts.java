package io.seglog.replication.broker;

import io.seglog.replication.replica.IsrWriter;
import io.seglog.replication.zk.KafkaZkStore;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The broker package's parts that the cluster simulation assembles as {@link SeglogBroker} does, opened to it from the
 * same package (they are package-private in the main code).
 */
public final class SimBrokerParts {
    private SimBrokerParts() {
    }

    /**
     * The broker's ISR writer, writing on the simulation's executor instead of a thread of its own.
     *
     * @param store    the broker's current store
     * @param executor runs each write as an event
     * @return the writer
     */
    public static IsrWriter zkIsrWriter(final Supplier<KafkaZkStore> store, final Executor executor) {
        return new ZkIsrWriter(store, executor);
    }

    /**
     * The broker's producer-id manager (InitProducerId's ids, reserved in blocks in ZooKeeper), reserving on the
     * simulation's executor instead of a thread of its own.
     *
     * @param brokerId the broker
     * @param store    the broker's current store
     * @param clockMs  the simulated clock
     * @param executor runs each reservation as an event, nothing after it is shut down
     * @return the manager; {@link AutoCloseable#close()} stops it (a crash)
     */
    public static ProducerIds producerIds(final int brokerId, final Supplier<KafkaZkStore> store,
                                          final java.util.function.LongSupplier clockMs,
                                          final java.util.concurrent.ExecutorService executor) {
        final ZkProducerIdManager manager = new ZkProducerIdManager(brokerId, store, clockMs, executor);
        return new ProducerIds() {
            @Override
            public long nextProducerId() {
                return manager.nextProducerId();
            }

            @Override
            public void close() {
                manager.close();
            }
        };
    }

    /**
     * What a broker's Kafka APIs read of the cluster, as {@link SeglogBroker} builds it.
     *
     * @param handler the broker's control handler
     * @return its metadata cache as a cluster view (cluster id "sim")
     */
    public static io.seglog.replication.wire.ClusterView clusterView(final BrokerControlHandler handler) {
        return new HandlerClusterView(() -> handler, () -> "sim");
    }

    /**
     * A broker's registration as the controller's channel addresses it, as {@link SeglogBroker} reads it.
     *
     * @param store    the reading broker's store
     * @param brokerId the broker
     * @return its address and epoch, or empty
     */
    public static java.util.Optional<io.seglog.replication.transport.LiveBroker> registration(
        final KafkaZkStore store, final int brokerId) {
        return SeglogBroker.registration(store, brokerId);
    }

    /**
     * What a starting broker reads before it serves, as {@link ReplicationBroker} does.
     *
     * @param store   the broker's store
     * @param handler its control handler
     */
    public static void fenceBeforeServing(final KafkaZkStore store, final BrokerControlHandler handler) {
        ReplicationBroker.fenceBeforeServing(store, handler);
    }

    /**
     * The admin APIs' view of ZooKeeper, as {@link SeglogBroker} builds it: topics created through a
     * {@link io.seglog.replication.controller.TopicAdmin} over the broker's current store, with seeded randoms for the
     * start brokers and the topic ids (so that a seed replays the same bytes).
     *
     * @param store  the broker's current store
     * @param random draws the start brokers and the topic ids
     * @return the admin store
     */
    public static io.seglog.replication.wire.AdminStore adminStore(final Supplier<KafkaZkStore> store,
                                                                    final java.util.SplittableRandom random) {
        return new ZkAdminStore(store, () -> new io.seglog.replication.controller.TopicAdmin(store.get(),
            random.split(), random.split()));
    }

    /**
     * The broker's group coordinator, its work run by a scheduler of the simulation instead of a thread of its own.
     *
     * @param config          the coordinator's settings
     * @param replicas        the broker's replica layer (acks=all appends, local logs)
     * @param scheduler       runs its requests, timers, write completions and loads as events
     * @param wallClockMs     the simulated wall clock (record timestamps)
     * @param ids             draws member ids (seeded)
     * @return the coordinator; {@link GroupCoordinator#close()} stops nothing (a crash stops the process's events)
     */
    public static GroupCoordinator groupCoordinator(final GroupCoordinatorConfig config,
                                                    final GroupCoordinator.Replicas replicas,
                                                    final io.seglog.replication.group.GroupScheduler scheduler,
                                                    final java.util.function.LongSupplier wallClockMs,
                                                    final java.util.random.RandomGenerator ids) {
        return new GroupCoordinator(config.groups(), config.offsetsPartitions(), config.offsetsCommitTimeoutMs(),
            replicas, scheduler, () -> { }, wallClockMs, ids);
    }

    /**
     * The broker's creation of {@code __consumer_offsets} at a FindCoordinator, as {@link SeglogBroker} wires it, on an
     * executor of the simulation with seeded randoms.
     *
     * @param brokerId the broker
     * @param config   the offsets topic's settings
     * @param executor runs the creation as an event
     * @param handler  the broker's control handler
     * @param store    the broker's current store
     * @param random   draws the assignment and the topic id
     * @return the creator
     */
    public static io.seglog.replication.wire.GroupApis.OffsetsTopicCreator offsetsTopicCreator(
        final int brokerId, final GroupCoordinatorConfig config, final Executor executor,
        final Supplier<BrokerControlHandler> handler, final Supplier<KafkaZkStore> store,
        final java.util.SplittableRandom random) {
        final java.util.SplittableRandom ids = random.split();
        return ServedApis.offsetsTopicCreator(brokerId, config, executor, handler, store, random.split(),
            s -> new io.seglog.replication.controller.TopicAdmin(s, ids.split(), ids.split()));
    }

    /** A producer-id source that can be stopped. */
    public interface ProducerIds extends io.seglog.replication.wire.ProducerIdSource, AutoCloseable {
        @Override
        void close();
    }
}
