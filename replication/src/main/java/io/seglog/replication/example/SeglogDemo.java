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
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * The README's main job: Kafka's quickstart on Seglog, in one command that needs no installed service.
 *
 * <ol>
 *   <li>ZooKeeper: an embedded server in this process, or the ensemble given with {@code --zookeeper}.</li>
 *   <li>Three Seglog brokers, each its own process (or, with {@code --in-process}, inside this JVM), a topic with
 *       three replicas, a real {@code KafkaProducer} writing with {@code acks=all}, the partition's leader killed
 *       while it writes, the election (new leader, leader epoch, ISR), a real {@code KafkaConsumer} reading
 *       everything back and the check that no acknowledged record was lost, a consumer group rebalancing when a
 *       second member joins (its committed offsets checked against the end offsets), then a summary (see
 *       {@link Quickstart}).</li>
 *   <li>With {@code --tours}, first the storage core alone ({@link StorageTour}) and a controller failover over three
 *       control-plane brokers ({@link ClusterTour}, in a chroot of its own).</li>
 * </ol>
 *
 * <p>Arguments: see {@link DemoOptions#USAGE}. Without {@code --zookeeper} an embedded ZooKeeper server runs in this
 * process on a loopback ephemeral port, its data in {@code <dir>/zookeeper}. Without {@code --dir} the demo works in a
 * new temporary directory that it deletes at the end unless {@code --keep} is given. Every step has a deadline; the
 * exit code is 0 on success, 1 with a message naming the step on failure, 2 for bad arguments. Needs no JVM flags;
 * broker processes are started with this JVM's {@code java} and class path.
 *
 * <p>Not thread-safe; {@link #run(String[], PrintStream, PrintStream)} may be called by several threads only with
 * different directories and ZooKeeper chroots.
 */
public final class SeglogDemo {
    /** Deadline of each step (an election, a failover, the storage round trip; a process start gets twice this). */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    /** The chroot used on the embedded server, to show that brokers honour one. */
    static final String EMBEDDED_CHROOT = "/seglog";

    /**
     * What one run of the demo saw.
     *
     * @param dir       the demo directory
     * @param zookeeper the connection string the brokers used (with its chroot)
     * @param embedded  whether the demo started its own ZooKeeper server
     * @param storage    what the storage tour saw, when it ran ({@code --tours})
     * @param cluster    what the controller tour saw, when it ran ({@code --tours})
     * @param quickstart what the quickstart saw
     */
    record Result(Path dir, String zookeeper, boolean embedded, Optional<StorageTour.Outcome> storage,
                  Optional<ClusterTour.Outcome> cluster, Quickstart.Outcome quickstart) {
    }

    private SeglogDemo() {
    }

    /**
     * Runs the demo and exits with its exit code when that is not 0 (a successful run simply returns, which
     * shows that it left no thread running).
     *
     * @param args see {@link DemoOptions#USAGE}
     */
    public static void main(final String[] args) {
        // slf4j-simple (on this module's runtime class path only) logs at INFO by default; keep the tour readable:
        // warnings and errors only (a broker's INFO, elections and ISR changes, would bury the tour's own lines).
        // Either property given on the command line wins.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.io.seglog", "warn");
        // The clients warn at every refused connection to the killed broker, which the tour reports itself; the
        // embedded ZooKeeper warns of its defaults. Errors still show.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
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
        out.println("Seglog quickstart in " + dir.toAbsolutePath() + (delete ? " (deleted at the end)" : " (kept)"));
        final long startNs = System.nanoTime();
        Throwable failure = null;
        try {
            final Optional<StorageTour.Outcome> storage = options.tours()
                ? Optional.of(StorageTour.run(dir.resolve("storage"), out, STEP_TIMEOUT)) : Optional.empty();
            final Result result;
            if (options.zookeeperConnect().isPresent()) {
                final String connect = options.zookeeperConnect().get();
                out.println("[zookeeper] using " + connect);
                result = onZooKeeper(options, dir, connect, false, storage, out);
            } else {
                try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"))) {
                    final String connect = zk.connectString() + EMBEDDED_CHROOT;
                    out.println("[zookeeper] embedded server on " + zk.connectString() + ", brokers use chroot "
                        + EMBEDDED_CHROOT + " (no installed service needed)");
                    result = onZooKeeper(options, dir, connect, true, storage, out);
                }
                out.println("[zookeeper] embedded server stopped");
            }
            final Quickstart.Outcome q = result.quickstart();
            out.println("OK in " + (System.nanoTime() - startNs) / 1_000_000_000 + " s: " + q.delivery().acknowledged()
                + " records acknowledged, " + q.delivery().consumed() + " consumed, " + q.delivery().lost()
                + " lost, " + q.delivery().duplicates() + " duplicates; leader " + q.before().leader() + " killed, "
                + "broker " + q.after().leader() + " elected at leader epoch " + q.after().leaderEpoch() + " in "
                + q.reelectionMs() + " ms; group " + q.group().group() + " rebalanced to 2 members at generation "
                + q.group().generation() + result.cluster().map(c -> "; controller tour: " + c.firstController()
                + " -> " + c.secondController() + " (epoch " + c.firstEpoch() + " -> " + c.secondEpoch() + ")")
                .orElse(""));
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

    private static Result onZooKeeper(final DemoOptions options, final Path dir, final String connect,
                                      final boolean embedded, final Optional<StorageTour.Outcome> storage,
                                      final PrintStream out) throws Exception {
        final Optional<ClusterTour.Outcome> cluster = options.tours()
            ? Optional.of(ClusterTour.run(toursChroot(connect), out, STEP_TIMEOUT)) : Optional.empty();
        return new Result(dir, connect, embedded, storage, cluster,
            Quickstart.run(connect, dir.resolve("brokers"), !options.inProcess(), out, STEP_TIMEOUT));
    }

    /** The controller tour's brokers form a cluster of their own: the same servers, another chroot. */
    static String toursChroot(final String connect) {
        final int slash = connect.indexOf('/');
        return slash < 0 ? connect + "/seglog-demo-tours" : connect + "-tours";
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
