package io.seglog.replication.example;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.TopicPartition;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The quickstart, the centre of the demo: three Seglog brokers, a topic with three replicas, a real kafka-clients
 * {@link KafkaProducer} writing with {@code acks=all} while the partition's leader is killed, the election that
 * follows (new leader, leader epoch, ISR, as ZooKeeper holds them), a real {@link KafkaConsumer} ({@code assign()})
 * reading everything back, and the {@link DeliveryCheck} of what was read against what was acknowledged. The killed
 * broker is then restarted and rejoins the ISR, and a consumer group on a topic of six partitions rebalances when a
 * second member joins ({@link ConsumerGroupStep}, checked by {@link GroupCheck}).
 *
 * <p>Not thread-safe; runs on the caller's thread, with one producing thread of its own (see {@link Producing}) and
 * the clients' threads, all ended before {@link #run} returns.
 */
final class Quickstart {
    /** Kafka's quickstart topic name (a later run against the same ZooKeeper takes {@code quickstart-events-2}). */
    static final String TOPIC = "quickstart-events";
    static final int BROKERS = 3;
    /** Records acknowledged before the leader is killed. */
    static final int ACKNOWLEDGED_BEFORE_KILL = 3_000;
    /** Records sent after the kill that must be acknowledged (by the new leader) before the producer stops. */
    static final int ACKNOWLEDGED_AFTER_KILL = 3_000;
    /**
     * Whether the producer is idempotent: Kafka's default ({@code enable.idempotence=true}, with {@code acks=all}),
     * served by Seglog's InitProducerId; a retry of a batch the old leader had already replicated is then answered
     * as a duplicate, so the check allows none.
     */
    static final boolean IDEMPOTENCE = true;
    private static final String VALUE_PREFIX = "event-";
    private static final long PROGRESS_EVERY_NS = 1_000_000_000L;
    private static final ZkSessionListener QUIET = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    /**
     * The partition's state in ZooKeeper, and the controller that wrote it.
     *
     * @param leader          the leader's broker id
     * @param leaderEpoch     the leader epoch
     * @param isr             the in-sync replicas
     * @param controller      the controller's broker id (-1 when none)
     * @param controllerEpoch the controller epoch
     */
    record Election(int leader, int leaderEpoch, List<Integer> isr, int controller, int controllerEpoch) {
    }

    /**
     * What the quickstart saw.
     *
     * @param topic           the topic written and read
     * @param bootstrap       the brokers' listeners
     * @param processes       whether the brokers ran as processes (else in this JVM)
     * @param before          the partition's state before the kill
     * @param killed          how the leader was stopped
     * @param after           the state once a new leader was elected
     * @param reelectionMs    from the kill to the new leader in ZooKeeper
     * @param isrAfterRestart the ISR once the killed broker was back
     * @param delivery        the check of what was read against what was acknowledged
     * @param idempotent      whether the producer was idempotent
     * @param group           what the consumer group step saw
     * @param metrics         per broker, the metrics read over JMX at the end (by short name: see {@link #METRICS})
     */
    record Outcome(String topic, String bootstrap, boolean processes, Election before, String killed, Election after,
                   long reelectionMs, List<Integer> isrAfterRestart, DeliveryCheck.Verdict delivery,
                   boolean idempotent, ConsumerGroupStep.Outcome group, Map<Integer, Map<String, Long>> metrics) {
    }

    /** The metrics the tour reads from each broker: short name, then Kafka's JMX name and attribute. */
    static final Map<String, String[]> METRICS = metricNames();

    private static Map<String, String[]> metricNames() {
        final Map<String, String[]> m = new java.util.LinkedHashMap<>();
        m.put("ActiveControllerCount", new String[] {"kafka.controller:type=KafkaController,name=ActiveControllerCount",
            "Value"});
        m.put("PartitionCount", new String[] {"kafka.server:type=ReplicaManager,name=PartitionCount", "Value"});
        m.put("LeaderCount", new String[] {"kafka.server:type=ReplicaManager,name=LeaderCount", "Value"});
        m.put("UnderReplicatedPartitions", new String[] {"kafka.server:type=ReplicaManager,"
            + "name=UnderReplicatedPartitions", "Value"});
        m.put("MessagesInPerSec", new String[] {"kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec",
            "Count"});
        return java.util.Collections.unmodifiableMap(m);
    }

    private final String connect;
    private final PrintStream out;
    private final Duration stepTimeout;
    private final QuickstartBrokers brokers;
    private final boolean processes;
    private final AtomicInteger threadIds = new AtomicInteger();
    private KafkaZkStore store;

