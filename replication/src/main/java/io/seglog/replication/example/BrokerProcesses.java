package io.seglog.replication.example;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The quickstart's brokers as processes, each its own JVM started as a user would start a broker (a
 * {@code broker-N.properties} and {@link DemoBrokerMain}, i.e. SeglogBrokerMain), logging to {@code broker-N.log}
 * beside its log directory. A kill is SIGKILL: the broker says goodbye to no one, and its leaderships move once its
 * ZooKeeper session expires, as after a crash. {@link #close()} sends SIGTERM, which SeglogBrokerMain answers with a
 * controlled shutdown.
 *
 * <p>Not thread-safe. Starts no thread in this JVM (the JDK's process reaper aside).
 */
final class BrokerProcesses implements QuickstartBrokers {
    /**
     * Small heaps, the serial collector and the client compiler only: three brokers and the demo share a small
     * machine for half a minute, where C2's compile threads would compete with the brokers for the cores.
     */
    private static final List<String> JVM_FLAGS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    private static final String READY = "READY broker";
    private static final int LOG_TAIL_LINES = 20;

    private final Path dir;
    private final String connect;
    private final Map<Integer, Process> running = new TreeMap<>();
    private final Map<Integer, Integer> ports = new TreeMap<>();
    /** Each broker's JMX port, chosen at its first start and kept across restarts. */
    private final Map<Integer, Integer> jmxPorts = new TreeMap<>();
    private final Map<Integer, JMXConnector> jmx = new TreeMap<>();
    /** READY lines a broker's log must show when the current start is ready (the log is appended across restarts). */
    private final Map<Integer, Long> readyLines = new TreeMap<>();

    BrokerProcesses(final Path dir, final String connect) {
        this.dir = dir;
        this.connect = connect;
    }

    @Override
    public void start(final int id) throws IOException {
        final Path props = dir.resolve("broker-" + id + ".properties");
        if (!ports.containsKey(id)) {
            // A broker's first start in this run: a new port, and this run's ZooKeeper (an embedded server has a new
            // port each run), written over what an earlier run in a kept directory left.
            ports.put(id, freePort());
            jmxPorts.put(id, freePort());
            final Map<String, Object> config = QuickstartBrokers.config(id, ports.get(id), dir.resolve("broker-" + id),
                connect);
            Files.createDirectories(dir);
            Files.writeString(props, config.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted()
                .collect(Collectors.joining("\n", "", "\n")), StandardCharsets.UTF_8);
        }
        final Path log = log(id);
        readyLines.put(id, readyCount(log) + 1);
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        // Kafka's JMX_PORT: the platform MBean server, where the broker's metrics are, on a loopback port.
        final int jmxPort = jmxPorts.get(id);
        command.addAll(List.of("-Dcom.sun.management.jmxremote.port=" + jmxPort,
            "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort, "-Dcom.sun.management.jmxremote.host=127.0.0.1",
            "-Djava.rmi.server.hostname=127.0.0.1", "-Dcom.sun.management.jmxremote.authenticate=false",
            "-Dcom.sun.management.jmxremote.ssl=false"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DemoBrokerMain.class.getName());
        command.add(props.toString());
        // Standard input stays a pipe held by this JVM: when it closes, the broker exits (see DemoBrokerMain).
        final Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        running.put(id, p);
    }

    @Override
    public void awaitReady(final int id, final Deadline deadline) throws InterruptedException {
        final Process p = running.get(id);
        final long wanted = readyLines.get(id);
        deadline.await(() -> readyCount(log(id)) >= wanted || !p.isAlive(), () -> "broker " + id + " to print "
            + READY + " in " + log(id) + "; its log ends:\n" + tail(log(id)));
        if (!p.isAlive()) {
            throw new DemoFailure("broker " + id + " (" + where(id) + ") exited with " + p.exitValue()
                + " before it was ready; its log ends:\n" + tail(log(id)));
        }
    }

    @Override
    public Number metric(final int id, final String objectName, final String attribute) throws Exception {
        JMXConnector connector = jmx.get(id);
        if (connector == null) {
            connector = JMXConnectorFactory.connect(new JMXServiceURL(metricsAt(id)));
            jmx.put(id, connector);
        }
        return (Number) connector.getMBeanServerConnection().getAttribute(new ObjectName(objectName), attribute);
    }

    @Override
    public String metricsAt(final int id) {
        return "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPorts.get(id) + "/jmxrmi";
    }

    @Override
    public String kill(final int id, final Deadline deadline) throws InterruptedException {
        closeJmx(id);
        final Process p = running.remove(id);
        final long pid = p.pid();
        p.destroyForcibly(); // SIGKILL on Unix
        if (!p.waitFor(deadline.remainingMs(), TimeUnit.MILLISECONDS)) {
            throw deadline.timeout("broker " + id + " (pid " + pid + ") to die after SIGKILL");
        }
        return "kill -9 of pid " + pid;
    }

    @Override
    public String where(final int id) {
        final Process p = running.get(id);
        return (p == null ? "not running" : "pid " + p.pid()) + ", log " + log(id);
    }

    @Override
    public String bootstrap() {
        return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /**
     * SIGTERM to every broker at once (each moves what leaderships it can, then closes), then waits for each; a
     * broker still alive after SeglogBrokerMain's own limit for a controlled shutdown is killed.
     */
    private void closeJmx(final int id) {
        final JMXConnector connector = jmx.remove(id);
        if (connector != null) {
            try {
                connector.close();
            } catch (final IOException e) {
                // The broker is going away: nothing to read any more.
            }
        }
    }

    @Override
    public void close() {
        List.copyOf(jmx.keySet()).forEach(this::closeJmx);
        final List<Process> all = new ArrayList<>(running.values());
        running.clear();
        all.forEach(Process::destroy);
        boolean interrupted = false;
        for (final Process p : all) {
            try {
                if (!p.waitFor(40, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (final InterruptedException e) {
                interrupted = true;
                p.destroyForcibly();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private Path log(final int id) {
        return dir.resolve("broker-" + id + ".log");
    }

    private static long readyCount(final Path log) {
        try {
            // ISO-8859-1 decodes any byte: a line half written in UTF-8 cannot make the count fail.
            return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream()
                .filter(l -> l.startsWith(READY)).count() : 0;
        } catch (final IOException | UncheckedIOException e) {
            return 0; // being written: the next poll reads it
        }
    }

    private static String tail(final Path log) {
        try {
            final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (final IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** A port free now; the broker binds it a moment later (a rare clash fails the start, naming the broker). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
