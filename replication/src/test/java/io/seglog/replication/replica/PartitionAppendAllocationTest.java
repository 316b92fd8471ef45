package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.openLog;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.TestContext;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader's produce append allocates, in steady state, only the result it returns: the log's answer is read under
 * the log's append lock by a handler the partition made once, and nothing is copied out through a lock of its own.
 */
class PartitionAppendAllocationTest {
    private static final int WARMUP_CALLS = 20_000;
    private static final int MEASURED_CALLS = 10_000;
    /**
     * The budget per append: the one {@link AppendResult} (64 bytes) and the collection views the high-watermark rule
     * iterates (about 40), with room for the JIT's moods; a copy of the log's answer per append (over 100 bytes) or
     * any second result object goes past it. Measured: 104 bytes here, 112 before the one-answer change (the result
     * was 8 bytes smaller, and the eligibility rule was a new method reference per append).
     */
    private static final long BYTES_PER_APPEND = 128;

    @TempDir
    Path dir;

    @Test
    void leaderAppendAllocatesOnlyItsResultInSteadyState() {
        final ByteBuffer heap = batch("v");
        final ByteBuffer records = ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
        try (PartitionLog log = openLog(dir.resolve("t-0"), 1)) {
            final Partition partition = new Partition(new TopicPartition("t", 0), 1, log,
                new TestContext(new ManualClock(1_000), 10_000));
            partition.makeLeader(state(1, 1, List.of(1), 1, List.of(1)));
            for (int i = 0; i < WARMUP_CALLS; i++) {
                append(partition, records);
            }
            final long before = allocatedBytes();
            for (int i = 0; i < MEASURED_CALLS; i++) {
                append(partition, records);
            }
            final long allocated = allocatedBytes() - before;
            assertEquals(1, log.segmentCount(), "no roll in the measured window");
            System.out.printf("partition leader append: %.1f bytes allocated per append%n",
                (double) allocated / MEASURED_CALLS);
            assertTrue(allocated <= BYTES_PER_APPEND * MEASURED_CALLS, "allocated " + allocated + " bytes over "
                + MEASURED_CALLS + " appends, " + allocated / MEASURED_CALLS + " per append");
        }
    }

    private static void append(final Partition partition, final ByteBuffer records) {
        final AppendResult r = partition.appendAsLeader(records, (short) 1);
        if (r.error() != ReplicaError.NONE) {
            throw new AssertionError(r.toString());
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
            .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
