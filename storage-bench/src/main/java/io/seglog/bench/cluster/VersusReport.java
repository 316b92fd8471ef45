package io.seglog.bench.cluster;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.apache.commons.math3.distribution.TDistribution;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.StatisticalBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.statistics.DefaultStatisticalCategoryDataset;

/**
 * The figures of one configuration's {@link VersusKafkaBench} runs: each client child's raw lines by run and system,
 * aggregated into rows of {@code workload,system,metric,value,low,high,unit}, a markdown table with the target per
 * workload, and a chart.
 *
 * <p>Statistics: a system's figure is the mean over runs with its 95% Student-t interval (mean ± t(0.975, n-1) ·
 * s / √n). The ratio Seglog / Kafka is taken within each run (the two systems met the same machine within minutes of
 * each other) and aggregated as a geometric mean with the 95% t-interval of the logarithms, so that 2x and 0.5x
 * average to 1x. With one run there is no interval (low and high are empty). A target is <em>met</em> only when the
 * whole interval meets it: the replicated-throughput ratio's lower bound at or above 1.5 and the produce p99 ratio's
 * upper bound at or below 1.0; <em>missed</em> when the whole interval misses either; otherwise <em>undecided</em>.
 *
 * <p>Not thread-safe.
 */
final class VersusReport {
    static final String REC_PER_S = "rec/s";
    static final String MB_PER_S = "MB/s";
    /** The throughput phase's records over the time until the high watermark covered them all. */
    static final String REPLICATED_MB_PER_S = "replicated MB/s";
    static final String RATIO = "Seglog / Kafka";
    /** Milliseconds from the throughput phase's last acknowledgement until the high watermark reached its end. */
    static final String CATCH_UP = "HW catch-up";
    /** CPU time of the cluster's processes (brokers and coordination) per MB replicated in the throughput phase. */
    static final String CLUSTER_CPU_PER_MB = "cluster CPU ms/MB";
    /** CPU time of the clients' process per MB replicated in the throughput phase. */
    static final String CLIENT_CPU_PER_MB = "client CPU ms/MB";
    /** CPU time of the cluster's processes over the paced phase, in percent of one core. */
    static final String CLUSTER_CPU_PACED = "cluster CPU % paced";
    /** The throughput target of the ratio's lower bound. */
    static final double THROUGHPUT_TARGET = 1.5;

    /** A latency percentile and the names of its two metrics. */
    record Percentile(String label, double q) {
        String produceMetric() {
            return "produce " + label;
        }

        String endToEndMetric() {
            return "e2e " + label;
        }
    }

    static final List<Percentile> PERCENTILES = List.of(new Percentile("p50", 0.50), new Percentile("p99", 0.99),
        new Percentile("p99.9", 0.999));

    /**
     * One output row.
     *
     * @param value the mean (a system) or geometric mean (the ratio) over runs
     * @param low   the 95% interval's lower bound (NaN with one run)
     * @param high  its upper bound
     * @param runs  how many runs it is from
     */
    record Row(String workload, String system, String metric, double value, double low, double high, String unit,
               int runs) {
        String csv() {
            return String.join(",", workload, system, metric, format(value), format(low), format(high), unit);
        }

        /** @return half the interval's width (NaN without one), for the chart's error bars */
        double halfWidth() {
            return (high - low) / 2;
        }
    }

    private final VersusKafkaBench.Options options;
    private final Setup setup;
    /** run -> system -> "workload\tmetric" -> value. */
    private final Map<Integer, Map<String, Map<String, Double>>> raw = new TreeMap<>();
    private final List<String> keys = new ArrayList<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();
    private final List<String> runOrder = new ArrayList<>();

    VersusReport(final VersusKafkaBench.Options options, final Setup setup) {
        this.options = options;
        this.setup = setup;
    }

    /** @return the configuration these runs had */
    Setup setup() {
        return setup;
    }

    /** A child's raw line: workload, metric, value, unit, tab-separated. */
    static String raw(final String workload, final String metric, final double value) {
        return workload + "\t" + metric + "\t" + Double.toString(value) + "\t" + unit(metric);
    }

    private static String unit(final String metric) {
        if (CATCH_UP.equals(metric)) {
            return "ms";
        }
        if (REPLICATED_MB_PER_S.equals(metric)) {
            return MB_PER_S;
        }
        if (CLUSTER_CPU_PER_MB.equals(metric) || CLIENT_CPU_PER_MB.equals(metric)) {
            return "ms/MB";
        }
        if (CLUSTER_CPU_PACED.equals(metric)) {
            return "% of a core";
        }
        return REC_PER_S.equals(metric) || MB_PER_S.equals(metric) ? metric : "us";
    }

