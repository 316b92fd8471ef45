package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.Controller;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlHandlerRegistry;
import io.seglog.replication.transport.InJvmControlChannel;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.ReplicaStateListener;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkSessions;
import io.seglog.storage.TopicPartition;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.agrona.CloseHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker's control plane: its ZooKeeper session, its registration under {@code /brokers/ids/<id>}, its
 * candidacy for controller (and the controller when elected), and the handler that applies the controller's
 * messages. It reaches other brokers through a {@link ControlChannel} and makes its own handlers reachable through a
 * {@link ControlHandlerRegistry}; several can run in one JVM over an {@link InJvmControlChannel}, which is both.
 *
 * <p>Thread-safe. Threads: the controller's event thread (from the given factory) and Curator's/ZooKeeper's.
 */
public final class ReplicationBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationBroker.class);

    private final ReplicationConfig config;
    private final ControlChannel channel;
    private final ControlHandlerRegistry registry;
    private final BrokerControlHandler handler;
    private final Controller controller;
    private final ZkConnection zk;
    private final KafkaZkStore store;
    private boolean closed;

    /**
     * A control plane alone: its own handler and controller, and a ZooKeeper session of its own.
     */
    private static ReplicationBroker open(final ReplicationConfig config, final ControlChannel channel,
                                          final ControlHandlerRegistry registry, final ThreadFactory threadFactory,
                                          final LongSupplier clockMs, final ReplicaStateListener replicas) {
        final BrokerControlHandler handler = new BrokerControlHandler(config.brokerId(), replicas);
        final Controller controller = new Controller(config, channel, threadFactory, clockMs, System::currentTimeMillis,
            handler::brokerEpoch);
        final ZkSessions sessions = new ZkSessions();
        ZkClient client = null;
        boolean handedOver = false;
        try {
            client = ZkClient.open(config, threadFactory, sessions);
            final KafkaZkStore store = new KafkaZkStore(client);
            store.createPersistentPaths();
            handedOver = true; // the constructor closes them if it fails
            return new ReplicationBroker(config, channel, registry, client, store, sessions, handler, controller,
                true);
        } catch (final RuntimeException | Error e) {
            if (!handedOver) {
                CloseHelper.quietCloseAll(controller, client);
            }
            throw e;
        }
    }

    /**
     * Assembles a broker's control plane from parts built before it, and starts it: the controller hears of the
     * session (the current one at once), the starting broker reads what fences its earlier registrations, its handlers
     * become reachable, and the controller starts (registration, candidacy). Takes ownership of the connection, the
     * controller and the registration in {@code registry}: closed when this is, or here when starting fails.
     *
     * @param config            the broker's configuration, with its advertised address
     * @param channel           how this broker's controller reaches the others
     * @param registry          where this broker's handlers are made reachable
     * @param zk                the broker's ZooKeeper connection
     * @param store             Kafka's layout over it, its persistent paths created
     * @param sessions          the connection's session events
     * @param handler           the broker's control handler
     * @param controller        the broker's controller, not started
     * @param registrationsRead whether the earlier registrations are read before serving (off only to replay the bug
     *                          that reading them fixed)
     */
    ReplicationBroker(final ReplicationConfig config, final ControlChannel channel,
                      final ControlHandlerRegistry registry, final ZkConnection zk, final KafkaZkStore store,
                      final ZkSessions sessions, final BrokerControlHandler handler, final Controller controller,
                      final boolean registrationsRead) {
        this.config = config;
        this.channel = channel;
        this.registry = registry;
        this.zk = zk;
        this.store = store;
        this.handler = handler;
        this.controller = controller;
        try {
            sessions.add(controller.sessionListener());
            if (registrationsRead) {
                fenceBeforeServing(store, handler);
            } else { // seed 2199's replay: the controller epoch only, as brokers read it when it was found
                store.controllerEpoch().ifPresent(epoch -> handler.controllerEpochAtLeast(epoch.value()));
            }
            registry.register(config.brokerId(), handler, controller);
            controller.start(store);
        } catch (final RuntimeException | Error e) {
            try {
                CloseHelper.closeAll(controller, () -> registry.unregister(config.brokerId()), zk);
            } catch (final RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * What a starting broker reads from ZooKeeper before its control handler is reachable, so that it refuses what was
     * meant for an earlier process: the controller epoch (a deposed controller's messages, seed 2199) and the
     * registrations made so far (what the controller had queued for this broker's previous registration, seed 5840).
     *
     * @param store   the broker's store
     * @param handler its control handler
     */
    static void fenceBeforeServing(final KafkaZkStore store, final BrokerControlHandler handler) {
        store.controllerEpoch().ifPresent(epoch -> handler.controllerEpochAtLeast(epoch.value()));
        handler.registrationsUpTo(store.registrationsUpTo());
    }

    /**
     * Starts a broker: opens its ZooKeeper session, creates Kafka's persistent paths, registers and competes for
     * controller in the background (see {@link #awaitRegistered(long)}).
     *
     * @param config        the broker's configuration
     * @param channel       the in-JVM channel shared by the brokers
     * @param threadFactory makes the controller's event thread and Curator's threads
     * @param clockMs       monotonic milliseconds for the controller's timed work
     * @return the running broker, closed by the caller
     * @throws ZkException when ZooKeeper cannot be reached within the request timeout
     */
    public static ReplicationBroker start(final ReplicationConfig config, final InJvmControlChannel channel,
                                          final ThreadFactory threadFactory, final LongSupplier clockMs) {
        return start(config, channel, channel, threadFactory, clockMs);
    }

    /**
     * Starts a broker over any transport: opens its ZooKeeper session, creates Kafka's persistent paths, registers
     * its handlers with {@code registry} and competes for controller in the background.
     *
     * @param config        the broker's configuration
     * @param channel       how this broker (and its controller, when active) reaches the others
     * @param registry      where this broker's handlers are made reachable; left on close
     * @param threadFactory makes the controller's event thread and Curator's threads
     * @param clockMs       monotonic milliseconds for the controller's timed work
     * @return the running broker, closed by the caller
     * @throws ZkException when ZooKeeper cannot be reached within the request timeout
     */
    public static ReplicationBroker start(final ReplicationConfig config, final ControlChannel channel,
                                          final ControlHandlerRegistry registry, final ThreadFactory threadFactory,
                                          final LongSupplier clockMs) {
        return open(config, channel, registry, threadFactory, clockMs, ReplicaStateListener.NONE);
    }

    /**
     * Starts a broker whose replicas act on the controller's messages: the listener (a replica layer) is told every
     * accepted LeaderAndIsr and StopReplica, in order, before the controller gets its answer.
     *
     * @param config        the broker's configuration
     * @param channel       how this broker (and its controller, when active) reaches the others
     * @param registry      where this broker's handlers are made reachable; left on close
     * @param threadFactory makes the controller's event thread and Curator's threads
     * @param clockMs       monotonic milliseconds for the controller's timed work
     * @param replicas      told the accepted changes to this broker's replicas
     * @return the running broker, closed by the caller
     * @throws ZkException when ZooKeeper cannot be reached within the request timeout
     */
    public static ReplicationBroker start(final ReplicationConfig config, final ControlChannel channel,
                                          final ControlHandlerRegistry registry, final ThreadFactory threadFactory,
                                          final LongSupplier clockMs, final ReplicaStateListener replicas) {
        return open(config, channel, registry, threadFactory, clockMs, replicas);
    }

    /**
     * This broker's id.
     *
     * @return {@code broker.id}
     */
    public int brokerId() {
        return config.brokerId();
    }

    /**
     * The controller component (active or not).
     *
     * @return the controller
     */
    public Controller controller() {
        return controller;
    }

    /**
     * Whether this broker is the active controller.
     *
     * @return true when active
     */
    public boolean isController() {
        return controller.isActive();
    }

    /**
     * The handler of control messages (this broker's view of its partitions).
     *
     * @return the handler
     */
    public BrokerControlHandler controlHandler() {
        return handler;
    }

    /**
     * The ZooKeeper session.
     *
     * @return the client
     * @throws IllegalStateException when the broker's connection is not Curator's (a simulation's)
     */
    public ZkClient zkClient() {
        if (zk instanceof ZkClient client) {
            return client;
        }
        throw new IllegalStateException("broker.id=" + brokerId() + " is connected through " + zk);
    }

    /** @return the channel this broker's controller sends through */
    ControlChannel channel() {
        return channel;
    }

    /**
     * Kafka's ZooKeeper layout over this broker's session.
     *
     * @return the store
     */
    public KafkaZkStore store() {
        return store;
    }

    /**
     * Topic administration over this broker's session.
     *
     * @param random picks round-robin start brokers
     * @return an admin client
     */
    public TopicAdmin admin(final RandomGenerator random) {
        return new TopicAdmin(store, random);
    }

    /**
     * Waits until the broker is registered in its current session.
     *
     * @param timeoutMs how long to wait
     * @return the broker epoch
     * @throws TimeoutException when not registered in time
     * @throws InterruptedException when interrupted
     */
    public long awaitRegistered(final long timeoutMs) throws TimeoutException, InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (handler.brokerEpoch() == BrokerControlHandler.NO_BROKER_EPOCH) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("broker.id=" + brokerId() + " not registered within " + timeoutMs + " ms");
            }
            Thread.sleep(10);
        }
        return handler.brokerEpoch();
    }

    /**
     * Controlled shutdown: asks the controller to move this broker's leaderships away, retrying until it leads
     * nothing that can move or the deadline passes (Kafka's {@code controlled.shutdown.*}).
     *
     * @param timeoutMs the deadline
     * @return the partitions it still leads (empty: safe to stop)
     * @throws TimeoutException     when no controller answered in time
     * @throws InterruptedException when interrupted
     */
    public Set<TopicPartition> controlledShutdown(final long timeoutMs) throws TimeoutException, InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                final OptionalInt controllerId = store.controllerId(null);
                if (controllerId.isPresent() && controllerId.getAsInt() >= 0) {
                    final long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                    return channel.controlledShutdown(controllerId.getAsInt(), brokerId(), handler.brokerEpoch())
                        .get(remainingMs, TimeUnit.MILLISECONDS);
                }
            } catch (final ExecutionException e) {
                last = e;
                if (!(e.getCause() instanceof NotControllerException)) {
                    LOG.warn("broker.id={} controlled shutdown attempt failed: {}", brokerId(), e.getCause().toString());
                }
            } catch (final ZkException e) {
                last = e;
            }
            Thread.sleep(50);
        }
        final TimeoutException timeout = new TimeoutException("broker.id=" + brokerId()
            + " controlled shutdown not acknowledged within " + timeoutMs + " ms");
        if (last != null) {
            timeout.initCause(last);
        }
        throw timeout;
    }

    /**
     * Stops the controller, leaves the channel and closes the session (its ephemerals go at once). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Every step runs even when an earlier one fails (the session must close whatever else failed); the
        // first failure is rethrown with the others suppressed.
        CloseHelper.closeAll(controller, () -> registry.unregister(brokerId()), zk);
    }
}