    private Quickstart(final String connect, final QuickstartBrokers brokers, final boolean processes,
                       final PrintStream out, final Duration stepTimeout) {
        this.connect = connect;
        this.brokers = brokers;
        this.processes = processes;
        this.out = out;
        this.stepTimeout = stepTimeout;
    }

    /**
     * Runs the quickstart.
     *
     * @param connect     ZooKeeper connection string with chroot
     * @param dir         where the brokers keep their logs (and, as processes, their properties and output)
     * @param processes   whether to run the brokers as processes (else in this JVM)
     * @param out         where the tour is printed
     * @param stepTimeout deadline of each step
     * @return what it saw
     * @throws Exception naming the step that failed; every broker and client is closed first
     */
    static Outcome run(final String connect, final Path dir, final boolean processes, final PrintStream out,
                       final Duration stepTimeout) throws Exception {
        try (QuickstartBrokers brokers = processes ? new BrokerProcesses(dir, connect) : new InJvmBrokers(dir, connect)) {
            final Quickstart q = new Quickstart(connect, brokers, processes, out, stepTimeout);
            final Outcome outcome = q.run();
            q.printSummary(outcome);
            return outcome;
        } finally {
            out.println("[quickstart] stopped the brokers");
        }
    }

    private Outcome run() throws Exception {
        // The demo's own session first: an unreachable ZooKeeper fails here, in seconds and by name, before any
        // broker is started. It creates the topic and reads the partition's state, as an admin tool would.
        final ReplicationConfig zkConfig = ReplicationConfig.builder().brokerId(0).zookeeperConnect(connect)
            .zookeeperSessionTimeoutMs(QuickstartBrokers.SESSION_TIMEOUT_MS).build();
        try (ZkClient zk = ZkClient.open(zkConfig, r -> new Thread(r, "quickstart-zk-" + threadIds.incrementAndGet()),
            QUIET)) {
            try {
                zk.awaitConnected(zkConfig.zookeeperConnectionTimeoutMs());
            } catch (final ZkException e) {
                throw new DemoFailure("step 'quickstart: connect to ZooKeeper': cannot reach ZooKeeper " + connect
                    + " within " + zkConfig.zookeeperConnectionTimeoutMs() + " ms", e);
            }
            store = new KafkaZkStore(zk);
            store.createPersistentPaths();
            // A process start is a JVM start: give it twice a step's time on a busy machine.
            final Deadline startup = Deadline.of("quickstart: start three brokers", stepTimeout.multipliedBy(2));
            for (int id = 1; id <= BROKERS; id++) {
                brokers.start(id);
            }
            for (int id = 1; id <= BROKERS; id++) {
                brokers.awaitReady(id, startup);
                out.println("[quickstart] broker " + id + " up (" + brokers.where(id) + ")");
            }
            out.println("[quickstart] bootstrap.servers=" + brokers.bootstrap());
            return withTopic(createTopic());
        }
    }

    private TopicPartition createTopic() throws InterruptedException {
        final Deadline create = Deadline.of("quickstart: create a topic", stepTimeout);
        final Set<String> existing = store.topics(null);
        String topic = TOPIC;
        for (int n = 2; existing.contains(topic); n++) {
            topic = TOPIC + "-" + n;
        }
        final TopicPartition tp = new TopicPartition(topic, 0);
        new TopicAdmin(store, new SplittableRandom()).createTopic(topic, 1, BROKERS);
        create.await(() -> state(tp).map(s -> s.leader() > 0 && s.isr().size() == BROKERS).orElse(false),
            () -> tp + " led with all " + BROKERS + " replicas in sync: " + state(tp));
        final Election e = state(tp).orElseThrow();
        out.println("[quickstart] created topic " + topic + ": 1 partition, replication factor " + BROKERS
            + ", min.insync.replicas=" + QuickstartBrokers.MIN_INSYNC_REPLICAS);
        out.println("[quickstart]   " + tp + ": leader broker " + e.leader() + ", leader epoch " + e.leaderEpoch()
            + ", isr " + e.isr() + " (controller: broker " + e.controller() + ", controller epoch "
            + e.controllerEpoch() + ")");
        return tp;
    }

