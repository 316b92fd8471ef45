package io.seglog.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke of the cluster harness: a quick run (300 ms phases, one run, one failover trial) over three in-process
 * brokers must produce every row with a finite, positive value, and write its files under the quick-run names. Not a
 * measurement.
 */
class ClusterBenchSmokeIT {
    @TempDir
    Path out;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void quickRunProducesEveryFigure() throws Exception {
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final List<ClusterBench.Row> rows = ClusterBench.run(out, true, 300, 1, 1,
            new PrintStream(progress, true, StandardCharsets.UTF_8));
        final Set<String> workloads = new TreeSet<>();
        for (final ClusterBench.Row r : rows) {
            workloads.add(r.workload());
            assertTrue(Double.isFinite(r.value()) && r.value() > 0, r + "\n" + progress);
        }
        for (final ClusterBench.Workload w : ClusterBench.WORKLOADS) {
            for (final int size : ClusterBench.RECORD_BYTES) {
                assertTrue(workloads.contains(w.name() + " " + size + " B"), w.name() + " " + size + " B missing");
            }
        }
        assertTrue(workloads.contains("failover RF=3 acks=all"), "failover missing: " + workloads);
        final List<String> csv = Files.readAllLines(out.resolve("cluster-quick-summary.csv"));
        assertEquals("workload,system,metric,value,error,unit", csv.get(0));
        assertEquals(rows.size() + 1, csv.size());
        assertTrue(Files.readString(out.resolve("cluster-quick-summary.md")).startsWith("# QUICK RUN"));
    }
}
