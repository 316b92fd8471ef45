package io.seglog.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The comparison's statistics against values worked by hand: the 95% t-interval of a mean, the geometric mean of
 * same-run ratios with its interval, and the verdict judged on the whole interval.
 */
class VersusReportTest {
    private static final String W = "RF=3 acks=all 100 B";

    private static VersusReport report(final double[] seglog, final double[] kafka, final double[] seglogP99,
                                       final double[] kafkaP99) {
        final VersusReport r = new VersusReport(VersusKafkaBench.Options.parse(new String[0]),
            VersusKafkaBench.ALL_SETUPS.get(0));
        for (int run = 0; run < seglog.length; run++) {
            r.add(run + 1, "Seglog", List.of(VersusReport.raw(W, VersusReport.REPLICATED_MB_PER_S, seglog[run]),
                VersusReport.raw(W, "produce p99", seglogP99[run])));
            r.add(run + 1, "Kafka", List.of(VersusReport.raw(W, VersusReport.REPLICATED_MB_PER_S, kafka[run]),
                VersusReport.raw(W, "produce p99", kafkaP99[run])));
        }
        return r;
    }

    @Test
    void meanCarriesItsStudentTInterval() {
        // 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302653; half-width 4.302653 / sqrt(3) = 2.484138.
        final VersusReport.Row row = VersusReport.mean(W, "Seglog", "MB/s", new double[] {1, 2, 3}, "MB/s");
        assertEquals(2.0, row.value(), 1e-12);
        assertEquals(2.0 - 2.484138, row.low(), 1e-5);
        assertEquals(2.0 + 2.484138, row.high(), 1e-5);
        assertEquals(3, row.runs());
        // Five runs: t(0.975, 4) = 2.776445.
        final double[] five = {10, 12, 11, 13, 9};
        assertEquals(2.776445 * Math.sqrt(2.5) / Math.sqrt(5), VersusReport.halfWidth(five), 1e-5);
        // One run: no interval.
        assertTrue(Double.isNaN(VersusReport.mean(W, "Kafka", "MB/s", new double[] {5}, "MB/s").low()));
    }

    @Test
    void ratiosAverageGeometricallyWithinRuns() {
        // Run ratios 2 and 0.5 average to 1, not 1.25.
        final VersusReport r = report(new double[] {200, 50}, new double[] {100, 100}, new double[] {1, 1},
            new double[] {1, 1});
        final VersusReport.Row ratio = r.find(W, VersusReport.RATIO, VersusReport.REPLICATED_MB_PER_S);
        assertEquals(1.0, ratio.value(), 1e-12);
        // logs +-ln 2: s = ln 2 * sqrt(2), t(0.975, 1) = 12.7062; half-width 12.7062 * ln 2.
        assertEquals(Math.exp(-12.7062047 * Math.log(2)), ratio.low(), 1e-6);
        final double high = Math.exp(12.7062047 * Math.log(2));
        assertEquals(high, ratio.high(), high * 1e-6);
        assertEquals("undecided", r.verdict(W));
    }

    @Test
    void targetIsJudgedOnTheWholeInterval() {
        // Throughput ratios 1.9, 2.0, 2.1 (lower bound above 1.5) and p99 ratios all 0.5: met.
        assertEquals("met", report(new double[] {190, 200, 210}, new double[] {100, 100, 100},
            new double[] {50, 50, 50}, new double[] {100, 100, 100}).verdict(W));
        // Mean ratio 1.6 but spread 1.2..2.0: the interval reaches below 1.5, so undecided, not met.
        assertEquals("undecided", report(new double[] {120, 160, 200}, new double[] {100, 100, 100},
            new double[] {50, 50, 50}, new double[] {100, 100, 100}).verdict(W));
        // Throughput ratios 1.1..1.3, the whole interval below 1.5: missed.
        assertEquals("missed", report(new double[] {110, 120, 130}, new double[] {100, 100, 100},
            new double[] {50, 50, 50}, new double[] {100, 100, 100}).verdict(W));
        // Throughput met, but p99 ratio 2 in every run: missed.
        assertEquals("missed", report(new double[] {190, 200, 210}, new double[] {100, 100, 100},
            new double[] {200, 200, 200}, new double[] {100, 100, 100}).verdict(W));
    }
}
