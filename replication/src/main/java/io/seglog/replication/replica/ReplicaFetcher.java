package io.seglog.replication.replica;

import io.seglog.replication.policy.FollowerTruncation;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.InvalidRecordException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import io.seglog.storage.Scheduler;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetcher: replicates the partitions this broker follows from one leader broker (Kafka's
 * {@code ReplicaFetcherThread}). Each partition is either <b>fetching</b>, with its log end offset and the epoch of
 * its last batch (KIP-595: the leader answers a diverging log with the epoch where it diverged), or
 * <b>truncating</b>, asking the leader where its latest epoch ends (OffsetsForLeaderEpoch) after an answer it could
 * not settle alone (KIP-279). Truncation goes by epoch, never to the high watermark; an offset out of the leader's
 * range resets to the leader's log end (a lagging leader elected uncleanly) or start (a follower left behind by
 * retention). With durable acks, a fetch that appended waits for the disk before the next one, so the next fetch
 * tells the leader the durable offset.
 *
 * <p>It never blocks: each round is a chain of steps on its {@link FetcherDriver} (a thread of its own in a broker, a
 * simulation's scheduler in a test), each request continuing in a step of its own when its answer or its timeout
 * ({@code replica.socket.timeout.ms}) comes, and waits (idle, back-off) are timers that an {@link #add} cuts short.
 *
 * <p>Thread-safe: partitions are added and removed from any thread; the steps run one at a time on the driver.
 */
final class ReplicaFetcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcher.class);

    private enum Mode { FETCHING, TRUNCATING }

    /** A partition's fetch state; its epoch is the leader epoch it follows in. */
    private static final class State {
        final Partition partition;
        final int epoch;
        Mode mode;
        long delayedUntilMs;

        State(final Partition partition, final int epoch, final Mode mode) {
            this.partition = partition;
            this.epoch = epoch;
            this.mode = mode;
        }
    }

    private final int localBrokerId;
    private final int leaderId;
    private final String name;
    private final LeaderEndpoint endpoint;
    private final ReplicaManagerConfig config;
    private final LongSupplier clockMs;
    private final LongSupplier brokerEpoch;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<TopicPartition, State> partitions = new LinkedHashMap<>();
    private final FetcherDriver driver;
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private volatile boolean running = true;
    /** While waiting (idle or backing off): what continues after the wait, and its timer. Driver-confined. */
    private Runnable waiting;
    private Scheduler.Cancellable waitTimer;

    /** How long an idle fetcher waits before it looks again (an {@link #add} wakes it sooner). */
    private static final long IDLE_WAIT_MS = 1_000;

    ReplicaFetcher(final int localBrokerId, final int leaderId, final int fetcherId, final LeaderEndpoint endpoint,
                   final ReplicaManagerConfig config, final LongSupplier clockMs, final LongSupplier brokerEpoch,
                   final ThreadFactory threadFactory) {
        this(localBrokerId, leaderId, fetcherId, endpoint, config, clockMs, brokerEpoch,
            (Function<String, FetcherDriver>) name -> FetcherDriver.onThread(threadFactory, name));
    }

    /**
     * A fetcher whose steps run on a driver made for it.
     *
     * @param drivers makes the driver, given the fetcher's name
     */
    ReplicaFetcher(final int localBrokerId, final int leaderId, final int fetcherId, final LeaderEndpoint endpoint,
                   final ReplicaManagerConfig config, final LongSupplier clockMs, final LongSupplier brokerEpoch,
                   final Function<String, FetcherDriver> drivers) {
        this.localBrokerId = localBrokerId;
        this.leaderId = leaderId;
        this.name = "replica-fetcher-" + fetcherId + "-source-" + leaderId + "-broker-" + localBrokerId;
        this.endpoint = endpoint;
        this.config = config;
        this.clockMs = clockMs;
        this.brokerEpoch = brokerEpoch;
        this.driver = drivers.apply(name);
    }

    void start() {
        driver.start();
        next();
    }

    /**
     * The source broker.
     *
     * @return the leader's id
     */
    int leaderId() {
        return leaderId;
    }

    /**
     * Starts fetching a partition in a leader epoch (replacing an earlier state of it). A log whose epochs are known
     * fetches with its latest one; an empty log fetches from its end; a log with batches but no epochs (written by
     * something that stamped none) is emptied and re-fetched, since nothing tells where it agrees with the leader.
     *
     * @param partition the partition, as follower
     * @param epoch     the leader epoch it follows in
     */
    void add(final Partition partition, final int epoch) {
        final PartitionLog log = partition.log();
        if (!partition.safetyFixes().truncateByLeaderEpoch()) {
            // Kafka before KIP-101: cut to the high watermark, whatever the leader holds.
            partition.truncateAsFollower(log.highWatermark(), epoch);
        } else if (log.latestEpoch() < 0 && log.logEndOffset() > log.logStartOffset()) {
            partition.truncateFullyAsFollower(log.logStartOffset(), epoch);
        }
        lock.lock();
        try {
            partitions.put(partition.topicPartition(), new State(partition, epoch, Mode.FETCHING));
        } finally {
            lock.unlock();
        }
        if (running && wakePending.compareAndSet(false, true)) {
            driver.execute(this::wake);
        }
    }

    /**
     * Stops fetching a partition; an answer in flight for it is dropped.
     *
     * @param tp the partition
     * @return whether it was fetched here
     */
    boolean remove(final TopicPartition tp) {
        lock.lock();
        try {
            return partitions.remove(tp) != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Partitions fetched here.
     *
     * @return the count
     */
    int partitionCount() {
        lock.lock();
        try {
            return partitions.size();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ steps

    /**
     * One round: the partitions ready now, OffsetsForLeaderEpoch for those truncating, then a Fetch for those
     * fetching, then the out-of-range lookups and (durable acks) the flushes; then the next round. With nothing ready,
     * it waits for the earliest delayed partition, or an {@link #add}.
     */
    private void step() {
        if (!running) {
            return;
        }
        final Map<TopicPartition, State> fetching = new LinkedHashMap<>();
        final Map<TopicPartition, State> truncating = new LinkedHashMap<>();
        final long waitMs = readyPartitions(fetching, truncating);
        if (fetching.isEmpty() && truncating.isEmpty()) {
            waitThen(waitMs, this::step);
        } else if (!truncating.isEmpty()) {
            truncate(truncating, () -> fetch(fetching));
        } else {
            fetch(fetching);
        }
    }

    /** Copies the ready partitions by mode; with none ready, how long until one is (or an idle second). */
    private long readyPartitions(final Map<TopicPartition, State> fetching, final Map<TopicPartition, State> truncating) {
        lock.lock();
        try {
            final long now = clockMs.getAsLong();
            long nextDue = Long.MAX_VALUE;
            for (final Map.Entry<TopicPartition, State> e : partitions.entrySet()) {
                final State s = e.getValue();
                if (s.delayedUntilMs > now) {
                    nextDue = Math.min(nextDue, s.delayedUntilMs);
                } else if (s.mode == Mode.FETCHING) {
                    fetching.put(e.getKey(), s);
                } else {
                    truncating.put(e.getKey(), s);
                }
            }
            return nextDue == Long.MAX_VALUE ? IDLE_WAIT_MS : Math.max(1, nextDue - now);
        } finally {
            lock.unlock();
        }
    }

    /** Starts the next round as a step of its own. */
    private void next() {
        driver.execute(this::guardedStep);
    }

    private void guardedStep() {
        guard(this::step);
    }

    /** Runs a step's body; an unexpected failure backs off and starts another round. */
    private void guard(final Runnable body) {
        try {
            body.run();
        } catch (final RuntimeException e) {
            LOG.error("{}: unexpected failure; backing off", name, e);
            backOff(this::step);
        }
    }

    /** Waits (an {@link #add} cuts the wait short), then continues. */
    private void waitThen(final long delayMs, final Runnable then) {
        waiting = then;
        waitTimer = driver.schedule(delayMs, () -> {
            if (waiting == then) {
                resume();
            }
        });
    }

    private void backOff(final Runnable then) {
        waitThen(Math.max(1, config.fetchBackoffMs()), then);
    }

    /** Ends a wait early: a partition was added. */
    private void wake() {
        wakePending.set(false);
        if (running) {
            resume();
        }
    }

    private void resume() {
        final Runnable then = waiting;
        if (then == null) {
            return;
        }
        waiting = null;
        waitTimer.cancel();
        guard(then);
    }

    /**
     * Sends a request and continues with its answer, or with a {@link TimeoutException} after
     * {@code replica.socket.timeout.ms}, exactly once, in a step of its own. An answer that comes after the timeout or
     * after the fetcher stopped is closed here.
     */
    private <T> void call(final CompletableFuture<T> pending, final BiConsumer<T, Throwable> then) {
        final boolean[] done = new boolean[1];
        final long timeoutMs = config.replicaSocketTimeoutMs();
        final Scheduler.Cancellable timer = driver.schedule(timeoutMs, () -> {
            if (!done[0]) {
                done[0] = true;
                pending.cancel(false);
                if (running) {
                    guard(() -> then.accept(null, new TimeoutException("no answer within " + timeoutMs + " ms")));
                }
            }
        });
        pending.whenComplete((value, failure) -> driver.execute(() -> {
            if (done[0] || !running) {
                release(value);
                return;
            }
            done[0] = true;
            timer.cancel();
            guard(() -> then.accept(value, failure instanceof CompletionException c && c.getCause() != null
                ? c.getCause() : failure));
        }));
    }

    private static void release(final Object answer) {
        if (answer instanceof FetchResponse response) {
            response.close();
        }
    }

    private static String describe(final Throwable failure) {
        return failure instanceof TimeoutException ? "timed out" : failure.toString();
    }

    /** Whether a state is still the current one for its partition (not removed or replaced). */
    private boolean current(final TopicPartition tp, final State s) {
        lock.lock();
        try {
            return partitions.get(tp) == s;
        } finally {
            lock.unlock();
        }
    }

    private void delay(final State s) {
        lock.lock();
        try {
            s.delayedUntilMs = clockMs.getAsLong() + config.fetchBackoffMs();
        } finally {
            lock.unlock();
        }
    }

    private void setMode(final State s, final Mode mode) {
        lock.lock();
        try {
            s.mode = mode;
        } finally {
            lock.unlock();
        }
    }

    private void drop(final TopicPartition tp, final State s) {
        lock.lock();
        try {
            partitions.remove(tp, s);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ fetch

    private void fetch(final Map<TopicPartition, State> fetching) {
        if (fetching.isEmpty()) {
            next();
            return;
        }
        final List<PartitionFetch> parts = new ArrayList<>(fetching.size());
        for (final Map.Entry<TopicPartition, State> e : fetching.entrySet()) {
            final PartitionLog log = e.getValue().partition.log();
            final int lastEpoch = e.getValue().partition.safetyFixes().truncateByLeaderEpoch() ? log.latestEpoch() : -1;
            parts.add(new PartitionFetch(e.getKey(), e.getValue().epoch, log.logEndOffset(), lastEpoch,
                log.logStartOffset(), config.durableAcks() ? log.flushedOffset() : -1, config.fetchMaxBytes()));
        }
        final FetchRequest request = new FetchRequest(localBrokerId, brokerEpoch.getAsLong(), config.fetchWaitMaxMs(),
            config.fetchMinBytes(), config.fetchResponseMaxBytes(), parts);
        call(endpoint.fetch(request), (response, failure) -> {
            if (failure != null) {
                LOG.info("{}: fetch of {} partitions failed: {}", name, parts.size(), describe(failure));
                backOff(this::step);
                return;
            }
            final List<CompletableFuture<Long>> flushes = new ArrayList<>();
            final List<State> outOfRange = new ArrayList<>();
            // The records may be views into the connection's receive buffer: given back once appended (before any
            // flush wait, which needs the file, not them).
            try (FetchResponse answers = response) {
                for (final FetchedPartition answer : answers.partitions()) {
                    final State s = fetching.get(answer.tp());
                    if (s == null || !current(answer.tp(), s)) {
                        continue;
                    }
                    try {
                        process(answer, s, flushes, outOfRange);
                    } catch (final StorageException e) {
                        LOG.error("{}: {} is offline; no longer fetched: {}", name, answer.tp(), e.getMessage());
                        drop(answer.tp(), s);
                    } catch (final InvalidRecordException e) {
                        // Batches that do not continue the log (or are malformed): settle where the logs agree.
                        LOG.warn("{}: {} refused the leader's batches ({}); truncating by epoch", name, answer.tp(),
                            e.getMessage());
                        setMode(s, Mode.TRUNCATING);
                        delay(s);
                    }
                }
            }
            handleOutOfRange(outOfRange.iterator(), () -> awaitFlushes(flushes));
        });
    }

    private void process(final FetchedPartition answer, final State s, final List<CompletableFuture<Long>> flushes,
                         final List<State> outOfRange) {
        final Partition partition = s.partition;
        switch (answer.error()) {
            case NONE -> {
                if (!answer.divergingEpoch().isUndefined()) {
                    truncateOnDivergence(answer.tp(), s, answer.divergingEpoch());
                    return;
                }
                final boolean appended = answer.records() != null && answer.records().hasRemaining();
                final long end = partition.appendAsFollower(answer.records(), s.epoch, answer.highWatermark(),
                    answer.logStartOffset());
                if (end < 0) {
                    drop(answer.tp(), s);
                } else if (appended && config.durableAcks()) {
                    flushes.add(partition.log().awaitDurable(end - 1));
                }
            }
            case OFFSET_OUT_OF_RANGE -> outOfRange.add(s);
            case FENCED_LEADER_EPOCH -> {
                // The leader is newer than this broker's view: wait for the controller's LeaderAndIsr.
                LOG.info("{}: {} fenced at epoch {}; waiting for a newer LeaderAndIsr", name, answer.tp(), s.epoch);
                drop(answer.tp(), s);
            }
            default -> {
                LOG.debug("{}: {} answered {}; retrying after {} ms", name, answer.tp(), answer.error(),
                    config.fetchBackoffMs());
                delay(s);
            }
        }
    }

    /** Durable acks: the next fetch reports the durable offset, so it waits for this one's fsync. */
    private void awaitFlushes(final List<CompletableFuture<Long>> flushes) {
        if (flushes.isEmpty()) {
            next();
            return;
        }
        call(CompletableFuture.allOf(flushes.toArray(new CompletableFuture<?>[0])), (done, failure) -> {
            if (failure != null) {
                LOG.warn("{}: waiting for the follower's flush failed: {}", name, describe(failure));
            }
            next();
        });
    }

    /** KIP-595: the leader says where the follower's last epoch ends in its log. */
    private void truncateOnDivergence(final TopicPartition tp, final State s, final EpochEndOffset leaderAnswer) {
        final PartitionLog log = s.partition.log();
        final FollowerTruncation.Result result = FollowerTruncation.decide(leaderAnswer,
            log.endOffsetForEpoch(leaderAnswer.epoch()), log.logEndOffset());
        if (s.partition.truncateAsFollower(result.offset(), s.epoch) < 0) {
            drop(tp, s);
            return;
        }
        if (!result.complete()) {
            setMode(s, Mode.TRUNCATING);
        }
    }

    /**
     * Kafka's {@code handleOutOfRangeError}/{@code fetchOffsetAndTruncate}, one partition after the other (the
     * leader's end, then, if needed, its start), then continues.
     */
    private void handleOutOfRange(final Iterator<State> remaining, final Runnable then) {
        if (!remaining.hasNext()) {
            then.run();
            return;
        }
        final State s = remaining.next();
        final TopicPartition tp = s.partition.topicPartition();
        if (!current(tp, s)) {
            handleOutOfRange(remaining, then);
            return;
        }
        final Runnable rest = () -> handleOutOfRange(remaining, then);
        call(endpoint.listOffsets(localBrokerId, Map.of(tp, s.epoch), PartitionLog.LATEST_TIMESTAMP),
            (latestAnswers, failure) -> {
                final OffsetResult latest = failure == null ? latestAnswers.get(tp) : null;
                if (failure != null) {
                    LOG.info("{}: {} offsets lookup failed: {}", name, tp, describe(failure));
                }
                if (latest == null || latest.error() != ReplicaError.NONE || !current(tp, s)) {
                    delay(s);
                    rest.run();
                    return;
                }
                final PartitionLog log = s.partition.log();
                if (latest.offset() < log.logEndOffset()) {
                    // The leader's log ends before this one (an unclean election): cut to its end.
                    LOG.warn("{}: {} log end {} is past the leader's {}; truncating", name, tp, log.logEndOffset(),
                        latest.offset());
                    offline(tp, s, () -> {
                        if (s.partition.truncateAsFollower(latest.offset(), s.epoch) < 0) {
                            drop(tp, s);
                        }
                    });
                    rest.run();
                    return;
                }
                call(endpoint.listOffsets(localBrokerId, Map.of(tp, s.epoch), PartitionLog.EARLIEST_TIMESTAMP),
                    (earliestAnswers, failed) -> {
                        final OffsetResult earliest = failed == null ? earliestAnswers.get(tp) : null;
                        if (failed != null) {
                            LOG.info("{}: {} offsets lookup failed: {}", name, tp, describe(failed));
                        }
                        if (earliest == null || earliest.error() != ReplicaError.NONE || !current(tp, s)) {
                            delay(s);
                        } else if (earliest.offset() > log.logEndOffset()) {
                            offline(tp, s, () -> {
                                if (!s.partition.truncateFullyAsFollower(earliest.offset(), s.epoch)) {
                                    drop(tp, s);
                                }
                            });
                        } else {
                            // Within range now (the leader moved meanwhile): fetch again after a pause.
                            delay(s);
                        }
                        rest.run();
                    });
            });
    }

    /** Runs a change to the log; a log gone offline stops being fetched. */
    private void offline(final TopicPartition tp, final State s, final Runnable change) {
        try {
            change.run();
        } catch (final StorageException e) {
            LOG.error("{}: {} is offline; no longer fetched: {}", name, tp, e.getMessage());
            drop(tp, s);
        }
    }

    // --------------------------------------------------------------------------------------------- truncate

    /** OffsetsForLeaderEpoch for the partitions whose divergence one answer did not settle (KIP-279). */
    private void truncate(final Map<TopicPartition, State> truncating, final Runnable then) {
        final Map<TopicPartition, int[]> query = new HashMap<>();
        for (final Map.Entry<TopicPartition, State> e : truncating.entrySet()) {
            final int latest = e.getValue().partition.log().latestEpoch();
            if (latest < 0) {
                // Nothing left with an epoch: the log is empty or was cut to its start; fetch from its end.
                setMode(e.getValue(), Mode.FETCHING);
            } else {
                query.put(e.getKey(), new int[] {e.getValue().epoch, latest});
            }
        }
        if (query.isEmpty()) {
            then.run();
            return;
        }
        call(endpoint.offsetsForLeaderEpoch(localBrokerId, query), (answers, failure) -> {
            if (failure != null) {
                LOG.info("{}: OffsetsForLeaderEpoch failed: {}", name, describe(failure));
                backOff(then);
                return;
            }
            for (final Map.Entry<TopicPartition, EpochResult> e : answers.entrySet()) {
                final State s = truncating.get(e.getKey());
                if (s == null || !current(e.getKey(), s)) {
                    continue;
                }
                final EpochResult answer = e.getValue();
                if (answer.error() == ReplicaError.FENCED_LEADER_EPOCH) {
                    drop(e.getKey(), s);
                } else if (answer.error() != ReplicaError.NONE) {
                    delay(s);
                } else {
                    offline(e.getKey(), s, () -> {
                        final PartitionLog log = s.partition.log();
                        final FollowerTruncation.Result result = FollowerTruncation.decide(answer.epochEnd(),
                            log.endOffsetForEpoch(answer.epochEnd().epoch()), log.logEndOffset());
                        if (s.partition.truncateAsFollower(result.offset(), s.epoch) < 0) {
                            drop(e.getKey(), s);
                        } else if (result.complete()) {
                            setMode(s, Mode.FETCHING);
                        }
                    });
                }
            }
            then.run();
        });
    }

    /**
     * Stops the fetcher and closes the connection, without waiting: the caller may hold locks the step in progress
     * needs on its way out (a LeaderAndIsr being applied). Idempotent.
     */
    void shutdown() {
        running = false;
        lock.lock();
        try {
            // Answers still in flight are no longer current: the partitions may have moved to another fetcher.
            partitions.clear();
        } finally {
            lock.unlock();
        }
        driver.stop();
        // Never interrupt the fetcher: an interrupt during a file write or fsync closes the FileChannel and takes
        // the log directory offline. Closing the endpoint fails the request in flight, whose answer is then closed.
        endpoint.close();
    }

    /**
     * Whether the fetcher has ended.
     *
     * @return true once its last step ran (or it never started)
     */
    boolean ended() {
        return driver.ended();
    }

    /** Stops the fetcher, closes the connection and waits for the step in progress. Idempotent. */
    @Override
    public void close() {
        shutdown();
        driver.join(TimeUnit.SECONDS.toMillis(30));
    }

    @Override
    public String toString() {
        return name;
    }
}
