package io.seglog.replication.replica;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.ReplicaStateListener;
import io.seglog.storage.LogManager;
import io.seglog.storage.InconsistentTopicIdException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.agrona.CloseHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas one broker hosts (Kafka's {@code ReplicaManager}): applies the controller's LeaderAndIsr and
 * StopReplica to them, appends producers' batches to the partitions it leads and answers when the acks are met,
 * serves fetches from followers and consumers (holding them until data arrives), runs the fetchers of the partitions
 * it follows, and shrinks the ISRs of followers that fall behind.
 *
 * <p>Waiting requests (acks=all produces, long-poll fetches) sit in {@link DelayedOperations}: one timer wheel and
 * one reaper thread, not a thread or scheduled task each. Time comes from the given monotonic clock; ISR changes go
 * through the {@link IsrWriter}; leaders are reached through {@link LeaderEndpoint}s; no ZooKeeper or network class
 * is used here.
 *
 * <p>Thread-safe. Threads: the reaper, the ISR-expiration thread and the fetchers, all from the given factory.
 */
public final class ReplicaManager implements ReplicaStateListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);

    private final int brokerId;
    private final LogManager logs;
    private final ReplicaManagerConfig config;
    private final LongSupplier clockMs;
    private final LongSupplier brokerEpoch;
    private final IsrWriter isrWriter;
    private final IntPredicate eligible;
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperations produceWaits;
    private final DelayedOperations fetchWaits;
    /** The leader's writes (produces, transaction markers) and their acks. */
    private final LeaderWrites writes;
    private final ReplicaFetcherManager fetchers;
    private final Thread isrExpiration;
    private final Partition.Context partitionContext;
    private final LeadershipListener leadership;
    private volatile boolean closed;

    /**
     * Starts the replica layer of a broker (no partitions yet: they come with LeaderAndIsr).
     *
     * @param brokerId      this broker
     * @param logs          the broker's logs (owned by the caller, closed after this)
     * @param config        fetch and lag settings
     * @param clockMs       a monotonic clock
     * @param brokerEpoch   this broker's current epoch (sent in fetches)
     * @param isrWriter     where leaders write ISR changes
     * @param eligible      whether a broker may be in an ISR (alive in the metadata)
     * @param endpoints     opens connections to leaders
     * @param threadFactory makes every thread of the layer
     */
    public ReplicaManager(final int brokerId, final LogManager logs, final ReplicaManagerConfig config,
                          final LongSupplier clockMs, final LongSupplier brokerEpoch, final IsrWriter isrWriter,
                          final IntPredicate eligible, final LeaderEndpoint.Factory endpoints,
                          final ThreadFactory threadFactory) {
        this(brokerId, logs, config, clockMs, brokerEpoch, isrWriter, eligible, endpoints, threadFactory,
            LeadershipListener.NONE);
    }

    /**
     * Starts the replica layer of a broker, telling a listener of every role change.
     *
     * @param brokerId      this broker
     * @param logs          the broker's logs (owned by the caller, closed after this)
     * @param config        fetch and lag settings
     * @param clockMs       a monotonic clock
     * @param brokerEpoch   this broker's current epoch (sent in fetches)
     * @param isrWriter     where leaders write ISR changes
     * @param eligible      whether a broker may be in an ISR (alive in the metadata)
     * @param endpoints     opens connections to leaders
     * @param threadFactory makes every thread of the layer
     * @param leadership    told each role change once it took effect
     */
    public ReplicaManager(final int brokerId, final LogManager logs, final ReplicaManagerConfig config,
                          final LongSupplier clockMs, final LongSupplier brokerEpoch, final IsrWriter isrWriter,
                          final IntPredicate eligible, final LeaderEndpoint.Factory endpoints,
                          final ThreadFactory threadFactory, final LeadershipListener leadership) {
        this(brokerId, logs, config, clockMs, brokerEpoch, isrWriter, eligible, endpoints, threadFactory, leadership,
            null, SafetyFixes.ALL);
    }

    /**
     * Starts the replica layer of a broker whose timed work runs on a scheduler instead of threads of its own (a
     * deterministic simulation): the ISR check every half {@code replica.lag.time.max.ms}, and the purgatories'
     * deadlines every {@value DelayedOperations#TICK_MS} ms, and the fetchers' steps, all on {@code timers} and the
     * clock given.
     *
     * @param brokerId      this broker
     * @param logs          the broker's logs (owned by the caller, closed after this)
     * @param config        fetch and lag settings
     * @param clockMs       a monotonic clock (the scheduler's)
     * @param brokerEpoch   this broker's current epoch (sent in fetches)
     * @param isrWriter     where leaders write ISR changes
     * @param eligible      whether a broker may be in an ISR (alive in the metadata)
     * @param endpoints     opens connections to leaders
     * @param threadFactory makes threads only when {@code timers} is null
     * @param leadership    told each role change once it took effect
     * @param timers        runs the timed work, or null for threads of the layer's own
     * @param fixes         the replication fixes in force ({@link SafetyFixes#ALL}; a simulation's proof switches
     *                      one off)
     */
    public ReplicaManager(final int brokerId, final LogManager logs, final ReplicaManagerConfig config,
                          final LongSupplier clockMs, final LongSupplier brokerEpoch, final IsrWriter isrWriter,
                          final IntPredicate eligible, final LeaderEndpoint.Factory endpoints,
                          final ThreadFactory threadFactory, final LeadershipListener leadership,
                          final io.seglog.storage.Scheduler timers, final SafetyFixes fixes) {
        this.fixes = fixes;
        this.leadership = leadership;
        this.brokerId = brokerId;
        this.logs = logs;
        this.config = config;
        this.clockMs = clockMs;
        this.brokerEpoch = brokerEpoch;
        this.isrWriter = isrWriter;
        this.eligible = eligible;
        this.produceWaits = new DelayedOperations(clockMs);
        this.fetchWaits = new DelayedOperations(clockMs);
        this.writes = new LeaderWrites(brokerId, partitions, config, produceWaits, clockMs);
        this.partitionContext = new Context();
        this.fetchers = timers == null
            ? new ReplicaFetcherManager(brokerId, config, clockMs, brokerEpoch, endpoints, threadFactory)
            : new ReplicaFetcherManager(brokerId, config, clockMs, brokerEpoch, endpoints,
                (Function<String, FetcherDriver>) name -> FetcherDriver.onScheduler(timers, name));
        if (timers == null) {
            produceWaits.startReaper("produce-purgatory-" + brokerId, threadFactory);
            fetchWaits.startReaper("fetch-purgatory-" + brokerId, threadFactory);
            this.isrExpiration = threadFactory.newThread(this::expireIsrs);
            isrExpiration.setName("isr-expiration-" + brokerId);
            isrExpiration.setDaemon(true);
            isrExpiration.start();
            this.timedWork = List.of();
        } else {
            this.isrExpiration = null;
            final long periodMs = Math.max(1, config.replicaLagTimeMaxMs() / 2);
            this.timedWork = List.of(
                timers.schedule("isr-expiration-" + brokerId, this::checkIsrs, periodMs, periodMs),
                timers.schedule("purgatory-" + brokerId, () -> {
                    final long now = clockMs.getAsLong();
                    produceWaits.expire(now);
                    fetchWaits.expire(now);
                }, DelayedOperations.TICK_MS, DelayedOperations.TICK_MS));
        }
    }

    private final SafetyFixes fixes;

    /** The scheduled timed work of a layer built with a scheduler (cancelled at close). */
    private final List<io.seglog.storage.Scheduler.Cancellable> timedWork;

    /** Who hears of ISR changes (the broker's metrics, an embedder, the simulation's checks), in the order added. */
    private final java.util.List<IsrChangeListener> isrChanges = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final class Context implements Partition.Context {
        @Override
        public long nowMs() {
            return clockMs.getAsLong();
        }

        @Override
        public long replicaLagTimeMaxMs() {
            return config.replicaLagTimeMaxMs();
        }

        @Override
        public boolean durableAcks() {
            return config.durableAcks();
        }

        @Override
        public boolean isEligible(final int id) {
            return eligible.test(id);
        }

        @Override
        public SafetyFixes safetyFixes() {
            return fixes;
        }

        @Override
        public IsrWriter isrWriter() {
            return isrWriter;
        }

        @Override
        public void onHighWatermarkChanged(final TopicPartition tp) {
            produceWaits.checkAndComplete(tp);
            fetchWaits.checkAndComplete(tp);
        }

        @Override
        public void onAppended(final TopicPartition tp) {
            fetchWaits.checkAndComplete(tp);
        }

        @Override
        public void onFollowerProgress(final TopicPartition tp) {
            if (config.maxUnreplicatedBytes() >= 0) {
                produceWaits.checkAndComplete(tp); // acks=1 held for the followers
            }
        }

        @Override
        public void onIsrChanged(final TopicPartition tp, final List<Integer> before, final List<Integer> after) {
            isrChanges.forEach(listener -> listener.onIsrChanged(tp, before, after));
        }
    }

    /** Told each ISR change a leader here wrote (metrics: Kafka's IsrShrinksPerSec and IsrExpandsPerSec). */
    @FunctionalInterface
    public interface IsrChangeListener {
        /** A listener that does nothing. */
        IsrChangeListener NONE = (tp, before, after) -> { };

        /**
         * An ISR change was written.
         *
         * @param tp     the partition
         * @param before the ISR before
         * @param after  the ISR written
         */
        void onIsrChanged(TopicPartition tp, List<Integer> before, List<Integer> after);
    }

    /**
     * Adds a listener of ISR changes (the broker's metrics add one; an embedder may add more): each is told every
     * change, in the order added.
     *
     * @param listener the listener
     */
    public void addIsrChangeListener(final IsrChangeListener listener) {
        isrChanges.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** Kafka's isr-expiration task: every half {@code replica.lag.time.max.ms}, so a laggard leaves within 1.5x. */
    private void expireIsrs() {
        final long periodNs = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.replicaLagTimeMaxMs() / 2));
        while (!closed) {
            java.util.concurrent.locks.LockSupport.parkNanos(this, periodNs);
            if (closed) {
                return;
            }
            checkIsrs();
        }
    }

    /** Kafka's maybeShrinkIsr on every partition. */
    private void checkIsrs() {
        if (closed) {
            return;
        }
        for (final Partition p : partitions.values()) {
            try {
                p.maybeShrinkIsr();
            } catch (final RuntimeException e) {
                LOG.warn("{}: ISR check failed: {}", p.topicPartition(), e.toString());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- control

    @Override
    public void onLeaderAndIsr(final Map<TopicPartition, PartitionStateInfo> applied,
                               final Map<Integer, LiveBroker> liveLeaders) {
        onLeaderAndIsr(applied, liveLeaders, leadership);
    }

    /**
     * Takes the roles a LeaderAndIsr gave this broker and tells a listener of each change once it took effect
     * (Kafka's {@code becomeLeaderOrFollower} with its {@code onLeadershipChange} callback): the broker's assembly
     * passes its coordinators here, so the replica layer holds no reference to what is built after it.
     *
     * @param applied     the accepted partition states
     * @param liveLeaders the leaders' addresses
     * @param told        told each role change (instead of this manager's own listener)
     */
    public void onLeaderAndIsr(final Map<TopicPartition, PartitionStateInfo> applied,
                               final Map<Integer, LiveBroker> liveLeaders, final LeadershipListener told) {
        final Map<TopicPartition, Partition> follow = new HashMap<>();
        for (final Map.Entry<TopicPartition, PartitionStateInfo> e : applied.entrySet()) {
            final TopicPartition tp = e.getKey();
            final PartitionStateInfo state = e.getValue();
            if (!state.replicas().contains(brokerId)) {
                continue; // not a replica here (a reassignment moved it away): StopReplica follows
            }
            final Partition partition;
            try {
                partition = partitions.computeIfAbsent(tp, t -> new Partition(t, brokerId, logs.getOrCreate(t),
                    partitionContext));
            } catch (final StorageException e2) {
                LOG.error("broker.id={} cannot open {}: {}", brokerId, tp, e2.getMessage());
                continue;
            }
            try {
                if (!state.topicId().isZero()) {
                    // Kafka's Partition.checkOrSetTopicId: the first id is written to partition.metadata; another id
                    // means the directory belongs to an earlier topic of this name, and the partition is refused.
                    partition.log().assignTopicId(state.topicId());
                }
            } catch (final InconsistentTopicIdException e2) {
                LOG.error("broker.id={} refuses {}: the controller's topic id={} is not the log's topic id={} in {}",
                    brokerId, tp, e2.requestedTopicId(), e2.logTopicId(), e2.dir());
                continue;
            } catch (final RuntimeException e2) {
                LOG.error("broker.id={} cannot record the topic id of {}: {}", brokerId, tp, e2.toString());
                continue;
            }
            try {
                if (state.leaderAndIsr().leader() == brokerId) {
                    fetchers.remove(tp);
                    partition.makeLeader(state);
                    tell(() -> told.onBecomeLeader(tp, state.leaderAndIsr().leaderEpoch()));
                } else if (partition.makeFollower(state)) {
                    fetchers.remove(tp);
                    follow.put(tp, partition);
                    tell(() -> told.onBecomeFollower(tp, state.leaderAndIsr().leader(),
                        state.leaderAndIsr().leaderEpoch()));
                }
            } catch (final RuntimeException e2) {
                // One partition's failure (its log offline, a refused epoch) leaves the others' roles applied.
                LOG.error("broker.id={} cannot take its role for {}: {}", brokerId, tp, e2.toString());
            }
            // Waiting requests learn of the new role (acks of a former leader fail, fetches return).
            produceWaits.checkAndComplete(tp);
            fetchWaits.checkAndComplete(tp);
        }
        for (final Map.Entry<TopicPartition, Partition> e : follow.entrySet()) {
            final Partition p = e.getValue();
            if (p.leaderId() >= 0) {
                try {
                    fetchers.add(p, p.leaderId(), p.leaderEpoch(), liveLeaders.get(p.leaderId()));
                } catch (final RuntimeException e2) {
                    LOG.error("broker.id={} cannot start fetching {}: {}", brokerId, e.getKey(), e2.toString());
                }
            }
        }
    }

    /** A listener that throws must not stop the control message being applied. */
    private void tell(final Runnable call) {
        try {
            call.run();
        } catch (final RuntimeException e) {
            LOG.warn("broker.id={}: the leadership listener failed: {}", brokerId, e.toString());
        }
    }

    /**
     * Gives the fetchers a leader's address that a LeaderAndIsr did not carry (from UpdateMetadata).
     *
     * @param live the live brokers
     */
    @Override
    public void onLiveBrokers(final Map<Integer, LiveBroker> live) {
        fetchers.onLiveBrokers(live);
        // A follower that is no longer alive no longer holds a leader's high watermark back (Kafka's ISR
        // eligibility); without this the high watermark would wait for the next append or fetch to move.
        for (final Partition p : partitions.values()) {
            if (p.isLeader() && p.maybeIncrementHighWatermark()) {
                partitionContext.onHighWatermarkChanged(p.topicPartition());
            }
        }
    }

    @Override
    public void onStopReplica(final Set<TopicPartition> stopped, final boolean delete) {
        onStopReplica(stopped, delete, leadership);
    }

    /**
     * Stops replicas (and deletes their logs when asked), telling a listener of each stopped one.
     *
     * @param stopped the partitions
     * @param delete  whether their logs go too
     * @param told    told each stopped partition (instead of this manager's own listener)
     */
    public void onStopReplica(final Set<TopicPartition> stopped, final boolean delete, final LeadershipListener told) {
        for (final TopicPartition tp : stopped) {
            fetchers.remove(tp);
            final Partition p = partitions.remove(tp);
            if (p != null) {
                p.stop();
                produceWaits.checkAndComplete(tp);
                fetchWaits.checkAndComplete(tp);
            }
            boolean deleted = false;
            if (delete) {
                try {
                    deleted = logs.delete(tp);
                } catch (final StorageException e) {
                    LOG.error("broker.id={} cannot delete {}: {}", brokerId, tp, e.getMessage());
                }
            }
            if (p != null) {
                final boolean gone = deleted;
                tell(() -> told.onStopped(tp, gone));
            }
        }
    }

    /**
     * A hosted partition.
     *
     * @param tp the partition
     * @return it, or empty when this broker hosts no replica of it
     */
    public Optional<Partition> partition(final TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    /**
     * The hosted partitions.
     *
     * @return a snapshot
     */
    public Collection<Partition> partitions() {
        return List.copyOf(partitions.values());
    }

    // ---------------------------------------------------------------------------------------------- produce

    /**
     * Appends a produce's batches to the partitions this broker leads and answers once {@code acks} is met (Kafka's
     * {@code appendRecords}; see {@link LeaderWrites#produce}).
     *
     * @param acks      -1, 0 or 1
     * @param timeoutMs how long acks=all waits
     * @param batches   partition to its batches (in the caller's order; stamped in place)
     * @return completes with every partition's result, in the same order
     */
    public CompletableFuture<Map<TopicPartition, AppendResult>> produce(final short acks, final long timeoutMs,
                                                                     final Map<TopicPartition, ByteBuffer> batches) {
        return writes.produce(acks, timeoutMs, batches);
    }

    /**
     * Writes one transaction's COMMIT or ABORT marker to the partitions this broker leads, for the transaction
     * coordinator (Kafka's WriteTxnMarkers: origin COORDINATOR, acks=all; see {@link LeaderWrites#writeMarkers}).
     *
     * @param producerId       the transaction's producer
     * @param producerEpoch    its epoch
     * @param coordinatorEpoch the coordinator's epoch
     * @param commit           COMMIT, else ABORT
     * @param targets          the partitions
     * @param timeoutMs        how long to wait for each partition's ISR
     * @return completes with every partition's result, in the same order
     */
    public CompletableFuture<Map<TopicPartition, AppendResult>> writeMarkers(final long producerId,
                                                                          final short producerEpoch,
                                                                          final int coordinatorEpoch,
                                                                          final boolean commit,
                                                                          final List<TopicPartition> targets,
                                                                          final long timeoutMs) {
        return writes.writeMarkers(producerId, producerEpoch, coordinatorEpoch, commit, targets, timeoutMs);
    }

    // ------------------------------------------------------------------------------------------------ fetch

    /**
     * Serves a fetch from a follower or a consumer (Kafka's {@code fetchMessages}): reads each partition in order
     * within the response's byte limit, and holds the request for up to {@code maxWaitMs} until {@code minBytes} are
     * there, an error occurs or a partition's role changes.
     *
     * @param request the fetch
     * @return completes with each partition's answer, in the request's order
     */
    public CompletableFuture<List<ReadResult>> fetch(final FetchRequest request) {
        // The first read records a follower's progress as the fetch arrives (it may move the high watermark and
        // complete acks at once); a fetch that then waits is answered by a second read that records nothing.
        final List<ReadResult> first = readAll(request, true);
        long bytes = 0;
        boolean answerNow = request.maxWaitMs() <= 0 || request.partitions().isEmpty();
        for (final ReadResult r : first) {
            bytes += r.sizeInBytes();
            answerNow |= r.error() != ReplicaError.NONE || !r.divergingEpoch().isUndefined();
        }
        if (answerNow || bytes >= request.minBytes()) {
            return CompletableFuture.completedFuture(first);
        }
        final DelayedFetch op = new DelayedFetch(request);
        final List<TopicPartition> keys = new ArrayList<>(request.partitions().size());
        request.partitions().forEach(p -> keys.add(p.tp()));
        fetchWaits.tryCompleteElseWatch(op, keys, clockMs.getAsLong() + request.maxWaitMs());
        return op.future;
    }

    /** Reads every partition of a fetch within its limits. */
    private List<ReadResult> readAll(final FetchRequest request, final boolean recordProgress) {
        final List<ReadResult> out = new ArrayList<>(request.partitions().size());
        int remaining = request.maxBytes();
        boolean first = true;
        for (final PartitionFetch pf : request.partitions()) {
            final Partition p = partitions.get(pf.tp());
            if (p == null) {
                out.add(ReadResult.error(logs.log(pf.tp()).isPresent() ? ReplicaError.NOT_LEADER_OR_FOLLOWER
                    : ReplicaError.UNKNOWN_TOPIC_OR_PARTITION));
                continue;
            }
            final int limit = Math.max(0, Math.min(pf.maxBytes(), remaining));
            final ReadResult r = read(request, pf, p, limit, first, recordProgress);
            out.add(r);
            if (r.sizeInBytes() > 0) {
                first = false;
                remaining -= r.sizeInBytes();
            }
        }
        return out;
    }

    private ReadResult read(final FetchRequest request, final PartitionFetch pf, final Partition p, final int limit,
                            final boolean minOneBatch, final boolean recordProgress) {
        // Only the first non-empty partition may pass the limit (with one whole batch), as Kafka's fetch does; the
        // others still record the follower's progress and return the offsets.
        if (request.fromFollower()) {
            return p.fetchForFollower(request.replicaId(), request.replicaEpoch(), pf.currentLeaderEpoch(),
                pf.fetchOffset(), pf.lastFetchedEpoch(), pf.logStartOffset(), pf.durableOffset(), limit, minOneBatch,
                recordProgress);
        }
        return p.fetchForConsumer(pf.currentLeaderEpoch(), pf.fetchOffset(), limit, minOneBatch, request.isolation());
    }

    /** A fetch waiting for data (Kafka's {@code DelayedFetch}). */
    private final class DelayedFetch extends DelayedOperations.Operation {
        final CompletableFuture<List<ReadResult>> future = new CompletableFuture<>();
        private final FetchRequest request;
        private final int[] epochs;

        DelayedFetch(final FetchRequest request) {
            this.request = request;
            this.epochs = new int[request.partitions().size()];
            for (int i = 0; i < epochs.length; i++) {
                final Partition p = partitions.get(request.partitions().get(i).tp());
                epochs[i] = p == null ? -1 : p.leaderEpoch();
            }
        }

        @Override
        boolean tryComplete() {
            long available = 0;
            for (int i = 0; i < epochs.length; i++) {
                final PartitionFetch pf = request.partitions().get(i);
                final Partition p = partitions.get(pf.tp());
                if (p == null || !p.isLeader() || p.leaderEpoch() != epochs[i]) {
                    return forceComplete(); // the role changed: answer with the error now
                }
                final PartitionLog log = p.log();
                if (pf.fetchOffset() > log.logEndOffset() || pf.fetchOffset() < log.logStartOffset()) {
                    return forceComplete(); // out of range: answered now
                }
                final long end = request.isolation().bound(log);
                if (request.fromFollower() && pf.lastFetchedEpoch() >= 0
                    && log.endOffsetForEpoch(pf.lastFetchedEpoch()).endOffset() < pf.fetchOffset()) {
                    return forceComplete(); // diverged: the follower must truncate now
                }
                available += Math.max(0, end - pf.fetchOffset());
            }
            // Offsets are not bytes, but a fetch that waits for one byte waits for one record; larger minimums are
            // checked by reading.
            if (available > 0 && (request.minBytes() <= 1 || readBytes() >= request.minBytes())) {
                return forceComplete();
            }
            return false;
        }

        private long readBytes() {
            long bytes = 0;
            for (final ReadResult r : readAll(request, false)) {
                bytes += r.sizeInBytes();
            }
            return bytes;
        }

        @Override
        void onComplete() {
            try {
                future.complete(readAll(request, false));
            } catch (final RuntimeException e) {
                future.completeExceptionally(e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------- offset lookups

    /**
     * ListOffsets for one partition.
     *
     * @param tp                 the partition
     * @param currentLeaderEpoch the caller's leader epoch, or -1
     * @param timestamp          the timestamp or one of the special values
     * @param isolation          the bound: the log end (a follower), the high watermark or the last stable offset
     * @return the answer
     */
    public OffsetResult listOffset(final TopicPartition tp, final int currentLeaderEpoch, final long timestamp,
                                   final FetchIsolation isolation) {
        final Partition p = partitions.get(tp);
        if (p == null) {
            return OffsetResult.error(logs.log(tp).isPresent() ? ReplicaError.NOT_LEADER_OR_FOLLOWER
                : ReplicaError.UNKNOWN_TOPIC_OR_PARTITION);
        }
        return p.listOffset(currentLeaderEpoch, timestamp, isolation);
    }

    /**
     * OffsetsForLeaderEpoch for one partition.
     *
     * @param tp                 the partition
     * @param currentLeaderEpoch the caller's leader epoch, or -1
     * @param epoch              the epoch asked about
     * @return the answer
     */
    public EpochResult endOffsetForEpoch(final TopicPartition tp, final int currentLeaderEpoch, final int epoch) {
        final Partition p = partitions.get(tp);
        if (p == null) {
            return EpochResult.error(logs.log(tp).isPresent() ? ReplicaError.NOT_LEADER_OR_FOLLOWER
                : ReplicaError.UNKNOWN_TOPIC_OR_PARTITION);
        }
        return p.endOffsetForEpoch(currentLeaderEpoch, epoch);
    }

    /**
     * This broker's id.
     *
     * @return the id
     */
    public int brokerId() {
        return brokerId;
    }

    /**
     * The fetcher threads running (for tests and metrics).
     *
     * @return the count
     */
    public int fetcherCount() {
        return fetchers.fetcherCount();
    }

    /**
     * Stops the fetchers, the ISR checks and the reapers; waiting requests are answered (as timed out). The logs are
     * the caller's to close. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timedWork.forEach(io.seglog.storage.Scheduler.Cancellable::cancel);
        if (isrExpiration == null) {
            CloseHelper.closeAll(fetchers, produceWaits, fetchWaits);
            return;
        }
        java.util.concurrent.locks.LockSupport.unpark(isrExpiration);
        CloseHelper.closeAll(fetchers, produceWaits, fetchWaits, () -> {
            try {
                isrExpiration.join(TimeUnit.SECONDS.toMillis(10));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public String toString() {
        return "ReplicaManager[broker=" + brokerId + ", partitions=" + partitions.size() + "]";
    }
}
