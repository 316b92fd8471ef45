package io.seglog.bench.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * A three-broker cluster of either system with every node in a JVM of its own, as real clusters run: Seglog's three
 * {@code SeglogBrokerMain} processes beside a ZooKeeper process, or Kafka's three broker processes beside a dedicated
 * KRaft controller process ({@link KafkaNodeMain}). Each process gets the JVM flags its system's start scripts use
 * ({@link Setup}) and the broker settings of the run's configuration; each prints {@code READY} when it serves, and
 * is stopped with SIGTERM (its own shutdown hook), then killed if it lingers.
 *
 * <p>The clients (and the topics they create) live in another process; this class only runs the nodes.
 *
 * <p>Not thread-safe.
 */
final class ProcessCluster implements AutoCloseable {
    private static final long READY_TIMEOUT_MS = 120_000;

    private final String system;
    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> brokerPorts = new ArrayList<>();
    private final List<String> extraBrokerJvm;
    /** Stops the nodes if this JVM is stopped (SIGTERM, Ctrl-C) before {@link #close}. */
    private final Thread stopOnExit = new Thread(this::stopAll, "process-cluster-stop");

    /**
     * Starts the cluster and returns once every node serves.
     *
     * @param system         {@code Seglog} or {@code Kafka}
     * @param setup          the run's configuration
     * @param extraBrokerJvm more arguments for every broker's JVM
     * @param dir            the nodes' directories, configuration files and logs
     * @throws IllegalStateException when a node exits or is not ready within two minutes (its log's tail attached)
     */
    ProcessCluster(final String system, final Setup setup, final List<String> extraBrokerJvm, final Path dir) {
        this.system = system;
        this.dir = dir;
        this.extraBrokerJvm = List.copyOf(extraBrokerJvm);
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try {
            Files.createDirectories(dir);
            final Map<String, Setup.Setting> settings = setup.brokerSettings(system);
            if ("Kafka".equals(system)) {
                startKafka(settings);
            } else {
                startSeglog(settings);
            }
        } catch (final Exception e) {
            close();
            throw new IllegalStateException(system + " cluster did not start under " + dir, e);
        }
    }

    private void startSeglog(final Map<String, Setup.Setting> settings) throws IOException {
        final int zkPort = freePort();
        start("zookeeper", Setup.coordinationJvm(system), "io.seglog.replication.broker.SeglogBrokerMain",
            List.of("--zookeeper", dir.resolve("zookeeper").toString(), Integer.toString(zkPort)));
        final List<String> brokers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            final int port = freePort();
            final StringBuilder props = new StringBuilder()
                .append("broker.id=").append(id).append('\n')
                .append("listeners=PLAINTEXT://127.0.0.1:").append(port).append('\n')
                .append("log.dirs=").append(dir.resolve("broker-" + id)).append('\n')
                .append("zookeeper.connect=127.0.0.1:").append(zkPort).append('\n');
            settings.forEach((k, v) -> props.append(k).append('=').append(v.value()).append('\n'));
            final Path file = dir.resolve("broker-" + id + ".properties");
            Files.writeString(file, props, StandardCharsets.UTF_8);
            brokers.add(file.toString());
            brokerPorts.add(port);
        }
        startBrokers("io.seglog.replication.broker.SeglogBrokerMain", brokers.stream().map(List::of).toList());
    }

    private void startKafka(final Map<String, Setup.Setting> settings) throws IOException {
        final String clusterId = Uuid.randomUuid().toString();
        final int controllerPort = freePort();
        final String voters = "4@127.0.0.1:" + controllerPort;
        final String common = "controller.quorum.voters=" + voters + "\ncontroller.listener.names=CONTROLLER\n"
            + "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n";
        final Path controller = dir.resolve("controller.properties");
        Files.writeString(controller, "process.roles=controller\nnode.id=4\nlisteners=CONTROLLER://127.0.0.1:"
            + controllerPort + "\nlog.dirs=" + dir.resolve("controller") + "\n" + common, StandardCharsets.UTF_8);
        start("controller", Setup.coordinationJvm(system), KafkaNodeMain.class.getName(),
            List.of(controller.toString(), clusterId));
        final List<List<String>> brokers = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            final int port = freePort();
            final StringBuilder props = new StringBuilder("process.roles=broker\nnode.id=" + id
                + "\nlisteners=PLAINTEXT://127.0.0.1:" + port + "\nlog.dirs=" + dir.resolve("broker-" + id) + "\n"
                + common);
            settings.forEach((k, v) -> props.append(k).append('=').append(v.value()).append('\n'));
            final Path file = dir.resolve("broker-" + id + ".properties");
            Files.writeString(file, props, StandardCharsets.UTF_8);
            brokerPorts.add(port);
            brokers.add(List.of(file.toString(), clusterId));
        }
        startBrokers(KafkaNodeMain.class.getName(), brokers);
    }

    /** The flags of a broker's JVM; {@code {node}} in an extra flag becomes the node's name, e.g. {@code broker-2}. */
    private List<String> brokerJvm(final String node) {
        final List<String> flags = new ArrayList<>(Setup.brokerJvm(system));
        extraBrokerJvm.forEach(f -> flags.add(f.replace("{node}", node)));
        return flags;
    }

    /** Starts a node in its own JVM and waits for its READY line. */
    private void start(final String name, final List<String> jvm, final String mainClass, final List<String> args)
        throws IOException {
        awaitReady(name, launch(name, jvm, mainClass, args));
    }

    /** Starts a node in its own JVM, its output to {@code NAME.log}. */
    private Process launch(final String name, final List<String> jvm, final String mainClass,
                           final List<String> args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvm);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        final Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    /** Waits for a node's READY line; a node that exits or is not ready within two minutes fails the start. */
    private void awaitReady(final String name, final Process p) throws IOException {
        final Path log = dir.resolve(name + ".log");
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        while (!ready(log)) {
            if (!p.isAlive()) {
                throw new IllegalStateException(system + " " + name + " exited with " + p.exitValue() + ": "
                    + tail(log));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(system + " " + name + " not ready within " + READY_TIMEOUT_MS + " ms: "
                    + tail(log));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Starts the three brokers together and waits for all of them. */
    private void startBrokers(final String mainClass, final List<List<String>> brokerArgs) throws IOException {
        final List<Process> started = new ArrayList<>();
        for (int id = 1; id <= brokerArgs.size(); id++) {
            started.add(launch("broker-" + id, brokerJvm("broker-" + id), mainClass, brokerArgs.get(id - 1)));
        }
        for (int id = 1; id <= brokerArgs.size(); id++) {
            awaitReady("broker-" + id, started.get(id - 1));
        }
    }

    private static boolean ready(final Path log) throws IOException {
        return Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).lines()
            .anyMatch(l -> l.startsWith("READY"));
    }

    private static String tail(final Path log) {
        try {
            final List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (final IOException e) {
            return e.toString();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    /** @return the process ids of every node: the coordination process, then the brokers */
    List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
    }

    /** @return {@code host:port,...} of every broker */
    String bootstrap() {
        return brokerPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** Stops the brokers (SIGTERM: each system's own shutdown), then the coordination node; kills what lingers. */
    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (final IllegalStateException e) {
            // Already shutting down: the hook runs stopAll again, which finds nothing left.
        }
    }

    private synchronized void stopAll() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            final Process p = processes.get(i);
            p.destroy();
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        processes.clear();
    }
}