    private Outcome withTopic(final TopicPartition tp) throws Exception {
        final Election before = state(tp).orElseThrow();
        final int oldLeader = before.leader();
        final String killed;
        final Election after;
        final long reelectionMs;
        out.println("[quickstart] producer: KafkaProducer with Kafka's default settings (acks=all,"
            + " enable.idempotence=true)");
        final KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(),
            new StringSerializer());
        final Producing producing = new Producing(producer, tp.topic(), "quickstart-producer");
        boolean closed = false;
        try {
            producing.start();
            final Deadline warmUp = Deadline.of("quickstart: produce before the kill", stepTimeout);
            awaitWithProgress(warmUp, () -> producing.acknowledged() >= ACKNOWLEDGED_BEFORE_KILL, producing,
                () -> ACKNOWLEDGED_BEFORE_KILL + " records acknowledged");

            final Deadline failover = Deadline.of("quickstart: kill the leader and elect another", stepTimeout);
            producing.markKill();
            final long killedNs = System.nanoTime();
            killed = brokers.kill(oldLeader, failover);
            out.println("[quickstart] KILLED the leader, broker " + oldLeader + " (" + killed + "), with "
                + producing.sent() + " records sent, " + producing.acknowledged()
                + " acknowledged; the producer keeps sending");
            if (processes) {
                out.println("[quickstart] waiting for the election: the controller acts once broker " + oldLeader
                    + "'s ZooKeeper session expires (zookeeper.session.timeout.ms="
                    + QuickstartBrokers.SESSION_TIMEOUT_MS + ")");
            }
            awaitWithProgress(failover, () -> state(tp).map(s -> s.leader() > 0 && s.leader() != oldLeader)
                .orElse(false), producing, () -> "a new leader of " + tp + " in ZooKeeper: " + state(tp));
            reelectionMs = (System.nanoTime() - killedNs) / 1_000_000;
            after = state(tp).orElseThrow();
            out.println("[quickstart] ELECTED: broker " + after.leader() + " leads " + tp + " now, leader epoch "
                + after.leaderEpoch() + " (was " + before.leaderEpoch() + "), isr " + after.isr() + ", "
                + reelectionMs + " ms after the kill" + (after.controller() == before.controller() ? ""
                : "; the controller moved too: broker " + after.controller() + ", controller epoch "
                + after.controllerEpoch() + " (was broker " + before.controller() + ", epoch "
                + before.controllerEpoch() + ")"));

            final Deadline resume = Deadline.of("quickstart: produce to the new leader", stepTimeout);
            awaitWithProgress(resume, () -> producing.acknowledgedAfterKill() >= ACKNOWLEDGED_AFTER_KILL,
                producing, () -> ACKNOWLEDGED_AFTER_KILL + " records sent after the kill acknowledged");
            producing.stop();
            final Deadline drain = Deadline.of("quickstart: stop the producer", stepTimeout);
            producing.join(drain);
            // Waits for the records still unanswered; the ones not answered in time fail and are counted so.
            producer.close(Duration.ofMillis(drain.remainingMs()));
            closed = true;
        } finally {
            if (!closed) {
                // A failed step: no waiting for unanswered records (a producer's close waits up to its delivery
                // timeout, two minutes); the failure is what the user needs to see.
                producing.stop();
                producer.close(Duration.ZERO);
                producing.joinQuietly();
            }
        }
        producing.rethrow();
        out.println("[quickstart] producer closed: " + producing.sent() + " sent, " + producing.acknowledged()
            + " acknowledged, " + producing.failed() + " failed" + producing.failures());

        final List<DeliveryCheck.Read> read = consume(tp, after.leader());
        final DeliveryCheck.Verdict verdict = DeliveryCheck.check(producing.sent(), producing.offsets(),
            producing.failed(), read);
        out.println("[quickstart] checked: " + verdict.lost() + " acknowledged records lost, " + verdict.misplaced()
            + " not at their acknowledged offset, order " + (verdict.orderKept() ? "kept" : "BROKEN") + ", "
            + verdict.duplicates() + " duplicates" + (verdict.duplicates() > 0 && !IDEMPOTENCE
            ? " (retries of a non-idempotent producer; e.g. ids " + verdict.examples().get("duplicates") + ")" : "")
            + ", " + verdict.unacknowledgedRead() + " unacknowledged records stored anyway");
        if (!verdict.ok(IDEMPOTENCE)) {
            throw new DemoFailure("step 'quickstart: check what was read': " + verdict.problems(IDEMPOTENCE));
        }

        final Deadline rejoin = Deadline.of("quickstart: restart the killed broker", stepTimeout.multipliedBy(2));
        brokers.start(oldLeader);
        brokers.awaitReady(oldLeader, rejoin);
        rejoin.await(() -> state(tp).map(s -> s.isr().contains(oldLeader)).orElse(false),
            () -> "broker " + oldLeader + " back in the ISR of " + tp + ": " + state(tp));
        final Election back = state(tp).orElseThrow();
        out.println("[quickstart] restarted broker " + oldLeader + " (" + brokers.where(oldLeader) + "): it caught up"
            + " from broker " + back.leader() + " and is back in the ISR " + back.isr());

