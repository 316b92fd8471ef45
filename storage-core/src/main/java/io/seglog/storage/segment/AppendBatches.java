package io.seglog.storage.segment;

import java.util.Arrays;

/**
 * What an append's batches are, noted once by the appender while it stamps or checks them: each batch's size,
 * base and last offset, largest timestamp and leader epoch. The segment indexes and accounts the append from
 * these, so an append reads each batch header twice at most (the validation walk and the stamping or checking
 * walk), never again for the roll decision, the index entries or the epoch cache.
 *
 * <p>Reused by one appender: the arrays grow to the largest batch count seen and are never shrunk, so steady-state
 * appends allocate nothing. Not thread-safe.
 */
public final class AppendBatches {
    private int count;
    private int[] sizes = new int[8];
    private long[] baseOffsets = new long[8];
    private long[] lastOffsets = new long[8];
    private long[] maxTimestamps = new long[8];
    private int[] epochs = new int[8];
    private long maxTimestamp = -1;
    private int bytes;

    /** Creates an empty list. */
    public AppendBatches() {
    }

    /** Forgets the batches of the previous append. */
    public void clear() {
        count = 0;
        maxTimestamp = -1;
        bytes = 0;
    }

    /**
     * Notes the next batch of the append.
     *
     * @param size         its size in bytes, header included
     * @param baseOffset   its base offset
     * @param lastOffset   its last offset
     * @param maxTimestamp its largest timestamp as stored (-1 when it has none)
     * @param epoch        its partition leader epoch as stored (-1 when it has none)
     */
    public void add(final int size, final long baseOffset, final long lastOffset, final long maxTimestamp,
                    final int epoch) {
        if (count == sizes.length) {
            final int grown = count * 2;
            sizes = Arrays.copyOf(sizes, grown);
            baseOffsets = Arrays.copyOf(baseOffsets, grown);
            lastOffsets = Arrays.copyOf(lastOffsets, grown);
            maxTimestamps = Arrays.copyOf(maxTimestamps, grown);
            epochs = Arrays.copyOf(epochs, grown);
        }
        sizes[count] = size;
        baseOffsets[count] = baseOffset;
        lastOffsets[count] = lastOffset;
        maxTimestamps[count] = maxTimestamp;
        epochs[count] = epoch;
        count++;
        this.maxTimestamp = Math.max(this.maxTimestamp, maxTimestamp);
        bytes += size;
    }

    /**
     * The number of batches.
     *
     * @return the count
     */
    public int count() {
        return count;
    }

    /**
     * The size of batch {@code i}.
     *
     * @param i the batch index
     * @return bytes
     */
    public int size(final int i) {
        return sizes[i];
    }

    /**
     * The base offset of batch {@code i}.
     *
     * @param i the batch index
     * @return the offset
     */
    public long baseOffset(final int i) {
        return baseOffsets[i];
    }

    /**
     * The last offset of batch {@code i}.
     *
     * @param i the batch index
     * @return the offset
     */
    public long lastOffset(final int i) {
        return lastOffsets[i];
    }

    /**
     * The largest timestamp of batch {@code i}.
     *
     * @param i the batch index
     * @return the timestamp, -1 when none
     */
    public long maxTimestamp(final int i) {
        return maxTimestamps[i];
    }

    /**
     * The partition leader epoch of batch {@code i}.
     *
     * @param i the batch index
     * @return the epoch, -1 when none
     */
    public int epoch(final int i) {
        return epochs[i];
    }

    /**
     * The largest timestamp of all batches.
     *
     * @return the timestamp, -1 when none
     */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /**
     * The total size of the batches.
     *
     * @return bytes
     */
    public int bytes() {
        return bytes;
    }
}
