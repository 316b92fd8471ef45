package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.ControllerDriver;
import io.seglog.replication.group.GroupScheduler;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.replica.SafetyFixes;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.SeglogApi;
import io.seglog.replication.wire.WireClient;
import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.Scheduler;
import io.seglog.storage.io.FileIO;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The cluster simulation's door into the broker's assembly: it builds its brokers through the same constructor as
 * {@link SeglogBroker#start}, giving its own seams (package-private in the main code).
 */
public final class SimBrokerParts {
    private SimBrokerParts() {
    }

    /** A simulated network as a broker sees it: connections to the other brokers, and its listener. */
    public interface Network {
        /**
         * @param brokerId the broker reached
         * @param clientId the connection's client id
         * @return a client over the simulated network
         */
        WireClient connect(int brokerId, String clientId);

        /**
         * The broker serves these from now on.
         *
         * @param apis    the Kafka APIs
         * @param control Seglog's own APIs
         * @return the listener's address
         */
        InetSocketAddress listen(List<KafkaApi> apis, List<SeglogApi> control);
    }

    /**
     * The simulation's seams.
     *
     * @param clockMs          the simulated monotonic clock
     * @param wallClockMs      the simulated wall clock
     * @param fileIO           the broker's disk
     * @param storageTimers    runs the storage's and replica layer's timed work as events
     * @param executors        makes each named executor, running its tasks as the process's events
     * @param zooKeeper        connects to the simulated ZooKeeper
     * @param network          the simulated network
     * @param groupScheduler   runs the group coordinator's work as events
     * @param controllerDriver steps the controller as events
     * @param randoms          seeded randoms, by purpose
     * @param replicaFixes     the replica layer's fixes
     * @param controllerEpochCheck whether the store's writes are fenced by the controller epoch
     * @param registrationsRead whether a starting broker reads the registrations before it serves
     * @param producerIdsHandedOut told each producer id InitProducerId hands out
     */
    public record Seams(LongSupplier clockMs, LongSupplier wallClockMs, FileIO fileIO, Scheduler storageTimers,
                        Function<String, ScheduledExecutorService> executors,
                        BiFunction<ReplicationConfig, ZkSessionListener, ZkConnection> zooKeeper, Network network,
                        GroupScheduler groupScheduler, ControllerDriver controllerDriver,
                        Function<String, SplittableRandom> randoms, SafetyFixes replicaFixes,
                        boolean controllerEpochCheck, boolean registrationsRead, LongConsumer producerIdsHandedOut) {
    }

    /**
     * Builds a broker through the assembly with the simulation's seams.
     *
     * @param config  the broker's configuration
     * @param options the embedder's options (the in-JVM control transport and endpoints without the wire, metrics)
     * @param seams   the simulation's seams
     * @return the broker
     */
    public static SeglogBroker start(final SeglogBrokerConfig config, final SeglogBroker.Options options,
                                     final Seams seams) {
        final BrokerSeams.Network network = new BrokerSeams.Network() {
            @Override
            public WireClient connect(final int brokerId, final String host, final int port, final String clientId,
                                      final int connectTimeoutMs, final int receiveBufferBytes) {
                return seams.network().connect(brokerId, clientId);
            }

            @Override
            public BrokerSeams.Listener listen(final List<KafkaApi> apis, final List<SeglogApi> control,
                                               final KafkaMetrics metrics) {
                final InetSocketAddress address = seams.network().listen(apis, control);
                return new BrokerSeams.Listener() {
                    @Override
                    public InetSocketAddress address() {
                        return address;
                    }

                    @Override
                    public void close() {
                    }
                };
            }

            @Override
            public void close() {
            }
        };
        final BrokerSeams.Randoms randoms = new BrokerSeams.Randoms() {
            @Override
            public java.util.random.RandomGenerator generator(final String purpose) {
                return seams.randoms().apply(purpose);
            }

            @Override
            public SplittableRandom splittable(final String purpose) {
                return seams.randoms().apply(purpose);
            }
        };
        return new SeglogBroker(config, new BrokerSeams(options, seams.clockMs(), seams.wallClockMs(), seams.fileIO(),
            seams.storageTimers(), seams.executors()::apply, seams.zooKeeper()::apply, network,
            seams.groupScheduler(), seams.controllerDriver(), randoms, new BrokerSeams.Fixes(seams.replicaFixes(),
                seams.controllerEpochCheck(), seams.registrationsRead()), seams.producerIdsHandedOut()));
    }

    /**
     * The producer ids a broker's InitProducerId hands out (each told to the seams' listener).
     *
     * @param broker the broker
     * @return its source
     */
    public static io.seglog.replication.wire.ProducerIdSource producerIds(final SeglogBroker broker) {
        return broker.producerIds();
    }

    /**
     * The channel a broker's controller sends through.
     *
     * @param broker the broker
     * @return its control channel
     */
    public static ControlChannel channel(final SeglogBroker broker) {
        return broker.control().channel();
    }
}
