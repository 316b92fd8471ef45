package io.seglog.bench.cluster;

import java.time.Duration;
import java.util.List;

/**
 * CPU time of the cluster's processes and of this one, as the OS counts it (user and system time, from
 * {@link ProcessHandle.Info#totalCpuDuration()}, {@code /proc/PID/stat} on Linux): what a phase cost each side,
 * whichever side the shared cores gave their time to.
 *
 * <p>Thread-safe (stateless between calls).
 */
final class CpuMeter {
    private final List<ProcessHandle> cluster;

    /**
     * A meter of the given processes.
     *
     * @param clusterPids the cluster's nodes (brokers and the coordination process)
     * @throws IllegalArgumentException naming a pid that is not a live process
     */
    CpuMeter(final List<Long> clusterPids) {
        this.cluster = clusterPids.stream().map(pid -> ProcessHandle.of(pid).orElseThrow(
            () -> new IllegalArgumentException("no process " + pid + " to measure"))).toList();
    }

    /** @return the cluster's processes' CPU time so far, nanoseconds (a process gone counts nothing more) */
    long clusterNanos() {
        long total = 0;
        for (final ProcessHandle p : cluster) {
            total += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        }
        return total;
    }

    /** @return this process's CPU time so far, nanoseconds */
    static long selfNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Both readings at one moment. */
    record Reading(long clusterNanos, long clientNanos) {
        /** @return what passed since {@code earlier}, milliseconds of CPU: cluster, then clients */
        double[] since(final Reading earlier) {
            return new double[] {(clusterNanos - earlier.clusterNanos) / 1e6, (clientNanos - earlier.clientNanos) / 1e6};
        }
    }

    /** @return the cluster's and this process's CPU time now */
    Reading read() {
        return new Reading(clusterNanos(), selfNanos());
    }
}
