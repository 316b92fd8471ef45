package io.seglog.replication.tools;

import io.seglog.storage.inspect.LogVerifier;
import io.seglog.storage.inspect.Problem;
import io.seglog.storage.inspect.VerifyReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code seglog verify}: checks a log directory without changing a byte. */
@Command(name = "verify", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
    header = "Check every batch, index entry and checkpoint of a log directory, read-only.",
    description = "Check every batch (framing, magic, CRC-32C, offsets), every index and time-index entry, the"
        + " leader-epoch checkpoint, producer snapshots and the log directory's checkpoints of a log directory or a"
        + " partition directory. Every file is opened read-only, so it may run beside a live broker (whose active"
        + " segments it reads as being written). One line per problem naming file, position and offset; exit code 0"
        + " when healthy, 1 when a problem was found.")
final class VerifyCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "a log directory or a partition directory")
    private Path dir;

    @Option(names = {"-q", "--quiet"}, description = "no progress lines (they go to standard error)")
    private boolean quiet;

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final VerifyReport report = LogVerifier.verify(dir, line -> {
            if (!quiet) {
                err.println(line);
            }
        });
        for (final Problem p : report.problems()) {
            out.println(p);
        }
        out.println((report.healthy() ? "OK: " : report.problems().size() + " problem(s): ") + report.partitions()
            + " partition(s), " + report.segments() + " segment(s), " + report.batches() + " batch(es), "
            + report.bytes() + " bytes checked");
        return report.healthy() ? 0 : SeglogCommand.PROBLEMS;
    }
}
