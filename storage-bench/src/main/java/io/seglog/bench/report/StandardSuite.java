package io.seglog.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The standard suite: the headline workloads of every system, sized to finish in about 9 minutes on
 * 2 cores (one fork per benchmark and parameter set, 2 x 1 s warm-up, 5 x 1 s measurement, {@code -prof gc}
 * for B/op), then JMH's JSON ({@code bench-results.json}) and the summary files of {@link SummaryFiles}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.seglog.bench.report.StandardSuite [--out DIR] [--quick]
 * [--no-gc] [--only REGEX]}; {@code --quick} runs one 200 ms iteration per benchmark and no warm-up (to
 * check the pipeline, not to measure: its files are named {@code bench-quick-*}, marked as such, and judge no
 * target); {@code --only} keeps benchmarks whose name matches.
 */
public final class StandardSuite {

    /** One JMH run: benchmarks (regexes over Class.method) and the parameter values to use. */
    record Step(String title, List<String> includes, Map<String, String[]> params) {
    }

    private static final List<String> APPEND = List.of(
        "\\.RawFileChannelAppendBench\\.", "\\.RawMappedAppendBench\\.", "\\.SeglogAppendBench\\.",
        "\\.KafkaUnifiedLogAppendBench\\.", "\\.KafkaLogSegmentAppendBench\\.", "\\.ChronicleQueueAppendBench\\.");

    private static final List<String> SEQUENTIAL_READ = List.of(
        "\\.RawTransferToBench\\.transferTo$", "\\.SeglogReadBench\\.(transferTo|iterate)$",
        "\\.KafkaReadBench\\.(transferTo|iterate)$");

    private static final List<String> LATENCY = List.of(
        "\\.SeglogReadBench\\.(randomRead|offsetForTimestamp)(Allocation)?$",
        "\\.KafkaReadBench\\.(randomRead|offsetForTimestamp)(Allocation)?$");

    private static final List<String> RECOVERY = List.of("\\.RecoveryBench\\.");

    private static final List<String> DURABLE = List.of("\\.DurableAppendBench\\.");

    /** The standard suite's steps, in run order. */
    static final List<Step> STEPS = List.of(
        new Step("append 1 KiB x 100", APPEND, Map.of("valueSize", new String[] {"1024"}, "recordsPerBatch", new String[] {"100"})),
        new Step("append 100 B x 100 and x 1", APPEND, Map.of("valueSize", new String[] {"100"}, "recordsPerBatch", new String[] {"100", "1"})),
        new Step("sequential read", SEQUENTIAL_READ, Map.of("valueSize", new String[] {"1024", "100"}, "recordsPerBatch", new String[] {"100"})),
        new Step("read latency", LATENCY, Map.of("valueSize", new String[] {"100"}, "recordsPerBatch", new String[] {"100"})),
        new Step("recovery scan", RECOVERY, Map.of("valueSize", new String[] {"100"}, "recordsPerBatch", new String[] {"100"})),
        new Step("durable append", DURABLE, Map.of("valueSize", new String[] {"1024"}, "recordsPerBatch", new String[] {"10"})));

    private StandardSuite() {
    }

    /**
     * Runs the suite.
     *
     * @param args see the class comment
     * @throws IOException when the results cannot be written
     * @throws RunnerException when JMH fails
     */
    public static void main(String[] args) throws IOException, RunnerException {
        Path out = Paths.get("storage-bench", "target");
        boolean quick = false;
        boolean gc = true;
        Pattern only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out":
                    out = Paths.get(args[++i]);
                    break;
                case "--quick":
                    quick = true;
                    break;
                case "--no-gc":
                    gc = false;
                    break;
                case "--only":
                    only = Pattern.compile(args[++i]);
                    break;
                default:
                    System.err.println("unknown argument " + args[i]
                        + "; usage: StandardSuite [--out DIR] [--quick] [--no-gc] [--only REGEX]");
                    System.exit(2);
            }
        }
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(out);
        long startNs = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        for (Step step : STEPS) {
            List<String> includes = filter(step.includes(), only);
            if (includes.isEmpty()) {
                continue;
            }
            System.out.println("### " + step.title());
            ChainedOptionsBuilder options = new OptionsBuilder().forks(1).shouldFailOnError(true);
            includes.forEach(options::include);
            step.params().forEach(options::param);
            if (quick) {
                options.warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(200));
            } else {
                options.warmupIterations(2).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(1));
            }
            if (gc) {
                options.addProfiler(GCProfiler.class);
            }
            try {
                results.addAll(new Runner(options.build()).run());
            } catch (RunnerException e) {
                // JMH says "No matching benchmarks" when the jar lacks a class, and throws NoBenchmarksException
                // (no message) when --only leaves a step with nothing: either way this step has nothing to measure.
                String message = e.getMessage() == null ? "" : e.getMessage();
                if (e instanceof NoBenchmarksException || message.contains("No matching benchmarks")) {
                    System.out.println("(no benchmark of this step is built: " + includes + ")");
                    continue;
                }
                throw e;
            }
        }
        if (results.isEmpty()) {
            throw new IllegalStateException("no benchmark ran; includes=" + STEPS + " only=" + only);
        }
        Path json = out.resolve(SummaryFiles.named("bench-results.json", quick));
        try (PrintStream jsonOut = new PrintStream(Files.newOutputStream(json), false, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, jsonOut).writeOut(results);
        }
        System.out.printf("%nStandard suite: %d results in %.1f min; JMH JSON: %s%n", results.size(),
            (System.nanoTime() - startNs) / 60e9, json);
        SummaryFiles.write(json, out, System.out, quick);
    }

    private static List<String> filter(List<String> includes, Pattern only) {
        if (only == null) {
            return includes;
        }
        List<String> kept = new ArrayList<>();
        for (String include : includes) {
            // Narrow each include to the benchmarks that also match --only.
            kept.add("(?=.*(" + only.pattern() + "))(?=.*(" + include + ")).*");
        }
        return kept;
    }
}
