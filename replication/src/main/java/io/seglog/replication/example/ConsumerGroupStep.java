package io.seglog.replication.example;

import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicPartition;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The quickstart's consumer group: a topic of {@link #PARTITIONS} partitions (replication factor 3), member A of the
 * group alone with {@code subscribe()}, owning every partition, reading and committing; then member B subscribes and
 * the group rebalances, printed as the members' {@link ConsumerRebalanceListener}s report it (generation, the
 * partitions each gives up and gets). Both read their share of a second round of records, starting at what the group
 * committed, and commit; Kafka's {@link Admin} then reads the committed offsets back beside the end offsets, and the
 * {@link GroupCheck} judges the whole: no partition shared or unowned after the rebalance, every committed offset the
 * end offset, every record read by exactly one member once.
 *
 * <p>Not thread-safe; runs on the quickstart's thread, which polls both consumers in turn (each {@link KafkaConsumer}
 * is used by that one thread, and the listeners run inside its polls). Every client is closed before {@link #run}
 * returns.
 */
final class ConsumerGroupStep {
    /** The group's name (a later run against the same ZooKeeper takes {@code quickstart-group-2}, ...). */
    static final String GROUP = "quickstart-group";
    /** The topic's name, numbered like the group. */
    static final String TOPIC = "quickstart-group-events";
    /** Six partitions: two members own three each, and the move of half of them is plain to see. */
    static final int PARTITIONS = 6;
    /** Records produced to each partition in each of the two rounds. */
    static final int RECORDS_PER_PARTITION = 100;
    /**
     * The members' heartbeat interval: a member hears of a rebalance in a heartbeat's answer, so Kafka's default (3 s)
     * would be most of the step's time; the session timeout stays Kafka's (45 s).
     */
    static final int HEARTBEAT_INTERVAL_MS = 500;
    /**
     * The members' {@code fetch.max.wait.ms}: a fetch with nothing new waits this long at the broker, and a member
     * whose partitions get their positions one after another sends the next fetch to a broker only once the last one
     * is answered; with Kafka's 500 ms, reading the first round took about 1.6 s here, with 100 ms about 0.3 s.
     */
    static final int FETCH_MAX_WAIT_MS = 100;
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";

    /**
     * What the step saw.
     *
     * @param topic           the group's topic
     * @param group           the group id
     * @param coordinator     the coordinator's broker id (the leader of the group's offsets partition), -1 if unseen
     * @param firstGeneration the generation in which A owned every partition
     * @param before          A's partitions in that generation
     * @param generation      the generation after B joined
     * @param after           each member's partitions in it ({@code "A"}, {@code "B"})
     * @param rebalanceMs     from B's first poll to both members holding the new generation's partitions
     * @param resumedAt       partition to the offset its owner after the rebalance read first
     * @param committed       partition to the group's committed offset, as {@code Admin.listConsumerGroupOffsets}
     *                        answered
     * @param ends            partition to its end offset, as {@code Admin.listOffsets} answered
     * @param reads           records read by each member over the whole step
     * @param verdict         the check of the whole
     * @param stepMs          the whole step, from the topic's creation to the check
     */
    record Outcome(String topic, String group, int coordinator, int firstGeneration, SortedSet<Integer> before,
                   int generation, SortedMap<String, SortedSet<Integer>> after, long rebalanceMs,
                   SortedMap<Integer, Long> resumedAt, SortedMap<Integer, Long> committed, SortedMap<Integer, Long> ends,
                   SortedMap<String, Integer> reads, GroupCheck.Verdict verdict, long stepMs) {
    }

    private final KafkaZkStore store;
    private final String bootstrap;
    private final PrintStream out;
    private final Duration stepTimeout;
    private final List<GroupCheck.Read> reads = new ArrayList<>();
    private final Map<Integer, Long> resumedAt = new TreeMap<>();
    private String topic;
    private String group;
    /** The deadline of the part running now: a listener's commit, inside a poll, waits no longer. */
    private Deadline part;
    /** Whether B's join has settled: the first record of each partition read after it is where its owner resumed. */
    private boolean rebalanced;

    private ConsumerGroupStep(final KafkaZkStore store, final String bootstrap, final PrintStream out,
                              final Duration stepTimeout) {
        this.store = store;
        this.bootstrap = bootstrap;
        this.out = out;
        this.stepTimeout = stepTimeout;
    }

    /**
     * Runs the step on a cluster whose three brokers are up.
     *
     * @param store       the demo's ZooKeeper store (creates the topic, reads its partitions' state)
     * @param bootstrap   the brokers' listeners
     * @param out         where the tour is printed
     * @param stepTimeout deadline of each part
     * @return what it saw
     * @throws Exception naming the part that failed or ran out of time; every client is closed first
     */
    static Outcome run(final KafkaZkStore store, final String bootstrap, final PrintStream out,
                       final Duration stepTimeout) throws Exception {
        return new ConsumerGroupStep(store, bootstrap, out, stepTimeout).run();
    }

    private Outcome run() throws Exception {
        final long startNs = System.nanoTime();
        createTopic();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
            new StringSerializer())) {
            produce(producer, 1);
            final Member a = new Member("A");
            Member b = null;
            try {
                // A alone: it leads the group's first generation and assigns itself every partition.
                final Deadline alone = Deadline.of("quickstart: consumer group: member A joins alone", stepTimeout);
                part = alone;
                out.println("[quickstart] member A subscribes to " + topic + " in " + group + " (KafkaConsumer,"
                    + " subscribe() with a ConsumerRebalanceListener, enable.auto.commit=false, fetch.max.wait.ms="
                    + FETCH_MAX_WAIT_MS + "): its FindCoordinator creates " + OFFSETS_TOPIC + " if it is not there,"
                    + " and the group's first rebalance waits group.initial.rebalance.delay.ms="
                    + QuickstartBrokers.INITIAL_REBALANCE_DELAY_MS + " for more members");
                a.subscribe();
                alone.await(() -> {
                    a.poll();
                    return a.owned.size() == PARTITIONS && a.atEnd(alone);
                }, () -> "member A to own all " + PARTITIONS + " partitions of " + topic + " and read them to the end"
                    + " (owns " + a.owned + ", read " + a.read + ")");
                a.commit(alone);
                final int firstGeneration = a.generation;
                final SortedSet<Integer> before = sorted(a.owned);
                final int coordinator = coordinator();
                out.println("[quickstart]   member A read " + a.read + " records, " + RECORDS_PER_PARTITION
                    + " from each partition, and committed: offset " + RECORDS_PER_PARTITION + " on each");

                final Deadline join = Deadline.of("quickstart: consumer group: member B joins, the group rebalances",
                    stepTimeout);
                part = join;
                out.println("[quickstart] member B subscribes to " + topic + " in " + group + ": the coordinator"
                    + " starts a rebalance, and A hears of it at its next heartbeat (heartbeat.interval.ms="
                    + HEARTBEAT_INTERVAL_MS + ")");
                b = new Member("B");
                final Member joining = b;
                final long joinNs = System.nanoTime();
                joining.subscribe();
                join.await(() -> {
                    joining.poll();
                    a.poll();
                    return a.generation > firstGeneration && a.generation == joining.generation && a.assigned
                        && joining.assigned;
                }, () -> "members A and B to hold the partitions of one new generation (A: generation " + a.generation
                    + ", " + a.owned + "; B: generation " + joining.generation + ", " + joining.owned + ")");
                final long rebalanceMs = (System.nanoTime() - joinNs) / 1_000_000;
                final SortedMap<String, SortedSet<Integer>> after = Collections.unmodifiableSortedMap(
                    new TreeMap<>(Map.of("A", sorted(a.owned), "B", sorted(b.owned))));
                out.println("[quickstart] REBALANCED in " + rebalanceMs + " ms: generation " + a.generation
                    + ", member A owns " + a.owned + ", member B owns " + b.owned + " (generation " + firstGeneration
                    + ": A owned " + before + ")");

                rebalanced = true;
                produce(producer, 2);
                final Deadline shares = Deadline.of("quickstart: consumer group: both members read their shares",
                    stepTimeout);
                part = shares;
                final int readA = a.read;
                shares.await(() -> {
                    a.poll();
                    joining.poll();
                    return a.atEnd(shares) && joining.atEnd(shares);
                }, () -> "members A and B to read their partitions to the end (A at " + a.positions() + ", B at "
                    + joining.positions() + ")");
                a.commit(shares);
                b.commit(shares);
                out.println("[quickstart]   member A read " + (a.read - readA) + " records from " + a.owned
                    + ", member B " + b.read + " from " + b.owned + ", each starting at the committed offset "
                    + resumedAt.values().stream().distinct().map(String::valueOf).collect(Collectors.joining("/"))
                    + "; both committed");
                return check(coordinator, firstGeneration, before, a.generation, after, rebalanceMs,
                    new TreeMap<>(Map.of("A", a.read, "B", b.read)), startNs);
            } finally {
                final Deadline close = Deadline.of("quickstart: consumer group: close the members", stepTimeout);
                part = close;
                try {
                    a.close(close);
                } finally {
                    if (b != null) {
                        b.close(close);
                    }
                }
            }
        }
    }

    private void createTopic() throws InterruptedException {
        final Deadline create = Deadline.of("quickstart: consumer group: create a topic", stepTimeout);
        final Set<String> existing = store.topics(null);
        int n = 1;
        while (existing.contains(numbered(TOPIC, n))) {
            n++;
        }
        topic = numbered(TOPIC, n);
        group = numbered(GROUP, n);
        new TopicAdmin(store, new SplittableRandom()).createTopic(topic, PARTITIONS, Quickstart.BROKERS);
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        create.await(() -> leaders(tps).size() == PARTITIONS, () -> "all " + PARTITIONS + " partitions of " + topic
            + " led with all " + Quickstart.BROKERS + " replicas in sync: " + leaders(tps));
        out.println("[quickstart] consumer group " + group + ": created topic " + topic + ": " + PARTITIONS
            + " partitions, replication factor " + Quickstart.BROKERS + ", leaders " + leaders(tps).values()
            + " (partitions 0.." + (PARTITIONS - 1) + ")");
    }

    private static SortedSet<Integer> sorted(final Set<Integer> partitions) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
    }

    /**
     * Prints and returns the group's coordinator: the leader of its {@code __consumer_offsets} partition, which is
     * {@code abs(hashCode(group id)) % partitions} (Kafka's rule), as ZooKeeper holds it now.
     */
    private int coordinator() {
        final Optional<Integer> count = store.topicAssignment(OFFSETS_TOPIC, null)
            .map(v -> v.value().partitions().size());
        if (count.isEmpty()) {
            out.println("[quickstart]   (no " + OFFSETS_TOPIC + " in ZooKeeper: the coordinator cannot be named)");
            return -1;
        }
        final int hash = group.hashCode();
        final TopicPartition offsets = new TopicPartition(OFFSETS_TOPIC,
            (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % count.get());
        final int leader = store.partitionStates(List.of(offsets)).getOrDefault(offsets, Optional.empty())
            .map(s -> s.leaderAndIsr().leader()).orElse(-1);
        out.println("[quickstart]   the group's coordinator: broker " + leader + ", the leader of " + offsets
            + " (abs(hashCode(\"" + group + "\")) % " + count.get() + " partitions, Kafka's rule)");
        return leader;
    }

    private static String numbered(final String name, final int n) {
        return n == 1 ? name : name + "-" + n;
    }

    /** Partition to leader, for the partitions led with every replica in sync. */
    private Map<Integer, Integer> leaders(final List<TopicPartition> tps) {
        final Map<Integer, Integer> led = new TreeMap<>();
        for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e : store.partitionStates(tps).entrySet()) {
            e.getValue().map(PartitionStateZnode::leaderAndIsr)
                .filter(s -> s.leader() > 0 && s.isr().size() == Quickstart.BROKERS)
                .ifPresent(s -> led.put(e.getKey().partition(), s.leader()));
        }
        return led;
    }

    private Properties producerConfig() {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "quickstart-group-producer");
        return p;
    }

    /** Sends a round of records, the same number to each partition, and waits for every acknowledgement. */
    private void produce(final KafkaProducer<String, String> producer, final int round) throws Exception {
        final Deadline deadline = Deadline.of("quickstart: consumer group: produce round " + round, stepTimeout);
        final List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
            for (int p = 0; p < PARTITIONS; p++) {
                sent.add(producer.send(new ProducerRecord<>(topic, p, null, "round-" + round + "-" + p + "-" + i)));
            }
        }
        for (final Future<RecordMetadata> f : sent) {
            deadline.get(f, "the acknowledgements of round " + round + " to " + topic);
        }
        out.println("[quickstart]   produced " + sent.size() + " records to " + topic + ", " + RECORDS_PER_PARTITION
            + " to each partition (round " + round + ")");
    }

    /** Reads the committed and end offsets with Kafka's AdminClient, prints them and judges the step. */
    private Outcome check(final int coordinator, final int firstGeneration, final SortedSet<Integer> before,
                          final int generation, final SortedMap<String, SortedSet<Integer>> after,
                          final long rebalanceMs, final SortedMap<String, Integer> readBy, final long startNs)
        throws Exception {
        final Deadline deadline = Deadline.of("quickstart: consumer group: read the committed offsets", stepTimeout);
        final SortedMap<Integer, Long> committed = new TreeMap<>();
        final SortedMap<Integer, Long> ends = new TreeMap<>();
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "quickstart-admin");
        try (Admin admin = Admin.create(p)) {
            final Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = get(deadline,
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
                "Admin.listConsumerGroupOffsets(" + group + ")");
            offsets.forEach((tp, o) -> {
                if (tp.topic().equals(topic) && o != null) {
                    committed.put(tp.partition(), o.offset());
                }
            });
            final Map<org.apache.kafka.common.TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) {
                latest.put(new org.apache.kafka.common.TopicPartition(topic, i), OffsetSpec.latest());
            }
            final Map<org.apache.kafka.common.TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end =
                get(deadline, admin.listOffsets(latest).all(), "Admin.listOffsets(" + topic + ", latest)");
            end.forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        }
        out.println("[quickstart] committed offsets of " + group + " (Admin.listConsumerGroupOffsets) against the end"
            + " offsets (Admin.listOffsets):");
        for (int i = 0; i < PARTITIONS; i++) {
            final int partition = i;
            final String owner = after.entrySet().stream().filter(e -> e.getValue().contains(partition))
                .map(Map.Entry::getKey).collect(Collectors.joining(","));
            out.println("[quickstart]   " + topic + "-" + i + ": committed " + Optional.ofNullable(committed.get(i))
                .map(String::valueOf).orElse("none") + ", end offset " + ends.get(i) + ", owner "
                + (owner.isEmpty() ? "none" : owner));
        }
        final GroupCheck.Verdict verdict = GroupCheck.check(PARTITIONS, Map.copyOf(after), committed, ends, reads);
        out.println("[quickstart] checked the group: " + verdict.shared().size() + " partitions shared, "
            + verdict.unowned().size() + " unowned, " + verdict.committedWrong().size() + " committed offsets"
            + " not at the end, " + verdict.missed() + " records missed, " + verdict.readTwice() + " read twice");
        if (!verdict.ok()) {
            throw new DemoFailure("step 'quickstart: consumer group: check': " + verdict.problems());
        }
        return new Outcome(topic, group, coordinator, firstGeneration, before, generation, after, rebalanceMs,
            Collections.unmodifiableSortedMap(new TreeMap<>(resumedAt)), Collections.unmodifiableSortedMap(committed),
            Collections.unmodifiableSortedMap(ends), Collections.unmodifiableSortedMap(readBy), verdict,
            (System.nanoTime() - startNs) / 1_000_000);
    }

    private static <T> T get(final Deadline deadline, final KafkaFuture<T> future, final String what)
        throws InterruptedException, ExecutionException {
        try {
            return future.get(deadline.remainingMs(), TimeUnit.MILLISECONDS);
        } catch (final TimeoutException e) {
            throw deadline.timeout(what);
        }
    }

    /**
     * One member of the group: its consumer, and its partitions and generation as its rebalance listener last heard.
     */
    private final class Member implements ConsumerRebalanceListener {
        private final String name;
        private final KafkaConsumer<String, String> consumer;
        private final Set<Integer> owned = new TreeSet<>();
        /** The generation of the last assignment, -1 before the first. */
        private int generation = -1;
        /** Whether the member holds the partitions of {@link #generation} (false between a revoke and an assign). */
        private boolean assigned;
        private boolean closing;
        private int read;

        Member(final String name) {
            this.name = name;
            final Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "quickstart-member-" + name.toLowerCase(java.util.Locale.ROOT));
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
            consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        }

        void subscribe() {
            consumer.subscribe(List.of(topic), this);
        }

        void poll() {
            for (final ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                reads.add(new GroupCheck.Read(name, r.partition(), r.offset()));
                read++;
                if (rebalanced) {
                    resumedAt.putIfAbsent(r.partition(), r.offset());
                }
            }
        }

        /** Whether the member owns partitions and has read each to its end offset. */
        boolean atEnd(final Deadline deadline) {
            if (!assigned || owned.isEmpty()) {
                return false;
            }
            final Collection<org.apache.kafka.common.TopicPartition> tps = kafkaPartitions(owned);
            final Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(tps,
                Duration.ofMillis(deadline.remainingMs()));
            for (final org.apache.kafka.common.TopicPartition tp : tps) {
                if (consumer.position(tp, Duration.ofMillis(deadline.remainingMs())) < end.get(tp)) {
                    return false;
                }
            }
            return true;
        }

        /** Partition to position, for a failure message (a position the consumer cannot tell is "?"). */
        Map<Integer, String> positions() {
            final Map<Integer, String> at = new TreeMap<>();
            for (final org.apache.kafka.common.TopicPartition tp : consumer.assignment()) {
                try {
                    at.put(tp.partition(), String.valueOf(consumer.position(tp, Duration.ofSeconds(1))));
                } catch (final RuntimeException e) {
                    at.put(tp.partition(), "? (" + e.getClass().getSimpleName() + ")");
                }
            }
            return at;
        }

        void commit(final Deadline deadline) {
            consumer.commitSync(Duration.ofMillis(deadline.remainingMs()));
        }

        @Override
        public void onPartitionsRevoked(final Collection<org.apache.kafka.common.TopicPartition> partitions) {
            if (closing) {
                return;
            }
            // Kafka's advice for a rebalance: commit what was read before the partitions go to another member.
            consumer.commitSync(Duration.ofMillis(part.remainingMs()));
            out.println("[quickstart]   member " + name + ": partitions revoked " + numbers(partitions)
                + " (generation " + generation + " is rebalancing), its positions committed");
            owned.clear();
            assigned = false;
        }

        @Override
        public void onPartitionsAssigned(final Collection<org.apache.kafka.common.TopicPartition> partitions) {
            final boolean first = generation < 0;
            generation = consumer.groupMetadata().generationId();
            owned.clear();
            owned.addAll(numbers(partitions));
            assigned = true;
            out.println("[quickstart]   member " + name + ": partitions assigned " + owned + ", generation "
                + generation + (first ? " (member id " + consumer.groupMetadata().memberId() + ")" : ""));
        }

        @Override
        public void onPartitionsLost(final Collection<org.apache.kafka.common.TopicPartition> partitions) {
            if (closing) {
                return;
            }
            // Lost, not revoked: the member is out of the group (its session expired), nothing can be committed.
            out.println("[quickstart]   member " + name + ": partitions LOST " + numbers(partitions)
                + " (generation " + generation + ")");
            owned.clear();
            assigned = false;
        }

        void close(final Deadline deadline) {
            closing = true;
            consumer.close(CloseOptions.timeout(Duration.ofMillis(deadline.remainingMs())));
        }
    }

    private Collection<org.apache.kafka.common.TopicPartition> kafkaPartitions(final Set<Integer> partitions) {
        return partitions.stream().map(p -> new org.apache.kafka.common.TopicPartition(topic, p)).toList();
    }

    private static Set<Integer> numbers(final Collection<org.apache.kafka.common.TopicPartition> partitions) {
        return partitions.stream().map(org.apache.kafka.common.TopicPartition::partition)
            .collect(Collectors.toCollection(TreeSet::new));
    }
}
