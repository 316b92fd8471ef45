package io.seglog.replication.replica;

/**
 * The acks=1 flow control's memory of a leader's latest appends
 * ({@value ReplicaManagerConfig#MAX_UNREPLICATED_BYTES}): the end offset (exclusive) and the running byte total of each, in a ring indexed by append number modulo
 * {@link #CAPACITY}. Both columns ascend with the append number, which is what the binary searches need, because
 * {@link #record} is called from the log's answer handler, under the log's append lock: appends are recorded in the
 * order they were written, with no lock of the partition's own around the append.
 *
 * <p>Owns its arrays and counters; its monitor guards them, so that a request thread asking for a target
 * ({@link #target}) sees whole entries. The monitor is held for a few array accesses only, never across an append.
 */
final class AppendRing {
    /** How many leader appends the flow control remembers. */
    static final int CAPACITY = 4096;

    private final long[] ends = new long[CAPACITY];
    private final long[] totals = new long[CAPACITY];
    private long appends;
    private long appendedBytes;

    /** Forgets every append: this broker became leader, and the flow control counts this leadership's only. */
    synchronized void reset() {
        appends = 0;
    }

    /**
     * Records an append as leader. Called under the log's append lock, in append order.
     *
     * @param endOffset the append's last offset plus one
     * @param bytes     its size
     */
    synchronized void record(final long endOffset, final int bytes) {
        appendedBytes += bytes;
        final int slot = (int) (appends++ % CAPACITY);
        ends[slot] = endOffset;
        totals[slot] = appendedBytes;
    }

    /**
     * The offset the high watermark must reach before an acks=1 produce that appended up to {@code lastOffset} is
     * answered, so that at most {@code maxBytes} of acknowledged records lie beyond it: the end of the first append
     * whose running total reaches this one's less {@code maxBytes}. When this append has already left the ring, the
     * produce need not wait, and when the first such append has, the oldest one remembered stands in (a tighter
     * bound).
     *
     * @param lastOffset the produce's last offset
     * @param maxBytes   the bound, 0 or more
     * @return the offset, or -1 when the produce need not wait
     */
    synchronized long target(final long lastOffset, final long maxBytes) {
        final long oldest = Math.max(0, appends - CAPACITY);
        final long own = firstAtLeast(oldest, appends - 1, lastOffset + 1, ends);
        if (own < 0 || ends[(int) (own % CAPACITY)] != lastOffset + 1) {
            return -1;
        }
        final long mustHold = totals[(int) (own % CAPACITY)] - maxBytes;
        if (mustHold <= 0) {
            return -1;
        }
        // Found: the followers need that append's end. Its total is at least mustHold, so own qualifies.
        final long first = firstAtLeast(oldest, own, mustHold, totals);
        return ends[(int) (first % CAPACITY)];
    }

    /** The first append number in {@code [from, to]} whose value is at least {@code key}, or -1; values ascend. */
    private static long firstAtLeast(final long from, final long to, final long key, final long[] values) {
        long lo = from;
        long hi = to;
        long found = -1;
        while (lo <= hi) {
            final long mid = (lo + hi) >>> 1;
            if (values[(int) (mid % CAPACITY)] >= key) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }
}
