package io.seglog.storage;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** What the steady-state allocation tests share: the JVM's per-thread allocation counter and their batches. */
public final class AllocationTesting {
    private AllocationTesting() {
    }

    /**
     * Bytes allocated so far by the calling thread.
     *
     * @return the JVM's per-thread allocation counter
     */
    public static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
            .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /**
     * Same-size batches at base offset 0, each of {@code recordsPerBatch} records with timestamps from 1000 on
     * and a one-byte value.
     *
     * @param count           how many batches
     * @param recordsPerBatch records in each
     * @return the heap batches
     */
    public static ByteBuffer[] smallBatches(final int count, final int recordsPerBatch) {
        final ByteBuffer[] batches = new ByteBuffer[count];
        for (int b = 0; b < count; b++) {
            final SimpleRecord[] records = new SimpleRecord[recordsPerBatch];
            for (int r = 0; r < recordsPerBatch; r++) {
                records[r] = new SimpleRecord(1_000L + r, null, new byte[] {(byte) r});
            }
            batches[b] = KafkaBatches.batch(0, records);
        }
        return batches;
    }

    /**
     * The batches concatenated into one direct buffer.
     *
     * @param batches the batches
     * @return a direct buffer holding them, positioned at 0
     */
    public static ByteBuffer directConcat(final ByteBuffer... batches) {
        final ByteBuffer heap = KafkaBatches.concat(batches);
        return ByteBuffer.allocateDirect(heap.remaining()).put(heap).flip();
    }
}
