package io.seglog.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One benchmark result of JMH's JSON output (one benchmark with one set of parameters), reduced to what the
 * summary needs.
 *
 * @param benchmark  fully qualified {@code Class.method}
 * @param mode       JMH's mode string: {@code thrpt}, {@code avgt}, {@code sample} or {@code ss}
 * @param params     the {@code @Param} values
 * @param primary    the primary metric
 * @param secondary  secondary metrics by name (AuxCounters, {@code gc.alloc.rate.norm}, ...)
 */
public record BenchResult(String benchmark, String mode, Map<String, String> params, Metric primary,
                          Map<String, Metric> secondary) {

    /**
     * A score with its error and unit.
     *
     * @param score       the score
     * @param error       JMH's 99.9% confidence half-width, NaN when JMH had too few samples
     * @param unit        JMH's unit string, e.g. {@code ops/s}, {@code us/op}, {@code B/op}
     * @param percentiles sample-mode percentiles keyed by percentile ({@code 50.0}); empty otherwise
     * @param raw         JMH's per-iteration values ({@code rawData}, every fork in order); empty when absent
     */
    public record Metric(double score, double error, String unit, Map<Double, Double> percentiles, List<Double> raw) {

        /**
         * A metric without per-iteration values.
         *
         * @param score       the score
         * @param error       the error
         * @param unit        the unit
         * @param percentiles the percentiles
         */
        public Metric(double score, double error, String unit, Map<Double, Double> percentiles) {
            this(score, error, unit, percentiles, List.of());
        }
    }

    /** @return the class name without package */
    public String className() {
        String withoutMethod = benchmark.substring(0, benchmark.lastIndexOf('.'));
        return withoutMethod.substring(withoutMethod.lastIndexOf('.') + 1);
    }

    /** @return the method name */
    public String methodName() {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    /** @return {@code Class.method} */
    public String shortName() {
        return className() + "." + methodName();
    }

    /**
     * Reads a JMH JSON result file.
     *
     * @param file JMH's {@code -rf json} output
     * @return the results in file order
     * @throws IOException when the file cannot be read or is not JMH's JSON
     */
    public static List<BenchResult> read(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
        if (root == null || !root.isArray()) {
            throw new IOException("not a JMH JSON result array: " + file);
        }
        List<BenchResult> results = new ArrayList<>();
        for (JsonNode node : root) {
            results.add(parse(node, file));
        }
        return results;
    }

    private static BenchResult parse(JsonNode node, Path file) throws IOException {
        String benchmark = node.path("benchmark").asText("");
        if (benchmark.lastIndexOf('.') <= 0 || !node.has("primaryMetric")) {
            throw new IOException("result without benchmark name or primaryMetric in " + file + ": " + node);
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.path("params").properties()) {
            params.put(e.getKey(), e.getValue().asText());
        }
        Map<String, Metric> secondary = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.path("secondaryMetrics").properties()) {
            secondary.put(e.getKey(), metric(e.getValue()));
        }
        return new BenchResult(benchmark, node.path("mode").asText(""), Collections.unmodifiableMap(params),
            metric(node.get("primaryMetric")), Collections.unmodifiableMap(secondary));
    }

    private static Metric metric(JsonNode node) {
        Map<Double, Double> percentiles = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.path("scorePercentiles").properties()) {
            percentiles.put(Double.parseDouble(e.getKey()), number(e.getValue()));
        }
        List<Double> raw = new ArrayList<>();
        for (JsonNode fork : node.path("rawData")) {
            for (JsonNode value : fork) {
                raw.add(number(value));
            }
        }
        return new Metric(number(node.path("score")), number(node.path("scoreError")),
            node.path("scoreUnit").asText(""), Collections.unmodifiableMap(percentiles), List.copyOf(raw));
    }

    /** JMH writes NaN and infinities as strings. */
    private static double number(JsonNode node) {
        if (node.isNumber()) {
            return node.asDouble();
        }
        String text = node.asText("NaN");
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
