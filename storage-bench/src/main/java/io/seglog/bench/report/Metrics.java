package io.seglog.bench.report;

/** Metric names and units as they appear in the CSV's {@code metric} and {@code unit} columns. */
final class Metrics {

    /** Million records per second. */
    static final String MREC_PER_S = "Mrec/s";
    /** Payload (record value) megabytes per second, MB = 1e6 B. */
    static final String MB_PER_S = "MB/s";
    /** Mean latency per operation. */
    static final String US_PER_OP = "us/op";
    /** Median latency per operation. */
    static final String P50_US = "p50 us/op";
    /**
     * Bytes allocated per operation: the benchmark thread's own counter where an allocation benchmark measured
     * the call ({@code allocBytesPerCall}), else JMH's gc.alloc.rate.norm; the operation is named in the README.
     */
    static final String B_PER_OP = "B/op";
    /** JMH's gc.alloc.rate.norm where B/op comes from the thread's own counter: all threads of the fork. */
    static final String B_PER_OP_GC = "B/op (-prof gc, all threads)";
    /** JMH's gc.alloc.rate.norm of the allocation benchmark itself (average-time mode, all threads). */
    static final String B_PER_OP_GC_ALLOCATION_RUN = "B/op (-prof gc, all threads, avgt allocation run)";
    /** The secondary metric of {@code ThreadAllocation}. */
    static final String THREAD_ALLOCATION = "allocBytesPerCall";
    /** The headline metric divided by the baseline's, same workload, same run. */
    static final String RATIO = "x baseline";

    private Metrics() {
    }

    /** @return the unit column for a metric */
    static String unit(String metric) {
        switch (metric) {
            case MB_PER_S:
                return "MB/s (payload, 1e6 B)";
            case MREC_PER_S:
                return "1e6 records/s";
            case US_PER_OP:
            case P50_US:
                return "us/op";
            case B_PER_OP:
            case B_PER_OP_GC:
            case B_PER_OP_GC_ALLOCATION_RUN:
                return "B/op";
            case RATIO:
                return "ratio";
            default:
                return metric;
        }
    }
}