    /** Adds one child's raw lines. */
    void add(final int run, final String system, final List<String> lines) {
        runOrder.add("run " + run + ": " + system);
        final Map<String, Double> values = raw.computeIfAbsent(run, r -> new LinkedHashMap<>())
            .computeIfAbsent(system, s -> new LinkedHashMap<>());
        for (final String line : lines) {
            final String[] f = line.split("\t");
            if (f.length != 4) {
                throw new IllegalArgumentException("raw line of run " + run + " " + system + " has " + f.length
                    + " fields, expected 4: " + line);
            }
            final String key = f[0] + "\t" + f[1];
            values.put(key, Double.parseDouble(f[2]));
            if (!keys.contains(key)) {
                keys.add(key);
            }
            units.put(key, f[3]);
        }
        rows.clear();
    }

    /** @return the aggregated rows: per workload and metric, each system, then the ratio */
    List<Row> rows() {
        if (rows.isEmpty()) {
            for (final String key : keys) {
                final String[] wm = key.split("\t");
                for (final String system : VersusKafkaBench.SYSTEMS) {
                    rows.add(mean(wm[0], system, wm[1], values(system, key), units.get(key)));
                }
                if (CATCH_UP.equals(wm[1])) {
                    continue; // often near zero for one system: no ratio
                }
                rows.add(geometricMean(wm[0], wm[1], ratios(key)));
            }
        }
        return rows;
    }

    private double[] values(final String system, final String key) {
        return raw.values().stream().map(s -> s.getOrDefault(system, Map.of()).get(key))
            .filter(x -> x != null).mapToDouble(Double::doubleValue).toArray();
    }

    /** @return the per-run ratios Seglog / Kafka of a metric, in run order */
    double[] ratios(final String key) {
        return raw.values().stream()
            .filter(s -> s.containsKey("Seglog") && s.containsKey("Kafka")
                && s.get("Seglog").containsKey(key) && s.get("Kafka").containsKey(key))
            .mapToDouble(s -> s.get("Seglog").get(key) / s.get("Kafka").get(key)).toArray();
    }

    /** t(0.975, n-1) · s / √n of {@code v}, NaN below two values. */
    static double halfWidth(final double[] v) {
        if (v.length < 2) {
            return Double.NaN;
        }
        final double mean = Arrays.stream(v).average().orElseThrow();
        final double ss = Arrays.stream(v).map(x -> (x - mean) * (x - mean)).sum();
        final double sd = Math.sqrt(ss / (v.length - 1));
        return new TDistribution(v.length - 1).inverseCumulativeProbability(0.975) * sd / Math.sqrt(v.length);
    }

    static Row mean(final String workload, final String system, final String metric, final double[] v,
                    final String unit) {
        if (v.length == 0) {
            return new Row(workload, system, metric, Double.NaN, Double.NaN, Double.NaN, unit, 0);
        }
        final double mean = Arrays.stream(v).average().orElseThrow();
        final double h = halfWidth(v);
        return new Row(workload, system, metric, mean, mean - h, mean + h, unit, v.length);
    }

    static Row geometricMean(final String workload, final String metric, final double[] ratios) {
        if (ratios.length == 0) {
            return new Row(workload, RATIO, metric, Double.NaN, Double.NaN, Double.NaN, "x", 0);
        }
        final double[] logs = Arrays.stream(ratios).map(Math::log).toArray();
        final double m = Arrays.stream(logs).average().orElseThrow();
        final double h = halfWidth(logs);
        return new Row(workload, RATIO, metric, Math.exp(m), Math.exp(m - h), Math.exp(m + h), "x", ratios.length);
    }

    Row find(final String workload, final String system, final String metric) {
        return rows().stream().filter(r -> r.workload().equals(workload) && r.system().equals(system)
            && r.metric().equals(metric)).findFirst().orElse(null);
    }

    /**
     * The target's verdict for a workload.
     *
     * @return {@code met}, {@code missed}, {@code undecided} (an interval spans a target), or {@code one run}
     */
    String verdict(final String workload) {
        final Row t = find(workload, RATIO, REPLICATED_MB_PER_S);
        final Row p = find(workload, RATIO, "produce p99");
        if (t == null || p == null || Double.isNaN(t.value()) || Double.isNaN(p.value())) {
            return "";
        }
        if (Double.isNaN(t.low()) || Double.isNaN(p.low())) {
            return "one run";
        }
        if (t.high() < THROUGHPUT_TARGET || p.low() > 1.0) {
            return "missed";
        }
        return t.low() >= THROUGHPUT_TARGET && p.high() <= 1.0 ? "met" : "undecided";
    }

    /** @return the files' base name, e.g. {@code versus-kafka-autotuned-defaults} */
    String baseName() {
        return (options.quick() ? "versus-kafka-quick-" : "versus-kafka-") + setup.fileLabel();
    }

