package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.data.KafkaTools.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified kafka-clients consumers with {@code subscribe()} against three Seglog brokers: they find their
 * coordinator (the leader of the group's {@code __consumer_offsets} partition, created on first use), split the
 * topic's partitions between them without overlap, commit, and a member that comes later resumes exactly at the
 * committed offsets; the offsets are what Kafka's AdminClient reads back.
 */
class ConsumerGroupsIT {
    private static final String TOPIC = "events";
    private static final String GROUP = "event-readers";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private TestingServer zk;
    private DataCluster cluster;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> {
            props.put("offsets.topic.num.partitions", 5);
            props.put("group.initial.rebalance.delay.ms", 0);
        });
        cluster.startAll(1, 2, 3);
        cluster.createSpreadTopic(TOPIC, PARTITIONS);
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private void produce(final int perPartition, final String tag) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < perPartition; i++) {
                for (int part = 0; part < PARTITIONS; part++) {
                    producer.send(new ProducerRecord<>(TOPIC, part, null, (tag + "-" + part + "-" + i)
                        .getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(final String clientId) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
        c.subscribe(List.of(TOPIC));
        return c;
    }

    private static void collect(final KafkaConsumer<byte[], byte[]> c, final List<String> into) {
        for (final ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            into.add(new String(r.value(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void twoMembersSplitThePartitionsAndALaterMemberResumesAtTheCommittedOffsets() throws Exception {
        produce(100, "first");
        final List<String> readA = new ArrayList<>();
        final List<String> readB = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> a = consumer("member-a"); KafkaConsumer<byte[], byte[]> b =
            consumer("member-b")) {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            boolean split = false;
            while (System.nanoTime() < deadline) {
                collect(a, readA);
                collect(b, readB);
                final Set<TopicPartition> ownedA = a.assignment();
                final Set<TopicPartition> ownedB = b.assignment();
                final Set<TopicPartition> both = new HashSet<>(ownedA);
                both.retainAll(ownedB);
                split = !ownedA.isEmpty() && !ownedB.isEmpty() && both.isEmpty()
                    && ownedA.size() + ownedB.size() == PARTITIONS;
                if (split && distinct(readA, readB) == PARTITIONS * 100 && atEnd(a, 100) && atEnd(b, 100)) {
                    break; // each member is at the end of what it owns: their commits cover everything
                }
            }
            assertTrue(split, "the two members split the " + PARTITIONS + " partitions: " + a.assignment() + " / "
                + b.assignment());
            assertEquals(PARTITIONS * 100, distinct(readA, readB), "every record read by one of them");
            a.commitSync();
            b.commitSync();
        }
        try (Admin admin = cluster.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get();
            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(100, committed.get(new TopicPartition(TOPIC, p)).offset(), "committed offset of " + p);
            }
        }
        produce(40, "second");
        final List<String> readC = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer("member-c")) {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (readC.size() < PARTITIONS * 40 && System.nanoTime() < deadline) {
                collect(c, readC);
            }
            assertEquals(PARTITIONS * 40, readC.size(), "the later member reads what came after the commits");
            assertFalse(readC.stream().anyMatch(v -> v.startsWith("first-")), "nothing committed is read again");
            c.commitSync();
        }
        try (Admin admin = cluster.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get();
            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(140, committed.get(new TopicPartition(TOPIC, p)).offset(), "committed offset of " + p);
            }
        }
    }

    @Test
    void kafkaToolsAndTheAdminClientDescribeTheGroupItsMembersAndLagsThenDeleteItsOffsetsAndTheGroup()
        throws Exception {
        produce(100, "first");
        try (KafkaConsumer<byte[], byte[]> a = consumer("member-a"); KafkaConsumer<byte[], byte[]> b =
            consumer("member-b")) {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline && !(atEnd(a, 100) && atEnd(b, 100)
                && a.assignment().size() + b.assignment().size() == PARTITIONS)) {
                collect(a, new ArrayList<>());
                collect(b, new ArrayList<>());
            }
            assertEquals(PARTITIONS, a.assignment().size() + b.assignment().size(), "both members own their share");
            a.commitSync();
            b.commitSync();
            produce(10, "lagging"); // ten records per partition the group has not read: a lag of 10

            try (Admin admin = cluster.admin()) {
                final GroupListing listed = admin.listGroups().all().get().stream()
                    .filter(g -> g.groupId().equals(GROUP)).findFirst().orElseThrow();
                assertEquals(Optional.of(GroupType.CLASSIC), listed.type());
                assertEquals(Optional.of(GroupState.STABLE), listed.groupState());
                assertEquals("consumer", listed.protocol());
                final ConsumerGroupDescription described = admin.describeConsumerGroups(List.of(GROUP))
                    .describedGroups().get(GROUP).get();
                assertEquals(GroupState.STABLE, described.groupState());
                assertEquals("range", described.partitionAssignor());
                assertEquals(Set.of("member-a", "member-b"), described.members().stream()
                    .map(MemberDescription::clientId).collect(Collectors.toSet()));
                final Set<TopicPartition> assigned = new HashSet<>();
                described.members().forEach(m -> assigned.addAll(m.assignment().topicPartitions()));
                assertEquals(PARTITIONS, assigned.size(), "the members' assignments as the leader gave them");
                final int coordinator = described.coordinator().id();
                assertEquals(cluster.state(new io.seglog.storage.TopicPartition("__consumer_offsets",
                    Math.abs(GROUP.hashCode()) % 5)).leader(), coordinator, "the offsets partition's leader");
            }

            final String bootstrap = cluster.bootstrapServers();
            final ToolRun describe = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
                "--bootstrap-server", bootstrap, "--describe", "--group", GROUP}));
            assertEquals(0, describe.status(), describe.err());
            final List<String[]> rows = describe.out().lines().map(String::trim)
                .filter(l -> l.startsWith(GROUP + " ")).map(l -> l.split("\\s+")).toList();
            assertEquals(PARTITIONS, rows.size(), "one row per partition: " + describe.out());
            for (final String[] row : rows) {
                // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
                assertEquals(TOPIC, row[1]);
                assertEquals("100", row[3], "the committed offset");
                assertEquals("110", row[4], "the log end offset");
                assertEquals("10", row[5], "the lag");
                assertEquals("/127.0.0.1", row[7], "the member's host, as Kafka shows it");
                assertTrue(row[8].equals("member-a") || row[8].equals("member-b"), "its owner: " + row[8]);
            }
            final ToolRun members = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
                "--bootstrap-server", bootstrap, "--describe", "--group", GROUP, "--members"}));
            assertEquals(0, members.status(), members.err());
            assertEquals(2, members.out().lines().filter(l -> l.startsWith(GROUP + " ")).count(), members.out());
            final ToolRun state = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
                "--bootstrap-server", bootstrap, "--describe", "--group", GROUP, "--state"}));
            assertTrue(state.out().lines().anyMatch(l -> l.contains(GROUP) && l.contains("range")
                && l.contains("Stable")), state.out());
            final ToolRun busy = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
                "--bootstrap-server", bootstrap, "--delete", "--group", GROUP}));
            assertTrue((busy.out() + busy.err()).contains("NonEmptyGroupException")
                || (busy.out() + busy.err()).contains("not empty"), "a live group is not deleted: " + busy.out());
        }

        // The members left: the group is Empty, and an operator cleans up.
        final String bootstrap = cluster.bootstrapServers();
        final ToolRun list = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
            "--bootstrap-server", bootstrap, "--list", "--state"}));
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith(GROUP + " ") && l.contains("Empty")), list.out());
        try (Admin admin = cluster.admin()) {
            admin.deleteConsumerGroupOffsets(GROUP, Set.of(new TopicPartition(TOPIC, 0))).all().get();
            final Map<TopicPartition, OffsetAndMetadata> left = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get();
            assertFalse(left.containsKey(new TopicPartition(TOPIC, 0)), "partition 0's offset deleted: " + left);
            assertEquals(100, left.get(new TopicPartition(TOPIC, 1)).offset(), "the others kept");
        }
        final ToolRun deleted = KafkaTools.run("", () -> ConsumerGroupCommand.main(new String[] {
            "--bootstrap-server", bootstrap, "--delete", "--group", GROUP}));
        assertTrue(deleted.out().contains("Deletion of requested consumer groups ('" + GROUP + "') was successful"),
            deleted.out() + deleted.err());
        try (Admin admin = cluster.admin()) {
            assertTrue(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().isEmpty(),
                "no offsets left");
            assertTrue(admin.listGroups().all().get().stream().noneMatch(g -> g.groupId().equals(GROUP)),
                "the group is gone");
        }
    }

    /** Whether a member's position in each partition it owns is at {@code end} (it owns at least one). */
    private static boolean atEnd(final KafkaConsumer<byte[], byte[]> c, final long end) {
        final Set<TopicPartition> owned = c.assignment();
        return !owned.isEmpty() && owned.stream().allMatch(tp -> c.position(tp) == end);
    }

    private static int distinct(final List<String> a, final List<String> b) {
        final Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return all.size();
    }
}