        // With all three brokers up again (the offsets topic, __consumer_offsets, wants three replicas).
        final ConsumerGroupStep.Outcome group = ConsumerGroupStep.run(store, brokers.bootstrap(), out, stepTimeout);
        final Map<Integer, Map<String, Long>> metrics = readMetrics(tp);
        return new Outcome(tp.topic(), brokers.bootstrap(), processes, before, killed, after, reelectionMs, back.isr(),
            verdict, IDEMPOTENCE, group, metrics);
    }

    /**
     * Reads each broker's metrics over JMX by Kafka's names, once every partition is fully replicated again, and
     * checks them against ZooKeeper: one active controller, the one ZooKeeper names; every replica of the tour's
     * partition at the same log end offset.
     */
    private Map<Integer, Map<String, Long>> readMetrics(final TopicPartition tp) throws Exception {
        final Deadline deadline = Deadline.of("quickstart: read the brokers' metrics over JMX", stepTimeout);
        deadline.await(() -> {
            for (int id = 1; id <= BROKERS; id++) {
                if (readOrMinusOne(id, "UnderReplicatedPartitions") != 0) {
                    return false;
                }
            }
            return true;
        }, () -> "no under-replicated partition on any broker");
        final Map<Integer, Map<String, Long>> all = new java.util.TreeMap<>();
        final String endOffset = "kafka.log:type=Log,name=LogEndOffset,topic=" + tp.topic() + ",partition="
            + tp.partition();
        final java.util.Set<Long> ends = new java.util.TreeSet<>();
        for (int id = 1; id <= BROKERS; id++) {
            final Map<String, Long> values = new java.util.LinkedHashMap<>();
            for (final Map.Entry<String, String[]> e : METRICS.entrySet()) {
                values.put(e.getKey(), brokers.metric(id, e.getValue()[0], e.getValue()[1]).longValue());
            }
            final long end = brokers.metric(id, endOffset, "Value").longValue();
            ends.add(end);
            all.put(id, values);
            out.println("[quickstart] broker " + id + " metrics (" + brokers.metricsAt(id) + "): " + values
                + ", LogEndOffset of " + tp + " " + end);
        }
        final int controller = store.controllerId(null).orElse(-1);
        final List<Integer> active = all.entrySet().stream().filter(e -> e.getValue().get("ActiveControllerCount")
            == 1).map(Map.Entry::getKey).toList();
        if (!active.equals(List.of(controller))) {
            throw new DemoFailure("step 'quickstart: read the brokers' metrics over JMX': ActiveControllerCount is 1 on"
                + " brokers " + active + ", but ZooKeeper's controller is broker " + controller);
        }
        if (ends.size() != 1) {
            throw new DemoFailure("step 'quickstart: read the brokers' metrics over JMX': the replicas of " + tp
                + " end at different offsets " + ends);
        }
        out.println("[quickstart] metrics: Kafka's JMX names, for jconsole or the Prometheus JMX exporter's Kafka rules;"
            + " cluster state: seglog zk " + connect + "; a log directory: seglog verify <dir>/broker-1");
        return java.util.Collections.unmodifiableMap(all);
    }

    private long readOrMinusOne(final int id, final String metric) {
        try {
            return brokers.metric(id, METRICS.get(metric)[0], METRICS.get(metric)[1]).longValue();
        } catch (final Exception e) {
            return -1; // not reachable yet: a restarted broker's JMX agent
        }
    }

    private Properties producerConfig() {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "quickstart-producer");
        // Nothing else: Kafka's defaults are acks=all and enable.idempotence=true.
        return p;
    }

    /** Reads the partition from the beginning to its end offset with {@code assign()}, as Kafka's clients do. */
    private List<DeliveryCheck.Read> consume(final TopicPartition tp, final int leader) throws InterruptedException {
        final Deadline deadline = Deadline.of("quickstart: consume everything back", stepTimeout);
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers.bootstrap());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "quickstart-consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final List<DeliveryCheck.Read> read = new ArrayList<>();
        final org.apache.kafka.common.TopicPartition kafkaTp =
            new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
        final long end;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
            new StringDeserializer())) {
            consumer.assign(List.of(kafkaTp));
            consumer.seekToBeginning(List.of(kafkaTp));
            end = consumer.endOffsets(List.of(kafkaTp), Duration.ofMillis(deadline.remainingMs())).get(kafkaTp);
            deadline.await(() -> {
                for (final ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    read.add(new DeliveryCheck.Read(r.offset(), id(r.value())));
                }
                return consumer.position(kafkaTp, Duration.ofMillis(deadline.remainingMs())) >= end;
            }, () -> "the consumer to reach offset " + end + " of " + tp + " (read " + read.size() + ")");
        }
        out.println("[quickstart] consumer: KafkaConsumer, assign(" + tp + "), seekToBeginning: read " + read.size()
            + " records, offsets 0.." + (end - 1) + ", from the new leader, broker " + leader);
        return read;
    }

    private static int id(final String value) {
        try {
            return value != null && value.startsWith(VALUE_PREFIX)
                ? Integer.parseInt(value.substring(VALUE_PREFIX.length())) : -1;
        } catch (final NumberFormatException e) {
            return -1;
        }
    }

    /** Waits for the condition, printing the producer's progress about once a second and failing if it failed. */
    private void awaitWithProgress(final Deadline deadline, final BooleanSupplier condition, final Producing producing,
                                   final Supplier<String> what) throws InterruptedException {
        final long[] lastPrint = {System.nanoTime()};
        deadline.await(() -> {
            producing.rethrow();
            if (System.nanoTime() - lastPrint[0] >= PROGRESS_EVERY_NS) {
                lastPrint[0] = System.nanoTime();
                out.println("[quickstart]   producing: " + producing.sent() + " sent, " + producing.acknowledged()
                    + " acknowledged, " + producing.failed() + " failed");
            }
            return condition.getAsBoolean();
        }, what);
    }

    /** The partition's state and the controller, as ZooKeeper holds them now. */
    private Optional<Election> state(final TopicPartition tp) {
        final Optional<LeaderAndIsr> s = store.partitionStates(List.of(tp)).getOrDefault(tp, Optional.empty())
            .map(PartitionStateZnode::leaderAndIsr);
        return s.map(l -> new Election(l.leader(), l.leaderEpoch(), l.isr(), store.controllerId(null).orElse(-1),
            store.controllerEpoch().map(v -> v.value()).orElse(-1)));
    }

    private void printSummary(final Outcome o) {
        final DeliveryCheck.Verdict v = o.delivery();
        out.println("[quickstart] summary");
        row("records sent", v.sent());
        row("records acknowledged", v.acknowledged() + "  (acks=all, enable.idempotence=" + o.idempotent() + ")");
        row("sends failed", v.failed());
        row("records consumed", v.consumed());
        row("lost", v.lost() + "  (acknowledged, not read back)");
        row("duplicates", v.duplicates() + (v.duplicates() > 0 && !o.idempotent()
            ? "  (stored twice by retries: idempotence is off)" : ""));
        row("order", v.orderKept() ? "kept" : "BROKEN");
        row("exactly once", v.exactlyOnce() ? "yes, every acknowledged record read once, at its offset"
            : "no: " + v.lost() + " lost, " + v.duplicates() + " duplicates");
        row("old leader", "broker " + o.before().leader() + ", leader epoch " + o.before().leaderEpoch()
            + ", killed (" + o.killed() + ")");
        row("new leader", "broker " + o.after().leader() + ", leader epoch " + o.after().leaderEpoch() + ", isr "
            + o.after().isr());
        row("time to re-elect", o.reelectionMs() + " ms" + (o.processes() ? "  (ZooKeeper session timeout "
            + QuickstartBrokers.SESSION_TIMEOUT_MS + " ms)" : ""));
        row("after restart", "broker " + o.before().leader() + " back in the ISR " + o.isrAfterRestart());
        final ConsumerGroupStep.Outcome g = o.group();
        row("consumer group", g.group() + " on " + g.topic() + " (" + ConsumerGroupStep.PARTITIONS
            + " partitions): A alone in generation " + g.firstGeneration() + ", A and B in generation "
            + g.generation() + "; step took " + g.stepMs() + " ms");
        row("rebalance", "A " + g.before() + " -> A " + g.after().get("A") + ", B " + g.after().get("B") + " in "
            + g.rebalanceMs() + " ms, no partition shared or unowned");
        row("committed offsets", "= end offsets on all " + ConsumerGroupStep.PARTITIONS + " partitions ("
            + g.committed().values().stream().distinct().map(String::valueOf).collect(
            Collectors.joining("/")) + "); " + g.reads().values().stream().mapToInt(Integer::intValue)
            .sum() + " records read once by the group (A " + g.reads().get("A") + ", B " + g.reads().get("B") + ")");
    }

    private void row(final String name, final Object value) {
        out.println(String.format("[quickstart]   %-22s %s", name, value));
    }
}
