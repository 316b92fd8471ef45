package io.seglog.replication.replica;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.LogBatch;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What the replica-layer tests share: batches as a producer sends them, the bytes of a log, a clock the test moves,
 * an ISR writer the test answers, and a partition context made of them. No Seglog class is mocked: logs are real.
 */
public final class ReplicaFixtures {
    private ReplicaFixtures() {
    }

    /** A clock the test moves by hand. */
    static final class ManualClock implements LongSupplier {
        private final AtomicLong nowMs;

        ManualClock(final long startMs) {
            this.nowMs = new AtomicLong(startMs);
        }

        @Override
        public long getAsLong() {
            return nowMs.get();
        }

        long advance(final long ms) {
            return nowMs.addAndGet(ms);
        }
    }

    /**
     * An ISR writer whose writes complete only when the test answers them: Written, Conflict or a failure.
     * Answers complete on the test's thread, so their effect on the partition is visible when the call returns.
     */
    static final class ManualIsrWriter implements IsrWriter {
        /** One write, and the future the test completes. */
        record Write(TopicPartition tp, Proposal proposal, CompletableFuture<Result> answer) {
        }

        private final List<Write> writes = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<Result> write(final TopicPartition tp, final Proposal proposal) {
            final Write w = new Write(tp, proposal, new CompletableFuture<>());
            writes.add(w);
            return w.answer();
        }

        List<Proposal> proposals() {
            final List<Proposal> out = new ArrayList<>();
            writes.forEach(w -> out.add(w.proposal()));
            return out;
        }

        Proposal last() {
            if (writes.isEmpty()) {
                throw new AssertionError("no ISR proposal was made");
            }
            return writes.get(writes.size() - 1).proposal();
        }

        void written(final int index, final int newPartitionEpoch) {
            writes.get(index).answer().complete(new Written(newPartitionEpoch));
        }

        void conflict(final int index, final LeaderAndIsr current) {
            writes.get(index).answer().complete(new Conflict(current));
        }

        void fail(final int index) {
            writes.get(index).answer().completeExceptionally(new IllegalStateException("ZooKeeper unreachable"));
        }
    }

    /** A partition's broker services, each one set by the test. */
    static final class TestContext implements Partition.Context {
        final ManualClock clock;
        final ManualIsrWriter writer = new ManualIsrWriter();
        final Set<Integer> ineligible = new HashSet<>();
        final AtomicInteger hwChanges = new AtomicInteger();
        final AtomicInteger appends = new AtomicInteger();
        volatile long lagMs;
        volatile boolean durableAcks;

        TestContext(final ManualClock clock, final long lagMs) {
            this.clock = clock;
            this.lagMs = lagMs;
        }

        @Override
        public long nowMs() {
            return clock.getAsLong();
        }

        @Override
        public long replicaLagTimeMaxMs() {
            return lagMs;
        }

        @Override
        public boolean durableAcks() {
            return durableAcks;
        }

        @Override
        public boolean isEligible(final int brokerId) {
            return !ineligible.contains(brokerId);
        }

        @Override
        public IsrWriter isrWriter() {
            return writer;
        }

        @Override
        public void onHighWatermarkChanged(final TopicPartition tp) {
            hwChanges.incrementAndGet();
        }

        @Override
        public void onAppended(final TopicPartition tp) {
            appends.incrementAndGet();
        }
    }

    /** Opens a standalone log with this {@code min.insync.replicas}. */
    static PartitionLog openLog(final Path dir, final int minInsyncReplicas) {
        return PartitionLog.open(dir, LogConfig.builder().minInsyncReplicas(minInsyncReplicas).build(), FileIO.system(),
            Clock.systemUTC());
    }

    /** A LeaderAndIsr state as the controller sends it (controller epoch 1). */
    static PartitionStateInfo state(final int leader, final int leaderEpoch, final List<Integer> isr,
                                    final int partitionEpoch, final List<Integer> replicas) {
        return new PartitionStateInfo(1, new LeaderAndIsr(leader, leaderEpoch, isr, partitionEpoch), replicas, false);
    }

    /**
     * One batch holding the values, as a producer sends it (offsets and epoch are stamped by the leader).
     *
     * @param values the records' values
     * @return the batch
     */
    public static ByteBuffer batch(final String... values) {
        final byte[][] bytes = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = values[i].getBytes(StandardCharsets.UTF_8);
        }
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, System.currentTimeMillis(), bytes);
        final ByteBuffer copy = ByteBuffer.allocate(built.capacity());
        built.getBytes(0, copy, built.capacity());
        return copy.flip();
    }

    /**
     * The bytes of a slice, in a heap buffer (as a follower receives them).
     *
     * @param slice the slice, or null
     * @return its bytes, or null when it is null or empty
     */
    public static ByteBuffer bytesOf(final LogSlice slice) {
        if (slice == null || slice.isEmpty()) {
            return null;
        }
        final ByteBuffer buf = ByteBuffer.allocate(slice.sizeInBytes());
        try {
            slice.readInto(buf);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.flip();
    }

    /** The whole batches of {@code [from, log end)}, as a leader would send them. */
    static ByteBuffer bytesOf(final PartitionLog log, final long from) {
        return bytesOf(log.read(from, Integer.MAX_VALUE, Long.MAX_VALUE, true));
    }

    /** The batches of a read. */
    static List<LogBatch> batchesOf(final LogSlice slice) {
        return slice == null ? List.of() : Records.batches(slice);
    }
}
