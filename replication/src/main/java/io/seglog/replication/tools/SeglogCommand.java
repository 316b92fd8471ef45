package io.seglog.replication.tools;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The {@code seglog} command line: what an operator of a Kafka broker reaches for, for Seglog's log directories and
 * clusters. {@code dump-log} prints a log directory's files as Kafka's {@code kafka-dump-log} does; {@code verify}
 * checks every batch, index entry and checkpoint without writing; {@code recover} runs the engine's recovery as an
 * explicit step with a report ({@code --dry-run} opens read-only); {@code zk} shows the cluster's state from Kafka's
 * ZooKeeper layout. Every subcommand has {@code --help}.
 *
 * <p>Exit codes: 0 success (and, for {@code verify}, a healthy directory), 1 problems found or data refused, 2 a usage
 * error or a failure to run.
 */
@Command(name = "seglog", mixinStandardHelpOptions = true, versionProvider = SeglogCommand.Version.class,
    usageHelpAutoWidth = true,
    description = "Inspect and repair Seglog (and Kafka) log directories and look at a cluster's ZooKeeper state.",
    subcommands = {DumpLogCommand.class, VerifyCommand.class, RecoverCommand.class, ZkCommand.class,
        HelpCommand.class})
public final class SeglogCommand implements Runnable {
    /** Exit code of a run that found problems (or whose data recovery refused). */
    public static final int PROBLEMS = 1;
    /** Exit code of a usage error or a run that could not be carried out. */
    public static final int FAILED = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(final String[] args) {
        // A tool's output is its results: the libraries' INFO lines (ZooKeeper's client) only when asked for.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        // ZooKeeper's client logs a WARN with a stack trace at every reconnect attempt: zk says in one line instead.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.curator", "error");
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs the command line with these streams, for embedding and tests.
     *
     * @param args the arguments
     * @param out  where results go
     * @param err  where progress, errors and usage go
     * @return the exit code
     */
    public static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
        final CommandLine line = new CommandLine(new SeglogCommand());
        line.setOut(out);
        line.setErr(err);
        line.setExitCodeExceptionMapper(e -> FAILED);
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + e.getMessage());
            return FAILED;
        });
        final int code = line.execute(args);
        out.flush();
        err.flush();
        return code == CommandLine.ExitCode.USAGE ? FAILED : code;
    }

    /** Without a subcommand: the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getErr());
    }

    /** The version the build stamped into {@code version.properties} (Maven resource filtering). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws java.io.IOException {
            final java.util.Properties p = new java.util.Properties();
            try (java.io.InputStream in = SeglogCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {"seglog " + p.getProperty("version", "(version unknown: built without Maven)"),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