    /** Writes {@code BASE.csv}, {@code .md} and {@code .png} to {@code dir}. */
    void write(final Path dir) throws IOException {
        Files.writeString(dir.resolve(baseName() + ".csv"), "workload,system,metric,value,low,high,unit\n"
            + rows().stream().map(Row::csv).collect(Collectors.joining("\n")) + "\n");
        Files.writeString(dir.resolve(baseName() + ".md"), markdown());
        VersusChart.write(this, dir.resolve(baseName() + ".png"));
    }

    /** @return the workload names in order */
    List<String> workloads() {
        return rows().stream().map(Row::workload).distinct().collect(Collectors.toList());
    }

    private String markdown() {
        final StringBuilder sb = new StringBuilder();
        if (options.quick()) {
            sb.append("# QUICK RUN: a pipeline check, not a measurement\n\n");
        }
        sb.append("# Seglog cluster versus Kafka 4.4 cluster, ").append(setup.label()).append("\n\n");
        sb.append(String.format(Locale.ROOT, "Written %s. %d run(s) of each system, every node in its own JVM;"
                + " per workload a %d ms throughput phase (after %d ms unmeasured) and a %d ms paced phase at %.0f"
                + " rec/s for both systems; each fresh cluster and client JVM warmed %d ms first;"
                + " `enable.idempotence` for acks=all: %s. Order: %s.%n%n", Instant.now(), options.runs(),
            options.throughputMs(), options.leadInMs(), options.latencyMs(), options.latencyRate(),
            options.warmupMs(), options.idempotence() ? "client default (true)" : "false",
            String.join(", ", runOrder)));
        sb.append("A system's figure is the mean over runs [95% t-interval]; a ratio is Seglog / Kafka within each run,"
            + " geometric mean [95% interval]. Accepted: acknowledged records per second. Replicated: the phase's"
            + " records over the time until the high watermark covered them (acks=1 followers catching up count)."
            + " Latencies: HdrHistogram from each record's intended send time (coordinated omission corrected)."
            + " Target: replicated-throughput ratio >= 1.5 and produce p99 ratio <= 1, judged on the whole interval"
            + " (met / missed / undecided).\n\n");
        sb.append("```\n");
        setup.describe(options.brokerJvmArgs()).forEach(l -> sb.append(l).append('\n'));
        sb.append("```\n\n");
        sb.append("| workload | Seglog accepted MB/s | Kafka accepted MB/s | accepted ratio | Seglog replicated MB/s"
            + " | Kafka replicated MB/s | replicated ratio | Seglog produce p99 (us) | Kafka produce p99 (us) | p99 ratio"
            + " | e2e p99 ratio | target |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final String w : workloads()) {
            sb.append("| ").append(w)
                .append(" | ").append(cell(find(w, "Seglog", MB_PER_S)))
                .append(" | ").append(cell(find(w, "Kafka", MB_PER_S)))
                .append(" | ").append(cell(find(w, RATIO, MB_PER_S)))
                .append(" | ").append(cell(find(w, "Seglog", REPLICATED_MB_PER_S)))
                .append(" | ").append(cell(find(w, "Kafka", REPLICATED_MB_PER_S)))
                .append(" | ").append(cell(find(w, RATIO, REPLICATED_MB_PER_S)))
                .append(" | ").append(cell(find(w, "Seglog", "produce p99")))
                .append(" | ").append(cell(find(w, "Kafka", "produce p99")))
                .append(" | ").append(cell(find(w, RATIO, "produce p99")))
                .append(" | ").append(cell(find(w, RATIO, "e2e p99")))
                .append(" | ").append(verdict(w)).append(" |\n");
        }
        sb.append("\nWhat each side cost: CPU time of the cluster's four processes (the OS's user and system time) per MB"
            + " over the throughput phase until the high watermark covered it, the same of the clients' process, and"
            + " the cluster's CPU over the paced phase (the same offered load for both), in percent of one core.\n\n");
        sb.append("| workload | Seglog cluster CPU ms/MB | Kafka cluster CPU ms/MB | ratio | Seglog clients ms/MB"
            + " | Kafka clients ms/MB | Seglog cluster % at the paced rate | Kafka | ratio |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|\n");
        for (final String w : workloads()) {
            sb.append("| ").append(w)
                .append(" | ").append(cell(find(w, "Seglog", CLUSTER_CPU_PER_MB)))
                .append(" | ").append(cell(find(w, "Kafka", CLUSTER_CPU_PER_MB)))
                .append(" | ").append(cell(find(w, RATIO, CLUSTER_CPU_PER_MB)))
                .append(" | ").append(cell(find(w, "Seglog", CLIENT_CPU_PER_MB)))
                .append(" | ").append(cell(find(w, "Kafka", CLIENT_CPU_PER_MB)))
                .append(" | ").append(cell(find(w, "Seglog", CLUSTER_CPU_PACED)))
                .append(" | ").append(cell(find(w, "Kafka", CLUSTER_CPU_PACED)))
                .append(" | ").append(cell(find(w, RATIO, CLUSTER_CPU_PACED))).append(" |\n");
        }
        sb.append("\n## Ratios run by run\n\n| workload | metric |");
        for (final int run : raw.keySet()) {
            sb.append(" run ").append(run).append(" |");
        }
        sb.append("\n|---|---|").append("---|".repeat(raw.size())).append('\n');
        for (final String key : keys) {
            final String[] wm = key.split("\t");
            if (!List.of(MB_PER_S, REPLICATED_MB_PER_S, "produce p99", "e2e p99", CLUSTER_CPU_PER_MB).contains(wm[1])) {
                continue;
            }
            sb.append("| ").append(wm[0]).append(" | ").append(wm[1]).append(" |");
            for (final double r : ratios(key)) {
                sb.append(' ').append(format(r)).append(" |");
            }
            sb.append('\n');
        }
        sb.append("\n## Every figure\n\n| workload | system | metric | value | 95% low | 95% high | unit |\n"
            + "|---|---|---|---|---|---|---|\n");
        for (final Row r : rows()) {
            sb.append("| ").append(r.workload()).append(" | ").append(r.system()).append(" | ").append(r.metric())
                .append(" | ").append(format(r.value())).append(" | ").append(format(r.low())).append(" | ")
                .append(format(r.high())).append(" | ").append(r.unit()).append(" |\n");
        }
        return sb.toString();
    }

