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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetcher thread: replicates the partitions this broker follows from one leader broker (Kafka's
 * {@code ReplicaFetcherThread}). Each partition is either <b>fetching</b>, with its log end offset and the epoch of
 * its last batch (KIP-595: the leader answers a diverging log with the epoch where it diverged), or
 * <b>truncating</b>, asking the leader where its latest epoch ends (OffsetsForLeaderEpoch) after an answer it could
 * not settle alone (KIP-279). Truncation goes by epoch, never to the high watermark; an offset out of the leader's
 * range resets to the leader's log end (a lagging leader elected uncleanly) or start (a follower left behind by
 * retention). With durable acks, a fetch that appended waits for the disk before the next one, so the next fetch
 * tells the leader the durable offset.
 *
 * <p>Thread-safe: partitions are added and removed from any thread; the fetch loop runs on one thread.
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
    private final Condition changed = lock.newCondition();
    private final Map<TopicPartition, State> partitions = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    ReplicaFetcher(final int localBrokerId, final int leaderId, final int fetcherId, final LeaderEndpoint endpoint,
                   final ReplicaManagerConfig config, final LongSupplier clockMs, final LongSupplier brokerEpoch,
                   final ThreadFactory threadFactory) {
        this.localBrokerId = localBrokerId;
        this.leaderId = leaderId;
        this.name = "replica-fetcher-" + fetcherId + "-source-" + leaderId + "-broker-" + localBrokerId;
        this.endpoint = endpoint;
        this.config = config;
        this.clockMs = clockMs;
        this.brokerEpoch = brokerEpoch;
        this.thread = threadFactory.newThread(this::run);
        thread.setName(name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
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
        if (log.latestEpoch() < 0 && log.logEndOffset() > log.logStartOffset()) {
            partition.truncateFullyAsFollower(log.logStartOffset(), epoch);
        }
        lock.lock();
        try {
            partitions.put(partition.topicPartition(), new State(partition, epoch, Mode.FETCHING));
            changed.signalAll();
        } finally {
            lock.unlock();
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

    private void run() {
        while (running) {
            try {
                final Map<TopicPartition, State> fetching = new LinkedHashMap<>();
                final Map<TopicPartition, State> truncating = new LinkedHashMap<>();
                if (!awaitWork(fetching, truncating)) {
                    continue;
                }
                if (!truncating.isEmpty()) {
                    truncate(truncating);
                }
                if (!fetching.isEmpty()) {
                    fetch(fetching);
                }
            } catch (final InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (final RuntimeException e) {
                LOG.error("{}: unexpected failure; backing off", name, e);
                backOff();
            }
        }
    }

    /** Waits until some partition is ready, then copies the ready ones by mode. */
    private boolean awaitWork(final Map<TopicPartition, State> fetching, final Map<TopicPartition, State> truncating)
        throws InterruptedException {
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
            if (fetching.isEmpty() && truncating.isEmpty()) {
                final long waitMs = nextDue == Long.MAX_VALUE ? 1_000 : Math.max(1, nextDue - now);
                changed.await(waitMs, TimeUnit.MILLISECONDS);
                return false;
            }
            return true;
        } finally {
            lock.unlock();
        }
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

    private void backOff() {
        lock.lock();
        try {
            if (running) {
                changed.await(Math.max(1, config.fetchBackoffMs()), TimeUnit.MILLISECONDS);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private <T> T await(final CompletableFuture<T> future, final long timeoutMs) throws InterruptedException,
        ExecutionException, TimeoutException {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (final TimeoutException | ExecutionException e) {
            future.cancel(false);
            throw e;
        }
    }

    // ------------------------------------------------------------------------------------------------ fetch

    private void fetch(final Map<TopicPartition, State> fetching) throws InterruptedException {
        final List<PartitionFetch> parts = new ArrayList<>(fetching.size());
        for (final Map.Entry<TopicPartition, State> e : fetching.entrySet()) {
            final PartitionLog log = e.getValue().partition.log();
            parts.add(new PartitionFetch(e.getKey(), e.getValue().epoch, log.logEndOffset(), log.latestEpoch(),
                log.logStartOffset(), config.durableAcks() ? log.flushedOffset() : -1, config.fetchMaxBytes()));
        }
        final FetchRequest request = new FetchRequest(localBrokerId, brokerEpoch.getAsLong(), config.fetchWaitMaxMs(),
            config.fetchMinBytes(), config.fetchResponseMaxBytes(), parts);
        final CompletableFuture<FetchResponse> pending = endpoint.fetch(request);
        FetchResponse response = null;
        try {
            response = await(pending, config.replicaSocketTimeoutMs());
        } catch (final ExecutionException | TimeoutException e) {
            LOG.info("{}: fetch of {} partitions failed: {}", name, parts.size(),
                e instanceof ExecutionException ? e.getCause().toString() : "timed out");
            backOff();
            return;
        } finally {
            if (response == null) {
                // An answer that completed the future just before the wait gave up is still ours to give back.
                pending.thenAccept(FetchResponse::close);
            }
        }
        final List<CompletableFuture<Long>> flushes = new ArrayList<>();
        // The records may be views into the connection's receive buffer: given back once appended (before any
        // flush wait, which needs the file, not them).
        try (FetchResponse answers = response) {
            for (final FetchedPartition answer : answers.partitions()) {
                final State s = fetching.get(answer.tp());
                if (s == null || !current(answer.tp(), s)) {
                    continue;
                }
                try {
                    process(answer, s, flushes);
                } catch (final StorageException e) {
                    LOG.error("{}: {} is offline; no longer fetched: {}", name, answer.tp(), e.getMessage());
                    drop(answer.tp(), s);
                } catch (final InvalidRecordException e) {
                    // Batches that do not continue the log (or are malformed): settle where the logs agree again.
                    LOG.warn("{}: {} refused the leader's batches ({}); truncating by epoch", name, answer.tp(),
                        e.getMessage());
                    setMode(s, Mode.TRUNCATING);
                    delay(s);
                }
            }
        }
        if (!flushes.isEmpty()) {
            // Durable acks: the next fetch reports the durable offset, so it waits for this one's fsync.
            try {
                CompletableFuture.allOf(flushes.toArray(new CompletableFuture<?>[0]))
                    .get(config.replicaSocketTimeoutMs(), TimeUnit.MILLISECONDS);
            } catch (final ExecutionException | TimeoutException e) {
                LOG.warn("{}: waiting for the follower's flush failed: {}", name, e.toString());
            }
        }
    }

    private void process(final FetchedPartition answer, final State s, final List<CompletableFuture<Long>> flushes) {
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
            case OFFSET_OUT_OF_RANGE -> handleOutOfRange(answer.tp(), s);
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

    /** Kafka's {@code handleOutOfRangeError}/{@code fetchOffsetAndTruncate}. */
    private void handleOutOfRange(final TopicPartition tp, final State s) {
        try {
            final PartitionLog log = s.partition.log();
            final OffsetResult latest = await(endpoint.listOffsets(localBrokerId, Map.of(tp, s.epoch),
                PartitionLog.LATEST_TIMESTAMP), config.replicaSocketTimeoutMs()).get(tp);
            if (latest == null || latest.error() != ReplicaError.NONE) {
                delay(s);
                return;
            }
            if (latest.offset() < log.logEndOffset()) {
                // The leader's log ends before this one (an unclean election): cut to its end.
                LOG.warn("{}: {} log end {} is past the leader's {}; truncating", name, tp, log.logEndOffset(),
                    latest.offset());
                if (s.partition.truncateAsFollower(latest.offset(), s.epoch) < 0) {
                    drop(tp, s);
                }
                return;
            }
            final OffsetResult earliest = await(endpoint.listOffsets(localBrokerId, Map.of(tp, s.epoch),
                PartitionLog.EARLIEST_TIMESTAMP), config.replicaSocketTimeoutMs()).get(tp);
            if (earliest == null || earliest.error() != ReplicaError.NONE) {
                delay(s);
                return;
            }
            if (earliest.offset() > log.logEndOffset()) {
                if (!s.partition.truncateFullyAsFollower(earliest.offset(), s.epoch)) {
                    drop(tp, s);
                }
            } else {
                // Within range now (the leader moved meanwhile): fetch again after a pause.
                delay(s);
            }
        } catch (final ExecutionException | TimeoutException e) {
            LOG.info("{}: {} offsets lookup failed: {}", name, tp, e.toString());
            delay(s);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // --------------------------------------------------------------------------------------------- truncate

    /** OffsetsForLeaderEpoch for the partitions whose divergence one answer did not settle (KIP-279). */
    private void truncate(final Map<TopicPartition, State> truncating) throws InterruptedException {
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
            return;
        }
        final Map<TopicPartition, EpochResult> answers;
        try {
            answers = await(endpoint.offsetsForLeaderEpoch(localBrokerId, query), config.replicaSocketTimeoutMs());
        } catch (final ExecutionException | TimeoutException e) {
            LOG.info("{}: OffsetsForLeaderEpoch failed: {}", name, e.toString());
            backOff();
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
                try {
                    final PartitionLog log = s.partition.log();
                    final FollowerTruncation.Result result = FollowerTruncation.decide(answer.epochEnd(),
                        log.endOffsetForEpoch(answer.epochEnd().epoch()), log.logEndOffset());
                    if (s.partition.truncateAsFollower(result.offset(), s.epoch) < 0) {
                        drop(e.getKey(), s);
                    } else if (result.complete()) {
                        setMode(s, Mode.FETCHING);
                    }
                } catch (final StorageException ex) {
                    LOG.error("{}: {} is offline; no longer fetched: {}", name, e.getKey(), ex.getMessage());
                    drop(e.getKey(), s);
                }
            }
        }
    }

    /**
     * Tells the thread to stop and closes the connection, without waiting: the caller may hold locks the thread
     * needs on its way out (a LeaderAndIsr being applied). Idempotent.
     */
    void shutdown() {
        running = false;
        lock.lock();
        try {
            // Answers still in flight are no longer current: the partitions may have moved to another fetcher.
            partitions.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        // Never interrupt the fetcher: an interrupt during a file write or fsync closes the FileChannel and takes
        // the log directory offline. Closing the endpoint fails the request in flight, which ends the wait.
        endpoint.close();
    }

    /**
     * Whether the thread has ended.
     *
     * @return true once it ran to its end (or never started)
     */
    boolean ended() {
        return !thread.isAlive();
    }

    /** Stops the thread, closes the connection and waits for the thread to end. Idempotent. */
    @Override
    public void close() {
        shutdown();
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
