package io.seglog.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Issue 4's targets computed from a hand-made run: ratios of the same run, absolute bounds, allocation. */
class TargetsTest {

    private static BenchResult append(String benchmark, String valueSize, String batch, double opsPerS, double bytesPerOp) {
        return new BenchResult("io.seglog.bench." + benchmark, "thrpt",
            Map.of("valueSize", valueSize, "recordsPerBatch", batch),
            new BenchResult.Metric(opsPerS, opsPerS / 10, "ops/s", Map.of()),
            Map.of("gc.alloc.rate.norm", new BenchResult.Metric(bytesPerOp, 0.01, "B/op", Map.of())));
    }

    private static BenchResult latency(String benchmark, double p50Us) {
        return new BenchResult("io.seglog.bench." + benchmark, "sample", Map.of("valueSize", "100", "recordsPerBatch", "100"),
            new BenchResult.Metric(p50Us * 2, 0.1, "us/op", Map.of(50.0, p50Us)), Map.of());
    }

    private static TargetsOutcomes run() {
        Summary summary = Summary.of(List.of(
            append("SeglogAppendBench.appendAsLeader", "1024", "100", 3_000_000, 0.0),
            append("KafkaUnifiedLogAppendBench.appendAsLeader", "1024", "100", 1_000_000, 170),
            append("RawFileChannelAppendBench.recycledFile", "1024", "100", 5_000_000, 0.0),
            append("SeglogAppendBench.appendAsLeader", "100", "100", 8_000_000, 24.0),
            latency("SeglogReadBench.randomRead", 1.5)));
        return new TargetsOutcomes(Targets.check(summary));
    }

    private record TargetsOutcomes(List<Targets.Outcome> all) {
        Targets.Outcome named(String prefix) {
            return all.stream().filter(o -> o.target().startsWith(prefix)).findFirst().orElseThrow();
        }
    }

    @Test
    void ratioTargetsUseTwoSystemsOfTheSameRun() {
        TargetsOutcomes outcomes = run();
        Targets.Outcome kafka = outcomes.named("append 1 KiB x100 >= 2x Kafka");
        assertEquals("met", kafka.verdict());
        assertTrue(kafka.measured().startsWith("3.00 ± 0.424x"), kafka.measured());
        Targets.Outcome recycled = outcomes.named("append 1 KiB x100 >= 0.8x recycled");
        assertEquals("MISSED", recycled.verdict());
        assertTrue(recycled.measured().startsWith("0.600 ± 0.085x"), recycled.measured());
    }

    @Test
    void absoluteTargetsAndMissingRows() {
        TargetsOutcomes outcomes = run();
        assertEquals("MISSED", outcomes.named("append 100 B x100 >= 10 M").verdict());
        assertEquals("met", outcomes.named("random-offset read median").verdict());
        assertEquals("not measured", outcomes.named("iteration at 100 B").measured());
        assertEquals("not measured", outcomes.named("recovery scan >= 5x Kafka").measured());
    }

    @Test
    void allocationTargetPerSeglogWorkload() {
        TargetsOutcomes outcomes = run();
        assertEquals("met", outcomes.named("0 B/op: Seglog appendAsLeader, append 1KiB x100").verdict());
        assertEquals("MISSED", outcomes.named("0 B/op: Seglog appendAsLeader, append 100B x100").verdict());
        assertTrue(Targets.markdown(outcomes.all()).startsWith("| target | measured (same run) | verdict |\n"));
    }
}
