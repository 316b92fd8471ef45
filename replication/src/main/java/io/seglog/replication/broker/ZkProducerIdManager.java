package io.seglog.replication.broker;

import io.seglog.replication.wire.ProducerIdSource;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ProducerIdBlockZnode;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's producer ids, reserved in blocks of {@link ProducerIdBlockZnode#BLOCK_SIZE} in ZooKeeper
 * ({@code /latest_producer_id_block}, as Kafka's ZooKeeper mode reserves them) and handed out without blocking, as
 * Kafka's {@code RPCProducerIdManager} does: the reservation runs on a thread of its own, the next block is asked for
 * when {@link #PREFETCH_PERCENT}% of the current one is used, and while no id is at hand (the first request, or a
 * block used up before the next arrived) {@link #nextProducerId()} answers {@link ProducerIdSource#NONE_AVAILABLE},
 * which the client is told to retry. A failed reservation (ZooKeeper down, a malformed znode) is logged and tried
 * again on a later request, not before {@link #RETRY_BACKOFF_MS} ms.
 *
 * <p>The first block is reserved at the first request, not at start: a broker whose clients never ask uses none.
 *
 * <p>Thread-safe: {@link #nextProducerId()} is lock-free; one reservation is in flight at most.
 */
final class ZkProducerIdManager implements ProducerIdSource, AutoCloseable {
    /** Kafka's {@code PidPrefetchThreshold}: ask for the next block when 90% of this one is handed out. */
    static final int PREFETCH_PERCENT = 90;
    /** Kafka's {@code RetryBackoffMs} after a failed reservation. */
    static final long RETRY_BACKOFF_MS = 50;
    private static final Logger LOG = LoggerFactory.getLogger(ZkProducerIdManager.class);
    private static final long NO_BACKOFF = Long.MIN_VALUE;
    /** Kafka's {@code IterationLimit}: blocks tried in one call before giving up for now. */
    private static final int ITERATION_LIMIT = 3;

    private final int brokerId;
    private final Supplier<KafkaZkStore> store;
    private final LongSupplier clockMs;
    private final ExecutorService executor;
    private final AtomicReference<Block> current = new AtomicReference<>(Block.EMPTY);
    private final AtomicReference<Block> next = new AtomicReference<>();
    /** True from the moment a reservation is asked for until its block is put to use, or it failed. */
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private final AtomicLong backoffUntilMs = new AtomicLong(NO_BACKOFF);
    private final AtomicLong failedReservations = new AtomicLong();

    /** A reserved block and the next id to take from it. */
    private static final class Block {
        static final Block EMPTY = new Block(0, -1);
        final long first;
        final long last;
        final long prefetchAt;
        final AtomicLong nextId;

        Block(final long first, final long last) {
            this.first = first;
            this.last = last;
            this.prefetchAt = first + (last - first + 1) * PREFETCH_PERCENT / 100;
            this.nextId = new AtomicLong(first);
        }

        /** The next id, or -1 when the block is used up (the counter then runs on past the end, harmlessly). */
        long claim() {
            final long id = nextId.getAndIncrement();
            return id > last ? -1 : id;
        }
    }

    /**
     * Reserves on an executor given (the cluster simulation's, which runs each reservation as an event).
     *
     * @param brokerId the broker whose blocks these are
     * @param store    the broker's ZooKeeper store
     * @param clockMs  a monotonic clock for the retry backoff
     * @param executor runs the reservations, one at a time; shut down by {@link #close()}
     */
    ZkProducerIdManager(final int brokerId, final Supplier<KafkaZkStore> store, final LongSupplier clockMs,
                        final ExecutorService executor) {
        this.brokerId = brokerId;
        this.store = store;
        this.clockMs = clockMs;
        this.executor = executor;
    }

    @Override
    public long nextProducerId() {
        for (int i = 0; i < ITERATION_LIMIT; i++) {
            final Block block = current.get();
            final long id = block.claim();
            if (id >= 0) {
                if (id == block.prefetchAt) {
                    maybeReserveNext();
                }
                return id;
            }
            final Block reserved = next.getAndSet(null);
            if (reserved == null) {
                if (current.get() != block) {
                    continue; // another thread just installed the reserved block
                }
                maybeReserveNext();
                return NONE_AVAILABLE;
            }
            // Two threads may both find the block used up; the one that took the reserved block installs it, the
            // other finds it in current on its next turn.
            current.compareAndSet(block, reserved);
            inFlight.set(false);
        }
        return NONE_AVAILABLE;
    }

    private void maybeReserveNext() {
        final long backoff = backoffUntilMs.get();
        if (backoff != NO_BACKOFF && clockMs.getAsLong() < backoff) {
            return;
        }
        if (next.get() != null || !inFlight.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(this::reserve);
        } catch (final RejectedExecutionException closed) {
            inFlight.set(false);
        }
    }

    private void reserve() {
        try {
            final KafkaZkStore zk = store.get();
            if (zk == null) {
                throw new IllegalStateException("not connected to ZooKeeper yet");
            }
            final ProducerIdBlockZnode block = zk.reserveProducerIdBlock(brokerId);
            LOG.info("broker.id={} reserved producer ids {}..{}", brokerId, block.firstProducerId(),
                block.lastProducerId());
            backoffUntilMs.set(NO_BACKOFF);
            next.set(new Block(block.firstProducerId(), block.lastProducerId()));
            // inFlight stays true until the block is put to use, so no second block is reserved meanwhile.
        } catch (final Exception e) {
            LOG.warn("broker.id={} could not reserve a block of producer ids in ZooKeeper (InitProducerId answers"
                + " COORDINATOR_LOAD_IN_PROGRESS, retried in {} ms at the earliest): {}", brokerId, RETRY_BACKOFF_MS,
                e.toString());
            backoffUntilMs.set(clockMs.getAsLong() + RETRY_BACKOFF_MS);
            failedReservations.incrementAndGet();
            inFlight.set(false);
        }
    }

    /** How many reservations failed since start (each was logged). */
    long failedReservations() {
        return failedReservations.get();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
