package io.seglog.bench.cluster;

import static io.seglog.bench.cluster.ClientWorkload.payload;
import static io.seglog.bench.cluster.ClientWorkload.percentile;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.zk.EmbeddedZooKeeper;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce throughput and latency of a three-broker Seglog cluster, with kafka-clients over loopback, beside the
 * single-node append rate of the same machine in the same run (the ratio is the figure to read: absolute numbers on
 * a shared 2-core VM swing run to run).
 *
 * <ul>
 *   <li><b>Baseline</b>: {@code PartitionLog.appendAsLeader} of 64 KiB batches (what the harness's producers send:
 *       {@code batch.size} 64 KiB, {@code linger.ms} 5) in a loop on one thread, records per second.</li>
 *   <li><b>Workloads</b>: RF=1 acks=1, RF=3 acks=1, RF=3 acks=all, and RF=3 acks=all with
 *       {@code seglog.acks.all.durable=true} (every replica that counted has the records on disk before the ack), for
 *       100 B and 1 KiB records, one partition. Each is measured twice: <em>throughput</em> (as fast as the producer
 *       can send, acknowledged records per second, {@code --runs} runs, mean and half-range) and <em>latency</em>
 *       (the producer paced at a fifth of that throughput with {@code linger.ms=0}, each record's send-to-ack time,
 *       p50/p99/p99.9).</li>
 *   <li><b>Failover</b>: with RF=3 acks=all at a steady rate, the partition's leader broker is stopped; the
 *       unavailability is the time from the stop to the acknowledgement of the first record sent after it (the
 *       controller's election, the LeaderAndIsr, the producer's metadata refresh and retry). p50/p99 over
 *       {@code --failover-trials} trials; the broker is restarted and back in the ISR between trials. The stop is a
 *       close (its ZooKeeper session ends at once), not a process kill whose session would time out.</li>
 * </ul>
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.seglog.bench.cluster.ClusterBench [--out DIR] [--quick]
 * [--duration-ms N] [--runs N] [--failover-trials N]}. Writes {@code cluster-summary.csv}
 * ({@code workload,system,metric,value,error,unit}) and {@code cluster-summary.md} to DIR ({@code --quick}:
 * {@code cluster-quick-*}, a pipeline check, not a measurement).
 */
public final class ClusterBench {
    /** A produce workload. */
    record Workload(String name, int replicationFactor, String acks, boolean durable) {
    }

    static final List<Workload> WORKLOADS = List.of(
        new Workload("RF=1 acks=1", 1, "1", false),
        new Workload("RF=3 acks=1", 3, "1", false),
        new Workload("RF=3 acks=all", 3, "all", false),
        new Workload("RF=3 acks=all durable", 3, "all", true));
    static final int[] RECORD_BYTES = {100, 1024};

    /** One output row. */
    record Row(String workload, String system, String metric, double value, double error, String unit) {
        String csv() {
            return String.join(",", workload, system, metric, format(value), format(error), unit);
        }
    }

    private final Path root;
    private final long durationMs;
    private final int runs;
    private final int failoverTrials;
    private final PrintStream out;
    private final List<Row> rows = new ArrayList<>();
    private final AtomicLong topicIds = new AtomicLong();

    ClusterBench(final Path root, final long durationMs, final int runs, final int failoverTrials,
                 final PrintStream out) {
        this.root = root;
        this.durationMs = durationMs;
        this.runs = runs;
        this.failoverTrials = failoverTrials;
        this.out = out;
    }

