package io.seglog.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summariser on a checked-in JMH JSON sample (a real short run of five benchmarks with {@code -prof gc}):
 * append (ops = records), Chronicle (no batch parameter), a read with AuxCounters, and a sample-mode latency.
 */
class SummaryTest {

    private static final double KAFKA_LEADER_OPS = 459278.6906580242;
    private static final double RAW_FRESH_OPS = 11096591.825445974;
    private static final double RAW_FRESH_ERROR = 54562969.12392715;
    private static final double CHRONICLE_OPS = 238248.78273117184;
    private static final double TRANSFER_TO_RECORDS = 25256741.112035632;
    private static final String APPEND = "append 100B x100";
    private static final String RAW = "raw FileChannel.write, fresh file";

    @TempDir
    Path tmp;

    private static Path sample() throws URISyntaxException {
        return Paths.get(SummaryTest.class.getResource("/jmh-sample.json").toURI());
    }

    @Test
    void readsEveryResultOfTheSample() throws Exception {
        List<BenchResult> results = BenchResult.read(sample());
        assertEquals(5, results.size());
        BenchResult latency = results.get(4);
        assertEquals("KafkaReadBench.randomRead", latency.shortName());
        assertEquals("sample", latency.mode());
        assertEquals("100", latency.params().get("valueSize"));
        assertEquals(17.056, latency.primary().percentiles().get(50.0), 1e-9);
        assertEquals("us/op", latency.primary().unit());
    }

    @Test
    void appendThroughputIsRecordsPerSecondAndPayloadMegabytes() throws Exception {
        Summary summary = Summary.of(BenchResult.read(sample()));
        SummaryRow records = summary.find(APPEND, RAW, "Mrec/s");
        assertNotNull(records);
        assertEquals(RAW_FRESH_OPS / 1e6, records.value(), 1e-9);
        assertEquals(RAW_FRESH_ERROR / 1e6, records.error(), 1e-9);
        assertEquals(RAW_FRESH_OPS * 100 / 1e6, summary.find(APPEND, RAW, "MB/s").value(), 1e-6);
        assertEquals(0.004126789921512004, summary.find(APPEND, RAW, "B/op").value(), 1e-12);
    }

    @Test
    void ratiosAreAgainstTheBaselineOfTheSameRun() throws Exception {
        Summary summary = Summary.of(BenchResult.read(sample()));
        assertEquals(RAW, summary.baselines().get(APPEND));
        assertEquals(1.0, summary.find(APPEND, RAW, "x baseline").value(), 1e-12);
        assertTrue(Double.isNaN(summary.find(APPEND, RAW, "x baseline").error()), "the baseline's ratio has no error");
        SummaryRow kafka = summary.find(APPEND, "Kafka UnifiedLog.appendAsLeader", "x baseline");
        assertEquals(KAFKA_LEADER_OPS / RAW_FRESH_OPS, kafka.value(), 1e-12);
        assertTrue(kafka.error() > 0, "error propagated from both scores: " + kafka);
    }

    @Test
    void chronicleWithoutBatchesJoinsTheAppendWorkloadOfItsValueSize() throws Exception {
        Summary summary = Summary.of(BenchResult.read(sample()));
        SummaryRow chronicle = summary.find(APPEND, "Chronicle Queue, per message", "Mrec/s");
        assertNotNull(chronicle);
        assertEquals(CHRONICLE_OPS / 1e6, chronicle.value(), 1e-12);
    }

    @Test
    void readThroughputComesFromTheRecordsCounter() throws Exception {
        Summary summary = Summary.of(BenchResult.read(sample()));
        SummaryRow row = summary.find("fetch transferTo 100B x100", Catalog.RAW_TRANSFER_TO, "Mrec/s");
        assertEquals(TRANSFER_TO_RECORDS / 1e6, row.value(), 1e-9);
    }

    @Test
    void latencyHasMedianAndMean() throws Exception {
        Summary summary = Summary.of(BenchResult.read(sample()));
        String workload = "random-offset read 100B x100";
        assertEquals(17.056, summary.find(workload, "Kafka UnifiedLog.read", "p50 us/op").value(), 1e-9);
        assertEquals(373.0775805739514, summary.find(workload, "Kafka UnifiedLog.read", "us/op").value(), 1e-9);
        assertEquals("p50 us/op", summary.headlineMetric(workload));
        assertNull(summary.find(workload, "Kafka UnifiedLog.read", "Mrec/s"));
    }

