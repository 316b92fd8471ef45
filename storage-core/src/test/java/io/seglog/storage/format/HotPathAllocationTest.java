package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Build, validate and iterate allocate nothing per record after warm-up, measured with the JVM's per-thread
 * allocation counter around 10,000 batches of 10 records (100,000 records). The bound allows a few hundred
 * bytes for the counter calls themselves; a single allocation per record would be at least 1.6 MB. JMH with
 * {@code -prof gc} in storage-bench is the precise measurement; this test keeps regressions out of CI.
 */
class HotPathAllocationTest {
    private static final int ITERATIONS = 10_000;
    private static final int RECORDS = 10;
    private static final long ALLOWED_BYTES = 4_096;

    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final RecordBatchValidator validator = new RecordBatchValidator(1 << 20);
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final RecordHeader header = new RecordHeader();
    private final byte[] key = {1, 2, 3, 4};
    private final byte[] value = new byte[100];
    private final byte[] headerKey = {'t', 'r', 'a', 'c', 'e'};
    private final UnsafeBuffer source = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private long checksum;

    @Test
    void heapDirectAndRawAddressBuffersAllocateNothingPerRecord() {
        final com.sun.management.ThreadMXBean threads = threadBean();
        final ByteBuffer direct = ByteBuffer.allocateDirect(8192);
        final UnsafeBuffer[] buffers = {
            new UnsafeBuffer(new byte[8192]),
            new UnsafeBuffer(direct),
            new UnsafeBuffer(BufferUtil.address(ByteBuffer.allocateDirect(8192)), 8192),
        };
        for (final UnsafeBuffer buffer : buffers) {
            for (int i = 0; i < ITERATIONS / 2; i++) {
                cycle(buffer, i);
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < ITERATIONS; i++) {
                cycle(buffer, i);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < ALLOWED_BYTES, buffer + " allocated " + allocated + " bytes over "
                + (ITERATIONS * RECORDS) + " records");
        }
        assertTrue(checksum != 0);
    }

    @Test
    void validatingManyDistinctDirectBuffersAllocatesNothingAndRestoresTheirCursors() {
        final com.sun.management.ThreadMXBean threads = threadBean();
        // A network layer hands a different buffer to every append; a duplicate per buffer would be 64 B each.
        final ByteBuffer[] requests = new ByteBuffer[32];
        final UnsafeBuffer[] views = new UnsafeBuffer[requests.length];
        int size = 0;
        for (int b = 0; b < requests.length; b++) {
            final ByteBuffer direct = ByteBuffer.allocateDirect(8192);
            final UnsafeBuffer build = new UnsafeBuffer(direct);
            builder.wrap(build, 16, build.capacity() - 16);
            for (int r = 0; r < RECORDS; r++) {
                builder.appendRecord(1_000L + r, key, value);
            }
            size = builder.build();
            requests[b] = direct.limit(16 + size).position(16).mark();
            views[b] = new UnsafeBuffer(requests[b]);
        }
        for (int i = 0; i < ITERATIONS; i++) {
            validator.validate(views[i % views.length], 16, size);
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < ITERATIONS; i++) {
            assertEquals(1, validator.validate(views[i % views.length], 16, size));
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < ALLOWED_BYTES, "allocated " + allocated + " bytes over " + ITERATIONS + " batches");
        for (final ByteBuffer request : requests) {
            assertEquals(16, request.position());
            assertEquals(16 + size, request.limit());
        }
    }

    @Test
    void logAppendTimeOnManyDistinctOwnedDirectBuffersAllocatesNothingAndRestoresTheirCursors() {
        final com.sun.management.ThreadMXBean threads = threadBean();
        final RecordBatch owned = RecordBatch.forOwnedBuffers();
        final ByteBuffer[] requests = new ByteBuffer[32];
        final UnsafeBuffer[] views = new UnsafeBuffer[requests.length];
        for (int b = 0; b < requests.length; b++) {
            final ByteBuffer direct = ByteBuffer.allocateDirect(8192);
            final UnsafeBuffer build = new UnsafeBuffer(direct);
            builder.wrap(build, 16, build.capacity() - 16);
            for (int r = 0; r < RECORDS; r++) {
                builder.appendRecord(1_000L + r, key, value);
            }
            final int size = builder.build();
            requests[b] = direct.limit(16 + size).position(16);
            views[b] = new UnsafeBuffer(requests[b]);
        }
        for (int i = 0; i < ITERATIONS; i++) {
            owned.wrap(views[i % views.length], 16).setLogAppendTime(i);
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < ITERATIONS; i++) {
            owned.wrap(views[i % views.length], 16).setLogAppendTime(5_000L + i);
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < ALLOWED_BYTES, "allocated " + allocated + " bytes over " + ITERATIONS + " batches");
        for (int b = 0; b < requests.length; b++) {
            assertEquals(16, requests[b].position());
            assertTrue(batch.wrap(views[b], 16).isCrcValid(), "CRC rewritten through the borrowed cursor");
            assertTrue(batch.isLogAppendTime());
        }
    }

    /** One append-path cycle: build a batch, validate it, stamp it, iterate it with its headers. */
    private void cycle(final UnsafeBuffer buffer, final int i) {
        builder.wrap(buffer, 0, buffer.capacity()).producer(1L, (short) 0, i);
        for (int r = 0; r < RECORDS; r++) {
            if ((r & 1) == 0) {
                builder.beginRecord(1_000L + r, key, value, 1).header(headerKey, key).endRecord();
            } else {
                builder.appendRecord(1_000L - r, source, 0, 4, source, 4, 100);
            }
        }
        final int size = builder.build();
        assertEquals(1, validator.validate(buffer, 0, size));
        batch.wrap(buffer, 0);
        batch.baseOffset(i);
        batch.partitionLeaderEpoch(3);
        while (batch.nextRecord(record)) {
            checksum += record.offset() + record.valueLength();
            while (record.nextHeader(header)) {
                checksum += header.valueLength();
            }
        }
    }

    private static com.sun.management.ThreadMXBean threadBean() {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assertTrue(bean instanceof com.sun.management.ThreadMXBean, "JVM without per-thread allocation counters");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assertTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counters unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        return threads;
    }
}
