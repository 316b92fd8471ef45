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
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.StatisticalBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.statistics.DefaultStatisticalCategoryDataset;

/**
 * The figures of a {@link VersusKafkaBench} run: each child's raw lines by run and system, aggregated into rows of
 * {@code workload,system,metric,value,error,unit} (the mean over runs, half the range as the error), the same-run
 * ratio Seglog / Kafka of every metric but the catch-up time, a markdown table with the target per workload, and a chart.
 *
 * <p>Not thread-safe.
 */
final class VersusReport {
    static final String REC_PER_S = "rec/s";
    static final String MB_PER_S = "MB/s";
    static final String RATIO = "Seglog / Kafka";
    /** Milliseconds from the end of the throughput phase until the high watermark reached its last offset. */
    static final String CATCH_UP = "HW catch-up";

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

    /** One output row. */
    record Row(String workload, String system, String metric, double value, double error, String unit) {
        String csv() {
            return String.join(",", workload, system, metric, format(value), format(error), unit);
        }
    }

    private final VersusKafkaBench.Options options;
    /** run -> system -> "workload\tmetric" -> value. */
    private final Map<Integer, Map<String, Map<String, Double>>> raw = new TreeMap<>();
    private final List<String> keys = new ArrayList<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();
    private final List<String> runOrder = new ArrayList<>();

    VersusReport(final VersusKafkaBench.Options options) {
        this.options = options;
    }

    /** A child's raw line: workload, metric, value, unit, tab-separated. */
    static String raw(final String workload, final String metric, final double value) {
        return workload + "\t" + metric + "\t" + Double.toString(value) + "\t" + unit(metric);
    }

    private static String unit(final String metric) {
        if (CATCH_UP.equals(metric)) {
            return "ms";
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
                    final double[] v = raw.values().stream().map(s -> s.getOrDefault(system, Map.of()).get(key))
                        .filter(x -> x != null).mapToDouble(Double::doubleValue).toArray();
                    rows.add(row(wm[0], system, wm[1], v, units.get(key)));
                }
                if (CATCH_UP.equals(wm[1])) {
                    continue; // often zero for one system: no ratio
                }
                final double[] ratios = raw.values().stream()
                    .filter(s -> s.containsKey("Seglog") && s.containsKey("Kafka")
                        && s.get("Seglog").containsKey(key) && s.get("Kafka").containsKey(key))
                    .mapToDouble(s -> s.get("Seglog").get(key) / s.get("Kafka").get(key)).toArray();
                rows.add(row(wm[0], RATIO, wm[1], ratios, "x"));
            }
        }
        return rows;
    }

    private static Row row(final String workload, final String system, final String metric, final double[] v,
                           final String unit) {
        if (v.length == 0) {
            return new Row(workload, system, metric, Double.NaN, Double.NaN, unit);
        }
        final double mean = Arrays.stream(v).average().orElseThrow();
        final double halfRange = (Arrays.stream(v).max().orElseThrow() - Arrays.stream(v).min().orElseThrow()) / 2;
        return new Row(workload, system, metric, mean, halfRange, unit);
    }

    Row find(final String workload, final String system, final String metric) {
        return rows().stream().filter(r -> r.workload().equals(workload) && r.system().equals(system)
            && r.metric().equals(metric)).findFirst().orElse(null);
    }

    /** Writes {@code versus-kafka[-quick].csv}, {@code .md} and {@code .png} to {@code dir}. */
    void write(final Path dir) throws IOException {
        final String base = options.quick() ? "versus-kafka-quick" : "versus-kafka";
        Files.writeString(dir.resolve(base + ".csv"), "workload,system,metric,value,error,unit\n"
            + rows().stream().map(Row::csv).collect(Collectors.joining("\n")) + "\n");
        Files.writeString(dir.resolve(base + ".md"), markdown());
        VersusChart.write(this, dir.resolve(base + ".png"));
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
        sb.append("# Seglog cluster versus Kafka 4.4 cluster\n\n");
        sb.append(String.format(Locale.ROOT, "Written %s. %d run(s); per workload a %d ms throughput phase (after a"
                + " %d ms unmeasured warm-up) and a %d ms paced phase at %.0f rec/s for both systems;"
                + " `enable.idempotence` for acks=all: %s. Order: %s. Value = mean over runs, error = half the range;"
                + " the ratio is Seglog / Kafka within each run, then averaged. Target (issue 13): throughput ratio"
                + " >= 1.5 and Seglog's produce p99 <= Kafka's.%n%n", Instant.now(), options.runs(),
            options.durationMs(), Math.min(1_000, options.durationMs()), options.durationMs(), options.latencyRate(),
            options.idempotence() ? "client default (true)" : "false", String.join(", ", runOrder)));
        sb.append("| workload | Seglog MB/s | Kafka MB/s | throughput ratio | Seglog produce p99 (us) | Kafka produce"
            + " p99 (us) | p99 ratio | Seglog e2e p99 (us) | Kafka e2e p99 (us) | e2e p99 ratio | target met |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final String w : workloads()) {
            final Row tr = find(w, RATIO, MB_PER_S);
            final Row pr = find(w, RATIO, "produce p99");
            final boolean met = tr != null && pr != null && tr.value() >= 1.5 && pr.value() <= 1.0;
            sb.append("| ").append(w)
                .append(" | ").append(cell(find(w, "Seglog", MB_PER_S)))
                .append(" | ").append(cell(find(w, "Kafka", MB_PER_S)))
                .append(" | ").append(cell(tr))
                .append(" | ").append(cell(find(w, "Seglog", "produce p99")))
                .append(" | ").append(cell(find(w, "Kafka", "produce p99")))
                .append(" | ").append(cell(pr))
                .append(" | ").append(cell(find(w, "Seglog", "e2e p99")))
                .append(" | ").append(cell(find(w, "Kafka", "e2e p99")))
                .append(" | ").append(cell(find(w, RATIO, "e2e p99")))
                .append(" | ").append(met ? "yes" : "no").append(" |\n");
        }
        sb.append("\n## Every figure\n\n| workload | system | metric | value | error | unit |\n|---|---|---|---|---|---|\n");
        for (final Row r : rows()) {
            sb.append("| ").append(r.workload()).append(" | ").append(r.system()).append(" | ").append(r.metric())
                .append(" | ").append(format(r.value())).append(" | ").append(format(r.error())).append(" | ")
                .append(r.unit()).append(" |\n");
        }
        return sb.toString();
    }

    private static String cell(final Row r) {
        if (r == null || Double.isNaN(r.value())) {
            return "";
        }
        return format(r.value()) + (Double.isNaN(r.error()) || r.error() == 0 ? "" : " ± " + format(r.error()));
    }

    static String format(final double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
    }

    /** The PNG: throughput, produce p99 and end-to-end p99 per workload, a bar per system with its error. */
    static final class VersusChart {
        private static final int WIDTH = 1100;
        private static final int PANEL_HEIGHT = 420;

        private VersusChart() {
        }

        static void write(final VersusReport report, final Path file) throws IOException {
            System.setProperty("java.awt.headless", "true");
            final List<JFreeChart> charts = List.of(
                chart(report, MB_PER_S, "Produce throughput (MB/s, higher is better)"),
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
                        data.add(r.value(), r.error(), system, w);
                    }
                }
            }
            final JFreeChart chart = ChartFactory.createBarChart(title, null,
                MB_PER_S.equals(metric) ? metric : metric + " (us)", data, PlotOrientation.VERTICAL, true, false, false);
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
