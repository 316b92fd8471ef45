package io.seglog.replication.metrics;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A distribution of non-negative values (request times in milliseconds), as Kafka's histograms show it: {@code Count},
 * {@code Min}, {@code Max}, {@code Mean} and {@code StdDev} over every value since creation, and percentiles
 * (50th to 99.9th) over recent values. {@link #update} takes no lock and allocates nothing: values fall into
 * log-linear buckets (exact below 64, then 32 buckets per power of two, so a percentile is within about 3% of a value
 * seen), counted in atomic arrays.
 *
 * <p>Recent means the current and the previous window of the registry's ticker ({@link #WINDOW_SECONDS} seconds each):
 * percentiles follow the last 30 to 60 seconds, where Kafka's exponentially decaying sample leans on about five
 * minutes. With no value in either window the percentiles are 0.
 */
public final class Histogram {
    /** Seconds per percentile window. */
    public static final int WINDOW_SECONDS = 30;
    private static final int LINEAR = 64;
    private static final int SUB_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Buckets up to Long.MAX_VALUE: 64 exact, then 32 per power of two from 2^6 to 2^62. */
    static final int BUCKETS = LINEAR + (63 - 6) * SUB_BUCKETS;

    private final LongAdder count = new LongAdder();
    private final LongAdder sum = new LongAdder();
    private final DoubleAdder sumOfSquares = new DoubleAdder();
    private final AtomicLong min = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong max = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLongArray[] windows = {new AtomicLongArray(BUCKETS), new AtomicLongArray(BUCKETS)};
    private volatile int current;

    Histogram() {
    }

    /**
     * Records a value; negative values count as 0.
     *
     * @param value the value
     */
    public void update(final long value) {
        final long v = Math.max(0, value);
        count.increment();
        sum.add(v);
        sumOfSquares.add((double) v * v);
        long seen = min.get();
        while (v < seen && !min.compareAndSet(seen, v)) {
            seen = min.get();
        }
        seen = max.get();
        while (v > seen && !max.compareAndSet(seen, v)) {
            seen = max.get();
        }
        windows[current].incrementAndGet(bucket(v));
    }

    static int bucket(final long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        final int exponent = 63 - Long.numberOfLeadingZeros(v);
        final int sub = (int) (v >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return LINEAR + (exponent - 6) * SUB_BUCKETS + sub;
    }

    /** The largest value a bucket holds. */
    static long upperBound(final int bucket) {
        if (bucket < LINEAR) {
            return bucket;
        }
        final int exponent = (bucket - LINEAR) / SUB_BUCKETS + 6;
        final int sub = (bucket - LINEAR) % SUB_BUCKETS;
        final long low = (1L << exponent) + ((long) sub << (exponent - SUB_BITS));
        return low + (1L << (exponent - SUB_BITS)) - 1;
    }

    /**
     * Values recorded since creation.
     *
     * @return the count
     */
    public long count() {
        return count.sum();
    }

    /**
     * The sum of every value recorded.
     *
     * @return the sum
     */
    public long sum() {
        return sum.sum();
    }

    /**
     * The smallest value recorded, or 0 without one.
     *
     * @return the minimum
     */
    public long min() {
        final long m = min.get();
        return m == Long.MAX_VALUE ? 0 : m;
    }

    /**
     * The largest value recorded, or 0 without one.
     *
     * @return the maximum
     */
    public long max() {
        final long m = max.get();
        return m == Long.MIN_VALUE ? 0 : m;
    }

    /**
     * The mean of every value recorded, or 0 without one.
     *
     * @return the mean
     */
    public double mean() {
        final long n = count();
        return n == 0 ? 0 : sum.sum() / (double) n;
    }

    /**
     * The sample standard deviation of every value recorded, or 0 with fewer than two.
     *
     * @return the standard deviation
     */
    public double stdDev() {
        final long n = count();
        if (n < 2) {
            return 0;
        }
        final double mean = sum.sum() / (double) n;
        final double variance = (sumOfSquares.sum() - n * mean * mean) / (n - 1);
        return variance <= 0 ? 0 : Math.sqrt(variance);
    }

    /**
     * A percentile of the recent values: the upper bound of the bucket holding the value at that rank.
     *
     * @param quantile between 0 and 1, e.g. 0.99
     * @return the value, or 0 without recent values
     */
    public long percentile(final double quantile) {
        final AtomicLongArray now = windows[current];
        final AtomicLongArray before = windows[1 - current];
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            total += now.get(i) + before.get(i);
        }
        if (total == 0) {
            return 0;
        }
        final long rank = Math.max(1, (long) Math.ceil(quantile * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += now.get(i) + before.get(i);
            if (seen >= rank) {
                return Math.min(upperBound(i), max());
            }
        }
        return max();
    }

    /**
     * Starts a new window: the older one is cleared and becomes current. Called by the registry's ticker only; a
     * value recorded across the switch lands in either window.
     */
    void rotate() {
        final int next = 1 - current;
        final AtomicLongArray fresh = windows[next];
        for (int i = 0; i < BUCKETS; i++) {
            fresh.set(i, 0);
        }
        current = next;
    }
}
