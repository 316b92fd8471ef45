package io.seglog.bench;

import java.lang.management.ManagementFactory;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Bytes the benchmark thread itself allocated per measured call, from the JVM's per-thread allocation counter
 * read around the calls ({@code allocBytesPerCall}, reported by JMH per iteration).
 *
 * <p>Why not JMH's {@code -prof gc}: its {@code gc.alloc.rate.norm} divides the allocation of every thread in the
 * fork by the operations. Its floor is JMH's own work, about 16 KB/s in an average-time run here (0.1 B per call
 * of a 6 us operation), and in sample mode the worker thread also builds the latency histogram after each
 * iteration (boxed {@code Double}s in {@code MultisetStatistics}, found with JFR allocation events): about 1-2 B
 * per call of an operation that allocates nothing. This counter sees neither.
 *
 * <p>One per benchmark thread.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class ThreadAllocation {

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private long allocatedBytes;
    private long calls;

    /** Zeroes the counts before each iteration. */
    @Setup(Level.Iteration)
    public void reset() {
        allocatedBytes = 0;
        calls = 0;
    }

    /** @return the calling thread's allocation counter, to pass to {@link #add} after the calls */
    long start() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Adds what the calling thread allocated since {@code start} over {@code count} calls.
     *
     * @param start the value {@link #start()} returned before the calls
     * @param count how many calls were made
     */
    void add(long start, int count) {
        allocatedBytes += THREADS.getCurrentThreadAllocatedBytes() - start;
        calls += count;
    }

    /** @return bytes allocated by the benchmark thread per call in this iteration */
    public double allocBytesPerCall() {
        return calls == 0 ? 0 : (double) allocatedBytes / calls;
    }
}
