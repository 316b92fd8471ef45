package io.seglog.replication.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.EmbeddedZooKeeper;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the README's main job in this JVM (without {@code System.exit}) and checks what it did: the storage round
 * trip, the controller failover at epoch + 1 with every partition led by a live broker, the exit codes, and that it
 * leaves no thread behind.
 */
@Timeout(120)
class SeglogDemoIT {
    private static final Duration THREADS_GONE = Duration.ofSeconds(20);

    private Set<Thread> threadsBefore;

    @BeforeEach
    void snapshotThreads() {
        threadsBefore = Await.threads();
    }

    @AfterEach
    void noThreadLeft() {
        Await.noThreadsLeakedSince(threadsBefore, THREADS_GONE);
        final List<String> nonDaemon = Await.threads().stream()
            // JUnit's own timeout watcher (started lazily by @Timeout) is not the demo's.
            .filter(t -> t.isAlive() && !t.isDaemon() && !threadsBefore.contains(t) && !t.getName().startsWith("junit-"))
            .map(Thread::getName).collect(Collectors.toList());
        assertEquals(List.of(), nonDaemon, "non-daemon threads left by the demo");
    }

    @Test
    void embeddedZooKeeperTourFailsOverToANewControllerAtTheNextEpoch(@TempDir final Path dir) throws Exception {
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        final SeglogDemo.Result result;
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            result = SeglogDemo.execute(DemoOptions.parse("--dir", dir.toString()), out);
        }
        final String printed = text.toString(StandardCharsets.UTF_8);
        assertTrue(result.embedded());
        assertTrue(result.zookeeper().endsWith(SeglogDemo.EMBEDDED_CHROOT), result.zookeeper());

        final StorageTour.Outcome storage = result.storage();
        assertEquals(0, storage.startOffset());
        assertEquals(StorageTour.BATCHES * StorageTour.RECORDS_PER_BATCH - 1, storage.lastOffset());
        assertTrue(storage.durableOffset() > storage.lastOffset(), "durable " + storage.durableOffset());
        assertEquals(storage.lastOffset() + 1, storage.endBeforeClose());
        assertEquals(storage.endBeforeClose(), storage.endAfterReopen());
        assertTrue(storage.cleanShutdown());
        // Records are 1 s apart from the base; the lookup asks for base + 6.5 s: the first record at or after is #7.
        assertEquals(7, storage.timestampOffset());
        assertTrue(storage.reopenMatched());

