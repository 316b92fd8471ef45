package io.seglog.storage;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand. */
public final class ManualClock implements InstantSource {
    private final AtomicLong millis;

    public ManualClock(final long startMs) {
        this.millis = new AtomicLong(startMs);
    }

    public void advanceMs(final long ms) {
        millis.addAndGet(ms);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }
}
