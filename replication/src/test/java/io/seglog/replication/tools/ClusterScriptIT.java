package io.seglog.replication.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/seglog-cluster.sh} as a user runs it: {@code --help} documents every option, an unknown option or command
 * is refused (a typo in {@code --base-port} must not start on 9092, {@code stop --dri} must not stop the default
 * directory), {@code status} says what it found and exits by it, and a one-broker cluster starts on the ports asked
 * for, takes a topic and stops.
 */
@Timeout(300)
class ClusterScriptIT {
    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).getParent().resolve(
        "bin/seglog-cluster.sh");

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run script(final String... args) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).start();
        final byte[] out = p.getInputStream().readAllBytes();
        final byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), String.join(" ", args));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void helpListsEveryOptionAndUnknownOnesAreRefusedBeforeAnythingStarts() throws Exception {
        final Run help = script("--help");
        assertEquals(0, help.code());
        for (final String option : List.of("--dir", "--brokers", "--zookeeper ", "--zookeeper-port", "--base-port",
            "--jmx-base-port", "start", "create-topic", "status", "stop")) {
            assertTrue(help.out().contains(option), option + " in:\n" + help.out());
        }
        for (final String[] wrong : List.of(new String[] {"start", "--dir", dir.toString(), "--bse-port", "9000"},
            new String[] {"stop", "--dri", dir.toString()}, new String[] {"start", "--brokers", "three"},
            new String[] {"start", "--base-port"}, new String[] {"restart"}, new String[] {"status", "extra"})) {
            final Run run = script(wrong);
            assertEquals(2, run.code(), String.join(" ", wrong) + ": " + run.err());
            assertTrue(run.err().startsWith("seglog-cluster: "), run.err());
            assertTrue(run.err().contains("--help"), run.err());
        }
        assertTrue(Files.notExists(dir.resolve("zookeeper.pid")), "nothing started");
    }

    @Test
    void statusSaysWhatItFoundAndAOneBrokerClusterStartsOnTheAskedPortsAndStops() throws Exception {
        final Path cluster = dir.resolve("cluster");
        final Run none = script("status", "--dir", cluster.toString());
        assertEquals(3, none.code(), none.out());
        assertTrue(none.out().startsWith("no cluster in " + cluster), none.out());

        final int zkPort = freePort();
        final int brokerPort = freePort();
        final int jmxPort = freePort();
        final String[] where = {"--dir", cluster.toString(), "--brokers", "1", "--zookeeper-port",
            Integer.toString(zkPort), "--base-port", Integer.toString(brokerPort), "--jmx-base-port",
            Integer.toString(jmxPort)};
        try {
            final Run start = script(concat(new String[] {"start"}, where));
            assertEquals(0, start.code(), start.out() + start.err());
            assertTrue(start.out().contains("bootstrap.servers=127.0.0.1:" + brokerPort), start.out());
            final Run status = script("status", "--dir", cluster.toString());
            assertEquals(0, status.code(), status.out());
            assertTrue(status.out().contains("zookeeper running (pid "), status.out());
            assertTrue(status.out().contains("broker-1 running (pid ") && status.out().contains(" on 127.0.0.1:"
                + brokerPort), status.out());
            assertTrue(status.out().contains("2 of 2 processes running"), status.out());
            final Run topic = script("create-topic", "orders", "2", "1", "--dir", cluster.toString());
            assertEquals(0, topic.code(), topic.out() + topic.err());
            assertTrue(topic.out().contains("created orders"), topic.out());
        } finally {
            final Run stop = script("stop", "--dir", cluster.toString());
            assertEquals(0, stop.code(), stop.out() + stop.err());
        }
        final Run after = script("status", "--dir", cluster.toString());
        assertEquals(3, after.code(), after.out());
    }

    private static String[] concat(final String[] a, final String[] b) {
        final String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
