package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a broker process fails to start: each cause in one line that names it, a non-zero exit, within a bounded time
 * (never a stack trace, never a wait without end). A configuration that cannot be read or holds an invalid value or a
 * feature Seglog lacks exits 2; ZooKeeper out of reach, or a {@code broker.id} another live broker holds, exits 1.
 */
@Timeout(300)
class SeglogBrokerMainIT {
    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private Path properties(final String name, final String... lines) throws IOException {
        final Path file = dir.resolve(name);
        Files.writeString(file, String.join("\n", lines), StandardCharsets.UTF_8);
        return file;
    }

    private Path broker(final String name, final int id, final String zookeeper, final String... more)
        throws IOException {
        final List<String> lines = new java.util.ArrayList<>(List.of("broker.id=" + id,
            "listeners=PLAINTEXT://127.0.0.1:" + freePort(), "log.dirs=" + dir.resolve(name + "-logs"),
            "zookeeper.connect=" + zookeeper, "zookeeper.session.timeout.ms=6000",
            "zookeeper.connection.timeout.ms=3000", "zookeeper.request.timeout.ms=3000"));
        lines.addAll(List.of(more));
        return properties(name + ".properties", lines.toArray(new String[0]));
    }

    private static void assertOneLine(final SeglogBrokerMain.Started started, final int exitCode,
                                      final String... parts) {
        assertNull(started.broker(), "no broker");
        assertEquals(exitCode, started.exitCode(), started.failure());
        assertTrue(started.failure().startsWith("seglog: "), started.failure());
        assertEquals(1, started.failure().lines().count(), "one line: " + started.failure());
        for (final String part : parts) {
            assertTrue(started.failure().contains(part), started.failure());
        }
    }

    @Test
    void anInvalidValueAMissingFileAndARefusedFeatureEachExitTwoInOneLine() throws IOException {
        assertOneLine(SeglogBrokerMain.start(broker("abc", 1, "127.0.0.1:2181", "num.partitions=abc")),
            SeglogBrokerMain.USAGE, "abc.properties", "num.partitions=abc is not an integer");
        assertOneLine(SeglogBrokerMain.start(dir.resolve("missing.properties")), SeglogBrokerMain.USAGE,
            "missing.properties");
        assertOneLine(SeglogBrokerMain.start(broker("acl", 1, "127.0.0.1:2181",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer")),
            SeglogBrokerMain.USAGE, "authorizer.class.name=", "no ACLs");
    }

    @Test
    void zookeeperOutOfReachExitsOneNamingItAfterTheConnectionTimeout() throws IOException {
        final int closed = freePort(); // nothing listens there any more
        assertOneLine(SeglogBrokerMain.start(broker("nozk", 1, "127.0.0.1:" + closed)), SeglogBrokerMain.CANNOT_START,
            "cannot reach ZooKeeper at 127.0.0.1:" + closed, "zookeeper.connection.timeout.ms=3000");
    }

    @Test
    void aBrokerIdAnotherLiveBrokerHoldsExitsOneNamingTheHolder() throws Exception {
        try (TestingServer zk = new TestingServer()) {
            final SeglogBrokerMain.Started first = SeglogBrokerMain.start(broker("first", 1, zk.getConnectString()));
            assertNotNull(first.broker(), first.failure());
            try (SeglogBroker running = first.broker()) {
                final SeglogBrokerMain.Started second = SeglogBrokerMain.start(broker("second", 1,
                    zk.getConnectString()));
                assertOneLine(second, SeglogBrokerMain.CANNOT_START, "broker.id=1 is registered in ZooKeeper by another"
                    + " live broker (" + running.bootstrapServers());
            }
        }
    }

    @Test
    void aProcessThatCannotStartPrintsOneLineAndExitsWithItsCode() throws Exception {
        final Path file = broker("process", 1, "127.0.0.1:2181", "num.partitions=abc");
        final Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m", "-cp", System.getProperty("java.class.path"), SeglogBrokerMain.class.getName(),
            file.toString()).start();
        final String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "exited");
        assertEquals(SeglogBrokerMain.USAGE, p.exitValue(), err);
        assertEquals("", out);
        assertEquals(List.of("seglog: invalid configuration in " + file + ": num.partitions=abc is not an integer"),
            err.lines().toList(), "one line, no stack trace");
    }
}
