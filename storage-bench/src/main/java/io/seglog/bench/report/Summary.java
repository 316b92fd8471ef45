package io.seglog.bench.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.openjdk.jmh.util.ListStatistics;

/**
 * The summary of one benchmark run: rows per workload, system and metric, with ratios against the
 * workload's baseline measured in the same run, as CSV, a text table and markdown.
 *
 * <p>Throughput is records/s: from the {@code records} AuxCounter when the benchmark has one, else the score
 * (append benchmarks count one op per record through {@code @OperationsPerInvocation}). MB/s counts payload
 * (records x value size, 1 MB = 1e6 B), as perf-anchors.md does. Latency is taken from sample mode (p50 and
 * mean). Allocation (B/op) is the benchmark thread's own allocation counter where an allocation benchmark
 * measured the same call ({@link Metrics#THREAD_ALLOCATION}: JMH's {@code -prof gc} counts every thread of the
 * fork, and in sample mode the worker's own latency histogram, about 1-2 B per microsecond-scale call), else JMH's
 * {@code gc.alloc.rate.norm} when the run used {@code -prof gc}; the {@code -prof gc} figure of a thread-measured
 * call stays in the CSV as {@link Metrics#B_PER_OP_GC}.
 *
 * <p>Immutable.
 */
public final class Summary {

    /** CSV header, the columns the issue asks for. */
    public static final String CSV_HEADER = "workload,system,metric,value,error,unit";

    private final List<SummaryRow> rows;
    private final Map<String, String> baselines;

    private Summary(List<SummaryRow> rows, Map<String, String> baselines) {
        this.rows = List.copyOf(rows);
        this.baselines = Collections.unmodifiableMap(baselines);
    }

    /** @return every row, workloads in a stable order, systems in catalog order within each */
    public List<SummaryRow> rows() {
        return rows;
    }

    /** @return workload to baseline system, for workloads whose baseline was measured */
    public Map<String, String> baselines() {
        return baselines;
    }

    /** @return workload names in order */
    public List<String> workloads() {
        Set<String> names = new LinkedHashSet<>();
        for (SummaryRow row : rows) {
            names.add(row.workload());
        }
        return List.copyOf(names);
    }

    /** @return the systems of a workload in order */
    public List<String> systems(String workload) {
        Set<String> names = new LinkedHashSet<>();
        for (SummaryRow row : rows) {
            if (row.workload().equals(workload)) {
                names.add(row.system());
            }
        }
        return List.copyOf(names);
    }

    /** @return the row for a workload, system and metric, or null */
    public SummaryRow find(String workload, String system, String metric) {
        for (SummaryRow row : rows) {
            if (row.workload().equals(workload) && row.system().equals(system) && row.metric().equals(metric)) {
                return row;
            }
        }
        return null;
    }

    /** @return the metric that ranks the systems of a workload: Mrec/s, else p50, else mean latency */
    public String headlineMetric(String workload) {
        for (String metric : List.of(Metrics.MREC_PER_S, Metrics.P50_US, Metrics.US_PER_OP)) {
            for (SummaryRow row : rows) {
                if (row.workload().equals(workload) && row.metric().equals(metric)) {
                    return metric;
                }
            }
        }
        return Metrics.B_PER_OP;
    }

