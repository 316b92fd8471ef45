package io.seglog.replication.controller;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControllerRequestHandler;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.zk.BrokerRegistration;
import io.seglog.replication.zk.ControllerElection;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkWatch;
import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's ZooKeeper-mode controller for one broker: it registers the broker, competes for {@code /controller},
 * and while it holds it keeps every partition led by a live ISR member.
 *
 * <p>Everything runs on one event thread ({@link ControllerEventLoop}): ZooKeeper watches, session callbacks and
 * broker requests only enqueue {@link ControllerEvent}s, and timed work (the preferred-leader check, retries)
 * runs between events with the time passed in. Every ZooKeeper write of the controller is fenced by the version
 * of {@code /controller_epoch} it wrote when elected; a failed fence makes it resign at once, and a session expiry
 * empties the queue and resigns before anything else.
 *
 * <p>It owns the broker's registration (the session it registered in, a registration to retry and the broker
 * epoch), its seat in {@code /controller} (whether it is active, its epoch, the controller it last read), the event
 * thread, and when timed work runs (the retried registration, the resynchronisation after a failed ZooKeeper call,
 * the leader-imbalance check). What the broker does while active, and the active term's cache of the cluster, are
 * its {@link ControllerTerm}'s, which it begins when elected and ends when it resigns.
 *
 * <p>Thread-safety: the public accessors read volatile snapshots and may be called from any thread; the
 * rest is confined to the event thread.
 */
public final class Controller implements ControllerRequestHandler, AutoCloseable {
    /** Back-off before retrying a failed registration or a failed resynchronisation. */
    private static final long RETRY_BACKOFF_MS = 500;
    private static final Logger LOG = LoggerFactory.getLogger(Controller.class);

    private final ReplicationConfig config;
    private final int brokerId;
    private final ControlChannel channel;
    private final LongSupplier clockMs;
    private final LongSupplier wallClockMs;
    private final LongConsumer brokerEpochListener;
    private final ControllerEventLoop loop;
    /** Where new topic ids come from (seeded in a simulation). */
    private final java.util.random.RandomGenerator idSource;
    /** How long a registration waits for a foreign ephemeral of this broker id to go; -1 for the session's length. */
    private final long registrationWaitMs;
    private final AtomicLong refusals = new AtomicLong();
    private final ZkWatch controllerWatch = path -> put(new ControllerEvent.ControllerChange());

    private KafkaZkStore store;
    /** What this broker does while active, and the active term's cache of the cluster (built by {@link #start}). */
    private ControllerTerm term;
    private volatile boolean closing;
    private volatile boolean active;
    private volatile int activeEpoch = -1;
    private volatile int activeControllerId = -1;
    private volatile long brokerEpoch = -1;
    private long registeredSessionId;
    private long pendingSessionId;
    private long nextRegistrationMs = Long.MAX_VALUE;
    private long nextResyncMs = Long.MAX_VALUE;
    private long nextRebalanceMs = Long.MAX_VALUE;

    /**
     * Creates a controller (not started).
     *
     * @param config              the broker's configuration
     * @param channel             how to reach brokers
     * @param threadFactory       makes the event thread
     * @param clockMs             monotonic milliseconds for timed work
     * @param wallClockMs         wall-clock milliseconds for the timestamps in znodes
     * @param brokerEpochListener told the broker epoch after each registration and {@code -1} on session expiry
     */
    public Controller(final ReplicationConfig config, final ControlChannel channel, final ThreadFactory threadFactory,
                      final LongSupplier clockMs, final LongSupplier wallClockMs, final LongConsumer brokerEpochListener) {
        this(config, channel, threadFactory, clockMs, wallClockMs, brokerEpochListener, new java.security.SecureRandom());
    }

