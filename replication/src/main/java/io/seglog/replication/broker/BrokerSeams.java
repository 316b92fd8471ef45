package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.controller.ControllerDriver;
import io.seglog.replication.group.GroupScheduler;
import io.seglog.replication.replica.LeaderEndpoint;
import io.seglog.replication.replica.SafetyFixes;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.SeglogApi;
import io.seglog.replication.wire.WireClient;
import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.Scheduler;
import io.seglog.storage.io.FileIO;
import io.seglog.replication.zk.ZkClient;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Everything a broker's assembly takes from outside besides its configuration: the seams (threads and executors,
 * clocks, file I/O, ZooKeeper, the network, randomness) and the embedder's options. {@link SeglogBroker#start} makes
 * them from {@link SeglogBroker.Options} (real threads, the system clocks, Curator, Netty); the cluster simulation
 * gives its own (one scheduler, simulated clocks, disks, ZooKeeper and network, seeded randoms) and so builds its
 * brokers through the same assembly.
 *
 * @param options          the embedder's options (thread factory, control transport, endpoint wrapper, leadership
 *                         listener, metrics registry)
 * @param clockMs          a monotonic clock
 * @param wallClockMs      the wall clock (record timestamps, the controller's znodes)
 * @param fileIO           the logs' file operations
 * @param storageTimers    runs the logs' and replica layer's timed work; null for threads of their own
 * @param executors        makes the broker's single-threaded executors, by name (each owned and shut down by the
 *                         broker)
 * @param zooKeeper        opens the broker's ZooKeeper connection
 * @param network          the listener and the connections to other brokers
 * @param groupScheduler   runs the group coordinator's work; null for a thread of its own
 * @param controllerDriver drives the controller's event loop in steps; null for a thread of its own
 * @param randoms          the broker's sources of randomness, by purpose
 * @param fixes            the safety fixes (all on, but in the simulation's replays of the bugs they fixed)
 * @param producerIdsHandedOut told each producer id InitProducerId hands out (the simulation checks uniqueness)
 */
record BrokerSeams(SeglogBroker.Options options, LongSupplier clockMs, LongSupplier wallClockMs, FileIO fileIO,
                   Scheduler storageTimers, Executors executors, ZooKeeper zooKeeper, Network network,
                   GroupScheduler groupScheduler, ControllerDriver controllerDriver, Randoms randoms, Fixes fixes,
                   LongConsumer producerIdsHandedOut) {

    /** Makes a broker's named single-threaded executors. */
    @FunctionalInterface
    interface Executors {
        /**
         * @param name the executor's name (its thread's)
         * @return a new executor running one task at a time, in order; tasks delayed past its shutdown are dropped
         */
        ScheduledExecutorService single(String name);
    }

    /** Opens a broker's ZooKeeper connection. */
    @FunctionalInterface
    interface ZooKeeper {
        /**
         * @param config   the broker's ZooKeeper settings
         * @param sessions hears of every session
         * @return the connection, connecting (owned by the broker)
         */
        ZkConnection connect(ReplicationConfig config, ZkSessionListener sessions);
    }

    /** The broker's listener and its connections to the other brokers. */
    interface Network extends AutoCloseable {
        /**
         * A connection to another broker.
         *
         * @param brokerId           the broker reached
         * @param host               its host
         * @param port               its port
         * @param clientId           the connection's client id
         * @param connectTimeoutMs   how long connecting may take
         * @param receiveBufferBytes the socket's receive buffer (-1: the system's)
         * @return the client, connecting when first used
         */
        WireClient connect(int brokerId, String host, int port, String clientId, int connectTimeoutMs,
                           int receiveBufferBytes);

        /**
         * Starts serving.
         *
         * @param apis    the Kafka APIs
         * @param control Seglog's own APIs on the same listener (the control messages), or none
         * @param metrics where the listener's request metrics go
         * @return the listener, closed by the broker
         */
        Listener listen(List<KafkaApi> apis, List<SeglogApi> control, KafkaMetrics metrics);

        /** Closes the connections' resources, after every connection. */
        @Override
        void close();
    }

    /** A bound listener. */
    interface Listener extends AutoCloseable {
        /** @return the address it is bound to */
        InetSocketAddress address();

        @Override
        void close();
    }

    /** The broker's randomness, by purpose: secure in a real broker, seeded in a simulation. */
    interface Randoms {
        /**
         * @param purpose what the draws are for
         * @return a generator
         */
        RandomGenerator generator(String purpose);

        /**
         * @param purpose what the draws are for
         * @return a generator that splits
         */
        SplittableRandom splittable(String purpose);
    }

    /**
     * The safety fixes a broker runs with: all on, but in the simulation's replays of the bugs they fixed.
     *
     * @param replica              the replica layer's
     * @param controllerEpochCheck the store's fenced writes (the controller epoch checked in each)
     * @param registrationsRead    a starting broker refuses requests meant for its earlier registrations
     */
    record Fixes(SafetyFixes replica, boolean controllerEpochCheck, boolean registrationsRead) {
        /** Every fix on. */
        static final Fixes ALL = new Fixes(SafetyFixes.ALL, true, true);
    }

    /**
     * A real broker's seams: threads from the options' factory, the system's clocks and files, Curator, Netty, secure
     * randomness.
     *
     * @param config  the broker's configuration (its listener)
     * @param options the embedder's options
     * @return the seams
     */
    static BrokerSeams of(final SeglogBrokerConfig config, final SeglogBroker.Options options) {
        final ThreadFactory threads = options.threadFactory();
        return new BrokerSeams(options, options.clockMs(), System::currentTimeMillis, FileIO.system(), null,
            name -> {
                final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    BrokerThreads.named(threads, name));
                // Work still delayed at close is dropped, not waited for (its requester is closing too).
                executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
                return executor;
            }, (zk, sessions) -> ZkClient.open(zk, threads, sessions), new NettyNetwork(config, threads), null, null,
            new Randoms() {
                @Override
                public RandomGenerator generator(final String purpose) {
                    return new SecureRandom();
                }

                @Override
                public SplittableRandom splittable(final String purpose) {
                    return new SplittableRandom();
                }
            }, Fixes.ALL, id -> { });
    }

    /**
     * A leader endpoint factory built over {@link Network#connect}: what the replica fetchers use unless the options
     * wrap them.
     */
    LeaderEndpoint.Factory endpoints(final int brokerId, final int timeoutMs, final int receiveBufferBytes) {
        return (leaderId, host, port) -> options.endpointWrapper().wrap(brokerId, leaderId,
            new io.seglog.replication.wire.WireLeaderEndpoint(network.connect(leaderId, host, port,
                "seglog-replica-fetcher-" + brokerId, timeoutMs, receiveBufferBytes)));
    }
}
