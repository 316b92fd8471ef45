package io.seglog.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Writes a run's summary files next to each other: {@code bench-summary.csv}, {@code bench-summary.md} (the
 * table for the README) and {@code bench-summary.png}, and prints the table.
 *
 * <p>Also a command: {@code java -cp benchmarks.jar io.seglog.bench.report.SummaryFiles <jmh.json> [outDir]}
 * summarises an existing JMH JSON file.
 */
public final class SummaryFiles {

    /** The CSV's file name. */
    public static final String CSV = "bench-summary.csv";
    /** The markdown table's file name. */
    public static final String MARKDOWN = "bench-summary.md";
    /** The targets' file name. */
    public static final String TARGETS = "bench-targets.md";
    /** The chart's file name. */
    public static final String PNG = "bench-summary.png";

    /** What heads a quick run's table and markdown file. */
    static final String QUICK_WARNING = "QUICK RUN (--quick: one unwarmed 200 ms iteration per benchmark): these"
        + " numbers check the pipeline and are no measurement.";

    private SummaryFiles() {
    }

    /**
     * Summarises a JMH JSON file of a full run into {@code outDir}, with the targets' verdicts.
     *
     * @param jmhJson JMH's JSON result
     * @param outDir  where the files go (created if missing)
     * @param out     where the table is printed
     * @return the summary
     * @throws IOException when reading or writing fails
     */
    public static Summary write(Path jmhJson, Path outDir, PrintStream out) throws IOException {
        return write(jmhJson, outDir, out, false);
    }

    /**
     * Summarises a JMH JSON file into {@code outDir}. A quick run's files are named {@code bench-quick-*} (so they
     * never overwrite or pass for a full run's), say at the top that they are no measurement, and carry no target
     * verdicts: one unwarmed 200 ms iteration judges nothing.
     *
     * @param jmhJson JMH's JSON result
     * @param outDir  where the files go (created if missing)
     * @param out     where the table is printed
     * @param quick   whether the results come from {@code --quick}
     * @return the summary
     * @throws IOException when reading or writing fails
     */
    public static Summary write(Path jmhJson, Path outDir, PrintStream out, boolean quick) throws IOException {
        List<BenchResult> results = BenchResult.read(jmhJson);
        if (results.isEmpty()) {
            throw new IOException("no benchmark results in " + jmhJson);
        }
        Summary summary = Summary.of(results);
        Files.createDirectories(outDir);
        Path csv = outDir.resolve(named(CSV, quick));
        Path markdown = outDir.resolve(named(MARKDOWN, quick));
        Path png = outDir.resolve(named(PNG, quick));
        summary.writeCsv(csv);
        Files.writeString(markdown, (quick ? QUICK_WARNING + "\n\n" : "") + summary.markdown(), StandardCharsets.UTF_8);
        ChartWriter.writePng(summary, png);
        out.println();
        if (quick) {
            out.println(QUICK_WARNING);
        }
        out.print(summary.table());
        if (quick) {
            out.println("Targets: not judged (a quick run checks the pipeline; run without --quick to measure).");
            out.println("Files: " + csv + ", " + markdown + ", " + png);
            return summary;
        }
        String targets = Targets.markdown(Targets.check(summary));
        Files.writeString(outDir.resolve(TARGETS), targets, StandardCharsets.UTF_8);
        out.println("Targets (issue 4):");
        out.print(targets);
        out.println("Ratios are against the baseline measured in the same run; for latency a ratio below 1 is faster.");
        out.println("Errors are JMH's 99.9% confidence half-widths. Files: " + csv + ", " + markdown + ", "
            + outDir.resolve(TARGETS) + ", " + png);
        return summary;
    }

    /**
     * A summary file's name for a full or a quick run.
     *
     * @param name  a full run's name, e.g. {@value #CSV}
     * @param quick whether the run is quick
     * @return {@code name}, or {@code bench-quick-*} for a quick run
     */
    public static String named(String name, boolean quick) {
        return quick ? name.replaceFirst("^bench-", "bench-quick-") : name;
    }

    /**
     * Command line entry.
     *
     * @param args JMH JSON file, optional output directory (default: the JSON's directory)
     * @throws IOException when reading or writing fails
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: SummaryFiles <jmh-result.json> [outDir]");
            System.exit(2);
        }
        Path json = Paths.get(args[0]).toAbsolutePath();
        Path outDir = args.length == 2 ? Paths.get(args[1]) : json.getParent();
        // A quick run's JSON keeps its quick naming and judges no target here either.
        write(json, outDir, System.out, json.getFileName().toString().startsWith("bench-quick-"));
    }
}
