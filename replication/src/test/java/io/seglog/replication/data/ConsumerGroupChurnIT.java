package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.replication.Await;
import io.seglog.replication.data.clients.ConsumerDriver;
import io.seglog.storage.TopicPartition;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A churn nemesis over a consumer group (issue 14's required tests): unmodified kafka-clients consumers (4.4 on the
 * class path, 3.9 through {@link LegacyClients}) with {@code subscribe()}, manual commits and a rebalance listener,
 * eager ({@code RangeAssignor}) and cooperative ({@code CooperativeStickyAssignor}), on three Seglog brokers, while a
 * producer keeps writing. A seeded schedule of members joining, leaving with {@code close()}, killed (they stop dead,
 * so only their session timeout removes them), a static member restarting (cleanly, or replaced while its old run is
 * stuck), and the group coordinator's broker crashed (its unflushed tail lost) and restarted. A killed member dies
 * between processing a poll and committing it, and comes back at the end as a zombie that tries to commit.
 * {@link ChurnChecker} then replays every acknowledged produce, poll,
 * assignment and commit: no partition consumed by two members in one generation, no committed record skipped,
 * re-delivery only within the uncommitted window, the zombies' commits refused, every record consumed, and the final
 * committed offsets at the end offsets as AdminClient reads them.
 *
 * <p>{@code -Dseglog.churn.seed} (default 20261202) and {@code -Dseglog.churn.steps} (default 6) choose the schedules;
 * each case adds its index to the seed. One step in three does not wait for the group to settle before the next, so
 * faults land in a rebalance. A failure names its seed and the schedule it ran.
 */
@Timeout(400)
class ConsumerGroupChurnIT {
    private static final String TOPIC = "churn";
    private static final int PARTITIONS = 6;
    private static final int OFFSETS_PARTITIONS = 5;
    private static final int MAX_LIVE = 4;
    private static final int MAX_KILLS = 2;
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String RANGE = "org.apache.kafka.clients.consumer.RangeAssignor";
    private static final String COOPERATIVE = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";

    private enum Action { JOIN, LEAVE, KILL, RESTART_STATIC, CRASH_COORDINATOR }

    @TempDir
    Path dir;
    private TestingServer zk;
    private DataCluster cluster;
    private LegacyClients legacy;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final ChurnChecker checker = new ChurnChecker();
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private Thread producer;

    /** One kafka-clients version's {@link ConsumerDriver}, however it was loaded. */
    private interface Workload {
        void run(Map<String, Object> config, String topic, long seed, AtomicInteger control, CountDownLatch released,
                 BiConsumer<String, long[]> events) throws Exception;
    }

    /** One run of a consumer, on its own thread, and what its events say it owns now. */
    private static final class Member {
        final String name;
        final String instanceId;
        final AtomicInteger control = new AtomicInteger(ConsumerDriver.RUN);
        final CountDownLatch released = new CountDownLatch(1);
        final Set<Integer> owned = ConcurrentHashMap.newKeySet();
        volatile boolean killed;
        volatile boolean closed;
        Thread thread;

        Member(final String name, final String instanceId) {
            this.name = name;
            this.instanceId = instanceId;
        }

        boolean live() {
            return control.get() == ConsumerDriver.RUN && !closed;
        }

