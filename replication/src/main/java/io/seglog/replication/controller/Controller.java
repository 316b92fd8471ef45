package io.seglog.replication.controller;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.LeaderImbalance;
import io.seglog.replication.election.PartitionState;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControllerRequestHandler;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.BrokerRegistration;
import io.seglog.replication.zk.ControllerElection;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkWatch;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
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
    private final ControllerContext ctx = new ControllerContext();
    private final AtomicLong refusals = new AtomicLong();
    private final ZkWatch controllerWatch = path -> put(new ControllerEvent.ControllerChange());
    private final ZkWatch brokerWatch = path -> put(new ControllerEvent.BrokerChange());
    private final ZkWatch topicWatch = path -> put(new ControllerEvent.TopicChange());
    private final ZkWatch deletionWatch = path -> put(new ControllerEvent.TopicDeletion());
    private final ZkWatch preferredWatch = path -> put(new ControllerEvent.PreferredElection());
    private final ZkWatch reassignWatch = path -> put(new ControllerEvent.Reassignment());
    private final ZkWatch isrChangeWatch = path -> put(new ControllerEvent.IsrChange());
    private final ZkWatch assignmentWatch =
        path -> put(new ControllerEvent.PartitionModifications(path.substring(ZkPaths.TOPICS.length() + 1)));

    private KafkaZkStore store;
    private TopicIds topicIds;
    private PartitionStateMachine partitions;
    private TopicDeletionManager deletion;
    private ReassignmentManager reassignment;
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
        this(config, channel, processor -> new ControllerEventLoop(threadFactory, clockMs, processor), clockMs,
            wallClockMs, brokerEpochListener, new java.security.SecureRandom(), -1);
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
        this.topicIds = new TopicIds(zkStore, idSource);
        this.partitions = new PartitionStateMachine(ctx, zkStore, config);
        this.deletion = new TopicDeletionManager(ctx, partitions, zkStore);
        this.reassignment = new ReassignmentManager(ctx, partitions, zkStore);
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
    public int activeControllerId() {
        return activeControllerId;
    }

    /**
     * This broker's epoch (registration czxid).
     *
     * @return the epoch, or -1 when not registered
     */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    /**
     * Control messages that brokers refused (whole messages; counts refusals received by this controller).
     *
     * @return the count
     */
    public long refusedMessages() {
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
        final PartitionStateMachine machine = partitions;
        return machine == null ? 0 : machine.uncleanElections();
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
                    guarded(nowMs, () -> loadAndDrive(nowMs));
                }
            }
            if (active && config.autoLeaderRebalanceEnable() && nowMs >= nextRebalanceMs) {
                nextRebalanceMs = nowMs + config.leaderImbalanceCheckIntervalSeconds() * 1000;
                guarded(nowMs, Controller.this::checkLeaderImbalance);
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
            LOG.warn("broker.id={} controller epoch={} fenced: {}", brokerId, ctx.epoch, e.getMessage());
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
            processBrokerChange();
        } else if (event instanceof ControllerEvent.TopicChange) {
            processTopicChange();
        } else if (event instanceof ControllerEvent.PartitionModifications pm) {
            processPartitionModifications(pm.topic());
        } else if (event instanceof ControllerEvent.TopicDeletion) {
            processTopicDeletion();
        } else if (event instanceof ControllerEvent.Reassignment) {
            processReassignment();
        } else if (event instanceof ControllerEvent.StopReplicaDeletionResult r) {
            processStopReplicaDeletionResult(r);
        } else if (event instanceof ControllerEvent.PreferredElection) {
            processPreferredElection();
        } else if (event instanceof ControllerEvent.IsrChange) {
            processIsrChange();
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
        ctx.reset();
        ctx.epoch = won.get().epoch();
        ctx.epochZkVersion = won.get().epochZkVersion();
        active = true;
        activeEpoch = ctx.epoch;
        activeControllerId = brokerId;
        LOG.info("broker.id={} is controller with epoch {}", brokerId, ctx.epoch);
        loadAndDrive(nowMs);
        nextRebalanceMs = nowMs + config.leaderImbalanceCheckIntervalSeconds() * 1000;
    }

    private void onResignation() {
        LOG.info("broker.id={} resigns as controller (epoch {})", brokerId, ctx.epoch);
        active = false;
        activeEpoch = -1;
        ctx.reset();
        nextResyncMs = Long.MAX_VALUE;
        nextRebalanceMs = Long.MAX_VALUE;
    }

    /**
     * Failover (and resynchronisation after a failed ZooKeeper call): arm the watches first so that no change is
     * missed, read brokers, topics, assignments and states, tell every broker, then bring every partition to a
     * valid state.
     */
    private void loadAndDrive(final long nowMs) {
        final int epoch = ctx.epoch;
        final int epochZkVersion = ctx.epochZkVersion;
        ctx.reset();
        ctx.epoch = epoch;
        ctx.epochZkVersion = epochZkVersion;
        ctx.liveBrokers.putAll(store.brokers(brokerWatch));
        final Set<String> topics = store.topics(topicWatch);
        // Known before anything is driven, so that no election, ISR write or LeaderAndIsr touches a topic being deleted.
        final Set<String> deleting = store.topicDeletions(deletionWatch);
        deleting.retainAll(topics);
        ctx.topicsBeingDeleted.addAll(deleting);
        // Pending ISR notifications are covered by the full read below: drop them (Kafka does the same).
        store.deleteIsrChangeNotifications(store.isrChangeNotifications(isrChangeWatch).keySet(), ctx.epochZkVersion);
        for (final String topic : topics) {
            store.topicAssignment(topic, assignmentWatch).ifPresent(a -> {
                ctx.assignments.put(topic, new TreeMap<>(a.value().partitions()));
                // Kafka's ZooKeeper controller gives every topic an id when it loads them (KIP-516).
                topicIds.ensure(topic, a, ctx.epochZkVersion, assignmentWatch)
                    .ifPresent(id -> ctx.topicIds.put(topic, id));
            });
        }
        final Map<TopicPartition, Optional<PartitionStateZnode>> states = store.partitionStates(ctx.allPartitions());
        for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e : states.entrySet()) {
            if (e.getValue().isEmpty()) {
                ctx.states.put(e.getKey(), PartitionState.NEW);
            } else {
                ctx.leadership.put(e.getKey(), e.getValue().get());
                ctx.states.put(e.getKey(), ctx.isLeaderLive(e.getKey()) ? PartitionState.ONLINE : PartitionState.OFFLINE);
            }
        }
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            partitions.replicaTransition(tp, ctx.replicas(tp), ReplicaState.NEW);
            partitions.replicasOnlineOrOffline(tp);
        }
        final ControlBatch batch = new ControlBatch();
        ctx.liveBrokers.keySet().forEach(batch::fullMetadata);
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                partitions.notifyReplicas(tp, batch, false);
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        // Replicas on brokers that are not live go offline: they leave the ISRs (Kafka's replica state machine
        // startup), so that a broker that died while no controller was active is not counted in sync.
        final Set<Integer> offline = new HashSet<>();
        final Set<TopicPartition> withOfflineIsr = new HashSet<>();
        ctx.leadership.forEach((tp, state) -> state.leaderAndIsr().isr().forEach(r -> {
            if (!ctx.liveBrokers.containsKey(r) && !ctx.topicsBeingDeleted.contains(tp.topic())) {
                offline.add(r);
                withOfflineIsr.add(tp);
            }
        }));
        partitions.removeReplicasFromIsr(offline, withOfflineIsr, batch);
        reassignment.resume(batch);
        send(batch);
        processTopicDeletion();
        processPreferredElection();
        processReassignment();
        LOG.info("broker.id={} controller epoch {} loaded {} brokers, {} topics, {} partitions", brokerId, ctx.epoch,
            ctx.liveBrokers.size(), ctx.assignments.size(), ctx.states.size());
    }

    // ----------------------------------------------------------------------------------------- brokers

    private void processBrokerChange() {
        final Map<Integer, BrokerInfo> current = store.brokers(brokerWatch);
        final Set<Integer> dead = new HashSet<>(ctx.liveBrokers.keySet());
        dead.removeAll(current.keySet());
        final Set<Integer> bounced = new HashSet<>();
        final Set<Integer> added = new HashSet<>();
        for (final BrokerInfo b : current.values()) {
            final BrokerInfo known = ctx.liveBrokers.get(b.id());
            if (known == null) {
                added.add(b.id());
            } else if (known.epoch() != b.epoch()) {
                bounced.add(b.id());
            }
        }
        if (dead.isEmpty() && bounced.isEmpty() && added.isEmpty()) {
            return;
        }
        LOG.info("controller epoch {}: brokers dead={} bounced={} new={}", ctx.epoch, dead, bounced, added);
        final ControlBatch batch = new ControlBatch();
        final Set<Integer> failed = new HashSet<>(dead);
        failed.addAll(bounced);
        ctx.liveBrokers.keySet().removeAll(failed);
        ctx.shuttingDown.removeAll(failed);
        if (!failed.isEmpty()) {
            onBrokerFailure(failed, batch);
        }
        final Set<Integer> started = new HashSet<>(added);
        started.addAll(bounced);
        started.forEach(id -> ctx.liveBrokers.put(id, current.get(id)));
        if (!started.isEmpty()) {
            onBrokerStartup(started, batch);
        }
        batch.liveBrokersChanged();
        send(batch);
    }

    private void onBrokerFailure(final Set<Integer> failed, final ControlBatch batch) {
        deletion.onBrokerFailure(failed);
        for (final TopicPartition tp : ctx.partitionsOnBrokers(failed)) {
            if (ctx.replicaStates.containsKey(tp) && !ctx.topicsBeingDeleted.contains(tp.topic())) {
                partitions.replicaTransition(tp, intersect(ctx.replicas(tp), failed), ReplicaState.OFFLINE);
            }
        }
        for (final TopicPartition tp : ctx.partitionsLedBy(failed)) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic()) && ctx.states.containsKey(tp)) {
                partitions.transition(tp, PartitionState.OFFLINE);
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        final Set<TopicPartition> withReplicas = ctx.partitionsOnBrokers(failed);
        withReplicas.removeIf(tp -> !ctx.leadership.containsKey(tp) || ctx.topicsBeingDeleted.contains(tp.topic()));
        partitions.removeReplicasFromIsr(failed, withReplicas, batch);
    }

    private static List<Integer> intersect(final List<Integer> replicas, final Set<Integer> brokers) {
        return replicas.stream().filter(brokers::contains).toList();
    }

    private void onBrokerStartup(final Set<Integer> started, final ControlBatch batch) {
        started.forEach(batch::fullMetadata);
        for (final TopicPartition tp : ctx.partitionsOnBrokers(started)) {
            if (ctx.topicsBeingDeleted.contains(tp.topic())) {
                continue; // the deletion manager retries them below
            }
            if (ctx.replicaStates.containsKey(tp)) {
                partitions.replicaTransition(tp, intersect(ctx.replicas(tp), started), ReplicaState.ONLINE);
            }
            if (ctx.leadership.containsKey(tp)) {
                final PartitionStateInfo info = partitions.info(tp, false);
                for (final int replica : ctx.replicas(tp)) {
                    if (started.contains(replica)) {
                        batch.leaderAndIsr(replica, tp, info);
                    }
                }
            }
        }
        partitions.triggerOnlinePartitionStateChange(batch);
        deletion.onBrokerStartup(started, batch);
    }

    private void processControlledShutdown(final ControllerEvent.ControlledShutdown request) {
        if (!active) {
            request.result().completeExceptionally(new NotControllerException(brokerId));
            return;
        }
        final BrokerInfo info = ctx.liveBrokers.get(request.brokerId());
        if (info == null || info.epoch() != request.brokerEpoch()) {
            request.result().completeExceptionally(new StaleBrokerEpochException("controlled shutdown of broker.id="
                + request.brokerId(), request.brokerEpoch(), info == null ? -1 : info.epoch()));
            return;
        }
        try {
            shutDown(request);
        } catch (final RuntimeException e) {
            // Answered whatever happens (Kafka answers its callback with the failure too): a ControlledShutdown left
            // unanswered holds the connection it came on, whose later answers wait behind it, for good. The broker
            // asks again; this controller resigns or re-reads its state (guarded).
            request.result().completeExceptionally(new NotControllerException(brokerId));
            throw e;
        }
    }

    /** The controlled shutdown of a live broker in its current epoch: its leaderships move, its replicas stop. */
    private void shutDown(final ControllerEvent.ControlledShutdown request) {
        final int id = request.brokerId();
        ctx.shuttingDown.add(id);
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> led = ctx.partitionsLedBy(Set.of(id));
        led.removeIf(tp -> ctx.replicas(tp).size() < 2);
        partitions.elect(led, PartitionStateMachine.ElectionKind.CONTROLLED_SHUTDOWN, batch);
        final Set<TopicPartition> followed = ctx.partitionsOnBrokers(Set.of(id));
        followed.removeAll(ctx.partitionsLedBy(Set.of(id)));
        followed.removeIf(tp -> !ctx.leadership.containsKey(tp));
        followed.forEach(tp -> {
            batch.stopReplica(id, tp, false);
            partitions.replicaTransition(tp, List.of(id), ReplicaState.OFFLINE);
        });
        partitions.removeReplicasFromIsr(Set.of(id), followed, batch);
        send(batch);
        request.result().complete(ctx.partitionsLedBy(Set.of(id)));
    }

    // ------------------------------------------------------------------------------------------ topics

    private void processTopicChange() {
        final Set<String> topics = store.topics(topicWatch);
        for (final String gone : new HashSet<>(ctx.assignments.keySet())) {
            if (!topics.contains(gone)) {
                ctx.removeTopic(gone);
            }
        }
        final Set<TopicPartition> fresh = new HashSet<>();
        for (final String topic : topics) {
            if (!ctx.assignments.containsKey(topic)) {
                store.topicAssignment(topic, assignmentWatch).ifPresent(a -> {
                    // A topic created without an id (an older tool) gets one before its partitions are announced.
                    topicIds.ensure(topic, a, ctx.epochZkVersion, assignmentWatch)
                        .ifPresent(id -> ctx.topicIds.put(topic, id));
                    fresh.addAll(addPartitions(topic, a));
                });
            }
        }
        if (!fresh.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            partitions.initializePartitions(fresh, batch);
            send(batch);
        }
    }

    private Set<TopicPartition> addPartitions(final String topic, final Versioned<TopicAssignmentZnode> assignment) {
        final Map<Integer, List<Integer>> known = ctx.assignments.computeIfAbsent(topic, t -> new TreeMap<>());
        final Set<TopicPartition> added = new HashSet<>();
        assignment.value().partitions().forEach((p, replicas) -> {
            if (!known.containsKey(p)) {
                known.put(p, replicas);
                final TopicPartition tp = new TopicPartition(topic, p);
                partitions.transition(tp, PartitionState.NEW);
                added.add(tp);
            }
        });
        return added;
    }

    private void processPartitionModifications(final String topic) {
        if (!ctx.assignments.containsKey(topic)) {
            return;
        }
        final Optional<Versioned<TopicAssignmentZnode>> assignment = store.topicAssignment(topic, assignmentWatch);
        if (assignment.isEmpty() || ctx.topicsBeingDeleted.contains(topic)) {
            return; // Kafka, too, adds no partitions to a topic being deleted
        }
        final Set<TopicPartition> fresh = addPartitions(topic, assignment.get());
        if (!fresh.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            partitions.initializePartitions(fresh, batch);
            send(batch);
        }
    }

    /**
     * Kafka's TopicDeletion event: requests for unknown topics are dropped, known ones queued; then every queued
     * deletion is driven forward ({@link TopicDeletionManager}).
     */
    private void processTopicDeletion() {
        final Set<String> requested = store.topicDeletions(deletionWatch);
        final Set<String> unknown = new HashSet<>(requested);
        unknown.removeAll(ctx.assignments.keySet());
        if (!unknown.isEmpty()) {
            for (final String name : unknown) {
                try {
                    TopicPartition.validateTopic(name);
                } catch (final IllegalArgumentException illegal) {
                    LOG.warn("controller epoch {}: dropping {}/{}: {}", ctx.epoch, ZkPaths.DELETE_TOPICS, name,
                        illegal.getMessage());
                }
            }
            LOG.info("controller epoch {}: dropping deletion requests for unknown topics {}", ctx.epoch, unknown);
            store.admin().deleteTopicDeletionRequests(unknown, ctx.epochZkVersion);
        }
        requested.removeAll(unknown);
        final ControlBatch batch = new ControlBatch();
        deletion.enqueue(requested, batch);
        send(batch);
    }

    private void processReassignment() {
        final ControlBatch batch = new ControlBatch();
        reassignment.onRequest(reassignWatch, batch);
        send(batch);
    }

    private void processStopReplicaDeletionResult(final ControllerEvent.StopReplicaDeletionResult result) {
        if (result.controllerEpoch() != ctx.epoch) {
            return; // sent in an earlier term: this term re-sends what it needs
        }
        final ControlBatch batch = new ControlBatch();
        deletion.onStopReplicaResult(result.brokerId(), result.deleted(), result.failed(), batch);
        send(batch);
    }

    private void processPreferredElection() {
        final Optional<Set<TopicPartition>> request = store.preferredElectionRequest(preferredWatch);
        if (request.isEmpty()) {
            return;
        }
        final Set<TopicPartition> valid = new HashSet<>(request.get());
        valid.removeIf(tp -> !ctx.leadership.containsKey(tp) || ctx.topicsBeingDeleted.contains(tp.topic()));
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> moved = partitions.elect(valid, PartitionStateMachine.ElectionKind.PREFERRED, batch);
        store.deletePreferredElectionRequest(ctx.epochZkVersion);
        send(batch);
        LOG.info("controller epoch {}: preferred election moved {} of {} partitions", ctx.epoch, moved.size(),
            request.get().size());
    }

    /**
     * Kafka's auto-rebalance: for each broker, the share of partitions it is preferred for but does not lead; above
     * {@code leader.imbalance.per.broker.percentage}, those partitions get a preferred election.
     */
    private void checkLeaderImbalance() {
        final Map<TopicPartition, List<Integer>> assignments = new HashMap<>();
        final Map<TopicPartition, LeaderAndIsr> leaders = new HashMap<>();
        ctx.leadership.forEach((tp, state) -> {
            assignments.put(tp, ctx.replicas(tp));
            leaders.put(tp, state.leaderAndIsr());
        });
        final Set<TopicPartition> candidates = LeaderImbalance.partitionsToElect(assignments, leaders,
            ctx.electableBrokers(), config.leaderImbalancePerBrokerPercentage(), ctx.topicsBeingDeleted);
        if (!candidates.isEmpty()) {
            final ControlBatch batch = new ControlBatch();
            final Set<TopicPartition> moved =
                partitions.elect(candidates, PartitionStateMachine.ElectionKind.PREFERRED, batch);
            send(batch);
            LOG.info("controller epoch {}: leader rebalance moved {} partitions", ctx.epoch, moved.size());
        }
    }

    /** Leaders changed ISRs: re-read those states and tell every broker (Kafka's IsrChangeNotification). */
    private void processIsrChange() {
        final Map<String, Set<TopicPartition>> notifications = store.isrChangeNotifications(isrChangeWatch);
        if (notifications.isEmpty()) {
            return;
        }
        final Set<TopicPartition> changed = new HashSet<>();
        notifications.values().forEach(changed::addAll);
        changed.removeIf(tp -> !ctx.states.containsKey(tp));
        final ControlBatch batch = new ControlBatch();
        store.partitionStates(changed).forEach((tp, state) -> state.ifPresent(s -> {
            ctx.leadership.put(tp, s);
            batch.metadata(tp, partitions.info(tp, false));
        }));
        // Kafka watches each reassigning partition's state znode; the leader's ISR notification serves the same end.
        reassignment.onIsrChange(changed, batch);
        store.deleteIsrChangeNotifications(notifications.keySet(), ctx.epochZkVersion);
        send(batch);
    }

    private void send(final ControlBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        final Map<TopicPartition, PartitionStateInfo> all = new HashMap<>();
        for (final TopicPartition tp : ctx.leadership.keySet()) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                all.put(tp, partitions.info(tp, false));
            }
        }
        final int epoch = ctx.epoch;
        batch.send(brokerId, ctx, channel, all, refusals, (broker, deleted, failed) ->
            put(new ControllerEvent.StopReplicaDeletionResult(epoch, broker, deleted, failed)));
    }

    /**
     * Sends UpdateMetadata with this controller's cached view to every broker it believes live (used to show that
     * a deposed controller's messages are refused).
     */
    void sendMetadataToAll() {
        requireEventThread("sendMetadataToAll");
        final ControlBatch batch = new ControlBatch();
        ctx.liveBrokers.keySet().forEach(batch::fullMetadata);
        send(batch);
    }

    /**
     * A snapshot of a partition's replica states, taken on the event thread.
     *
     * @return completes with broker id to state (empty when the partition is unknown)
     */
    CompletableFuture<Map<Integer, ReplicaState>> replicaStates(final TopicPartition tp) {
        final CompletableFuture<Map<Integer, ReplicaState>> f = new CompletableFuture<>();
        runOnEventThread(() -> f.complete(Map.copyOf(ctx.replicaStates.getOrDefault(tp, Map.of()))));
        return f;
    }

    /** The partition state machine (after {@link #start}). */
    PartitionStateMachine partitionStateMachine() {
        return partitions;
    }

    /** The fencing token of the current term; event thread only. */
    int epochZkVersion() {
        requireEventThread("epochZkVersion");
        return ctx.epochZkVersion;
    }

    /** Re-runs an offline-rule election on these partitions (each write raises the leader epoch). */
    Set<TopicPartition> reelect(final Set<TopicPartition> tps) {
        requireEventThread("reelect");
        final ControlBatch batch = new ControlBatch();
        final Set<TopicPartition> elected = partitions.elect(tps, PartitionStateMachine.ElectionKind.OFFLINE, batch);
        send(batch);
        return elected;
    }
}
