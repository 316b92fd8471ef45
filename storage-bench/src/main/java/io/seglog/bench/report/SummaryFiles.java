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

    private SummaryFiles() {
    }

    /**
     * Summarises a JMH JSON file into {@code outDir}.
     *
     * @param jmhJson JMH's JSON result
     * @param outDir  where the files go (created if missing)
     * @param out     where the table is printed
     * @return the summary
     * @throws IOException when reading or writing fails
     */
    public static Summary write(Path jmhJson, Path outDir, PrintStream out) throws IOException {
        List<BenchResult> results = BenchResult.read(jmhJson);
        if (results.isEmpty()) {
            throw new IOException("no benchmark results in " + jmhJson);
        }
        Summary summary = Summary.of(results);
        Files.createDirectories(outDir);
        summary.writeCsv(outDir.resolve(CSV));
        Files.writeString(outDir.resolve(MARKDOWN), summary.markdown(), StandardCharsets.UTF_8);
        ChartWriter.writePng(summary, outDir.resolve(PNG));
        out.println();
        out.print(summary.table());
        String targets = Targets.markdown(Targets.check(summary));
        Files.writeString(outDir.resolve(TARGETS), targets, StandardCharsets.UTF_8);
        out.println("Targets (issue 4):");
        out.print(targets);
        out.println("Ratios are against the baseline measured in the same run; for latency a ratio below 1 is faster.");
        out.println("Errors are JMH's 99.9% confidence half-widths. Files: " + outDir.resolve(CSV) + ", "
            + outDir.resolve(MARKDOWN) + ", " + outDir.resolve(TARGETS) + ", " + outDir.resolve(PNG));
        return summary;
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
        write(json, outDir, System.out);
    }
}
