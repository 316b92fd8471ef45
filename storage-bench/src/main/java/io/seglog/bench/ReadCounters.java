package io.seglog.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Records and bytes moved by a read benchmark, reported by JMH as rates beside the fetches/s score, so
 * records/s and MB/s come out of every read workload whatever the fetch size.
 *
 * <p>One per benchmark thread.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class ReadCounters {

    /** Records read (or sent) in this iteration. */
    public long records;

    /** Batch bytes read (or sent) in this iteration, headers included. */
    public long bytes;

    /** Zeroes the counters before each iteration. */
    @Setup(Level.Iteration)
    public void reset() {
        records = 0;
        bytes = 0;
    }
}
