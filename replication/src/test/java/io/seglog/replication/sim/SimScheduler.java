package io.seglog.replication.sim;

import io.seglog.replication.group.GroupScheduler;
import io.seglog.storage.Scheduler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.zip.CRC32;

/**
 * The simulation's one event loop: a priority queue of events ordered by (time, sequence number), a
 * {@link SimClock} that jumps to each event's time, a {@link SplittableRandom} seeded once, and a trace digest.
 *
 * <p>Rules that make a seed replay exactly:
 * <ul>
 *   <li>nothing runs inline: {@link #execute} and every adapter (a storage {@link Scheduler}, a
 *       {@link GroupScheduler}, an {@link Executor}) only enqueue, and every completion is an event of its own, so
 *       no callback runs inside the code that triggered it (a re-entrant lock taken there would deadlock one
 *       thread);</li>
 *   <li>events at the same time run in the order they were scheduled (the sequence number);</li>
 *   <li>all randomness comes from {@link #random()};</li>
 *   <li>the scheduler is confined to the thread that created it: a call from any other thread (production code
 *       that started a thread of its own) fails at once instead of racing.</li>
 * </ul>
 * The {@link #digest()} is a CRC32 over every event's name, node and time, in run order: two runs with the same
 * seed must give the same digest, and a different digest points at non-determinism.
 *
 * <p>A task that throws stops the run with a {@link SimulationFailure} that names the seed, the event and the
 * events just before it (stricter than the storage {@link Scheduler} contract, under which other tasks go on: in a
 * simulation an unexpected exception is a finding).
 */
public final class SimScheduler {
    /** The node of an event that belongs to no node (the network, ZooKeeper, the test's own driver). */
    public static final int NO_NODE = -1;
    /** How many of the last events a failure report lists. */
    private static final int RECENT_EVENTS = 32;
    /** {@code -Dseglog.sim.trace=REGEX} prints every event whose name matches, as it runs (for a seed's post-mortem). */
    private static final java.util.regex.Pattern TRACE = System.getProperty("seglog.sim.trace") == null ? null
        : java.util.regex.Pattern.compile(System.getProperty("seglog.sim.trace"));

    private final long seed;
    private final SplittableRandom random;
    private final SimClock clock;
    private final Thread owner;
    private final PriorityQueue<Timer> queue = new PriorityQueue<>();
    private final CRC32 digest = new CRC32();
    private final ByteBuffer digestScratch = ByteBuffer.allocate(Integer.BYTES + Long.BYTES);
    private final ArrayDeque<String> recent = new ArrayDeque<>(RECENT_EVENTS);
    private long nextSeq;
    private long eventCount;
    private int live;

    /**
     * Creates a scheduler on the calling thread, with a clock at 0 whose wall time starts at
     * 2026-01-01T00:00:00Z.
     *
     * @param seed the run's seed: the only source of randomness
     */
    public SimScheduler(final long seed) {
        this(seed, new SimClock(1_767_225_600_000L));
    }