        assertFailover(result.cluster());
        assertEquals("orders", result.cluster().topic());
        assertTrue(printed.contains("OK: storage reopened at log end offset 12"), printed);
        assertTrue(printed.contains("[cluster] new controller: broker " + result.cluster().secondController()
            + ", controller epoch " + result.cluster().secondEpoch()), printed);
        final DataTour.Outcome data = result.data();
        assertEquals(2L * DataTour.WRITES * DataTour.RECORDS_PER_WRITE, data.acknowledged());
        assertEquals(data.acknowledged(), data.endOffset());
        assertTrue(data.firstLeader() != data.secondLeader(), data.toString());
        assertEquals("payments", data.topic());
        assertTrue(printed.contains("[data] new leader: broker " + data.secondLeader() + ", holding all "
            + DataTour.WRITES * DataTour.RECORDS_PER_WRITE + " acknowledged records"), printed);
        assertTrue(printed.contains("every replica at " + data.endOffset()), printed);
        // A given directory is kept, with the log and the embedded server's data in it.
        assertTrue(Files.isDirectory(dir.resolve("storage").resolve("events-0")));
        assertTrue(Files.isDirectory(dir.resolve("zookeeper")));
    }

    @Test
    void mainLogicExitsZeroAndDeletesItsTemporaryDirectory() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = SeglogDemo.run(new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, printed + err.toString(StandardCharsets.UTF_8));
        final Matcher m = Pattern.compile("Seglog demo in (\\S+) \\(deleted at the end\\)").matcher(printed);
        assertTrue(m.find(), printed);
        assertFalse(Files.exists(Paths.get(m.group(1))), "temporary directory left behind: " + m.group(1));
        assertTrue(printed.contains("OK: "), printed);
    }

    @Test
    void givenZooKeeperWithChrootAndKeptDirectorySurviveASecondRun(@TempDir final Path dir) throws Exception {
        try (ZkTestSupport zk = ZkTestSupport.server()) {
            final String connect = zk.connectString() + "/demo/run";
            final PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            final SeglogDemo.Result first =
                SeglogDemo.execute(DemoOptions.parse("--zookeeper", connect, "--dir", dir.toString()), quiet);
            assertFalse(first.embedded());
            assertEquals(connect, first.zookeeper());
            assertFailover(first.cluster());
            assertFalse(Files.exists(dir.resolve("zookeeper")), "no embedded server data with --zookeeper");

            // Same directory and ZooKeeper again: the log continues, the topic name moves on, the epochs go up.
            final SeglogDemo.Result second =
                SeglogDemo.execute(DemoOptions.parse("--zookeeper", connect, "--dir", dir.toString()), quiet);
            assertEquals(first.storage().endAfterReopen(), second.storage().startOffset());
            assertEquals(second.storage().startOffset() + 12, second.storage().endAfterReopen());
            assertTrue(second.storage().reopenMatched());
            assertEquals("orders-2", second.cluster().topic());
            assertEquals("payments-2", second.data().topic(), "the data part's brokers keep their logs and topics");
            assertEquals(second.data().acknowledged(), second.data().endOffset());
            assertTrue(second.cluster().firstEpoch() > first.cluster().secondEpoch(),
                second.cluster().firstEpoch() + " after " + first.cluster().secondEpoch());
            assertFailover(second.cluster());
        }
    }

    @Test
    void unreachableZooKeeperFailsWithExitCodeOneAndAClearMessage(@TempDir final Path dir) {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        // Port 1 on loopback: nothing listens there, so every broker's first ZooKeeper call runs out of time.
        final int code = SeglogDemo.run(new String[] {"--zookeeper", "127.0.0.1:1", "--dir", dir.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, code, message);
        assertTrue(message.startsWith("SeglogDemo FAILED: "), message);
        assertTrue(message.contains("broker 1 could not start against ZooKeeper 127.0.0.1:1"), message);
        assertFalse(message.contains("\tat "), "a known failure prints no stack trace: " + message);
    }

    @Test
    void embeddedZooKeeperKeepsItsZnodesAcrossARestartAndClosesIdempotently(@TempDir final Path dir) {
        final Path data = dir.resolve("zk");
        final byte[] payload = "kept".getBytes(StandardCharsets.UTF_8);
        final EmbeddedZooKeeper first = EmbeddedZooKeeper.start(data);
        try {
            assertTrue(first.connectString().startsWith("127.0.0.1:"), first.connectString());
            try (ZkClient client = client(first.connectString() + "/embedded")) {
                client.ensurePersistentPaths(List.of("/demo"));
                client.create("/demo/znode", payload, false);
            }
        } finally {
            first.close();
        }
        first.close();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(data);
             ZkClient client = client(zk.connectString() + "/embedded")) {
            assertArrayEquals(payload, client.getData("/demo/znode", null).orElseThrow().data());
        }
    }

    private static ZkClient client(final String connect) {
        final ZkClient client = ZkClient.open(ReplicationConfig.builder().brokerId(0).zookeeperConnect(connect)
                .zookeeperSessionTimeoutMs(4_000).build(), r -> new Thread(r, "demo-it-client"),
            new ZkSessionListener() {
                @Override
                public void onSessionExpired(final long sessionId) {
                }

                @Override
                public void onNewSession(final long sessionId) {
                }
            });
        client.awaitConnected(30_000);
        return client;
    }

    @Test
    void badArgumentsExitWithTwoAndTheUsage() {
        for (final String[] args : List.of(new String[] {"--bogus"}, new String[] {"--dir"},
            new String[] {"--zookeeper", "/only-a-chroot"}, new String[] {"--dir", "a", "--dir", "b"})) {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = SeglogDemo.run(args, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            final String message = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, code, String.join(" ", args) + ": " + message);
            assertTrue(message.contains(args[0]), message);
            assertTrue(message.contains(DemoOptions.USAGE), message);
        }
        assertEquals(new DemoOptions(Optional.of("h:1/c"), Optional.of(Paths.get("d")), true, false),
            DemoOptions.parse("--keep", "--zookeeper", "h:1/c", "--dir", "d"));
    }

    @Test
    void helpPrintsTheOptionsAndRunsNothing() {
        for (final String flag : new String[] {"--help", "-h"}) {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = SeglogDemo.run(new String[] {flag}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
            final String printed = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, code, flag + ": " + err.toString(StandardCharsets.UTF_8));
            assertTrue(printed.startsWith(DemoOptions.USAGE) && printed.contains("--zookeeper <connect>"), printed);
            assertEquals(DemoOptions.HELP + System.lineSeparator(), printed, "the help alone: nothing ran");
            assertEquals("", err.toString(StandardCharsets.UTF_8));
        }
    }

    /** The controller changed at epoch + 1 and every partition is led by a live broker, with the stopped one gone. */
    private static void assertFailover(final ClusterTour.Outcome c) {
        assertEquals(c.firstController(), c.stoppedBroker());
        assertNotEquals(c.firstController(), c.secondController());
        assertEquals(c.firstEpoch() + 1, c.secondEpoch());
        final Set<Integer> expectedLive = new HashSet<>(Set.of(1, 2, 3));
        expectedLive.remove(c.stoppedBroker());
        assertEquals(expectedLive, c.liveBrokers());
        assertTrue(c.liveBrokers().contains(c.secondController()));

        assertEquals(ClusterTour.PARTITIONS, c.leadersBefore().size());
        for (final LeaderAndIsr s : c.leadersBefore().values()) {
            assertEquals(Set.of(1, 2, 3), Set.copyOf(s.isr()), "ISR after creation: " + s);
        }
        assertEquals(ClusterTour.PARTITIONS, c.leadersAfter().size());
        boolean someLeaderMoved = false;
        for (final Map.Entry<Integer, LeaderAndIsr> e : c.leadersAfter().entrySet()) {
            final LeaderAndIsr before = c.leadersBefore().get(e.getKey());
            final LeaderAndIsr after = e.getValue();
            assertTrue(c.liveBrokers().contains(after.leader()), "partition " + e.getKey() + ": " + after);
            assertFalse(after.isr().contains(c.stoppedBroker()), "partition " + e.getKey() + ": " + after);
            if (before.leader() == c.stoppedBroker()) {
                someLeaderMoved = true;
                assertTrue(after.leaderEpoch() > before.leaderEpoch(), before + " -> " + after);
            }
        }
        // Round-robin assignment over three brokers makes each broker the preferred leader of one partition.
        assertTrue(someLeaderMoved, "the stopped controller led no partition: " + c.leadersBefore());
    }
}
