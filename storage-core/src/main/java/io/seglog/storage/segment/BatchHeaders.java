package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The few v2 batch header fields the log reads and stamps, as absolute big-endian accesses on an Agrona
 * buffer; allocation-free. Offsets come from {@link io.seglog.storage.format.RecordBatchDescriptor}. The
 * buffer region must already have been validated (length inside the buffer).
 *
 * <p>Thread-safety: stateless.
 */
public final class BatchHeaders {
    private static final ByteOrder ORDER = ByteOrder.BIG_ENDIAN;

    private BatchHeaders() {
    }

    /**
     * The batch's base offset.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code baseOffset}
     */
    public static long baseOffset(final DirectBuffer buffer, final int batch) {
        return buffer.getLong(batch + BASE_OFFSET_OFFSET, ORDER);
    }

    /**
     * The partition leader epoch the leader stamped (not covered by the CRC).
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code partitionLeaderEpoch}, -1 when none
     */
    public static int partitionLeaderEpoch(final DirectBuffer buffer, final int batch) {
        return buffer.getInt(batch + PARTITION_LEADER_EPOCH_OFFSET, ORDER);
    }

    /**
     * The whole batch size: {@code batchLength + 12}.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return bytes
     */
    public static int sizeInBytes(final DirectBuffer buffer, final int batch) {
        return buffer.getInt(batch + LENGTH_OFFSET, ORDER) + LOG_OVERHEAD;
    }

    /**
     * The offset delta of the batch's last record.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code lastOffsetDelta}
     */
    public static int lastOffsetDelta(final DirectBuffer buffer, final int batch) {
        return buffer.getInt(batch + LAST_OFFSET_DELTA_OFFSET, ORDER);
    }

    /**
     * The batch's last offset: {@code baseOffset + lastOffsetDelta}.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return the last offset
     */
    public static long lastOffset(final DirectBuffer buffer, final int batch) {
        return baseOffset(buffer, batch) + lastOffsetDelta(buffer, batch);
    }

    /**
     * The batch's attributes.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code attributes}
     */
    public static short attributes(final DirectBuffer buffer, final int batch) {
        return buffer.getShort(batch + ATTRIBUTES_OFFSET, ORDER);
    }

    /**
     * The batch's first timestamp.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code baseTimestamp}
     */
    public static long baseTimestamp(final DirectBuffer buffer, final int batch) {
        return buffer.getLong(batch + BASE_TIMESTAMP_OFFSET, ORDER);
    }

    /**
     * The batch's largest timestamp (the broker's time for a log-append-time batch).
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code maxTimestamp}
     */
    public static long maxTimestamp(final DirectBuffer buffer, final int batch) {
        return buffer.getLong(batch + MAX_TIMESTAMP_OFFSET, ORDER);
    }

    /**
     * The number of records in the batch.
     *
     * @param buffer the buffer
     * @param batch  the batch's index in it
     * @return {@code recordsCount}
     */
    public static int recordCount(final DirectBuffer buffer, final int batch) {
        return buffer.getInt(batch + RECORDS_COUNT_OFFSET, ORDER);
    }

    /**
     * Stamps the offset and leader epoch a leader assigns; neither is covered by the CRC.
     *
     * @param buffer      the buffer
     * @param batch       the batch's index in it
     * @param baseOffset  the batch's new base offset
     * @param leaderEpoch the partition leader epoch
     */
    public static void stampOffsetAndEpoch(final MutableDirectBuffer buffer, final int batch, final long baseOffset,
                                           final int leaderEpoch) {
        buffer.putLong(batch + BASE_OFFSET_OFFSET, baseOffset, ORDER);
        buffer.putInt(batch + PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch, ORDER);
    }
}
