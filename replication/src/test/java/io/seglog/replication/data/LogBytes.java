package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.LogRecord;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;

/** Reads replicas' logs as bytes and values, to compare them with each other and with what was acknowledged. */
public final class LogBytes {
    private LogBytes() {
    }

    /**
     * The raw batches of {@code [from, to)}, concatenated (whole batches; the last may pass {@code to} when it
     * straddles it, never when {@code to} is a high watermark, which ends on a batch).
     *
     * @param log  the log
     * @param from the first offset (a batch boundary)
     * @param to   the end offset
     * @return the bytes
     */
    public static byte[] bytes(final PartitionLog log, final long from, final long to) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        long next = from;
        while (next < to) {
            final LogSlice slice = log.read(next, 1 << 20, to, true);
            if (slice.isEmpty()) {
                break;
            }
            final ByteBuffer buf = ByteBuffer.allocate(slice.sizeInBytes());
            try {
                slice.readInto(buf);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
            buf.flip();
            out.write(buf.array(), 0, buf.limit());
            next = lastOffset(buf) + 1;
        }
        return out.toByteArray();
    }

    /** The last offset of the last whole batch in the bytes, read from the batch headers (compressed or not). */
    private static long lastOffset(final ByteBuffer batches) {
        final UnsafeBuffer view = new UnsafeBuffer(batches);
        final RecordBatch batch = new RecordBatch();
        long last = -1;
        for (int at = 0; at + RecordBatchDescriptor.BATCH_HEADER_LENGTH <= view.capacity();
             at += batch.sizeInBytes()) {
            batch.wrap(view, at);
            last = batch.lastOffset();
        }
        return last;
    }

    /**
     * The records' values of {@code [from, to)} as strings, by offset.
     *
     * @param log  the log
     * @param from the first offset
     * @param to   the end offset
     * @return offset-ordered values
     */
    public static List<String> values(final PartitionLog log, final long from, final long to) {
        final List<String> out = new ArrayList<>();
        for (final LogRecord r : Records.of(log, from, to)) {
            final ByteBuffer v = r.value();
            final byte[] b = new byte[v.remaining()];
            v.duplicate().get(b);
            out.add(new String(b, java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * Asserts that every replica holds the same bytes below the smallest of their high watermarks, and that these
     * reach at least {@code atLeast}.
     *
     * @param replicas broker id to its log
     * @param atLeast  the offset the common prefix must reach
     */
    public static void assertIdenticalBelowHighWatermark(final Map<Integer, PartitionLog> replicas, final long atLeast) {
        long hw = Long.MAX_VALUE;
        long start = 0;
        for (final PartitionLog log : replicas.values()) {
            hw = Math.min(hw, log.highWatermark());
            start = Math.max(start, log.logStartOffset());
        }
        assertEquals(true, hw >= atLeast, "the replicas' high watermarks " + describe(replicas) + " reach " + atLeast);
        byte[] reference = null;
        int referenceId = -1;
        for (final Map.Entry<Integer, PartitionLog> e : replicas.entrySet()) {
            final byte[] mine = bytes(e.getValue(), start, hw);
            if (reference == null) {
                reference = mine;
                referenceId = e.getKey();
            } else {
                assertArrayEquals(reference, mine, "broker " + e.getKey() + " differs from broker " + referenceId
                    + " in [" + start + ", " + hw + ")");
            }
        }
    }

    private static String describe(final Map<Integer, PartitionLog> replicas) {
        final StringBuilder sb = new StringBuilder();
        replicas.forEach((id, log) -> sb.append(id).append(": hw=").append(log.highWatermark()).append(" leo=")
            .append(log.logEndOffset()).append("; "));
        return sb.toString();
    }
}
