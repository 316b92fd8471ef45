package io.seglog.replication.tools;

import io.seglog.storage.CorruptLogException;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryReport;
import io.seglog.storage.io.FileIO;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code seglog recover}: the engine's crash recovery of one partition, as an explicit step with a report. */
@Command(name = "recover", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
    header = "Run crash recovery on one partition directory and report what it did.",
    description = "Run the recovery the engine runs after a crash on one partition directory: CRC-check every"
        + " batch, cut a torn tail, rebuild indexes and the leader-epoch cache, remove stray files; then report what"
        + " it did. With --dry-run the directory is opened read-only and the report says what recovery would do."
        + " The partition must not be open in a running broker (its directory lock refuses it).")
final class RecoverCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "PARTITION_DIR", description = "a partition directory, e.g. /var/kafka-logs/orders-0")
    private Path dir;

    @Option(names = "--dry-run", description = "change nothing; report what recovery would do")
    private boolean dryRun;

    @Option(names = "--config", paramLabel = "KEY=VALUE",
        description = "a topic property, by Kafka's name (segment.bytes, ...) or seglog.corruption.policy=fail|truncate")
    private Map<String, String> config = new LinkedHashMap<>();

    @Override
    public Integer call() {
        final PrintWriter out = spec.commandLine().getOut();
        final LogConfig logConfig = LogConfig.fromProperties(config);
        final InstantSource clock = InstantSource.system();
        try (PartitionLog log = dryRun ? PartitionLog.openReadOnly(dir, logConfig, FileIO.system(), clock)
            : PartitionLog.open(dir, logConfig, FileIO.system(), clock)) {
            print(out, log.recoveryReport(), dryRun);
            out.println("log start offset " + log.logStartOffset() + ", log end offset " + log.logEndOffset() + ", "
                + log.segmentCount() + " segment(s)");
            return 0;
        } catch (final CorruptLogException e) {
            out.println("refused: " + e.getMessage());
            return SeglogCommand.PROBLEMS;
        }
    }

    static void print(final PrintWriter out, final RecoveryReport report, final boolean dryRun) {
        out.println((dryRun ? "would scan " : "scanned ") + report.segmentsScanned() + " segment(s), "
            + report.bytesScanned() + " bytes");
        for (final RecoveryReport.Truncation t : report.truncations()) {
            out.println((dryRun ? "would truncate " : "truncated ") + t.file() + " at position " + t.position()
                + " (offset " + t.offset() + "): " + t.bytesDropped() + " bytes, " + t.reason() + ": " + t.detail());
        }
        report.deletedSegments().forEach(p -> out.println((dryRun ? "would delete " : "deleted ") + p
            + " (after a truncated segment)"));
        for (final RecoveryReport.Loss loss : report.losses()) {
            out.println("lost offsets " + loss.fromOffset() + " to " + (loss.toOffset() - 1) + " (" + loss.field()
                + ", witness " + loss.witness() + "): " + loss.detail());
        }
        report.rebuiltIndexes().forEach(p -> out.println((dryRun ? "would rebuild the indexes of "
            : "rebuilt the indexes of ") + p));
        report.removedFiles().forEach(p -> out.println("removed " + p));
        if (report.epochsRebuilt()) {
            out.println((dryRun ? "would rebuild" : "rebuilt") + " the leader-epoch cache from the batches");
        }
        if (!report.droppedData()) {
            out.println(dryRun ? "no data would be dropped" : "no data dropped");
        }
    }
}