    /**
     * Builds the summary of a run.
     *
     * @param results JMH results, e.g. from {@link BenchResult#read(Path)}
     * @return the summary
     */
    public static Summary of(List<BenchResult> results) {
        // Value sizes and batch sizes that append workloads were run with: Chronicle (no batches) joins each.
        Map<String, Set<String>> batchSizesByValueSize = new TreeMap<>();
        for (BenchResult r : results) {
            if (Catalog.lookup(r).workload() == Workload.APPEND && r.params().containsKey("recordsPerBatch")) {
                batchSizesByValueSize.computeIfAbsent(r.params().getOrDefault("valueSize", "?"), k -> new LinkedHashSet<>())
                    .add(r.params().get("recordsPerBatch"));
            }
        }

        // Workload and system pairs whose B/op the benchmark thread's own counter measured.
        Set<String> threadMeasured = new HashSet<>();
        for (BenchResult r : results) {
            Catalog.Entry entry = Catalog.lookup(r);
            if (entry.allocationOnly() && r.secondary().containsKey(Metrics.THREAD_ALLOCATION)) {
                threadMeasured.add(workloadName(entry.workload(), r, r.params().get("valueSize"),
                    r.params().get("recordsPerBatch")) + '|' + entry.system());
            }
        }

        List<Keyed> keyed = new ArrayList<>();
        for (BenchResult r : results) {
            Catalog.Entry entry = Catalog.lookup(r);
            String valueSize = r.params().get("valueSize");
            List<String> batchSizes = new ArrayList<>();
            if (r.params().containsKey("recordsPerBatch")) {
                batchSizes.add(r.params().get("recordsPerBatch"));
            } else if (entry.workload() == Workload.APPEND && batchSizesByValueSize.containsKey(valueSize)) {
                batchSizes.addAll(batchSizesByValueSize.get(valueSize));
            } else {
                batchSizes.add(null);
            }
            for (String batchSize : batchSizes) {
                String workload = workloadName(entry.workload(), r, valueSize, batchSize);
                WorkloadKey key = new WorkloadKey(entry.workload().ordinal(), parse(valueSize), parse(batchSize), workload);
                boolean byThread = threadMeasured.contains(workload + '|' + entry.system());
                for (SummaryRow row : metricRows(r, entry, workload, valueSize, byThread)) {
                    keyed.add(new Keyed(key, entry.order(), row));
                }
            }
        }
        keyed.sort(Comparator.comparing((Keyed k) -> k.key.kind).thenComparing(k -> k.key.valueSize)
            .thenComparing(k -> -k.key.batchSize).thenComparing(k -> k.key.name).thenComparing(k -> k.systemOrder));

        List<SummaryRow> rows = new ArrayList<>();
        for (Keyed k : keyed) {
            rows.add(k.row);
        }
        Map<String, String> baselines = new LinkedHashMap<>();
        Summary withoutRatios = new Summary(rows, baselines);
        List<SummaryRow> withRatios = new ArrayList<>();
        for (String workload : withoutRatios.workloads()) {
            String baseline = baselineOf(keyed, workload);
            String headline = withoutRatios.headlineMetric(workload);
            SummaryRow base = baseline == null ? null : withoutRatios.find(workload, baseline, headline);
            if (base != null && base.value() != 0) {
                baselines.put(workload, baseline);
            }
            for (String system : withoutRatios.systems(workload)) {
                for (SummaryRow row : rows) {
                    if (row.workload().equals(workload) && row.system().equals(system)) {
                        withRatios.add(row);
                    }
                }
                SummaryRow value = withoutRatios.find(workload, system, headline);
                if (base != null && base.value() != 0 && value != null) {
                    double ratio = value.value() / base.value();
                    // The baseline's own ratio is 1 by definition, not a measurement with an error.
                    double error = system.equals(baseline) ? Double.NaN
                        : ratio * Math.sqrt(square(value.error() / value.value()) + square(base.error() / base.value()));
                    withRatios.add(new SummaryRow(workload, system, Metrics.RATIO, ratio, error, Metrics.unit(Metrics.RATIO)));
                }
            }
        }
        return new Summary(withRatios, baselines);
    }

    private static String baselineOf(List<Keyed> keyed, String workload) {
        for (Keyed k : keyed) {
            if (k.key.name.equals(workload)) {
                return Workload.values()[k.key.kind].baselineSystem;
            }
        }
        return null;
    }

    private static double square(double x) {
        return x * x;
    }

