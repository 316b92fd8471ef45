package io.seglog.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * CI smoke of every benchmark: one fork each (so the fork's JVM flags are exercised too), no warm-up, one
 * 100 ms iteration, the smallest parameters, {@code -prof gc}. Fails if any benchmark errors or any
 * benchmark in the generated list produced no finite, positive score. Not a measurement.
 */
class BenchmarkSmokeIT {

    @Test
    // A guard against a hung fork, not a bound on speed: one JVM per benchmark and parameter set takes about 80 s on
    // two quiet cores and 175 s with both kept busy by other work (the other test JVMs now run beside it).
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everyBenchmarkRunsOneShortIteration() throws Exception {
        Set<String> expected = BenchmarkList.defaultList()
            .find(OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), List.of("io\\.seglog\\.bench\\."), List.of())
            .stream().map(BenchmarkListEntry::getUsername).collect(Collectors.toCollection(TreeSet::new));
        assertFalse(expected.isEmpty(), "no benchmarks generated: is annotation processing on?");

        Path dir = Paths.get("target", "bench-smoke").toAbsolutePath();
        Files.createDirectories(dir);
        Options options = new OptionsBuilder()
            .include("io\\.seglog\\.bench\\.")
            .forks(1)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .param("valueSize", "100")
            .param("recordsPerBatch", "100")
            // CleanerBench: one full 16 MiB segment to clean instead of four (two systems, two codecs, single shots).
            .param("logBytes", String.valueOf(20 << 20))
            // Small files: the smoke checks that each benchmark runs, not how fast.
            .jvmArgsAppend("-Dseglog.bench.dir=" + dir, "-Dseglog.bench.fileMiB=16")
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .build();
        Collection<RunResult> results = new Runner(options).run();

        TreeMap<String, Double> scores = new TreeMap<>();
        for (RunResult result : results) {
            scores.put(result.getParams().getBenchmark(), result.getPrimaryResult().getScore());
        }
        assertEquals(expected, scores.keySet(), "benchmarks without a result");
        scores.forEach((benchmark, score) ->
            assertTrue(Double.isFinite(score) && score > 0, benchmark + " scored " + score));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.collect(Collectors.toList()), "benchmarks must delete their files");
        }
    }
}