    /**
     * Creates a controller (not started) on a thread of its own, drawing topic ids from a given generator.
     *
     * @param config              the broker's configuration
     * @param channel             how to reach brokers
     * @param threadFactory       makes the event thread
     * @param clockMs             monotonic milliseconds for timed work
     * @param wallClockMs         wall-clock milliseconds for the timestamps in znodes
     * @param brokerEpochListener told the broker epoch after each registration and {@code -1} on session expiry
     * @param ids                 draws the ids the controller creates
     */
    public Controller(final ReplicationConfig config, final ControlChannel channel, final ThreadFactory threadFactory,
                      final LongSupplier clockMs, final LongSupplier wallClockMs, final LongConsumer brokerEpochListener,
                      final java.util.random.RandomGenerator ids) {
        this(config, channel, processor -> new ControllerEventLoop(threadFactory, clockMs, processor), clockMs,
            wallClockMs, brokerEpochListener, ids, -1);
    }

    /**
     * Creates a controller whose event loop a driver runs in steps on its own thread (a deterministic simulation):
     * no thread, no wall-clock wait. A registration that finds a live foreign session holding this broker id fails
     * at once (after {@code registrationWaitMs}, measured on {@code clockMs}) and is retried after the usual back-off,
     * instead of blocking on a watch the driver's thread would have to deliver.
     *
     * @param config              the broker's configuration
     * @param channel             how to reach brokers
     * @param driver              runs the loop ({@link #runOnce}) when told an event is queued
     * @param clockMs             monotonic milliseconds for timed work
     * @param wallClockMs         wall-clock milliseconds for the timestamps in znodes
     * @param brokerEpochListener told the broker epoch after each registration and {@code -1} on session expiry
     * @param ids                 where new topic ids come from
     * @param registrationWaitMs  how long a registration waits for a foreign ephemeral (0 in a simulation)
     */
    public Controller(final ReplicationConfig config, final ControlChannel channel, final ControllerDriver driver,
                      final LongSupplier clockMs, final LongSupplier wallClockMs,
                      final LongConsumer brokerEpochListener, final java.util.random.RandomGenerator ids,
                      final long registrationWaitMs) {
        this(config, channel, processor -> new ControllerEventLoop(driver, clockMs, processor), clockMs, wallClockMs,
            brokerEpochListener, ids, requireWait(registrationWaitMs));
    }

    private static long requireWait(final long registrationWaitMs) {
        if (registrationWaitMs < 0) {
            throw new IllegalArgumentException("registrationWaitMs=" + registrationWaitMs + " must be >= 0");
        }
        return registrationWaitMs;
    }

    /** The one place the fields are set: the two public constructors differ only in their loop and waits. */
    private Controller(final ReplicationConfig config, final ControlChannel channel,
                       final java.util.function.Function<ControllerEventLoop.Processor, ControllerEventLoop> loop,
                       final LongSupplier clockMs, final LongSupplier wallClockMs,
                       final LongConsumer brokerEpochListener, final java.util.random.RandomGenerator ids,
                       final long registrationWaitMs) {
        this.config = config;
        this.brokerId = config.brokerId();
        this.channel = channel;
        this.clockMs = clockMs;
        this.wallClockMs = wallClockMs;
        this.brokerEpochListener = brokerEpochListener;
        this.loop = loop.apply(new Processor());
        this.idSource = java.util.Objects.requireNonNull(ids, "ids");
        this.registrationWaitMs = registrationWaitMs;
    }

    /**
     * One step of a driven controller (see {@link ControllerDriver}): its due timed work, else one queued event.
     *
     * @return whether it did something; call again until false
     * @throws IllegalStateException for a controller with its own thread
     */
    public boolean runOnce() {
        return loop.runOnce();
    }

    /**
     * When a driven controller next has work.
     *
     * @return the clock's milliseconds (now while events are queued), {@link Long#MAX_VALUE} for nothing planned
     */
    public long nextWakeMs() {
        return loop.nextWakeMs();
    }

