package io.seglog.replication.group;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link GroupScheduler} on a clock the test moves: timers run, in deadline order (then in the order scheduled),
 * when the test advances time past them; {@link #execute} tasks run at the next {@link #advance} or
 * {@link #runPending}. One thread, no wall clock: every run of a test is the same run.
 */
public final class ManualGroupScheduler implements GroupScheduler {
    private record Due(long atMs, long seq) implements Comparable<Due> {
        @Override
        public int compareTo(final Due o) {
            return atMs != o.atMs ? Long.compare(atMs, o.atMs) : Long.compare(seq, o.seq);
        }
    }

    private final TreeMap<Due, Runnable> tasks = new TreeMap<>();
    private final Map<String, Due> byKey = new HashMap<>();
    private long nowMs;
    private long seq;

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public void schedule(final String key, final long delayMs, final Runnable task) {
        cancel(key);
        final Due due = new Due(nowMs + delayMs, seq++);
        tasks.put(due, () -> {
            byKey.remove(key, due);
            task.run();
        });
        byKey.put(key, due);
    }

    @Override
    public void cancel(final String key) {
        final Due due = byKey.remove(key);
        if (due != null) {
            tasks.remove(due);
        }
    }

    @Override
    public void execute(final Runnable task) {
        tasks.put(new Due(nowMs, seq++), task);
    }

    /** Whether a timer is set under this key. */
    public boolean scheduled(final String key) {
        return byKey.containsKey(key);
    }

    /** Runs what is due now. */
    public void runPending() {
        advance(0);
    }

    /** Moves the clock forward, running every task that falls due, in order, each at its own time. */
    public void advance(final long ms) {
        final long until = nowMs + ms;
        while (!tasks.isEmpty() && tasks.firstKey().atMs() <= until) {
            final Map.Entry<Due, Runnable> next = tasks.pollFirstEntry();
            nowMs = Math.max(nowMs, next.getKey().atMs());
            next.getValue().run();
        }
        nowMs = until;
    }
}
