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
import java.util.Arrays;
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
 * Runs the README's main job in this JVM (without {@code System.exit}) and checks what it did: the quickstart's
 * broker processes, the leader killed and another elected at a higher leader epoch, every acknowledged record read
 * back by the consumer in order, the consumer group rebalancing when its second member joins (no partition shared or
 * unowned, the members resuming at the committed offsets, the committed offsets the end offsets), the summary it
 * printed; with {@code --tours} the storage round trip and the
 * controller failover at epoch + 1; the exit codes; and that it leaves no thread and no process behind.
 */
@Timeout(300)
class SeglogDemoIT {
    private static final Duration THREADS_GONE = Duration.ofSeconds(20);

    private Set<Thread> threadsBefore;

    @BeforeEach
    void snapshotThreads() {
        threadsBefore = Await.threads();
    }

    @AfterEach
    void noThreadLeft() {
        // The JDK's RMI runtime (the JMX connections to the broker processes' metrics) keeps its scheduler and GC
        // daemon for the JVM's life, and a lease renewer per endpoint until a GC collects the stubs ("RMI ..."
        // threads): the JDK's, not the demo's.
        Await.noThreadsLeakedSince(threadsBefore, THREADS_GONE, name -> name.startsWith("RMI "));
        final List<String> nonDaemon = Await.threads().stream()
            // JUnit's own timeout watcher (started lazily by @Timeout) is not the demo's.
            .filter(t -> t.isAlive() && !t.isDaemon() && !threadsBefore.contains(t) && !t.getName().startsWith("junit-"))
            .map(Thread::getName).collect(Collectors.toList());
        assertEquals(List.of(), nonDaemon, "non-daemon threads left by the demo");
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive)
            .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList(), "broker processes left running");
    }

    @Test
    void quickstartKillsTheLeaderProcessAndLosesNoAcknowledgedRecord(@TempDir final Path dir) throws Exception {
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        final SeglogDemo.Result result;
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            result = SeglogDemo.execute(DemoOptions.parse("--dir", dir.toString()), out);
        }
        final String printed = text.toString(StandardCharsets.UTF_8);
        assertTrue(result.embedded());
        assertTrue(result.zookeeper().endsWith(SeglogDemo.EMBEDDED_CHROOT), result.zookeeper());
        assertEquals(Optional.empty(), result.storage(), "the tours run only with --tours");
        assertEquals(Optional.empty(), result.cluster());

        final Quickstart.Outcome q = result.quickstart();
        assertTrue(q.processes());
        assertTrue(q.killed().startsWith("kill -9 of pid "), q.killed());
        assertEquals(Quickstart.TOPIC, q.topic());
        assertQuickstart(q, printed);
        // The summary table, as printed.
        assertTrue(printed.contains("[quickstart] summary"), printed);
        assertTrue(printed.contains(row("lost", "0  (acknowledged, not read back)")), printed);
        assertTrue(printed.contains(row("records acknowledged", q.delivery().acknowledged() + "  (acks=all")), printed);
        assertTrue(printed.contains(row("records consumed", q.delivery().consumed() + "")), printed);
        assertTrue(printed.contains(row("new leader", "broker " + q.after().leader() + ", leader epoch "
            + q.after().leaderEpoch() + ", isr " + q.after().isr())), printed);
        assertTrue(printed.contains(row("time to re-elect", q.reelectionMs() + " ms")), printed);
        assertTrue(printed.contains("[quickstart] KILLED the leader, broker " + q.before().leader()), printed);
        // The consumer group step: the rebalance as the listeners reported it, and its summary rows.
        final ConsumerGroupStep.Outcome g = q.group();
        assertEquals(ConsumerGroupStep.GROUP, g.group());
        assertEquals(ConsumerGroupStep.TOPIC, g.topic());
        assertTrue(printed.contains("[quickstart]   member A: partitions revoked " + g.before() + " (generation "
            + g.firstGeneration() + " is rebalancing)"), printed);
        assertTrue(printed.contains("[quickstart]   member A: partitions assigned " + g.after().get("A")
            + ", generation " + g.generation()), printed);
        assertTrue(printed.contains("[quickstart]   member B: partitions assigned " + g.after().get("B")
            + ", generation " + g.generation()), printed);
        assertTrue(printed.contains("[quickstart] REBALANCED in " + g.rebalanceMs() + " ms: generation "
            + g.generation()), printed);
        assertTrue(printed.contains("[quickstart]   the group's coordinator: broker " + g.coordinator()
            + ", the leader of __consumer_offsets-"), printed);
        for (int p = 0; p < ConsumerGroupStep.PARTITIONS; p++) {
            assertTrue(printed.contains("[quickstart]   " + g.topic() + "-" + p + ": committed " + g.ends().get(p)
                + ", end offset " + g.ends().get(p) + ", owner "), printed);
        }
        assertTrue(printed.contains(row("consumer group", g.group() + " on " + g.topic() + " ("
            + ConsumerGroupStep.PARTITIONS + " partitions): A alone in generation " + g.firstGeneration()
            + ", A and B in generation " + g.generation())), printed);
        assertTrue(printed.contains(row("rebalance", "A " + g.before() + " -> A " + g.after().get("A") + ", B "
            + g.after().get("B") + " in " + g.rebalanceMs() + " ms, no partition shared or unowned")), printed);
        final int perPartition = 2 * ConsumerGroupStep.RECORDS_PER_PARTITION;
        assertTrue(printed.contains(row("committed offsets", "= end offsets on all " + ConsumerGroupStep.PARTITIONS
            + " partitions (" + perPartition + "); " + perPartition * ConsumerGroupStep.PARTITIONS
            + " records read once by the group")), printed);
        assertTrue(printed.contains("OK in "), printed);
        assertTrue(printed.contains("; group " + g.group() + " rebalanced to 2 members at generation "
            + g.generation()), printed);
        // A given directory is kept: each broker's properties, output and log directory, and ZooKeeper's data.
        assertPropertiesOfThisRun(dir.resolve("brokers"), q, result.zookeeper());
        for (int id = 1; id <= Quickstart.BROKERS; id++) {
            final Path brokers = dir.resolve("brokers");
            assertTrue(Files.readString(brokers.resolve("broker-" + id + ".log")).contains("READY broker " + id));
            assertTrue(Files.isDirectory(brokers.resolve("broker-" + id).resolve(q.topic() + "-0")), "broker " + id);
        }
        assertTrue(Files.isDirectory(dir.resolve("zookeeper")));
    }

    @Test
    void mainLogicWithToursAndInProcessBrokersExitsZeroAndDeletesItsTemporaryDirectory() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = SeglogDemo.run(new String[] {"--tours", "--in-process"},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, printed + err.toString(StandardCharsets.UTF_8));
        final Matcher m = Pattern.compile("Seglog quickstart in (\\S+) \\(deleted at the end\\)").matcher(printed);
        assertTrue(m.find(), printed);
        assertFalse(Files.exists(Paths.get(m.group(1))), "temporary directory left behind: " + m.group(1));
        assertTrue(printed.contains("[storage] closed and reopened: log end offset 12"), printed);
        assertTrue(printed.contains("[cluster] new controller: broker "), printed);
        assertTrue(printed.contains("[quickstart] KILLED the leader, broker "), printed);
        assertTrue(printed.contains("closed broker "), printed);
        assertTrue(printed.contains(row("lost", "0")), printed);
        assertTrue(printed.contains("[quickstart] REBALANCED in "), printed);
        assertTrue(printed.contains(row("committed offsets", "= end offsets on all " + ConsumerGroupStep.PARTITIONS
            + " partitions")), printed);
        assertTrue(printed.contains("OK in "), printed);
    }

    @Test
    void givenZooKeeperWithChrootAndKeptDirectorySurviveASecondRunWithBrokerProcesses(@TempDir final Path dir) throws Exception {
        try (ZkTestSupport zk = ZkTestSupport.server()) {
            final String connect = zk.connectString() + "/demo/run";
            final PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            final String[] args = {"--zookeeper", connect, "--dir", dir.toString(), "--tours"};
            final String[] inProcess = Arrays.copyOf(args, args.length + 1);
            inProcess[args.length] = "--in-process";
            final SeglogDemo.Result first = SeglogDemo.execute(DemoOptions.parse(inProcess), quiet);
            assertFalse(first.embedded());
            assertEquals(connect, first.zookeeper());
            assertFailover(first.cluster().orElseThrow());
            assertFalse(first.quickstart().processes());
            assertQuickstart(first.quickstart(), "");
            assertFalse(Files.exists(dir.resolve("zookeeper")), "no embedded server data with --zookeeper");

            // Same directory and ZooKeeper again, the brokers now as processes over the logs the first run's brokers
            // left: the log continues, the topic names move on, the epochs go up.
            final SeglogDemo.Result second = SeglogDemo.execute(DemoOptions.parse(args), quiet);
            assertTrue(second.quickstart().processes());
            final StorageTour.Outcome s1 = first.storage().orElseThrow();
            final StorageTour.Outcome s2 = second.storage().orElseThrow();
            assertEquals(s1.endAfterReopen(), s2.startOffset());
            assertEquals(s2.startOffset() + 12, s2.endAfterReopen());
            assertTrue(s2.reopenMatched());
            assertEquals("orders-2", second.cluster().orElseThrow().topic());
            assertEquals(Quickstart.TOPIC + "-2", second.quickstart().topic(),
                "the quickstart's brokers keep their logs and topics");
            assertEquals(ConsumerGroupStep.TOPIC + "-2", second.quickstart().group().topic());
            assertEquals(ConsumerGroupStep.GROUP + "-2", second.quickstart().group().group(),
                "a new group for the new topic: the first run's group keeps its offsets");
            assertQuickstart(second.quickstart(), "");
            assertPropertiesOfThisRun(dir.resolve("brokers"), second.quickstart(), connect);
            assertTrue(second.cluster().orElseThrow().firstEpoch() > first.cluster().orElseThrow().secondEpoch(),
                second.cluster() + " after " + first.cluster());
            assertFailover(second.cluster().orElseThrow());
        }
    }

    @Test
    void unreachableZooKeeperFailsWithExitCodeOneAndAClearMessage(@TempDir final Path dir) {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        // Port 1 on loopback: nothing listens there, so the demo's first ZooKeeper connection runs out of time,
        // before any broker is started.
        final int code = SeglogDemo.run(new String[] {"--zookeeper", "127.0.0.1:1", "--dir", dir.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, code, message);
        assertTrue(message.startsWith("SeglogDemo FAILED: "), message);
        assertTrue(message.contains("step 'quickstart: connect to ZooKeeper': cannot reach ZooKeeper 127.0.0.1:1"),
            message);
        assertFalse(message.contains("\tat "), "a known failure prints no stack trace: " + message);
        assertFalse(Files.exists(dir.resolve("brokers")), "no broker was started");
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
        assertEquals(new DemoOptions(Optional.of("h:1/c"), Optional.of(Paths.get("d")), true, false, false, false),
            DemoOptions.parse("--keep", "--zookeeper", "h:1/c", "--dir", "d"));
        assertEquals(new DemoOptions(Optional.empty(), Optional.empty(), false, true, true, false),
            DemoOptions.parse("--tours", "--in-process"));
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

    /**
     * The leader changed to a live broker at a higher leader epoch without the killed one in the ISR, the consumer read
     * every acknowledged record, at its acknowledged offset and in order, duplicates only where the producer was not
     * idempotent, and the killed broker came back into the ISR.
     */
    private static void assertQuickstart(final Quickstart.Outcome q, final String printed) {
        final Quickstart.Election before = q.before();
        final Quickstart.Election after = q.after();
        assertEquals(Set.of(1, 2, 3), Set.copyOf(before.isr()), "ISR before the kill: " + before);
        assertNotEquals(before.leader(), after.leader(), "the leader changed: " + before + " -> " + after);
        assertTrue(after.leaderEpoch() > before.leaderEpoch(), before + " -> " + after);
        assertFalse(after.isr().contains(before.leader()), "the killed broker left the ISR: " + after);
        assertTrue(after.isr().contains(after.leader()), after.toString());
        assertTrue(q.reelectionMs() >= 0, q.toString());
        assertEquals(Set.of(1, 2, 3), Set.copyOf(q.isrAfterRestart()), "the killed broker is back in the ISR");

        final DeliveryCheck.Verdict v = q.delivery();
        assertEquals(Quickstart.IDEMPOTENCE, q.idempotent());
        assertEquals(0, v.lost(), "nothing acknowledged lost: " + v + printed);
        assertEquals(0, v.misplaced(), v + printed);
        assertEquals(0, v.unknown(), v + printed);
        assertTrue(v.orderKept(), v + printed);
        assertTrue(v.acknowledged() >= Quickstart.ACKNOWLEDGED_BEFORE_KILL + Quickstart.ACKNOWLEDGED_AFTER_KILL,
            v.toString());
        assertEquals(v.sent(), v.acknowledged() + v.failed(), "every send was answered: " + v);
        // The consumer read every acknowledged record: each once, plus the copies a retry stored, plus records whose
        // answer was lost with the leader.
        assertEquals(v.acknowledged() + v.duplicates() + v.unacknowledgedRead(), v.consumed(), v.toString());
        if (q.idempotent()) {
            assertEquals(0, v.duplicates(), "an idempotent producer stores no duplicate: " + v);
            assertTrue(v.exactlyOnce(), v.toString());
        }
        assertTrue(v.ok(q.idempotent()), v.problems(q.idempotent()));
        assertGroup(q.group(), printed);
        assertMetrics(q, printed);
    }

    /**
     * The metrics read over JMX at the end: one active controller, every broker hosting partitions with none
     * under-replicated, every leadership counted once, and the records of the tour counted in by their leaders.
     */
    private static void assertMetrics(final Quickstart.Outcome q, final String printed) {
        assertEquals(Set.of(1, 2, 3), q.metrics().keySet(), printed);
        long controllers = 0;
        long messagesIn = 0;
        for (final Map<String, Long> m : q.metrics().values()) {
            controllers += m.get("ActiveControllerCount");
            messagesIn += m.get("MessagesInPerSec");
            assertEquals(0L, m.get("UnderReplicatedPartitions"), printed);
            assertTrue(m.get("PartitionCount") > 0, printed);
        }
        assertEquals(1, controllers, printed);
        // Counted since each broker's last start: at least what was acknowledged after the killed leader came back.
        assertTrue(messagesIn > 0, printed);
        assertTrue(printed.isEmpty() || printed.contains("[quickstart] metrics: Kafka's JMX names"), printed);
    }

    /**
     * Member A owned every partition alone; after B joined, one later generation split them between the two without
     * overlap; each member resumed at the committed offsets, every record was read once, and the committed offsets
     * Kafka's AdminClient read back are the end offsets.
     */
    private static void assertGroup(final ConsumerGroupStep.Outcome g, final String printed) {
        final Set<Integer> all = new HashSet<>();
        for (int p = 0; p < ConsumerGroupStep.PARTITIONS; p++) {
            all.add(p);
        }
        assertTrue(g.firstGeneration() >= 1, g.toString());
        assertTrue(g.generation() > g.firstGeneration(), "B's join made a new generation: " + g);
        assertEquals(all, g.before(), "A alone owned every partition: " + g);
        assertEquals(Set.of("A", "B"), g.after().keySet(), g.toString());
        final Set<Integer> a = g.after().get("A");
        final Set<Integer> b = g.after().get("B");
        assertFalse(a.isEmpty(), "A kept a share: " + g);
        assertFalse(b.isEmpty(), "B got a share: " + g);
        final Set<Integer> shared = new HashSet<>(a);
        shared.retainAll(b);
        assertEquals(Set.of(), shared, "no partition owned by both: " + g);
        final Set<Integer> union = new HashSet<>(a);
        union.addAll(b);
        assertEquals(all, union, "every partition owned after the rebalance: " + g);
        assertTrue(Set.of(1, 2, 3).contains(g.coordinator()), "a live broker coordinates the group: " + g);
        assertTrue(g.rebalanceMs() >= 0, g.toString());

        final long end = 2L * ConsumerGroupStep.RECORDS_PER_PARTITION;
        for (int p = 0; p < ConsumerGroupStep.PARTITIONS; p++) {
            assertEquals(end, g.ends().get(p), "end offset of partition " + p + ": " + g);
            assertEquals(g.ends().get(p), g.committed().get(p), "committed offset of partition " + p + ": " + g);
            assertEquals(ConsumerGroupStep.RECORDS_PER_PARTITION, g.resumedAt().get(p),
                "partition " + p + "'s owner after the rebalance resumed at the committed offset: " + g);
        }
        assertEquals(ConsumerGroupStep.RECORDS_PER_PARTITION * (ConsumerGroupStep.PARTITIONS + a.size()),
            g.reads().get("A"), "A read everything once, then its share of the second round: " + g);
        assertEquals(ConsumerGroupStep.RECORDS_PER_PARTITION * b.size(), g.reads().get("B"),
            "B read its share of the second round only: " + g);
        assertTrue(g.verdict().ok(), g.verdict().problems() + printed);
        assertTrue(g.stepMs() >= g.rebalanceMs(), g.toString());
    }

    /** Each broker's properties name this run's listener and ZooKeeper, whatever an earlier run left. */
    private static void assertPropertiesOfThisRun(final Path brokers, final Quickstart.Outcome q, final String connect)
        throws java.io.IOException {
        final List<String> listeners = List.of(q.bootstrap().split(","));
        for (int id = 1; id <= Quickstart.BROKERS; id++) {
            final List<String> lines = Files.readAllLines(brokers.resolve("broker-" + id + ".properties"));
            assertTrue(lines.contains("broker.id=" + id), lines.toString());
            assertTrue(lines.contains("listeners=PLAINTEXT://" + listeners.get(id - 1)), listeners + " " + lines);
            assertTrue(lines.contains("zookeeper.connect=" + connect), lines.toString());
            assertTrue(lines.contains("group.initial.rebalance.delay.ms="
                + QuickstartBrokers.INITIAL_REBALANCE_DELAY_MS), lines.toString());
        }
    }

    private static String row(final String name, final String valueStart) {
        return String.format("[quickstart]   %-22s %s", name, valueStart);
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