    private static String cell(final Row r) {
        if (r == null || Double.isNaN(r.value())) {
            return "";
        }
        return format(r.value()) + (Double.isNaN(r.low()) ? "" : " [" + format(r.low()) + ", " + format(r.high())
            + "]");
    }

    static String format(final double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
    }

    /**
     * The PNG: replicated throughput, produce p99 and end-to-end p99 per workload, a bar per system with its 95%
     * interval.
     */
    static final class VersusChart {
        private static final int WIDTH = 1100;
        private static final int PANEL_HEIGHT = 420;

        private VersusChart() {
        }

        static void write(final VersusReport report, final Path file) throws IOException {
            System.setProperty("java.awt.headless", "true");
            final List<JFreeChart> charts = List.of(
                chart(report, REPLICATED_MB_PER_S, "Replicated produce throughput (MB/s, higher is better)"),
                chart(report, "produce p99", "Produce latency p99 (us, lower is better)"),
                chart(report, "e2e p99", "End-to-end latency p99 (us, lower is better)"));
            final BufferedImage image = new BufferedImage(WIDTH, PANEL_HEIGHT * charts.size(),
                BufferedImage.TYPE_INT_RGB);
            final Graphics2D g = image.createGraphics();
            try {
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
                for (int i = 0; i < charts.size(); i++) {
                    charts.get(i).draw(g, new Rectangle2D.Double(0, i * PANEL_HEIGHT, WIDTH, PANEL_HEIGHT));
                }
            } finally {
                g.dispose();
            }
            if (!ImageIO.write(image, "png", file.toFile())) {
                throw new IOException("no PNG writer available for " + file);
            }
        }

        private static JFreeChart chart(final VersusReport report, final String metric, final String title) {
            final DefaultStatisticalCategoryDataset data = new DefaultStatisticalCategoryDataset();
            for (final String w : report.workloads()) {
                for (final String system : VersusKafkaBench.SYSTEMS) {
                    final Row r = report.find(w, system, metric);
                    if (r != null && !Double.isNaN(r.value())) {
                        data.add(r.value(), Double.isNaN(r.halfWidth()) ? 0 : r.halfWidth(), system, w);
                    }
                }
            }
            final JFreeChart chart = ChartFactory.createBarChart(title, null,
                REPLICATED_MB_PER_S.equals(metric) ? MB_PER_S : metric + " (us)", data, PlotOrientation.VERTICAL, true, false, false);
            chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            chart.setBackgroundPaint(Color.WHITE);
            final CategoryPlot plot = chart.getCategoryPlot();
            plot.setBackgroundPaint(new Color(248, 248, 248));
            final StatisticalBarRenderer renderer = new StatisticalBarRenderer();
            renderer.setBarPainter(new StandardBarPainter());
            renderer.setShadowVisible(false);
            renderer.setSeriesPaint(0, new Color(54, 110, 170));
            renderer.setSeriesPaint(1, new Color(200, 110, 40));
            renderer.setErrorIndicatorPaint(Color.BLACK);
            renderer.setErrorIndicatorStroke(new BasicStroke(1.2f));
            plot.setRenderer(renderer);
            plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.STANDARD);
            plot.getDomainAxis().setMaximumCategoryLabelLines(2);
            plot.getDomainAxis().setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
            return chart;
        }
    }
}
