package io.seglog.replication.tools;

import io.seglog.storage.inspect.LogDump;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code seglog dump-log}: a log directory's files in the shape of Kafka's {@code kafka-dump-log}. */
@Command(name = "dump-log", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
    header = "Print a log directory's files as kafka-dump-log does.",
    description = "Print segments (.log), indexes (.index, .timeindex, .txnindex), producer snapshots (.snapshot), the"
        + " leader-epoch checkpoint and partition.metadata, line for line as kafka-dump-log prints them. A directory"
        + " argument dumps each file it holds that this tool reads, in name order.")
final class DumpLogCommand implements Callable<Integer> {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE_OR_DIR", description = "files, or partition directories")
    private List<Path> files;

    @Option(names = "--deep-iteration", description = "print every record of each batch")
    private boolean deepIteration;

    @Option(names = {"--print-data", "--print-data-log"},
        description = "print each record's key and value too (implies --deep-iteration)")
    private boolean printData;

    @Option(names = "--decoder", defaultValue = "STRING",
        description = "how keys and values are printed: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    private LogDump.Decoder decoder;

    @Option(names = "--max-batch-bytes", defaultValue = "67108864",
        description = "the largest batch read whole for its records (default: ${DEFAULT-VALUE})")
    private int maxBatchBytes;

    @Override
    public Integer call() {
        final boolean clean = LogDump.dump(files, new LogDump.Options(deepIteration, printData, decoder,
            maxBatchBytes), spec.commandLine().getOut(), spec.commandLine().getErr());
        return clean ? 0 : SeglogCommand.PROBLEMS;
    }
}
