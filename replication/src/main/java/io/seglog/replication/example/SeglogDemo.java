package io.seglog.replication.example;

import io.seglog.replication.zk.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * The README's main job: a tour of Seglog in one process.
 *
 * <ol>
 *   <li>Storage: a {@code LogManager} over {@code <dir>/storage}, leader appends of a few record batches, a read by
 *       offset and a lookup by timestamp, {@code awaitDurable} of the last offset, then close and reopen showing
 *       the same log end offset and answers.</li>
 *   <li>Replication control plane: three brokers in this JVM over ZooKeeper, the elected controller and its epoch,
 *       a topic with 3 partitions and replication factor 3 and its leaders and ISRs as ZooKeeper holds them; then
 *       the controller broker is stopped, and a new controller (epoch + 1) gives the partitions new leaders.</li>
 * </ol>
 *
 * <p>Arguments: {@code [--zookeeper host:port[/chroot]] [--dir <path>] [--keep]}. Without {@code --zookeeper} an
 * embedded ZooKeeper server runs in this process on a loopback ephemeral port, its data in {@code <dir>/zookeeper}.
 * Without {@code --dir} the demo works in a new temporary directory that it deletes at the end unless
 * {@code --keep} is given. Every step has a deadline; the exit code is 0 on success, 1 with a message naming the
 * step on failure, 2 for bad arguments. Needs no JVM flags.
 *
 * <p>Not thread-safe; {@link #run(String[], PrintStream, PrintStream)} may be called by several threads only with
 * different directories and ZooKeeper chroots.
 */
public final class SeglogDemo {
    /** Deadline of each step (a broker start, an election, a failover, the storage round trip). */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    /** The chroot used on the embedded server, to show that brokers honour one. */
    static final String EMBEDDED_CHROOT = "/seglog";

    /**
     * What one run of the demo saw.
     *
     * @param dir       the demo directory
     * @param zookeeper the connection string the brokers used (with its chroot)
     * @param embedded  whether the demo started its own ZooKeeper server
     * @param storage   what the storage part saw
     * @param cluster   what the replication part saw
     */
    record Result(Path dir, String zookeeper, boolean embedded, StorageTour.Outcome storage,
                  ClusterTour.Outcome cluster, DataTour.Outcome data) {
    }

    private SeglogDemo() {
    }

    /**
     * Runs the demo and exits with its exit code when that is not 0 (a successful run simply returns, which
     * shows that it left no thread running).
     *
     * @param args {@code [--zookeeper host:port[/chroot]] [--dir <path>] [--keep] [--help]}
     */
    public static void main(final String[] args) {
        // slf4j-simple (on this module's runtime class path only) logs at INFO by default; keep the tour readable:
        // warnings and errors only (a broker's INFO, elections and ISR changes, would bury the tour's own lines).
        // Either property given on the command line wins.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.io.seglog", "warn");
        final int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Runs the demo in this process without exiting: what {@link #main} does, for embedders and tests.
     *
     * @param args the command line
     * @param out  where the tour is printed
     * @param err  where failures and usage are printed
     * @return 0 on success, 1 when a step failed or ran out of time, 2 for bad arguments
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err) {
        final DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (final IllegalArgumentException e) {
            err.println("SeglogDemo: " + e.getMessage());
            err.println(DemoOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(DemoOptions.HELP);
            return 0;
        }
        try {
            execute(options, out);
            return 0;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("SeglogDemo FAILED: interrupted");
            return 1;
        } catch (final Exception | LinkageError e) {
            // A LinkageError here is a class path problem (a missing jar): report it like any failed step.
            final Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            err.println("SeglogDemo FAILED: " + (cause instanceof DemoFailure ? "" : cause.getClass().getSimpleName()
                + ": ") + cause.getMessage());
            if (!(cause instanceof DemoFailure)) {
                cause.printStackTrace(err);
            }
            return 1;
        }
    }

    /**
     * The demo itself.
     *
     * @param options the parsed command line
     * @param out     where the tour is printed
     * @return what it saw
     * @throws Exception naming the step that failed; everything opened is closed first
     */
    static Result execute(final DemoOptions options, final PrintStream out) throws Exception {
        final boolean temporary = options.dir().isEmpty();
        final Path dir = temporary ? Files.createTempDirectory("seglog-demo") : Files.createDirectories(options.dir().get());
        final boolean delete = temporary && !options.keep();
        out.println("Seglog demo in " + dir.toAbsolutePath() + (delete ? " (deleted at the end)" : " (kept)"));
        Throwable failure = null;
        try {
            final StorageTour.Outcome storage = StorageTour.run(dir.resolve("storage"), out, STEP_TIMEOUT);
            final Result result;
            if (options.zookeeperConnect().isPresent()) {
                final String connect = options.zookeeperConnect().get();
                out.println("[zookeeper] using " + connect);
                final ClusterTour.Outcome cluster = ClusterTour.run(connect, out, STEP_TIMEOUT);
                result = new Result(dir, connect, false, storage, cluster,
                    DataTour.run(dataChroot(connect), dir.resolve("data"), out, STEP_TIMEOUT));
            } else {
                try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"))) {
                    final String connect = zk.connectString() + EMBEDDED_CHROOT;
                    out.println("[zookeeper] embedded server on " + zk.connectString() + ", brokers use chroot "
                        + EMBEDDED_CHROOT);
                    final ClusterTour.Outcome cluster = ClusterTour.run(connect, out, STEP_TIMEOUT);
                    result = new Result(dir, connect, true, storage, cluster,
                        DataTour.run(dataChroot(connect), dir.resolve("data"), out, STEP_TIMEOUT));
                }
                out.println("[zookeeper] embedded server stopped");
            }
            final ClusterTour.Outcome c = result.cluster();
            final DataTour.Outcome d = result.data();
            out.println("OK: storage reopened at log end offset " + storage.endAfterReopen() + "; controller moved "
                + c.firstController() + " -> " + c.secondController() + " (epoch " + c.firstEpoch() + " -> "
                + c.secondEpoch() + "); every partition of " + c.topic() + " led by a live broker "
                + c.liveBrokers() + "; " + d.acknowledged() + " records acknowledged across a leader failover ("
                + d.firstLeader() + " -> " + d.secondLeader() + "), every replica at " + d.endOffset());
            return result;
        } catch (final Exception | Error e) {
            failure = e;
            throw e;
        } finally {
            if (delete) {
                try {
                    deleteRecursively(dir);
                } catch (final UncheckedIOException e) {
                    if (failure != null) {
                        failure.addSuppressed(e);
                    } else {
                        throw e;
                    }
                }
            }
        }
    }

    /** The data part's brokers form a cluster of their own: the same servers, another chroot. */
    static String dataChroot(final String connect) {
        final int slash = connect.indexOf('/');
        return slash < 0 ? connect + "/seglog-demo-data" : connect + "-data";
    }

    private static void deleteRecursively(final Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path d, final IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot delete the demo directory " + dir + ": " + e.getMessage(), e);
        }
    }
}
