package io.seglog.bench.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Seglog's three-broker cluster beside a real Kafka 4.4 cluster on the same machine, driven by the same
 * kafka-clients workload ({@link ClientWorkload}), one cluster at a time.
 *
 * <p>Each run starts one JVM per system (a fork of this class with {@code --child SYSTEM}): the child starts the
 * cluster ({@link SeglogZkCluster} or {@link KafkaRaftCluster}) in-process, warms it, runs every workload and writes
 * its raw figures; then the other system's child runs. The order alternates between runs (Seglog first in odd runs,
 * Kafka first in even ones) so that neither always meets a warmer or a busier machine, and a fresh JVM per system
 * and run leaves no JIT profile, heap or lingering thread of one system to the other.
 *
 * <p>Workloads: RF=1 acks=1, RF=3 acks=1, RF=3 acks=all, for 100 B and 1 KiB records, one partition led by broker
 * 1. Per workload: <em>throughput</em> (as fast as the producer sends, acknowledged records per second and payload
 * MB/s), then the time until the high watermark reaches the last acknowledged offset (an acks=1 partition's
 * followers catching up, reported as {@code HW catch-up}; the next phase starts after it), and a <em>paced</em> phase at {@code --latency-rate} records a second for both systems (the same offered load,
 * so the latencies compare), each record's send-to-ack time and produce-to-consume time (a consumer with
 * {@code assign()} polling the partition), p50/p99/p99.9. Over {@code --runs} runs: the mean, with half the range as
 * the error; the ratio Seglog / Kafka is taken within each run, then averaged the same way.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.seglog.bench.cluster.VersusKafkaBench [--out DIR] [--quick]
 * [--runs N] [--duration-ms N] [--warmup-ms N] [--latency-rate N] [--idempotence true|false]
 * [--jvm-arg ARG]... [--workload NAME]...} ({@code --workload}: only the named workloads, e.g.
 * {@code "RF=3 acks=all 100 B"}; {@code --jvm-arg}: an argument for the children's JVMs, e.g. a JFR recording). Writes {@code versus-kafka.csv} ({@code workload,system,metric,value,error,unit}),
 * {@code versus-kafka.md} and {@code versus-kafka.png} to DIR ({@code --quick}: {@code versus-kafka-quick.*}, a
 * pipeline check, not a measurement).
 */
public final class VersusKafkaBench {
    /**
     * Whether {@code acks=all} producers are idempotent: kafka-clients' default, served by both systems
     * ({@code --idempotence false} measures without it).
     */
    static final boolean DEFAULT_IDEMPOTENCE = true;

    /** A produce workload. */
    record Workload(int replicationFactor, String acks, int recordBytes) {
        String name() {
            return "RF=" + replicationFactor + " acks=" + acks + " " + recordBytes + " B";
        }
    }

    /** Every workload, in the order they run and print. */
    static final List<Workload> WORKLOADS = List.of(
        new Workload(1, "1", 100), new Workload(1, "1", 1024),
        new Workload(3, "1", 100), new Workload(3, "1", 1024),
        new Workload(3, "all", 100), new Workload(3, "all", 1024));

    /** The systems, as their clusters name themselves. */
    static final List<String> SYSTEMS = List.of("Seglog", "Kafka");

    private VersusKafkaBench() {
    }

    /**
     * The broker settings both systems get, where both have them: Kafka's default segment size, no fsync per
     * message or per interval (the flush policy default of both), no leader rebalancing or topic auto-creation to
     * move things under the measurement. Threads are left at each system's default (both:
     * {@code num.network.threads=3}; Kafka also {@code num.io.threads=8} and one replica fetcher per source broker).
     *
     * <p>{@code min.insync.replicas} stays at its default (1) on both: with every replica in the ISR, acks=all waits
     * for all of them whatever the minimum.
     *
     * @return property name to value
     */
    static Map<String, Object> commonBrokerSettings() {
        return Map.of(
            "log.segment.bytes", 1 << 30,
            "auto.leader.rebalance.enable", "false",
            "auto.create.topics.enable", "false");
    }

    /** The options of a run, parent and child alike. */
    record Options(Path out, boolean quick, int runs, long durationMs, long warmupMs, double latencyRate,
                   boolean idempotence, List<String> jvmArgs, List<String> only, String child, Path raw) {
        static Options parse(final String[] args) {
            Path out = Path.of("storage-bench/target");
            boolean quick = false;
            int runs = 3;
            long duration = 5_000;
            long warmup = 3_000;
            double rate = 2_000;
            boolean idempotence = DEFAULT_IDEMPOTENCE;
            final List<String> jvmArgs = new ArrayList<>();
            final List<String> only = new ArrayList<>();
            String child = null;
            Path raw = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--out" -> out = Path.of(args[++i]);
                    case "--quick" -> quick = true;
                    case "--runs" -> runs = Integer.parseInt(args[++i]);
                    case "--duration-ms" -> duration = Long.parseLong(args[++i]);
                    case "--warmup-ms" -> warmup = Long.parseLong(args[++i]);
                    case "--latency-rate" -> rate = Double.parseDouble(args[++i]);
                    case "--idempotence" -> idempotence = parseBoolean(args[++i]);
                    case "--jvm-arg" -> jvmArgs.add(args[++i]);
                    case "--workload" -> only.add(args[++i]);
                    case "--child" -> child = args[++i];
                    case "--raw" -> raw = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (--out DIR,"
                        + " --quick, --runs N, --duration-ms N, --warmup-ms N, --latency-rate N,"
                        + " --idempotence true|false, --jvm-arg ARG, --workload NAME)");
                }
            }
            if (quick) {
                runs = 1;
                duration = 500;
                warmup = 500;
                rate = 1_000;
            }
            if (runs < 1 || duration < 1 || warmup < 0 || rate <= 0) {
                throw new IllegalArgumentException("runs=" + runs + " duration-ms=" + duration + " warmup-ms=" + warmup
                    + " latency-rate=" + rate + ": runs, duration and rate must be positive, warm-up >= 0");
            }
            if (child != null && (!SYSTEMS.contains(child) || raw == null)) {
                throw new IllegalArgumentException("--child " + child + " needs one of " + SYSTEMS + " and --raw FILE");
            }
            for (final String name : only) {
                if (WORKLOADS.stream().noneMatch(w -> w.name().equals(name))) {
                    throw new IllegalArgumentException("--workload " + name + " is none of "
                        + WORKLOADS.stream().map(Workload::name).toList());
                }
            }
            return new Options(out, quick, runs, duration, warmup, rate, idempotence, List.copyOf(jvmArgs),
                List.copyOf(only), child, raw);
        }

        private static boolean parseBoolean(final String text) {
            if (!"true".equals(text) && !"false".equals(text)) {
                throw new IllegalArgumentException("--idempotence " + text + " must be true or false");
            }
            return Boolean.parseBoolean(text);
        }

        /** The arguments a child of this run gets. */
        List<String> childArgs(final String system, final Path rawFile) {
            final List<String> args = new ArrayList<>(List.of("--child", system, "--raw", rawFile.toString(),
                "--duration-ms", Long.toString(durationMs), "--warmup-ms", Long.toString(warmupMs),
                "--latency-rate", Double.toString(latencyRate), "--idempotence", Boolean.toString(idempotence)));
            for (final String name : only) {
                args.add("--workload");
                args.add(name);
            }
            return args;
        }

        /** @return the workloads of this run: those named by {@code --workload}, else all */
        List<Workload> workloads() {
            return only.isEmpty() ? WORKLOADS
                : WORKLOADS.stream().filter(w -> only.contains(w.name())).toList();
        }
    }

    /**
     * Runs the comparison (or, with {@code --child}, one system's part of one run).
     *
     * @param args see the class comment
     * @throws Exception when a cluster cannot start, a workload fails or a file cannot be written
     */
    public static void main(final String[] args) throws Exception {
        final Options options = Options.parse(args);
        try {
            if (options.child() != null) {
                runChild(options, System.out);
            } else {
                final VersusReport report = run(options, System.out);
                System.out.println("wrote " + report.rows().size() + " rows to " + options.out());
            }
        } catch (final Exception | Error e) {
            // Printed here, on stdout: the parent relays a child's stdout, and the default handler's report of an
            // uncaught exception is not always seen before the exit below.
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        // kafka-clients and Kafka's servers can leave non-daemon threads behind their close; the work is done.
        System.exit(0);
    }

    /**
     * Runs every run's children, alternating the order of the systems, and writes the files.
     *
     * @param options the run's options
     * @param out     progress
     * @return the report written
     * @throws Exception when a child fails or a file cannot be written
     */
    static VersusReport run(final Options options, final PrintStream out) throws Exception {
        final Path scratch = Files.createTempDirectory("versus-kafka-raw");
        try {
            final VersusReport report = new VersusReport(options);
            for (int run = 1; run <= options.runs(); run++) {
                final List<String> order = run % 2 == 1 ? SYSTEMS : List.of(SYSTEMS.get(1), SYSTEMS.get(0));
                for (final String system : order) {
                    final Path raw = scratch.resolve(system + "-" + run + ".tsv");
                    out.printf(Locale.ROOT, "run %d/%d: %s%n", run, options.runs(), system);
                    fork(options, system, raw, out);
                    report.add(run, system, Files.readAllLines(raw));
                }
            }
            Files.createDirectories(options.out());
            report.write(options.out());
            return report;
        } finally {
            delete(scratch);
        }
    }

    private static void fork(final Options options, final String system, final Path raw, final PrintStream out)
        throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx4g");
        command.add("-Djava.awt.headless=true");
        command.addAll(options.jvmArgs());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(VersusKafkaBench.class.getName());
        command.addAll(options.childArgs(system, raw));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
            java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.println("  [" + system + "] " + line);
            }
        }
        final int exit = process.waitFor();
        if (exit != 0 || !Files.exists(raw)) {
            throw new IllegalStateException(system + " child exited with " + exit + " (command " + command + ")");
        }
    }

    /** One system's part of one run: its cluster, a warm-up, every workload; raw figures to {@code --raw}. */
    static void runChild(final Options options, final PrintStream out) throws Exception {
        final Path root = Files.createTempDirectory("versus-kafka-" + options.child().toLowerCase(Locale.ROOT));
        final List<String> raw = new ArrayList<>();
        try {
            final long startNs = System.nanoTime();
            try (BenchCluster cluster = "Kafka".equals(options.child()) ? new KafkaRaftCluster(root)
                : new SeglogZkCluster(root)) {
                out.printf(Locale.ROOT, "cluster up in %.1f s at %s%n", (System.nanoTime() - startNs) / 1e9,
                    cluster.bootstrap());
                // JIT and page-cache warm-up on a topic of its own, the heaviest path (RF=3 acks=all).
                cluster.createTopic("bench-warmup", 3);
                ClientWorkload.throughput(cluster.bootstrap(), "bench-warmup", "all", options.idempotence(), 1024, 0,
                    options.warmupMs());
                int topicId = 0;
                for (final Workload w : options.workloads()) {
                    final String topic = "bench-" + (++topicId);
                    cluster.createTopic(topic, w.replicationFactor());
                    measure(cluster, topic, w, options, raw, out);
                }
            }
            Files.write(options.raw(), raw);
        } finally {
            delete(root);
        }
    }

    private static void measure(final BenchCluster cluster, final String topic, final Workload w,
                                final Options options, final List<String> raw, final PrintStream out)
        throws Exception {
        final String bootstrap = cluster.bootstrap();
        final ClientWorkload.Throughput t = ClientWorkload.throughput(bootstrap, topic, w.acks(),
            options.idempotence(), w.recordBytes(), Math.min(1_000, options.durationMs()), options.durationMs());
        final double recPerS = t.recordsPerSecond();
        final double catchUpMs = ClientWorkload.awaitHighWatermark(bootstrap, topic, t.endOffset());
        out.printf(Locale.ROOT, "%s: throughput %.0f rec/s, high watermark at the log end %.0f ms after%n", w.name(),
            recPerS, catchUpMs);
        final ClientWorkload.Latencies l = ClientWorkload.paced(bootstrap, topic, w.acks(), options.idempotence(),
            w.recordBytes(), options.latencyRate(), options.durationMs());
        raw.add(VersusReport.raw(w.name(), VersusReport.REC_PER_S, recPerS));
        raw.add(VersusReport.raw(w.name(), VersusReport.MB_PER_S, recPerS * w.recordBytes() / 1e6));
        raw.add(VersusReport.raw(w.name(), VersusReport.CATCH_UP, catchUpMs));
        for (final VersusReport.Percentile p : VersusReport.PERCENTILES) {
            raw.add(VersusReport.raw(w.name(), p.produceMetric(), ClientWorkload.percentile(l.produce(), p.q()) / 1e3));
            raw.add(VersusReport.raw(w.name(), p.endToEndMetric(),
                ClientWorkload.percentile(l.endToEnd(), p.q()) / 1e3));
        }
        out.printf(Locale.ROOT, "%s: %.0f rec/s (%.1f MB/s); produce p50/p99/p99.9 %.0f/%.0f/%.0f us,"
                + " e2e %.0f/%.0f/%.0f us at %.0f rec/s%n", w.name(), recPerS, recPerS * w.recordBytes() / 1e6,
            ClientWorkload.percentile(l.produce(), 0.5) / 1e3, ClientWorkload.percentile(l.produce(), 0.99) / 1e3,
            ClientWorkload.percentile(l.produce(), 0.999) / 1e3, ClientWorkload.percentile(l.endToEnd(), 0.5) / 1e3,
            ClientWorkload.percentile(l.endToEnd(), 0.99) / 1e3, ClientWorkload.percentile(l.endToEnd(), 0.999) / 1e3,
            options.latencyRate());
    }

    static void delete(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
