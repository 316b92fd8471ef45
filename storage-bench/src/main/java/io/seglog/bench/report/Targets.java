package io.seglog.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 4's targets, checked against one run's summary: each is a ratio between two systems of the same run,
 * an absolute figure, or an allocation figure, printed with its error and whether it is met. A target whose
 * rows are missing from the run is reported as not measured.
 *
 * <p>Immutable.
 */
public final class Targets {

    /** One target's outcome. */
    public record Outcome(String target, String measured, String verdict) {
    }

    private static final String LEADER = "Seglog appendAsLeader";

    private Targets() {
    }

    /**
     * Checks every target.
     *
     * @param summary the run
     * @return one outcome per target (and per workload for allocation)
     */
    public static List<Outcome> check(Summary summary) {
        List<Outcome> out = new ArrayList<>();
        ratio(out, summary, "append 1KiB x100", LEADER, "Kafka UnifiedLog.appendAsLeader", Metrics.MREC_PER_S, 2.0,
            "append 1 KiB x100 >= 2x Kafka appendAsLeader");
        ratio(out, summary, "append 1KiB x100", LEADER, "raw FileChannel.write, recycled file", Metrics.MREC_PER_S, 0.8,
            "append 1 KiB x100 >= 0.8x recycled-file limit");
        absolute(out, summary, "append 100B x100", LEADER, Metrics.MREC_PER_S, 10.0, true,
            "append 100 B x100 >= 10 M records/s");
        ratio(out, summary, "append 100B x1", LEADER, "Chronicle Queue, per message", Metrics.MREC_PER_S, 1.0,
            "single-record batches: more records/s than Chronicle (100 B)");
        ratio(out, summary, "fetch transferTo 1KiB x100", "Seglog read + LogSlice.transferTo", Catalog.RAW_TRANSFER_TO,
            Metrics.MREC_PER_S, 0.9, "zero-copy fetch >= 0.9x the plain transferTo loop (1 KiB)");
        ratio(out, summary, "fetch transferTo 100B x100", "Seglog read + LogSlice.transferTo", Catalog.RAW_TRANSFER_TO,
            Metrics.MREC_PER_S, 0.9, "zero-copy fetch >= 0.9x the plain transferTo loop (100 B)");
        absolute(out, summary, "iterate records 100B x100", "Seglog read + iterate", Metrics.MREC_PER_S, 20.0, true,
            "iteration at 100 B >= 20 M records/s");
        absolute(out, summary, "random-offset read 100B x100", "Seglog PartitionLog.read", Metrics.P50_US, 2.0, false,
            "random-offset read median <= 2 us");
        for (String workload : summary.workloads()) {
            for (String system : summary.systems(workload)) {
                // The allocation target covers append, index lookup and iteration; not opening a log or waiting for fsync.
                if (system.startsWith("Seglog") && !workload.startsWith(Workload.RECOVERY.label)
                    && !workload.startsWith(Workload.DURABLE.label)) {
                    SummaryRow alloc = summary.find(workload, system, Metrics.B_PER_OP);
                    if (alloc != null) {
                        // "0 B/op within JMH's noise": below JMH's own floor (~0.01 B/op here), or not distinguishable from 0.
                        boolean met = alloc.value() < 0.1 || (!Double.isNaN(alloc.error()) && alloc.value() <= alloc.error());
                        out.add(new Outcome("0 B/op: " + system + ", " + workload,
                            Summary.format(alloc.value(), alloc.error()) + " B/op", met ? "met" : "MISSED"));
                    }
                }
            }
        }
        ratio(out, summary, "recovery scan 100B x100", "Seglog PartitionLog.open after crash", Catalog.KAFKA_RECOVERY,
            Metrics.MREC_PER_S, 5.0, "recovery scan >= 5x Kafka");
        ratio(out, summary, "recovery scan 100B x100", "Seglog PartitionLog.open after crash, CRCs on 2 threads",
            Catalog.KAFKA_RECOVERY, Metrics.MREC_PER_S, 5.0, "recovery scan >= 5x Kafka (CRCs on 2 threads)");
        ratio(out, summary, "durable append 1KiB x10", "Seglog append + awaitDurable, 8 threads", Catalog.RAW_SYNC,
            Metrics.MREC_PER_S, 0.7, "durable append, 8 threads, group commit >= 0.7x device (fdatasync per 256 KiB)");
        return out;
    }

    private static void ratio(List<Outcome> out, Summary summary, String workload, String system, String other,
                              String metric, double atLeast, String target) {
        SummaryRow a = summary.find(workload, system, metric);
        SummaryRow b = summary.find(workload, other, metric);
        if (a == null || b == null || b.value() == 0) {
            out.add(new Outcome(target, "not measured", "rows missing from this run"));
            return;
        }
        double ratio = a.value() / b.value();
        double error = ratio * Math.sqrt(square(a.error() / a.value()) + square(b.error() / b.value()));
        out.add(new Outcome(target, String.format(Locale.ROOT, "%sx (%s vs %s %s)", Summary.format(ratio, error),
            Summary.format(a.value(), a.error()), Summary.format(b.value(), b.error()), metric),
            ratio >= atLeast ? "met" : "MISSED"));
    }

    private static void absolute(List<Outcome> out, Summary summary, String workload, String system, String metric,
                                 double bound, boolean atLeast, String target) {
        SummaryRow a = summary.find(workload, system, metric);
        if (a == null) {
            out.add(new Outcome(target, "not measured", "rows missing from this run"));
            return;
        }
        boolean met = atLeast ? a.value() >= bound : a.value() <= bound;
        out.add(new Outcome(target, Summary.format(a.value(), a.error()) + " " + metric, met ? "met" : "MISSED"));
    }

    private static double square(double x) {
        return x * x;
    }

    /**
     * @param outcomes from {@link #check(Summary)}
     * @return a markdown table
     */
    public static String markdown(List<Outcome> outcomes) {
        StringBuilder out = new StringBuilder("| target | measured (same run) | verdict |\n|---|---|---|\n");
        for (Outcome o : outcomes) {
            out.append("| ").append(o.target()).append(" | ").append(o.measured()).append(" | ").append(o.verdict())
                .append(" |\n");
        }
        return out.toString();
    }
}
