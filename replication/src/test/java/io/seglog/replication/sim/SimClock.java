package io.seglog.replication.sim;

import java.time.Instant;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/**
 * The simulation's only time: it stands still while an event runs and moves forward only when the
 * {@link SimScheduler} takes the next event. Production code gets it through the clock seams it already has:
 * a monotonic {@link #msSupplier() milliseconds} or {@link #nsSupplier() nanoseconds} {@link LongSupplier}, a
 * {@link #wallMsSupplier() wall clock} and an {@link InstantSource}.
 *
 * <p>Confined to the simulation's thread, as everything the scheduler runs.
 */
public final class SimClock {
    private final long wallOffsetMs;
    private long nowMs;

    /**
     * Creates a clock at monotonic time 0.
     *
     * @param wallOffsetMs the wall-clock time (epoch milliseconds) at monotonic time 0; fixed, so that timestamps
     *                     written into logs and znodes are the same in every run of a seed
     */
    public SimClock(final long wallOffsetMs) {
        this.wallOffsetMs = wallOffsetMs;
    }

    /**
     * The monotonic time.
     *
     * @return milliseconds since the start of the simulation
     */
    public long nowMs() {
        return nowMs;
    }

    /**
     * The monotonic time in nanoseconds (whole milliseconds: the simulation's resolution).
     *
     * @return nanoseconds since the start of the simulation
     */
    public long nowNs() {
        return nowMs * 1_000_000L;
    }

    /**
     * The wall-clock time.
     *
     * @return epoch milliseconds
     */
    public long wallMs() {
        return wallOffsetMs + nowMs;
    }

    /**
     * This clock as a monotonic milliseconds seam.
     *
     * @return {@link #nowMs()}
     */
    public LongSupplier msSupplier() {
        return this::nowMs;
    }

    /**
     * This clock as a {@link System#nanoTime()} seam.
     *
     * @return {@link #nowNs()}
     */
    public LongSupplier nsSupplier() {
        return this::nowNs;
    }

    /**
     * This clock as a {@link System#currentTimeMillis()} seam.
     *
     * @return {@link #wallMs()}
     */
    public LongSupplier wallMsSupplier() {
        return this::wallMs;
    }

    /**
     * This clock as an {@link InstantSource} (the storage core's clock seam).
     *
     * @return the wall clock as instants
     */
    public InstantSource instantSource() {
        return new InstantSource() {
            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(wallMs());
            }

            @Override
            public long millis() {
                return wallMs();
            }
        };
    }

    /** Moves the clock; only the scheduler does, and never backwards. */
    void advanceTo(final long timeMs) {
        if (timeMs < nowMs) {
            throw new IllegalStateException("time would go back: nowMs=" + nowMs + " timeMs=" + timeMs);
        }
        nowMs = timeMs;
    }
}