    @Test
    void aQuickRunIsMarkedWritesItsOwnFilesAndJudgesNoTarget() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        SummaryFiles.write(sample(), tmp, new PrintStream(printed, true, StandardCharsets.UTF_8), true);
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains(SummaryFiles.QUICK_WARNING) && text.contains("Targets: not judged"), text);
        assertFalse(text.contains("Targets (issue 4)") || text.contains("| verdict |"), text);
        for (String full : List.of(SummaryFiles.CSV, SummaryFiles.MARKDOWN, SummaryFiles.PNG, SummaryFiles.TARGETS)) {
            assertFalse(Files.exists(tmp.resolve(full)), "a quick run never writes a full run's " + full);
        }
        assertTrue(Files.readString(tmp.resolve("bench-quick-summary.md")).startsWith(SummaryFiles.QUICK_WARNING));
        assertTrue(Files.size(tmp.resolve("bench-quick-summary.csv")) > 0);
        assertTrue(Files.size(tmp.resolve("bench-quick-summary.png")) > 1000);
        assertEquals("bench-quick-results.json", SummaryFiles.named("bench-results.json", true));
        assertEquals("bench-results.json", SummaryFiles.named("bench-results.json", false));
    }

    @Test
    void writesCsvTableAndNonEmptyPng() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Summary summary = SummaryFiles.write(sample(), tmp, new PrintStream(printed, true, StandardCharsets.UTF_8));

        List<String> csv = Files.readAllLines(tmp.resolve(SummaryFiles.CSV));
        assertEquals("workload,system,metric,value,error,unit", csv.get(0));
        assertEquals(summary.rows().size() + 1, csv.size());
        assertTrue(csv.contains("append 100B x100,\"raw FileChannel.write, fresh file\",Mrec/s,11.0966,54.5630,1e6 records/s"),
            String.join("\n", csv));
        assertTrue(csv.contains("random-offset read 100B x100,Kafka UnifiedLog.read,p50 us/op,17.0560,,us/op"),
            String.join("\n", csv));

        String table = printed.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("== append 100B x100 (baseline: raw FileChannel.write, fresh file)"), table);
        assertTrue(table.contains("Kafka UnifiedLog.appendAsLeader"), table);
        assertTrue(Files.readString(tmp.resolve(SummaryFiles.MARKDOWN)).contains("| system | Mrec/s |"));

        Path png = tmp.resolve(SummaryFiles.PNG);
        assertTrue(Files.size(png) > 1000, "png bytes " + Files.size(png));
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "a readable PNG");
        assertTrue(image.getWidth() > 0 && image.getHeight() > 0);
    }

    @Test
    void rejectsAFileThatIsNotJmhJson() throws IOException {
        Path bogus = tmp.resolve("bogus.json");
        Files.writeString(bogus, "{\"benchmark\": 1}");
        IOException e = assertThrows(IOException.class, () -> BenchResult.read(bogus));
        assertTrue(e.getMessage().contains("bogus.json"), e.getMessage());
    }

    /**
     * A real run of the random-read latency benchmarks (sample mode, {@code -prof gc}) with their allocation twins
     * (average time, the worker thread's own allocation counter): B/op comes from the thread counter, as the mean and
     * 99.9% half-width over the iterations, and the {@code -prof gc} figures stay beside it.
     */
    @Test
    void allocationOfALatencyCallComesFromTheThreadCounterWithGcBeside() throws Exception {
        Path sample = Paths.get(SummaryTest.class.getResource("/jmh-sample-allocation.json").toURI());
        Summary summary = Summary.of(BenchResult.read(sample));
        String workload = "random-offset read 100B x100";
        String seglog = "Seglog PartitionLog.read";
        String kafka = "Kafka UnifiedLog.read";
        assertEquals(List.of(kafka, seglog), summary.systems(workload), "the allocation twins add no system");
        SummaryRow seglogAlloc = summary.find(workload, seglog, "B/op");
        assertEquals(0.0, seglogAlloc.value(), 0.0, "every iteration counted 0 bytes on the benchmark thread");
        assertEquals(0.0, seglogAlloc.error(), 0.0);
        assertEquals(2.964879278887419, summary.find(workload, seglog, "B/op (-prof gc, all threads)").value(), 1e-9,
            "the sample run's -prof gc figure is kept");
        assertNotNull(summary.find(workload, seglog, "B/op (-prof gc, all threads, avgt allocation run)"));
        double kafkaMean = (1001.3075 + 830.1339054404145 + 791.7464689265537 + 789.5383029513889
            + 789.5267168209876) / 5;
        SummaryRow kafkaAlloc = summary.find(workload, kafka, "B/op");
        assertEquals(kafkaMean, kafkaAlloc.value(), 1e-9, "the mean of the iterations, not JMH's sum of them");
        assertTrue(kafkaAlloc.error() > 0, "an error from the iterations: " + kafkaAlloc);
        assertEquals(1.09, summary.find(workload, seglog, "p50 us/op").value(), 0.01, "latency from the sample run");
        assertTrue(summary.markdown().contains("B/op (-prof gc, all threads)"), summary.markdown());
    }
}