    /**
     * Runs the harness.
     *
     * @param args {@code [--out DIR] [--quick] [--duration-ms N] [--runs N] [--failover-trials N]}
     * @throws Exception when a broker cannot start or a file cannot be written
     */
    public static void main(final String[] args) throws Exception {
        Path outDir = Path.of("storage-bench/target");
        boolean quick = false;
        long duration = 5_000;
        int runs = 3;
        int trials = 10;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> outDir = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--duration-ms" -> duration = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--failover-trials" -> trials = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                    + " (--out DIR, --quick, --duration-ms N, --runs N, --failover-trials N)");
            }
        }
        if (quick) {
            duration = 300;
            runs = 1;
            trials = 1;
        }
        final List<Row> rows = run(outDir, quick, duration, runs, trials, System.out);
        System.out.println("wrote " + rows.size() + " rows to " + outDir);
        // Kafka's clients and ZooKeeper leave non-daemon threads behind their close; the work is done.
        System.exit(0);
    }

    /**
     * Runs everything and writes the files.
     *
     * @param outDir     where the files go
     * @param quick      a pipeline check (files named {@code cluster-quick-*})
     * @param durationMs each throughput and latency phase
     * @param runs       throughput runs per workload
     * @param trials     failover trials
     * @param out        progress
     * @return the rows written
     * @throws Exception on failure
     */
    static List<Row> run(final Path outDir, final boolean quick, final long durationMs, final int runs,
                         final int trials, final PrintStream out) throws Exception {
        final Path root = Files.createTempDirectory("seglog-cluster-bench");
        try {
            final ClusterBench bench = new ClusterBench(root, durationMs, runs, trials, out);
            bench.runAll();
            Files.createDirectories(outDir);
            final String prefix = quick ? "cluster-quick-" : "cluster-";
            Files.writeString(outDir.resolve(prefix + "summary.csv"), "workload,system,metric,value,error,unit\n"
                + bench.rows.stream().map(Row::csv).collect(Collectors.joining("\n")) + "\n");
            Files.writeString(outDir.resolve(prefix + "summary.md"), bench.markdown(quick));
            return bench.rows;
        } finally {
            delete(root);
        }
    }

    private void runAll() throws Exception {
        final Map<Integer, Double> baseline = new HashMap<>();
        for (final int size : RECORD_BYTES) {
            final double rate = appendRate(size);
            baseline.put(size, rate);
            rows.add(new Row(size + " B", "single-node PartitionLog.appendAsLeader", "rec/s", rate, Double.NaN,
                "rec/s"));
            out.printf(Locale.ROOT, "baseline %d B: %.0f rec/s%n", size, rate);
        }
        for (final boolean durable : new boolean[] {false, true}) {
            try (Cluster cluster = new Cluster(root.resolve(durable ? "durable" : "default"), durable)) {
                for (final Workload w : WORKLOADS) {
                    if (w.durable() != durable) {
                        continue;
                    }
                    for (final int size : RECORD_BYTES) {
                        measure(cluster, w, size, baseline.get(size));
                    }
                }
                if (!durable) {
                    failover(cluster);
                }
            }
        }
    }

    /** The single-node append rate of 64 KiB batches of records of this size. */
    private double appendRate(final int recordBytes) throws IOException {
        final int perBatch = Math.max(1, ClientWorkload.BATCH_BYTES / (recordBytes + 20));
        final byte[][] values = new byte[perBatch][];
        final byte[] payload = payload(recordBytes);
        Arrays.fill(values, payload);
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, System.currentTimeMillis(), values);
        final byte[] template = new byte[built.capacity()];
        built.getBytes(0, template);
        final ByteBuffer batch = ByteBuffer.allocateDirect(template.length);
        final Path dir = root.resolve("baseline-" + recordBytes);
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.defaults(), FileIO.system(),
            Clock.systemUTC())) {
            long records = 0;
            final long warmEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(1_000, durationMs));
            final long[] counted = new long[1];
            while (System.nanoTime() < warmEnd) {
                appendOne(log, batch, template, counted);
            }
            final long start = System.nanoTime();
            final long end = start + TimeUnit.MILLISECONDS.toNanos(durationMs);
            counted[0] = 0;
            while (System.nanoTime() < end) {
                appendOne(log, batch, template, counted);
            }
            records = counted[0];
            return records * 1e9 / (System.nanoTime() - start);
        } finally {
            delete(dir);
        }
    }

    private static void appendOne(final PartitionLog log, final ByteBuffer batch, final byte[] template,
                                  final long[] counted) {
        batch.clear();
        batch.put(template).flip();
        final long before = log.logEndOffset();
        counted[0] += log.appendAsLeader(batch, 0) + 1 - before;
    }

    private void measure(final Cluster cluster, final Workload w, final int size, final double baseline)
        throws Exception {
        final String topic = cluster.createTopic(w.replicationFactor());
        final double[] rates = new double[runs];
        for (int r = 0; r < runs; r++) {
            rates[r] = throughput(cluster.bootstrap(), topic, w.acks(), size);
        }
        final double mean = Arrays.stream(rates).average().orElse(0);
        final double halfRange = (Arrays.stream(rates).max().orElse(0) - Arrays.stream(rates).min().orElse(0)) / 2;
        final String workload = w.name() + " " + size + " B";
        rows.add(new Row(workload, "Seglog cluster", "rec/s", mean, halfRange, "rec/s"));
        rows.add(new Row(workload, "Seglog cluster", "MB/s", mean * size / 1e6, halfRange * size / 1e6, "MB/s"));
        rows.add(new Row(workload, "Seglog cluster", "x single-node append", mean / baseline, halfRange / baseline,
            "x"));
        final double pace = Math.max(100, mean / 5);
        final long[] latencies = latencies(cluster.bootstrap(), topic, w.acks(), size, pace);
        Arrays.sort(latencies);
        rows.add(new Row(workload, "Seglog cluster", "paced rate", pace, Double.NaN, "rec/s"));
        rows.add(new Row(workload, "Seglog cluster", "p50 latency", percentile(latencies, 0.50) / 1e3, Double.NaN, "us"));
        rows.add(new Row(workload, "Seglog cluster", "p99 latency", percentile(latencies, 0.99) / 1e3, Double.NaN, "us"));
        rows.add(new Row(workload, "Seglog cluster", "p99.9 latency", percentile(latencies, 0.999) / 1e3, Double.NaN,
            "us"));
        out.printf(Locale.ROOT, "%s: %.0f +- %.0f rec/s (%.2fx single-node), p50 %.0f us, p99 %.0f us at %.0f rec/s%n",
            workload, mean, halfRange, mean / baseline, percentile(latencies, 0.5) / 1e3,
            percentile(latencies, 0.99) / 1e3, pace);
    }

    /** The producer's settings ({@link ClientWorkload}'s, idempotence off: the figures predate InitProducerId). */
    private static Properties producerProps(final String bootstrap, final String acks) {
        return ClientWorkload.producerProps(bootstrap, acks, false, 5);
    }

    /** Acknowledged records per second, the producer sending as fast as it accepts records. */
    private double throughput(final String bootstrap, final String topic, final String acks, final int size) {
        // The brokers share this JVM: no cluster processes to meter.
        return ClientWorkload.throughput(bootstrap, topic, acks, false, size, Math.min(1_000, durationMs), durationMs,
            new CpuMeter(List.of())).recordsPerSecond();
    }

    /** Send-to-ack latencies in nanoseconds, the producer paced at {@code ratePerSecond}. */
    private long[] latencies(final String bootstrap, final String topic, final String acks, final int size,
                             final double ratePerSecond) {
        final byte[] payload = payload(size);
        final long intervalNs = (long) (1e9 / ratePerSecond);
        final int count = (int) Math.max(200, ratePerSecond * durationMs / 1_000);
        final long[] latencies = new long[count];
        final AtomicLong done = new AtomicLong();
        final Properties props = producerProps(bootstrap, acks);
        // No linger: the figure is the cluster's send-to-ack time, not the producer's batching delay.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            long next = System.nanoTime();
            for (int i = 0; i < count; i++) {
                final long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                final int index = i;
                final long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, 0, null, payload), (md, e) -> {
                    latencies[index] = e == null ? System.nanoTime() - sent : Long.MAX_VALUE;
                    done.incrementAndGet();
                });
                next += intervalNs;
            }
            producer.flush();
        }
        return latencies;
    }

    /** Stops the leader of an acks=all partition under steady writes, trials times. */
    private void failover(final Cluster cluster) throws Exception {
        final String topic = cluster.createTopic(3);
        final TopicPartition tp = new TopicPartition(topic, 0);
        final long[] gaps = new long[failoverTrials];
        final Properties props = producerProps(cluster.bootstrap(), "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 20);
        final byte[] payload = payload(100);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int t = 0; t < failoverTrials; t++) {
                cluster.awaitFullIsr(tp, 3);
                producer.send(new ProducerRecord<>(topic, 0, null, payload)).get(30, TimeUnit.SECONDS);
                final int leader = cluster.leader(tp);
                final AtomicLong firstAck = new AtomicLong(Long.MAX_VALUE);
                final long stopAt = System.nanoTime();
                cluster.stop(leader);
                final long end = stopAt + TimeUnit.SECONDS.toNanos(60);
                while (firstAck.get() == Long.MAX_VALUE && System.nanoTime() < end) {
                    producer.send(new ProducerRecord<>(topic, 0, null, payload), (md, e) -> {
                        if (e == null) {
                            firstAck.accumulateAndGet(System.nanoTime(), Math::min);
                        }
                    });
                    LockSupport.parkNanos(1_000_000); // a steady 1,000 writes a second
                }
                gaps[t] = firstAck.get() - stopAt;
                out.printf(Locale.ROOT, "failover %d: %.1f ms%n", t, gaps[t] / 1e6);
                cluster.restart(leader);
            }
        }
        Arrays.sort(gaps);
        rows.add(new Row("failover RF=3 acks=all", "Seglog cluster", "p50 unavailability", percentile(gaps, 0.5) / 1e6,
            Double.NaN, "ms"));
        rows.add(new Row("failover RF=3 acks=all", "Seglog cluster", "p99 unavailability", percentile(gaps, 0.99) / 1e6,
            Double.NaN, "ms"));
    }


    private String markdown(final boolean quick) {
        final StringBuilder sb = new StringBuilder();
        if (quick) {
            sb.append("# QUICK RUN: a pipeline check, not a measurement\n\n");
        }
        sb.append("| workload | metric | value | error | unit |\n|---|---|---|---|---|\n");
        for (final Row r : rows) {
            sb.append("| ").append(r.workload()).append(" (").append(r.system()).append(") | ").append(r.metric())
                .append(" | ").append(format(r.value())).append(" | ").append(format(r.error())).append(" | ")
                .append(r.unit()).append(" |\n");
        }
        return sb.toString();
    }

    static String format(final double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.3f", v);
    }

    private static void delete(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** Three brokers and a ZooKeeper in this JVM. */
    private final class Cluster implements AutoCloseable {
        private final Path dir;
        private final boolean durable;
        private final EmbeddedZooKeeper zk;
        private final Map<Integer, SeglogBroker> brokers = new TreeMap<>();
        private final Map<Integer, Integer> ports = new HashMap<>();

        Cluster(final Path dir, final boolean durable) {
            this.dir = dir;
            this.durable = durable;
            this.zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"));
            for (int id = 1; id <= 3; id++) {
                start(id);
            }
        }

        private void start(final int id) {
            final Map<String, Object> props = new HashMap<>();
            props.put("broker.id", id);
            props.put("listeners", "PLAINTEXT://127.0.0.1:" + ports.getOrDefault(id, 0));
            props.put("log.dirs", dir.resolve("broker-" + id).toString());
            props.put("zookeeper.connect", zk.connectString());
            props.put("min.insync.replicas", 2);
            props.put("auto.leader.rebalance.enable", "false");
            props.put("seglog.acks.all.durable", Boolean.toString(durable));
            final SeglogBroker b = SeglogBroker.start(SeglogBrokerConfig.fromProperties(props));
            try {
                b.awaitRegistered(30_000);
            } catch (final Exception e) {
                throw new IllegalStateException("broker " + id + " did not register", e);
            }
            brokers.put(id, b);
            ports.put(id, b.boundAddress().getPort());
        }

        String bootstrap() {
            return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        }

        /** A new one-partition topic, its leader broker 1 (RF=1) or brokers 1, 2, 3; returns once it is led. */
        String createTopic(final int replicationFactor) throws Exception {
            final String topic = "bench-" + topicIds.incrementAndGet();
            final List<Integer> replicas = replicationFactor == 1 ? List.of(1) : List.of(1, 2, 3);
            brokers.values().iterator().next().admin().createTopic(topic, Map.of(0, replicas));
            awaitFullIsr(new TopicPartition(topic, 0), replicationFactor);
            return topic;
        }

        int leader(final TopicPartition tp) {
            for (final SeglogBroker b : brokers.values()) {
                if (b.partition(tp).map(p -> p.isLeader()).orElse(false)) {
                    return b.brokerId();
                }
            }
            return -1;
        }

        void awaitFullIsr(final TopicPartition tp, final int replicationFactor) throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                final int leader = leader(tp);
                if (leader > 0 && brokers.get(leader).partition(tp).orElseThrow().isr().size() == replicationFactor) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            throw new IllegalStateException(tp + " not led with a full ISR within 60 s");
        }

        void stop(final int id) {
            brokers.remove(id).close();
        }

        void restart(final int id) {
            start(id);
        }

        @Override
        public void close() {
            brokers.values().forEach(SeglogBroker::close);
            brokers.clear();
            zk.close();
        }
    }
}
