package io.seglog.bench;

import java.util.SplittableRandom;

/**
 * The read positions both read benchmarks cycle through, so that Seglog and Kafka are asked for exactly the
 * same offsets and timestamps: the fetch start offsets of a {@link FetchPlan} in order, and a fixed-seed
 * sequence of random offsets and timestamps over the log. Cursors wrap around; nothing is allocated per call.
 * Not thread-safe: one per benchmark state.
 */
final class ReadTargets {
    /** Random targets per sequence; a power of two so that the cursor wraps with a mask. */
    private static final int TARGETS = 1 << 16;
    /** Calls per invocation of the allocation benchmarks: enough that reading the thread counter costs nothing. */
    static final int ALLOCATION_CALLS = 256;
    /** The same seed for every system, so every system is asked for the same targets. */
    private static final long SEED = 7;

    private final FetchPlan plan;
    private final long[] offsets = new long[TARGETS];
    private final long[] timestamps = new long[TARGETS];
    private int nextFetch;
    private int nextOffset;
    private int nextTimestamp;

    ReadTargets(ReadLog readLog, FetchPlan plan) {
        this.plan = plan;
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < TARGETS; i++) {
            offsets[i] = random.nextLong(readLog.recordCount);
            timestamps[i] = readLog.firstTimestampMs() + random.nextLong(readLog.recordCount);
        }
    }

    /** The start offset of the next sequential fetch, wrapping to the first after the last. */
    long nextFetchOffset() {
        int fetch = nextFetch;
        nextFetch = fetch + 1 == plan.fetches ? 0 : fetch + 1;
        return plan.firstOffset(fetch);
    }

    /** The next random offset in the log. */
    long nextRandomOffset() {
        int t = nextOffset;
        nextOffset = (t + 1) & (TARGETS - 1);
        return offsets[t];
    }

    /** The next random timestamp within the log's records' timestamps. */
    long nextRandomTimestamp() {
        int t = nextTimestamp;
        nextTimestamp = (t + 1) & (TARGETS - 1);
        return timestamps[t];
    }
}