    private static int parse(String number) {
        if (number == null) {
            return -1;
        }
        try {
            return Integer.parseInt(number);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String workloadName(Workload kind, BenchResult r, String valueSize, String batchSize) {
        StringBuilder name = new StringBuilder(kind == Workload.OTHER ? r.methodName() : kind.label);
        if (valueSize != null) {
            int bytes = parse(valueSize);
            name.append(' ').append(bytes > 0 && bytes % 1024 == 0 ? (bytes / 1024) + "KiB" : valueSize + "B");
        }
        if (batchSize != null) {
            name.append(" x").append(batchSize);
        }
        return name.toString();
    }

    private static List<SummaryRow> metricRows(BenchResult r, Catalog.Entry entry, String workload, String valueSize,
                                               boolean byThread) {
        List<SummaryRow> out = new ArrayList<>();
        String system = entry.system();
        BenchResult.Metric alloc = r.secondary().get("gc.alloc.rate.norm");
        if (entry.allocationOnly()) {
            // Only the allocation of the measured call; its time is not a latency figure (no percentiles).
            BenchResult.Metric own = r.secondary().get(Metrics.THREAD_ALLOCATION);
            if (own != null) {
                out.add(threadAllocationRow(workload, system, own));
            }
            if (alloc != null) {
                out.add(row(workload, system, Metrics.B_PER_OP_GC_ALLOCATION_RUN, alloc.score(), alloc.error()));
            }
            return out;
        }
        BenchResult.Metric primary = r.primary();
        if ("thrpt".equals(r.mode())) {
            BenchResult.Metric records = r.secondary().getOrDefault("records", primary);
            double perSecond = perSecond(records.unit());
            double recordsPerS = records.score() * perSecond;
            double errorPerS = records.error() * perSecond;
            out.add(row(workload, system, Metrics.MREC_PER_S, recordsPerS / 1e6, errorPerS / 1e6));
            int bytes = parse(valueSize);
            if (bytes > 0) {
                out.add(row(workload, system, Metrics.MB_PER_S, recordsPerS * bytes / 1e6, errorPerS * bytes / 1e6));
            }
        } else {
            double toUs = microseconds(primary.unit());
            Double p50 = primary.percentiles().get(50.0);
            if (p50 != null) {
                out.add(row(workload, system, Metrics.P50_US, p50 * toUs, Double.NaN));
            }
            out.add(row(workload, system, Metrics.US_PER_OP, primary.score() * toUs, primary.error() * toUs));
        }
        if (alloc != null) {
            out.add(row(workload, system, byThread ? Metrics.B_PER_OP_GC : Metrics.B_PER_OP, alloc.score(), alloc.error()));
        }
        return out;
    }

    /**
     * B/op from the per-iteration bytes per call: JMH sums an EVENTS counter over the iterations (so its score is
     * not the mean) and gives it no error; this is the mean and JMH's 99.9% half-width over the iterations.
     */
    private static SummaryRow threadAllocationRow(String workload, String system, BenchResult.Metric own) {
        if (own.raw().isEmpty()) {
            return row(workload, system, Metrics.B_PER_OP, own.score(), Double.NaN);
        }
        ListStatistics iterations = new ListStatistics();
        own.raw().forEach(iterations::addValue);
        double error = iterations.getN() > 2 ? iterations.getMeanErrorAt(0.999) : Double.NaN;
        return row(workload, system, Metrics.B_PER_OP, iterations.getMean(), error);
    }

    private static SummaryRow row(String workload, String system, String metric, double value, double error) {
        return new SummaryRow(workload, system, metric, value, error, Metrics.unit(metric));
    }

    /** @return factor from JMH's throughput unit to per-second */
    private static double perSecond(String unit) {
        if (unit.endsWith("/ms")) {
            return 1e3;
        }
        if (unit.endsWith("/us")) {
            return 1e6;
        }
        if (unit.endsWith("/ns")) {
            return 1e9;
        }
        if (unit.endsWith("/min")) {
            return 1.0 / 60;
        }
        return 1;
    }

    /** @return factor from JMH's time unit to microseconds */
    private static double microseconds(String unit) {
        if (unit.startsWith("ns/")) {
            return 1e-3;
        }
        if (unit.startsWith("ms/")) {
            return 1e3;
        }
        if (unit.startsWith("s/")) {
            return 1e6;
        }
        return 1;
    }

    /**
     * Writes the CSV ({@link #CSV_HEADER}); an unknown error is an empty cell.
     *
     * @param file the target, replaced
     * @throws IOException from the file system
     */
    public void writeCsv(Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write(CSV_HEADER);
            out.write('\n');
            for (SummaryRow row : rows) {
                out.write(csv(row.workload()) + ',' + csv(row.system()) + ',' + csv(row.metric()) + ','
                    + number(row.value()) + ',' + number(row.error()) + ',' + csv(row.unit()) + '\n');
            }
        }
    }

    private static String csv(String text) {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    private static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "";
        }
        return String.format(Locale.ROOT, "%.6g", value).trim();
    }