        @Override
        public String toString() {
            return name + (instanceId == null ? "" : "(" + instanceId + ")") + owned;
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(Arguments.of("4.4", RANGE), Arguments.of("4.4", COOPERATIVE), Arguments.of("3.9", COOPERATIVE),
            Arguments.of("3.9", RANGE));
    }

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> {
            props.put("offsets.topic.num.partitions", OFFSETS_PARTITIONS);
            props.put("group.initial.rebalance.delay.ms", 0);
        });
        cluster.startAll(1, 2, 3);
        cluster.createSpreadTopic(TOPIC, PARTITIONS);
    }

    @AfterEach
    void stop() throws Exception {
        producing.set(false);
        for (final Member m : members) {
            m.control.compareAndSet(ConsumerDriver.RUN, ConsumerDriver.LEAVE);
            m.released.countDown();
        }
        for (final Member m : members) {
            m.thread.join(Duration.ofSeconds(30).toMillis());
        }
        if (producer != null) {
            producer.join(Duration.ofSeconds(30).toMillis());
        }
        if (legacy != null) {
            legacy.close();
        }
        cluster.close();
        zk.close();
    }

    @ParameterizedTest(name = "kafka-clients {0}, {1}")
    @MethodSource("cases")
    void churn(final String version, final String strategy) throws Exception {
        final long base = Long.getLong("seglog.churn.seed", 20261202L);
        final int steps = Integer.getInteger("seglog.churn.steps", 6);
        final int index = cases().map(a -> a.get()[0] + "/" + a.get()[1]).toList().indexOf(version + "/" + strategy);
        final long seed = base + index;
        final String group = "churn-" + version + "-" + strategy.substring(strategy.lastIndexOf('.') + 1);
        final Workload workload = "4.4".equals(version) ? direct() : reflective(version);
        final List<String> schedule = new ArrayList<>();
        try {
            runSchedule(seed, steps, group, strategy, workload, schedule);
        } catch (final Throwable t) {
            throw new AssertionError("churn seed " + seed + " (kafka-clients " + version + ", " + strategy
                + "; rerun with -Dseglog.churn.seed=" + base + " -Dseglog.churn.steps=" + steps + ") failed after "
                + schedule + ": " + t.getMessage(), t);
        }
        System.out.println("churn seed " + seed + " (kafka-clients " + version + ", " + strategy + "): " + schedule
            + "; " + checker.summary());
    }

    private void runSchedule(final long seed, final int steps, final String group, final String strategy,
                             final Workload workload, final List<String> schedule) throws Exception {
        final SplittableRandom random = new SplittableRandom(seed);
        final Map<Integer, Long> ends = new ConcurrentHashMap<>();
        producer = startProducer(ends);
        final AtomicInteger names = new AtomicInteger();
        final AtomicInteger staticRuns = new AtomicInteger();
        final String instance = group + "-static";
        startMember(workload, group, strategy, "m" + names.incrementAndGet(), null, random.nextLong());
        startMember(workload, group, strategy, "s1." + staticRuns.incrementAndGet(), instance, random.nextLong());
        startMember(workload, group, strategy, "m" + names.incrementAndGet(), null, random.nextLong());
        awaitSettled(schedule, 200);
        int kills = 0;
        for (int step = 0; step < steps; step++) {
            final List<Member> live = members.stream().filter(Member::live).toList();
            final List<Member> dynamic = live.stream().filter(m -> m.instanceId == null).toList();
            final List<Action> possible = new ArrayList<>();
            if (live.size() < MAX_LIVE) {
                possible.add(Action.JOIN);
            }
            if (live.size() > 1 && !dynamic.isEmpty()) {
                possible.add(Action.LEAVE);
                if (kills < MAX_KILLS) {
                    possible.add(Action.KILL);
                }
            }
            if (live.stream().anyMatch(m -> m.instanceId != null)) {
                possible.add(Action.RESTART_STATIC);
            }
            possible.add(Action.CRASH_COORDINATOR);
            final Action action = possible.get(random.nextInt(possible.size()));
            // One step in three runs straight into the next, so faults land in the middle of a rebalance.
            final boolean settle = random.nextInt(3) != 0;
            switch (action) {
                case JOIN -> {
                    final String name = "m" + names.incrementAndGet();
                    schedule.add("join " + name);
                    startMember(workload, group, strategy, name, null, random.nextLong());
                }
                case LEAVE -> {
                    final Member m = dynamic.get(random.nextInt(dynamic.size()));
                    schedule.add("leave " + m.name);
                    leave(m);
                }
                case KILL -> {
                    final Member m = dynamic.get(random.nextInt(dynamic.size()));
                    schedule.add("kill " + m.name);
                    kills++;
                    m.control.set(ConsumerDriver.KILL);
                    Await.until(WAIT, () -> m.killed, () -> m.name + " stopped dead");
                }
                case RESTART_STATIC -> {
                    final Member old = live.stream().filter(m -> m.instanceId != null).findFirst().orElseThrow();
                    final String name = "s1." + staticRuns.incrementAndGet();
                    if (random.nextBoolean()) {
                        schedule.add("restart " + old.name + " as " + name);
                        leave(old);
                    } else {
                        // The old run stops dead and its replacement takes its place (and its uncommitted records):
                        // the old member id is fenced, its zombie commit at the end refused.
                        schedule.add("kill " + old.name + " and replace it with " + name);
                        old.control.set(ConsumerDriver.KILL);
                        Await.until(WAIT, () -> old.killed, () -> old.name + " stopped dead");
                    }
                    startMember(workload, group, strategy, name, instance, random.nextLong());
                }
                case CRASH_COORDINATOR -> crashCoordinator(group, schedule, settle);
            }
            if (settle) {
                awaitSettled(schedule, 100);
            } else {
                schedule.set(schedule.size() - 1, schedule.get(schedule.size() - 1) + " (no wait)");
            }
        }
        producing.set(false);
        producer.join(WAIT.toMillis());
        assertEquals(List.of(), errors, "no producer or consumer errors");
        if (members.stream().noneMatch(Member::live)) {
            schedule.add("join a last member");
            startMember(workload, group, strategy, "m" + names.incrementAndGet(), null, random.nextLong());
        }
        // The survivors drain the topic and commit its end (the killed members' partitions once their sessions end).
        Await.until(WAIT, () -> settled() && checker.acknowledgedCommits().equals(new TreeMap<>(ends)),
            () -> "the survivors committed the end offsets " + new TreeMap<>(ends) + ": commits "
                + checker.acknowledgedCommits() + ", members " + members);
        for (final Member m : members) {
            if (m.live()) {
                leave(m);
            }
        }
        // The killed members come back as zombies and try to commit: the survivors own every partition and the group
        // never has more members (six) than partitions, so a killed member still in the group would own one: each is
        // out (expired, or fenced by its static replacement), and its commit must be refused.
        for (final Member m : members) {
            m.released.countDown();
            m.thread.join(WAIT.toMillis());
        }
        final Map<Integer, Long> committed = new TreeMap<>();
        final Map<Integer, Long> logEnds = new TreeMap<>();
        try (Admin admin = cluster.admin()) {
            final Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = admin
                .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            offsets.forEach((tp, o) -> committed.put(tp.partition(), o.offset()));
            final Map<org.apache.kafka.common.TopicPartition, OffsetSpec> latest = new HashMap<>();
            IntStream.range(0, PARTITIONS).forEach(p -> latest.put(new org.apache.kafka.common.TopicPartition(TOPIC,
                p), OffsetSpec.latest()));
            final Map<org.apache.kafka.common.TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> listed = admin
                .listOffsets(latest).all().get();
            listed.forEach((tp, info) -> logEnds.put(tp.partition(), info.offset()));
        }
        assertEquals(new TreeMap<>(ends), logEnds, "the log ends are where the acknowledged produces end");
        assertEquals(List.of(), errors, "no consumer errors");
        final List<String> violations = checker.check(logEnds, committed);
        assertEquals(List.of(), violations, "the history's violations");
    }

    // ------------------------------------------------------------------------------------------------ members

    private void startMember(final Workload workload, final String group, final String strategy, final String name,
                             final String instanceId, final long seed) {
        final Member m = new Member(name, instanceId);
        if (instanceId != null) {
            checker.member(name, instanceId);
        }
        final Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", cluster.allBootstrapServers());
        config.put("group.id", group);
        config.put("client.id", name);
        if (instanceId != null) {
            config.put("group.instance.id", instanceId);
        }
        config.put("enable.auto.commit", "false");
        config.put("auto.offset.reset", "earliest");
        config.put("partition.assignment.strategy", strategy);
        // Short enough that a killed member is gone within the test's budget, long enough for a busy machine.
        config.put("session.timeout.ms", "6000");
        config.put("heartbeat.interval.ms", "1000");
        // Also the rebalance timeout: how long a rebalance waits for a member that does not rejoin.
        config.put("max.poll.interval.ms", "20000");
        config.put("max.poll.records", "50");
        config.put("default.api.timeout.ms", "20000");
        config.put("request.timeout.ms", "10000");
        config.put("metadata.max.age.ms", "2000");
        final BiConsumer<String, long[]> events = (kind, numbers) -> {
            checker.driverEvent(name, kind, numbers);
            switch (kind) {
                case "assigned" -> {
                    for (int i = 1; i < numbers.length; i++) {
                        m.owned.add((int) numbers[i]);
                    }
                }
                case "revoked", "lost" -> {
                    for (int i = 1; i < numbers.length; i++) {
                        m.owned.remove((int) numbers[i]);
                    }
                }
                case "killed" -> m.killed = true;
                case "closed" -> {
                    m.owned.clear();
                    m.closed = true;
                }
                default -> {
                }
            }
        };
        m.thread = new Thread(() -> {
            try {
                workload.run(config, TOPIC, seed, m.control, m.released, events);
            } catch (final Throwable t) {
                errors.add(name + ": " + t);
                m.closed = true;
            }
        }, "churn-" + name);
        m.thread.setDaemon(true);
        members.add(m);
        m.thread.start();
    }

    private static void leave(final Member m) throws InterruptedException {
        m.control.set(ConsumerDriver.LEAVE);
        m.thread.join(WAIT.toMillis());
        if (m.thread.isAlive()) {
            throw new AssertionError(m.name + " did not close within " + WAIT);
        }
    }

    /** The live members own every partition, each exactly once (a killed member's session has ended). */
    private boolean settled() {
        final Set<Integer> all = new HashSet<>();
        int count = 0;
        for (final Member m : members) {
            if (m.live()) {
                all.addAll(m.owned);
                count += m.owned.size();
            }
        }
        return count == PARTITIONS && all.size() == PARTITIONS;
    }

    /** Waits until the group is settled and has consumed {@code records} more records. */
    private void awaitSettled(final List<String> schedule, final long records) {
        final long from = checker.polledCount();
        Await.until(WAIT, () -> settled() && checker.polledCount() >= from + records && errors.isEmpty(),
            () -> "the live members own every partition once and consume (" + checker.polledCount() + " polled, "
                + (from + records) + " wanted): " + members + ", errors " + errors + " after " + schedule);
    }

    // ------------------------------------------------------------------------------------------------ coordinator

    private void crashCoordinator(final String group, final List<String> schedule, final boolean settle)
        throws Exception {
        final TopicPartition offsets = new TopicPartition("__consumer_offsets",
            Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS);
        awaitFullIsr(offsets);
        final int leader = cluster.state(offsets).leader();
        schedule.add("crash coordinator " + leader + " (" + offsets + ")");
        cluster.crash(leader);
        Await.until(WAIT, () -> {
            final var s = cluster.state(offsets);
            return s.hasLeader() && s.leader() != leader;
        }, () -> offsets + " led by another broker than " + leader);
        if (settle) {
            awaitSettled(schedule, 100); // the group goes on under the new coordinator
        }
        cluster.start(leader).awaitRegistered(WAIT.toMillis());
        awaitFullIsr(offsets);
    }

    private void awaitFullIsr(final TopicPartition offsets) {
        final List<TopicPartition> all = new ArrayList<>();
        all.add(offsets);
        IntStream.range(0, PARTITIONS).forEach(p -> all.add(new TopicPartition(TOPIC, p)));
        Await.until(WAIT, () -> all.stream().allMatch(tp -> {
            final var s = cluster.state(tp);
            return s.hasLeader() && s.isr().size() == 3;
        }), () -> "every partition led with a full ISR");
    }

    // ------------------------------------------------------------------------------------------------ producer

    /**
     * Writes values 0, 1, 2, ... round-robin over the partitions with Kafka's default producer (idempotent, acks=all),
     * about 400 a second, recording each acknowledgement, until told to stop; then flushes.
     */
    private Thread startProducer(final Map<Integer, Long> ends) {
        final Thread t = new Thread(() -> {
            final Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 2_000);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
                long i = 0;
                while (producing.get()) {
                    final long value = i;
                    final int partition = (int) (i % PARTITIONS);
                    producer.send(new ProducerRecord<>(TOPIC, partition, null,
                        Long.toString(value).getBytes(StandardCharsets.UTF_8)), (md, e) -> {
                            if (e != null) {
                                errors.add("produce of " + value + " to partition " + partition + ": " + e);
                            } else {
                                checker.produced(md.partition(), md.offset(), value);
                                ends.merge(md.partition(), md.offset() + 1, Math::max);
                            }
                        });
                    i++;
                    // Load pacing, not a wait: records keep arriving during the churn without flooding the checker.
                    LockSupport.parkNanos(2_500_000);
                }
                producer.flush();
            } catch (final RuntimeException e) {
                errors.add("producer: " + e);
            }
        }, "churn-producer");
        t.setDaemon(true);
        t.start();
        return t;
    }

    // ------------------------------------------------------------------------------------------------ drivers

    private static Workload direct() {
        final ConsumerDriver driver = new ConsumerDriver();
        return driver::run;
    }

    private Workload reflective(final String version) {
        legacy = new LegacyClients();
        if (!legacy.version().startsWith(version)) {
            throw new IllegalStateException("the legacy kafka-clients are " + legacy.version() + ", not " + version);
        }
        final Object driver = legacy.newDriver(ConsumerDriver.class);
        final Method run;
        try {
            run = driver.getClass().getMethod("run", Map.class, String.class, long.class, AtomicInteger.class,
                CountDownLatch.class, BiConsumer.class);
        } catch (final NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
        return (config, topic, seed, control, released, events) -> {
            try {
                run.invoke(driver, config, topic, seed, control, released, events);
            } catch (final InvocationTargetException e) {
                throw e.getCause() instanceof Exception x ? x : new IllegalStateException(e.getCause());
            }
        };
    }
}
