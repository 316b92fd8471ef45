package io.seglog.replication.metrics;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A count of events and their rates, as Kafka's (Yammer) meters show them: {@code Count}, {@code MeanRate} and the
 * one-, five- and fifteen-minute exponentially weighted rates, per second. {@link #mark} is one {@link LongAdder}
 * addition: no lock, and no allocation once the adder's cells exist. The rates move only when the registry's ticker
 * calls {@link #tick} (every {@link #TICK_SECONDS} seconds), reading the count's growth since the last tick. A meter
 * over a count kept elsewhere ({@link KafkaMetrics#meter(MetricName, String, java.util.function.LongSupplier)}) reads
 * that count instead of being marked.
 */
public final class Meter {
    /** Seconds between ticks, as in Yammer's meters. */
    public static final int TICK_SECONDS = 5;
    private static final double[] WINDOW_MINUTES = {1, 5, 15};

    private final String eventType;
    private final long startNanos;
    private final LongAdder count = new LongAdder();
    /** A count kept elsewhere (a component's own counter), or null when {@link #mark} counts. */
    private final java.util.function.LongSupplier source;
    /** Written by the ticker only. */
    private long countAtLastTick;
    private boolean primed;
    private volatile double oneMinute;
    private volatile double fiveMinute;
    private volatile double fifteenMinute;

    Meter(final String eventType, final long startNanos) {
        this(eventType, startNanos, null);
    }

    Meter(final String eventType, final long startNanos, final java.util.function.LongSupplier source) {
        this.eventType = eventType;
        this.startNanos = startNanos;
        this.source = source;
    }

    /** One event. */
    public void mark() {
        count.increment();
    }

    /**
     * Some events.
     *
     * @param n how many
     */
    public void mark(final long n) {
        count.add(n);
    }

    /**
     * Events since the meter was created.
     *
     * @return the count
     */
    public long count() {
        return source != null ? source.getAsLong() : count.sum();
    }

    /**
     * What is counted (Kafka's {@code EventType} attribute: "requests", "bytes", "messages").
     *
     * @return the event type
     */
    public String eventType() {
        return eventType;
    }

    /**
     * Events per second since the meter was created.
     *
     * @param nowNanos the registry clock's time
     * @return the mean rate
     */
    public double meanRate(final long nowNanos) {
        final long elapsed = nowNanos - startNanos;
        return elapsed <= 0 ? 0 : count() / (elapsed / (double) TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * The one-minute exponentially weighted rate, per second.
     *
     * @return the rate
     */
    public double oneMinuteRate() {
        return oneMinute;
    }

    /**
     * The five-minute rate, per second.
     *
     * @return the rate
     */
    public double fiveMinuteRate() {
        return fiveMinute;
    }

    /**
     * The fifteen-minute rate, per second.
     *
     * @return the rate
     */
    public double fifteenMinuteRate() {
        return fifteenMinute;
    }

    /**
     * Folds the events since the last tick into the moving rates; called by one thread every {@link #TICK_SECONDS}
     * seconds. The first tick sets each rate to the tick's rate, as Yammer's EWMA does.
     */
    void tick() {
        final long now = count();
        final double instant = (now - countAtLastTick) / (double) TICK_SECONDS;
        countAtLastTick = now;
        if (!primed) {
            primed = true;
            oneMinute = instant;
            fiveMinute = instant;
            fifteenMinute = instant;
            return;
        }
        oneMinute = next(oneMinute, instant, WINDOW_MINUTES[0]);
        fiveMinute = next(fiveMinute, instant, WINDOW_MINUTES[1]);
        fifteenMinute = next(fifteenMinute, instant, WINDOW_MINUTES[2]);
    }

    /** Exponential smoothing of a rate sampled every tick over a window of so many minutes. */
    private static double next(final double rate, final double instant, final double minutes) {
        final double alpha = 1 - Math.exp(-TICK_SECONDS / 60.0 / minutes);
        return rate + alpha * (instant - rate);
    }
}
