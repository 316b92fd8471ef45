package io.seglog.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke of the versus-Kafka comparison: a quick run of one workload (RF=3 acks=all, 100 B: replication, the
 * consumer and both clusters' start-up are all exercised) starts each system's cluster as four processes (three
 * brokers and ZooKeeper or a KRaft controller) and a client process against it, and must give every metric a finite,
 * positive value for both systems and their ratio, print the configuration with its reasons, and write the three
 * files under the quick-run names. The full workload list is the same code path with more iterations. Not a measurement.
 */
class VersusKafkaBenchSmokeIT {
    private static final String WORKLOAD = "RF=3 acks=all 100 B";

    @TempDir
    Path out;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void quickRunMeasuresBothSystems() throws Exception {
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();
        final VersusKafkaBench.Options options = VersusKafkaBench.Options.parse(new String[] {
            "--quick", "--out", out.toString(), "--workload", WORKLOAD});
        final List<VersusReport> reports = VersusKafkaBench.run(options, new PrintStream(progress, true,
            StandardCharsets.UTF_8));
        assertEquals(1, reports.size());
        final VersusReport report = reports.get(0);

        final List<String> metrics = List.of(VersusReport.REC_PER_S, VersusReport.MB_PER_S,
            VersusReport.REPLICATED_MB_PER_S, "produce p50", "produce p99", "produce p99.9", "e2e p50", "e2e p99",
            "e2e p99.9", VersusReport.CLUSTER_CPU_PER_MB, VersusReport.CLIENT_CPU_PER_MB, VersusReport.CLUSTER_CPU_PACED);
        for (final String metric : metrics) {
            for (final String system : List.of("Seglog", "Kafka", VersusReport.RATIO)) {
                final VersusReport.Row row = report.find(WORKLOAD, system, metric);
                assertNotNull(row, system + " " + metric + " missing\n" + progress);
                assertTrue(Double.isFinite(row.value()) && row.value() > 0, row + "\n" + progress);
                assertEquals(1, row.runs(), row.toString());
            }
        }
        for (final String system : List.of("Seglog", "Kafka")) {
            final VersusReport.Row catchUp = report.find(WORKLOAD, system, VersusReport.CATCH_UP);
            assertNotNull(catchUp, system + " catch-up missing");
            assertTrue(Double.isFinite(catchUp.value()) && catchUp.value() >= 0, catchUp.toString());
        }
        assertEquals(metrics.size() * 3 + 2, report.rows().size(), "rows: " + report.rows());
        assertEquals("one run", report.verdict(WORKLOAD));
        final String base = "versus-kafka-quick-autotuned-defaults";
        final List<String> csv = Files.readAllLines(out.resolve(base + ".csv"));
        assertEquals("workload,system,metric,value,low,high,unit", csv.get(0));
        assertEquals(report.rows().size() + 1, csv.size());
        final String md = Files.readString(out.resolve(base + ".md"));
        assertTrue(md.startsWith("# QUICK RUN"), md);
        // The configuration is printed with its reasons, for both systems and the clients.
        for (final String line : List.of("socket.send.buffer.bytes=-1", "Kafka brokers (one JVM each): -Xmx1G -Xms1G",
            "-XX:MaxGCPauseMillis=20", "num.io.threads=8  (Kafka's default)", "clients (one JVM, both systems)")) {
            assertTrue(md.contains(line), line + " missing from\n" + md);
            assertTrue(progress.toString(StandardCharsets.UTF_8).contains(line), line + " not printed");
        }
        assertTrue(Files.size(out.resolve(base + ".png")) > 0, "empty chart");
    }
}
