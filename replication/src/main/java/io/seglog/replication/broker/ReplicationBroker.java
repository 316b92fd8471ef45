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
import io.seglog.replication.zk.ZkException;
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
    /** Run after the controller's own handling of each new session (re-arming watches the session lost). */
    private final java.util.List<Runnable> newSessionHooks = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ControlChannel channel;
    private final ControlHandlerRegistry registry;
    private final BrokerControlHandler handler;
    private final Controller controller;
    private final ZkClient zk;
    private final KafkaZkStore store;
    private boolean closed;

    private ReplicationBroker(final ReplicationConfig config, final ControlChannel channel,
                              final ControlHandlerRegistry registry, final ThreadFactory threadFactory,
                              final LongSupplier clockMs, final ReplicaStateListener replicas) {
        this.config = config;
        this.channel = channel;
        this.registry = registry;
        this.handler = new BrokerControlHandler(config.brokerId(), replicas);
        this.controller = new Controller(config, channel, threadFactory, clockMs, System::currentTimeMillis,
            handler::brokerEpoch);
        ZkClient client = null;
        try {
            final io.seglog.replication.zk.ZkSessionListener controllerSessions = controller.sessionListener();
            client = ZkClient.open(config, threadFactory, new io.seglog.replication.zk.ZkSessionListener() {
                @Override
                public void onSessionExpired(final long sessionId) {
                    controllerSessions.onSessionExpired(sessionId);
                }

                @Override
                public void onNewSession(final long sessionId) {
                    controllerSessions.onNewSession(sessionId);
                    newSessionHooks.forEach(Runnable::run);
                }
            });
            this.zk = client;
            this.store = new KafkaZkStore(client);
            store.createPersistentPaths();
            fenceBeforeServing(store, handler);
            registry.register(config.brokerId(), handler, controller);
            controller.start(store);
        } catch (final RuntimeException e) {
            controller.close();
            if (client != null) {
                client.close();
            }
            registry.unregister(config.brokerId());
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
        return new ReplicationBroker(config, channel, registry, threadFactory, clockMs, ReplicaStateListener.NONE);
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
        return new ReplicationBroker(config, channel, registry, threadFactory, clockMs, replicas);
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
     */
    public ZkClient zkClient() {
        return zk;
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
     * Adds a hook run on ZooKeeper's event thread after each new session (after the controller's own handling), for
     * a component that must re-arm the watches an expired session lost; it must only enqueue work.
     *
     * @param hook the hook
     */
    void onNewSession(final Runnable hook) {
        newSessionHooks.add(java.util.Objects.requireNonNull(hook, "hook"));
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