    /**
     * The listener to give the broker's {@code ZkClient}: expiry empties the event queue and resigns first; a new
     * session registers the broker and runs an election.
     *
     * @return the listener
     */
    public ZkSessionListener sessionListener() {
        return new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
                brokerEpoch = -1;
                brokerEpochListener.accept(-1);
                loop.clearAndPut(new ControllerEvent.SessionExpired(sessionId));
            }

            @Override
            public void onNewSession(final long sessionId) {
                put(new ControllerEvent.NewSession(sessionId));
            }
        };
    }

    /**
     * Starts the event thread. Events queued before (the first session) are processed then.
     *
     * @param zkStore the ZooKeeper store of this broker's session
     */
    public void start(final KafkaZkStore zkStore) {
        this.store = zkStore;
        this.term = new ControllerTerm(config, channel, zkStore, idSource, refusals, this::put);
        loop.start();
    }

    /**
     * Whether this broker is the active controller.
     *
     * @return true while it holds {@code /controller} and has not been fenced
     */
    public boolean isActive() {
        return active;
    }

    /**
     * The controller epoch of this broker's current term.
     *
     * @return the epoch, or -1 when not active
     */
    public int epoch() {
        return activeEpoch;
    }

    /**
     * The controller as this broker last read it from {@code /controller}.
     *
     * @return a broker id, or -1 when unknown
     */
    int activeControllerId() {
        return activeControllerId;
    }

    /**
     * This broker's epoch (registration czxid).
     *
     * @return the epoch, or -1 when not registered
     */
    long brokerEpoch() {
        return brokerEpoch;
    }

    /**
     * Control messages that brokers refused (whole messages; counts refusals received by this controller).
     *
     * @return the count
     */
    long refusedMessages() {
        return refusals.get();
    }

    @Override
    public CompletableFuture<java.util.Set<TopicPartition>> controlledShutdown(final int broker, final long epoch) {
        final CompletableFuture<Set<TopicPartition>> result = new CompletableFuture<>();
        if (!active) {
            result.completeExceptionally(new NotControllerException(brokerId));
            return result;
        }
        put(new ControllerEvent.ControlledShutdown(broker, epoch, result));
        return result;
    }

    /**
     * Unclean leader elections this broker's controller wrote (an out-of-sync replica elected because no ISR member
     * was alive and {@code unclean.leader.election.enable} allowed it: acknowledged records may have been lost).
     *
     * @return the count, over every term of this broker as controller
     */
    public long uncleanLeaderElections() {
        final ControllerTerm t = term;
        return t == null ? 0 : t.partitions().uncleanElections();
    }

    /**
     * Runs an action on the event thread (after the events queued before it).
     *
     * @param action the action; a {@link ControllerMovedException} from it makes the controller resign
     */
    void runOnEventThread(final Runnable action) {
        put(new ControllerEvent.Custom(action));
    }

    /** The context is confined to the event thread: test hooks that read or drive it must run there. */
    private void requireEventThread(final String what) {
        if (!loop.isEventThread()) {
            throw new IllegalStateException(what + " must run on the controller's event thread (runOnEventThread), not "
                + Thread.currentThread().getName());
        }
    }

    private void put(final ControllerEvent event) {
        loop.put(event);
    }

    /** Stops the event thread. The ZooKeeper session is the caller's to close. Idempotent. */
    @Override
    public void close() {
        closing = true;
        loop.close();
        active = false;
        activeEpoch = -1;
    }

    // --------------------------------------------------------------------------------------- event thread

    private final class Processor implements ControllerEventLoop.Processor {
        @Override
        public void process(final ControllerEvent event, final long nowMs) {
            guarded(nowMs, () -> dispatch(event, nowMs));
        }

        @Override
        public long nextTickMs() {
            long due = Math.min(nextRegistrationMs, nextResyncMs);
            if (active && config.autoLeaderRebalanceEnable()) {
                due = Math.min(due, nextRebalanceMs);
            }
            return due;
        }

        @Override
        public void tick(final long nowMs) {
            if (nowMs >= nextRegistrationMs) {
                nextRegistrationMs = Long.MAX_VALUE;
                guarded(nowMs, () -> processNewSession(pendingSessionId, nowMs));
            }
            if (nowMs >= nextResyncMs) {
                nextResyncMs = Long.MAX_VALUE;
                if (active) {
                    guarded(nowMs, () -> term.loadAndDrive(nowMs));
                }
            }
            if (active && config.autoLeaderRebalanceEnable() && nowMs >= nextRebalanceMs) {
                nextRebalanceMs = nowMs + config.leaderImbalanceCheckIntervalSeconds() * 1000;
                guarded(nowMs, () -> term.checkLeaderImbalance());
            }
        }

        @Override
        public void preempt(final ControllerEvent event) {
            event.preempt(brokerId);
        }
    }

    private void guarded(final long nowMs, final Runnable work) {
        try {
            work.run();
        } catch (final ControllerMovedException e) {
            LOG.warn("broker.id={} controller epoch={} fenced: {}", brokerId, term.epoch(), e.getMessage());
            maybeResign(nowMs);
        } catch (final ZkException e) {
            if (closing) {
                return; // close() interrupted the call
            }
            LOG.warn("broker.id={} ZooKeeper call failed: {}", brokerId, e.getMessage());
            if (active) {
                // State may be half-applied: re-read everything and drive partitions again (all writes are fenced).
                nextResyncMs = nowMs + RETRY_BACKOFF_MS;
            } else if (pendingSessionId != 0) {
                nextRegistrationMs = nowMs + RETRY_BACKOFF_MS;
            }
        }
    }

    private void dispatch(final ControllerEvent event, final long nowMs) {
        if (event instanceof ControllerEvent.SessionExpired) {
            processExpire();
        } else if (event instanceof ControllerEvent.NewSession s) {
            processNewSession(s.sessionId(), nowMs);
        } else if (event instanceof ControllerEvent.ControllerChange) {
            processControllerChange(nowMs);
        } else if (event instanceof ControllerEvent.Custom c) {
            c.action().run();
        } else if (event instanceof ControllerEvent.ControlledShutdown cs) {
            processControlledShutdown(cs);
        } else if (!active) {
            LOG.debug("broker.id={} not controller: ignoring {}", brokerId, event);
        } else if (event instanceof ControllerEvent.BrokerChange) {
            term.processBrokerChange();
        } else if (event instanceof ControllerEvent.TopicChange) {
            term.processTopicChange();
        } else if (event instanceof ControllerEvent.PartitionModifications pm) {
            term.processPartitionModifications(pm.topic());
        } else if (event instanceof ControllerEvent.TopicDeletion) {
            term.processTopicDeletion();
        } else if (event instanceof ControllerEvent.Reassignment) {
            term.processReassignment();
        } else if (event instanceof ControllerEvent.StopReplicaDeletionResult r) {
            term.processStopReplicaDeletionResult(r);
        } else if (event instanceof ControllerEvent.PreferredElection) {
            term.processPreferredElection();
        } else if (event instanceof ControllerEvent.IsrChange) {
            term.processIsrChange();
        }
    }

    private void processExpire() {
        activeControllerId = -1;
        if (active) {
            onResignation();
        }
    }

    private void processNewSession(final long sessionId, final long nowMs) {
        if (sessionId != store.client().sessionId()) {
            return; // an older session's event: a newer NewSession is queued
        }
        pendingSessionId = sessionId;
        final BrokerRegistration registration = new BrokerRegistration(brokerId, config.advertisedHost(),
            config.advertisedPort(), config.brokerRack(), wallClockMs.getAsLong());
        final long previous = registeredSessionId == sessionId ? 0 : registeredSessionId;
        final long epoch = registrationWaitMs < 0
            ? store.registerBroker(registration, previous,
                config.zookeeperSessionTimeoutMs() + store.client().requestTimeoutMs(), System::nanoTime)
            : store.registerBroker(registration, previous, registrationWaitMs, () -> clockMs.getAsLong() * 1_000_000);
        registeredSessionId = sessionId;
        pendingSessionId = 0;
        brokerEpoch = epoch;
        brokerEpochListener.accept(epoch);
        LOG.info("broker.id={} registered with broker epoch {}", brokerId, epoch);
        elect(nowMs);
    }

    private void processControllerChange(final long nowMs) {
        final OptionalInt current = store.controllerId(controllerWatch);
        activeControllerId = current.orElse(-1);
        if (active && (current.isEmpty() || current.getAsInt() != brokerId)) {
            onResignation();
        }
        if (current.isEmpty()) {
            elect(nowMs);
        }
    }

    private void maybeResign(final long nowMs) {
        if (active) {
            onResignation();
        }
        try {
            processControllerChange(nowMs);
        } catch (final ZkException e) {
            LOG.warn("broker.id={} cannot re-read {}: {}", brokerId, ZkPaths.CONTROLLER, e.getMessage());
        }
    }

    private void elect(final long nowMs) {
        if (registeredSessionId == 0 || registeredSessionId != store.client().sessionId()) {
            return; // not registered in this session yet: the NewSession event will elect
        }
        final OptionalInt current = store.controllerId(controllerWatch);
        if (current.isPresent()) {
            activeControllerId = current.getAsInt();
            if (current.getAsInt() == brokerId && !active) {
                // Our own znode from a term we gave up: free the seat; its deletion fires the watch and we retry.
                store.deleteControllerIfOwnedBy(store.client().sessionId());
            }
            return;
        }
        final Optional<ControllerElection> won = store.tryElectController(brokerId, wallClockMs.getAsLong());
        if (won.isEmpty()) {
            activeControllerId = store.controllerId(controllerWatch).orElse(-1);
            return;
        }
        term.begin(won.get().epoch(), won.get().epochZkVersion());
        active = true;
        activeEpoch = term.epoch();
        activeControllerId = brokerId;
        LOG.info("broker.id={} is controller with epoch {}", brokerId, term.epoch());
        term.loadAndDrive(nowMs);
        nextRebalanceMs = nowMs + config.leaderImbalanceCheckIntervalSeconds() * 1000;
    }

    private void onResignation() {
        LOG.info("broker.id={} resigns as controller (epoch {})", brokerId, term.epoch());
        active = false;
        activeEpoch = -1;
        term.end();
        nextResyncMs = Long.MAX_VALUE;
        nextRebalanceMs = Long.MAX_VALUE;
    }

    private void processControlledShutdown(final ControllerEvent.ControlledShutdown request) {
        if (!active) {
            request.result().completeExceptionally(new NotControllerException(brokerId));
            return;
        }
        term.processControlledShutdown(request);
    }

    /**
     * Sends UpdateMetadata with this controller's cached view to every broker it believes live (used to show that
     * a deposed controller's messages are refused).
     */
    void sendMetadataToAll() {
        requireEventThread("sendMetadataToAll");
        term.sendMetadataToAll();
    }

    /**
     * A snapshot of a partition's replica states, taken on the event thread.
     *
     * @return completes with broker id to state (empty when the partition is unknown)
     */
    CompletableFuture<Map<Integer, ReplicaState>> replicaStates(final TopicPartition tp) {
        final CompletableFuture<Map<Integer, ReplicaState>> f = new CompletableFuture<>();
        runOnEventThread(() -> f.complete(term.replicaStates(tp)));
        return f;
    }

    /** The partition state machine (after {@link #start}). */
    PartitionStateMachine partitionStateMachine() {
        final ControllerTerm t = term;
        return t == null ? null : t.partitions();
    }

    /** The fencing token of the current term; event thread only. */
    int epochZkVersion() {
        requireEventThread("epochZkVersion");
        return term.epochZkVersion();
    }

    /** Re-runs an offline-rule election on these partitions (each write raises the leader epoch). */
    Set<TopicPartition> reelect(final Set<TopicPartition> tps) {
        requireEventThread("reelect");
        return term.reelect(tps);
    }
}