    /** @return the comparison table as plain text, one block per workload */
    public String table() {
        return render(false);
    }

    /** @return the comparison table as markdown, one table per workload */
    public String markdown() {
        return render(true);
    }

    private String render(boolean markdown) {
        StringBuilder out = new StringBuilder();
        for (String workload : workloads()) {
            String headline = headlineMetric(workload);
            List<String> columns = new ArrayList<>();
            columns.add(headline);
            if (headline.equals(Metrics.MREC_PER_S)) {
                columns.add(Metrics.MB_PER_S);
            } else if (headline.equals(Metrics.P50_US)) {
                columns.add(Metrics.US_PER_OP);
            }
            columns.add(Metrics.RATIO);
            columns.add(Metrics.B_PER_OP);
            for (String gc : List.of(Metrics.B_PER_OP_GC, Metrics.B_PER_OP_GC_ALLOCATION_RUN)) {
                // Shown beside the thread-measured B/op wherever it was replaced, so nothing is hidden.
                for (String system : systems(workload)) {
                    if (find(workload, system, gc) != null && !columns.contains(gc)) {
                        columns.add(gc);
                    }
                }
            }
            String baseline = baselines.get(workload);
            String title = workload + (baseline == null ? " (no baseline in this run)" : " (baseline: " + baseline + ")");
            List<List<String>> cells = new ArrayList<>();
            List<String> header = new ArrayList<>();
            header.add("system");
            for (String c : columns) {
                header.add(c.equals(Metrics.RATIO) ? "x baseline (" + headline + ")" : c);
            }
            cells.add(header);
            for (String system : systems(workload)) {
                List<String> line = new ArrayList<>();
                line.add(system);
                for (String metric : columns) {
                    SummaryRow row = find(workload, system, metric);
                    line.add(row == null ? "-" : format(row.value(), row.error()));
                }
                cells.add(line);
            }
            if (markdown) {
                out.append("**").append(title).append("**\n\n");
                for (int i = 0; i < cells.size(); i++) {
                    out.append("| ").append(String.join(" | ", cells.get(i))).append(" |\n");
                    if (i == 0) {
                        out.append("|---".repeat(cells.get(0).size())).append("|\n");
                    }
                }
                out.append('\n');
            } else {
                out.append("== ").append(title).append('\n');
                int[] widths = new int[header.size()];
                for (List<String> line : cells) {
                    for (int i = 0; i < line.size(); i++) {
                        widths[i] = Math.max(widths[i], line.get(i).length());
                    }
                }
                for (List<String> line : cells) {
                    for (int i = 0; i < line.size(); i++) {
                        String cell = line.get(i);
                        out.append(i == 0 ? String.format(Locale.ROOT, "%-" + widths[i] + "s", cell)
                            : String.format(Locale.ROOT, "  %" + widths[i] + "s", cell));
                    }
                    out.append('\n');
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** @return value, and "± error" when the error is known, with about three significant digits */
    static String format(double value, double error) {
        String v = significant(value);
        return Double.isNaN(error) || Double.isInfinite(error) ? v : v + " ± " + significant(error);
    }

    private static String significant(double value) {
        double magnitude = Math.abs(value);
        if (magnitude >= 100 || magnitude == 0) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (magnitude >= 1) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private record WorkloadKey(int kind, int valueSize, int batchSize, String name) {
    }

    private record Keyed(WorkloadKey key, int systemOrder, SummaryRow row) {
    }
}