    /**
     * Creates a scheduler on the calling thread.
     *
     * @param seed  the run's seed
     * @param clock the clock this scheduler moves (at its start time)
     */
    public SimScheduler(final long seed, final SimClock clock) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.clock = clock;
        this.owner = Thread.currentThread();
    }

    /**
     * The seed this run was created with.
     *
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * The run's random source. Draw from it only on the simulation thread, in event order.
     *
     * @return the seeded random
     */
    public SplittableRandom random() {
        confined();
        return random;
    }

    /**
     * The clock this scheduler moves.
     *
     * @return the clock
     */
    public SimClock clock() {
        return clock;
    }

    /**
     * The current simulated time.
     *
     * @return milliseconds
     */
    public long nowMs() {
        return clock.nowMs();
    }

    /**
     * Schedules a task after a delay.
     *
     * @param name    the event's name, in the digest and in failure reports: make it deterministic (no identity hash)
     * @param node    the node it belongs to, or {@link #NO_NODE}
     * @param delayMs the delay, 0 or more
     * @param task    the task
     * @return a handle that cancels it
     * @throws IllegalArgumentException when {@code delayMs} is negative
     */
    public Timer schedule(final String name, final int node, final long delayMs, final Runnable task) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs=" + delayMs + " for event " + name);
        }
        return at(name, node, clock.nowMs() + delayMs, task);
    }

    /**
     * Schedules a task at an absolute time.
     *
     * @param name   the event's name
     * @param node   the node it belongs to, or {@link #NO_NODE}
     * @param atMs   the time, not before now
     * @param task   the task
     * @return a handle that cancels it
     * @throws IllegalArgumentException when {@code atMs} is in the past
     */
    public Timer at(final String name, final int node, final long atMs, final Runnable task) {
        confined();
        if (atMs < clock.nowMs()) {
            throw new IllegalArgumentException("atMs=" + atMs + " is before nowMs=" + clock.nowMs() + " for event "
                + name);
        }
        final Timer timer = new Timer(this, name, node, atMs, nextSeq++, task);
        queue.add(timer);
        live++;
        return timer;
    }

    /**
     * Runs a task as a new event at the current time, after every event already due now.
     *
     * @param name the event's name
     * @param node the node it belongs to, or {@link #NO_NODE}
     * @param task the task
     * @return a handle that cancels it
     */
    public Timer execute(final String name, final int node, final Runnable task) {
        return schedule(name, node, 0, task);
    }

    /**
     * Runs the next event, if any: the clock jumps to its time first.
     *
     * @return false when no event is left
     * @throws SimulationFailure when the task throws
     */
    public boolean step() {
        confined();
        final Timer next = pollLive();
        if (next == null) {
            return false;
        }
        runEvent(next);
        return true;
    }

    /**
     * Runs a check after every event (the invariants), with the event's node and name; what it throws fails the
     * event, with the seed and the last events in the report.
     *
     * @param check the check, or null for none
     */
    public void afterEach(final Consumer<String> check) {
        this.afterEach = check;
    }

    /**
     * Runs every event due at or before a time, then moves the clock to that time.
     *
     * @param untilMs the time to reach
     * @return the number of events run
     * @throws SimulationFailure when a task throws
     */
    public long run(final long untilMs) {
        confined();
        long ran = 0;
        for (Timer next = peekLive(); next != null && next.atMs <= untilMs; next = peekLive()) {
            queue.poll();
            live--;
            runEvent(next);
            ran++;
        }
        if (untilMs > clock.nowMs()) {
            clock.advanceTo(untilMs);
        }
        return ran;
    }

    /**
     * Runs events until a condition holds (checked before each event), the next event lies past a deadline, or no
     * event is left. The clock is not moved past the last event run.
     *
     * @param condition  the condition
     * @param deadlineMs the last time at which an event may run
     * @return whether the condition holds
     * @throws SimulationFailure when a task throws
     */
    public boolean runUntil(final BooleanSupplier condition, final long deadlineMs) {
        confined();
        while (!condition.getAsBoolean()) {
            final Timer next = peekLive();
            if (next == null || next.atMs > deadlineMs) {
                return false;
            }
            queue.poll();
            live--;
            runEvent(next);
        }
        return true;
    }

    /**
     * The trace digest so far: CRC32 over each event's name, node and time, in run order.
     *
     * @return the digest
     */
    public long digest() {
        return digest.getValue();
    }

    /**
     * The number of events run so far.
     *
     * @return events
     */
    public long eventCount() {
        return eventCount;
    }

    /**
     * The number of events scheduled and not yet run or cancelled.
     *
     * @return pending events
     */
    public int pending() {
        return live;
    }

    /**
     * The names of the last events run (at most 32), oldest first, as {@code time node name}.
     *
     * @return recent events
     */
    public List<String> recentEvents() {
        return new ArrayList<>(recent);
    }

    private Timer peekLive() {
        Timer t = queue.peek();
        while (t != null && t.cancelled) {
            queue.poll();
            t = queue.peek();
        }
        return t;
    }

    private Timer pollLive() {
        final Timer t = peekLive();
        if (t != null) {
            queue.poll();
            live--;
        }
        return t;
    }

    private Consumer<String> afterEach;
    /** Per paused node, when its pause ends. */
    private final Map<Integer, Long> pausedUntil = new LinkedHashMap<>();

    /**
     * Pauses a node, as a long garbage-collection stop does: its events due before {@code untilMs} run at that time
     * instead, in their order, and the same handles still cancel them.
     *
     * @param node    the node
     * @param untilMs when the pause ends
     */
    public void pause(final int node, final long untilMs) {
        confined();
        pausedUntil.merge(node, untilMs, Math::max);
    }

    /**
     * Ends a node's pause now (it crashed: what it runs next is a new process's).
     *
     * @param node the node
     */
    public void unpause(final int node) {
        confined();
        pausedUntil.remove(node);
    }

    /**
     * Whether a node is paused now.
     *
     * @param node the node
     * @return paused
     */
    public boolean paused(final int node) {
        final Long until = pausedUntil.get(node);
        return until != null && until > clock.nowMs();
    }

    /** Puts an event of a paused node back at its pause's end; false when the node is not paused then. */
    private boolean deferred(final Timer event) {
        final Long until = pausedUntil.get(event.node);
        if (until == null || until <= event.atMs) {
            return false;
        }
        event.atMs = until;
        event.seq = nextSeq++;
        queue.add(event);
        live++;
        return true;
    }

    private void runEvent(final Timer event) {
        if (deferred(event)) {
            return;
        }
        clock.advanceTo(event.atMs);
        event.fired = true;
        eventCount++;
        final byte[] name = event.name.getBytes(StandardCharsets.UTF_8);
        digest.update(name);
        digestScratch.clear();
        digestScratch.putInt(event.node).putLong(event.atMs);
        digest.update(digestScratch.array(), 0, digestScratch.position());
        if (recent.size() == RECENT_EVENTS) {
            recent.removeFirst();
        }
        recent.addLast(event.atMs + " " + event.node + " " + event.name);
        if (TRACE != null && TRACE.matcher(event.name).find()) {
            System.out.println("sim " + event.atMs + " " + event.node + " " + event.name);
        }
        try {
            event.task.run();
            if (afterEach != null) {
                afterEach.accept(event.node + " " + event.name);
            }
        } catch (final RuntimeException | Error e) {
            throw new SimulationFailure("seed=" + seed + ": event #" + eventCount + " '" + event.name + "' of node "
                + event.node + " at " + event.atMs + " ms threw; last events: " + recent, e);
        }
    }

    private void confined() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("simulation scheduler called from thread '"
                + Thread.currentThread().getName() + "'; it runs on '" + owner.getName()
                + "' only (production code started a thread of its own?)");
        }
    }

    // ------------------------------------------------------------------------------------------------ adapters

    /**
     * This scheduler as the storage core's {@link Scheduler} for one node: each run of a task is an event named
     * after the task; a periodic task's next run is due a period after the previous one was due. {@code close}
     * cancels the node's tasks.
     *
     * @param node the node
     * @return the adapter
     */
    public Scheduler storageScheduler(final int node) {
        return new StorageScheduler(node);
    }

    /**
     * This scheduler as a group coordinator's {@link GroupScheduler} for one node: keyed timers (a new one
     * replaces the old under the same key) and {@code execute} as events, on the simulated clock.
     *
     * @param node the node
     * @return the adapter
     */
    public GroupScheduler groupScheduler(final int node) {
        return new SimGroupScheduler(node);
    }

    /**
     * This scheduler as an {@link Executor}: each task is a new event at the current time, never run inline.
     *
     * @param name the events' name
     * @param node the node
     * @return the adapter
     */
    public Executor executor(final String name, final int node) {
        return task -> execute(name, node, task);
    }

    /** An event, and the handle that cancels it. */
    public static final class Timer implements Comparable<Timer> {
        private final SimScheduler scheduler;
        private final String name;
        private final int node;
        private long atMs;
        private long seq;
        private final Runnable task;
        private boolean cancelled;
        private boolean fired;

        private Timer(final SimScheduler scheduler, final String name, final int node, final long atMs, final long seq,
                      final Runnable task) {
            this.scheduler = scheduler;
            this.name = name;
            this.node = node;
            this.atMs = atMs;
            this.seq = seq;
            this.task = task;
        }

        /**
         * Cancels the event if it has not run (it leaves the queue when it reaches the head). Idempotent.
         *
         * @return whether this call cancelled it
         */
        public boolean cancel() {
            scheduler.confined();
            if (cancelled || fired) {
                return false;
            }
            cancelled = true;
            scheduler.live--;
            return true;
        }

        /**
         * Whether the event was cancelled before it ran.
         *
         * @return cancelled
         */
        public boolean cancelled() {
            return cancelled;
        }

        /**
         * Whether the event has run (or started to).
         *
         * @return fired
         */
        public boolean fired() {
            return fired;
        }

        /**
         * When the event is due.
         *
         * @return milliseconds
         */
        public long atMs() {
            return atMs;
        }

        @Override
        public int compareTo(final Timer o) {
            return atMs != o.atMs ? Long.compare(atMs, o.atMs) : Long.compare(seq, o.seq);
        }

        @Override
        public boolean equals(final Object o) {
            return o instanceof Timer t && t.seq == seq;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq);
        }

        @Override
        public String toString() {
            return atMs + " ms #" + seq + " node " + node + " " + name;
        }
    }

    /** Thrown out of {@link #step}, {@link #run} and {@link #runUntil} when an event's task failed. */
    public static final class SimulationFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulationFailure(final String message, final Throwable cause) {
            super(message, cause);
        }
    }

    private final class StorageScheduler implements Scheduler {
        private final int node;
        private final Set<Periodic> tasks = new LinkedHashSet<>();
        private boolean closed;

        StorageScheduler(final int node) {
            this.node = node;
        }

        @Override
        public Cancellable schedule(final String name, final Runnable task, final long delayMs, final long periodMs) {
            if (delayMs < 0 || periodMs < 0) {
                throw new IllegalArgumentException("delayMs=" + delayMs + " periodMs=" + periodMs + " for " + name);
            }
            if (closed) {
                throw new IllegalStateException("scheduler of node " + node + " is closed; task " + name);
            }
            final Periodic p = new Periodic(name, task, periodMs);
            tasks.add(p);
            p.arm(clock.nowMs() + delayMs);
            return p::cancel;
        }

        @Override
        public void close() {
            closed = true;
            for (final Periodic p : new ArrayList<>(tasks)) {
                p.cancel();
            }
        }

        private final class Periodic {
            private final String name;
            private final Runnable task;
            private final long periodMs;
            private Timer next;

            Periodic(final String name, final Runnable task, final long periodMs) {
                this.name = name;
                this.task = task;
                this.periodMs = periodMs;
            }

            void arm(final long atMs) {
                next = at(name, node, atMs, () -> {
                    final long dueMs = next.atMs();
                    if (periodMs > 0) {
                        arm(dueMs + periodMs);
                    } else {
                        tasks.remove(this);
                    }
                    task.run();
                });
            }

            void cancel() {
                tasks.remove(this);
                if (next != null) {
                    next.cancel();
                }
            }
        }
    }

    private final class SimGroupScheduler implements GroupScheduler {
        private final int node;
        private final Map<String, Timer> timers = new LinkedHashMap<>();

        SimGroupScheduler(final int node) {
            this.node = node;
        }

        @Override
        public long nowMs() {
            return clock.nowMs();
        }

        @Override
        public void schedule(final String key, final long delayMs, final Runnable task) {
            cancel(key);
            final Timer[] self = new Timer[1];
            // The event is named without the key's prefix (groups-<offsets partition>-, a counter of the JVM before the
            // group rooms were split), so that a seed's events and digest stay what they were in earlier runs.
            final String name = "group-timer " + key.replaceFirst("^groups-\\d+-", "");
            self[0] = SimScheduler.this.schedule(name, node, delayMs, () -> {
                timers.remove(key, self[0]);
                task.run();
            });
            timers.put(key, self[0]);
        }

        @Override
        public void cancel(final String key) {
            final Timer t = timers.remove(key);
            if (t != null) {
                t.cancel();
            }
        }

        @Override
        public void execute(final Runnable task) {
            SimScheduler.this.execute("group-task", node, task);
        }
    }
}
