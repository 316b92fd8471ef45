package io.seglog.bench.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Seglog's three-broker cluster beside a real Kafka 4.4 cluster on the same machine, under the same configuration
 * and the same kafka-clients workload, one cluster at a time.
 *
 * <p>Every node runs in a JVM of its own ({@link ProcessCluster}): three brokers and ZooKeeper for Seglog, three
 * brokers and a KRaft controller for Kafka, each with the JVM flags its system's start scripts use; the clients run
 * in one more process (a fork of this class with {@code --child SYSTEM}), the same for both. A run starts one
 * system's cluster, forks the client process (which warms the cluster and itself, then measures every workload and
 * writes its raw figures), stops the cluster, then does the same for the other system. The order alternates between
 * runs (Seglog first in odd runs, Kafka first in even ones) so that neither always meets the warmer or busier machine.
 *
 * <p>A configuration ({@link Setup}) is a socket-buffer policy and a thread policy applied alike to both systems;
 * each configuration asked for gets its own runs and its own report, headed by every setting with its reason.
 *
 * <p>Workloads: RF=1 acks=1, RF=3 acks=1, RF=3 acks=all, for 100 B and 1 KiB records, one partition led by broker
 * 1. Per workload: a <em>throughput</em> phase (as fast as the producer sends: acknowledged records per second, and
 * the <em>replicated</em> rate, the phase's records over the time until the high watermark covered the last of them),
 * then a <em>paced</em> phase at {@code --latency-rate} records a second, the same offered load for both, whose
 * send-to-ack and produce-to-consume latencies go into coordinated-omission-corrected HdrHistograms
 * ({@link ClientWorkload}). {@link VersusReport} gives each figure's mean over runs with its 95% t-interval and the
 * same-run ratio Seglog / Kafka (geometric mean, 95% interval), and judges the target by the intervals.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.seglog.bench.cluster.VersusKafkaBench [--out DIR] [--quick]
 * [--runs N] [--setup BUFFERS/THREADS]... [--throughput-ms N] [--warmup-ms N] [--latency-ms N] [--latency-rate N]
 * [--idempotence true|false] [--broker-jvm-arg ARG]... [--workload NAME]... [--system NAME]
 * [--broker-config SYSTEM:KEY=VALUE]...}; {@code --setup} is
 * {@code autotuned|kafka-defaults} / {@code defaults|sized} (default {@code autotuned/defaults}; {@code --setup all}
 * runs the three the results report: autotuned/defaults, kafka-defaults/defaults, autotuned/sized);
 * {@code --workload} keeps only the named workloads, e.g. {@code "RF=3 acks=all 100 B"}; {@code --broker-jvm-arg}
 * adds an argument to every broker's JVM of both systems (e.g. a JFR recording; {@code {node}} in it becomes the
 * broker's name, {@code broker-1} to {@code broker-3}); {@code --system} runs one system
 * only (to profile it; no ratios); {@code --broker-config} adds or replaces a broker setting of one system (the files
 * then say {@code -overridden}). Writes, per configuration,
 * {@code versus-kafka-BUFFERS-THREADS.csv} ({@code workload,system,metric,value,low,high,unit}), {@code .md} and
 * {@code .png} to DIR ({@code --quick}: {@code versus-kafka-quick-*}, a pipeline check, not a measurement).
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

    /** The systems, as the results name them. */
    static final List<String> SYSTEMS = List.of("Seglog", "Kafka");

    /** The longest full-rate stretch of the warm-up on one topic (about 15 GB for three replicas at 300 MB/s). */
    static final long WARM_CHUNK_MS = 15_000;

    /** The configurations {@code --setup all} runs. */
    static final List<Setup> ALL_SETUPS = List.of(
        new Setup(Setup.Buffers.AUTOTUNED, Setup.Threads.DEFAULTS),
        new Setup(Setup.Buffers.KAFKA_DEFAULTS, Setup.Threads.DEFAULTS),
        new Setup(Setup.Buffers.AUTOTUNED, Setup.Threads.SIZED));

    private VersusKafkaBench() {
    }

    /**
     * The options of a run, parent and child alike.
     *
     * @param out          where the reports go
     * @param quick        a pipeline check: one short run
     * @param runs         runs per configuration
     * @param setups       the configurations
     * @param throughputMs each throughput phase (after a warm-up of a fifth of it, unmeasured)
     * @param warmupMs     the warm-up of each fresh cluster and client JVM before the first workload (default two
     *                     minutes, three quarters at full rate; with 20 s the figures depended on the workloads'
     *                     order)
     * @param latencyMs    each paced phase
     * @param latencyRate  the paced phase's records per second
     * @param idempotence  whether acks=all producers are idempotent
     * @param brokerJvmArgs extra arguments of every broker JVM
     * @param only         the workloads to run (empty: all)
     * @param systems      the systems to run (both, unless {@code --system} names one: for profiling, no ratio)
     * @param child        the system a client child measures, or null in the parent
     * @param bootstrap    the child's cluster
     * @param clusterPids  the child's cluster's processes, whose CPU time it reads
     * @param raw          the child's raw output file
     */
    record Options(Path out, boolean quick, int runs, List<Setup> setups, long throughputMs, long warmupMs,
                   long latencyMs, double latencyRate, boolean idempotence, List<String> brokerJvmArgs,
                   List<String> only, List<String> systems, String child, String bootstrap, List<Long> clusterPids, Path raw) {
        static Options parse(final String[] args) {
            Path out = Path.of("storage-bench/target");
            boolean quick = false;
            int runs = 5;
            final List<Setup> setups = new ArrayList<>();
            long throughput = 10_000;
            // Two minutes at full rate: with 20 s, the workloads measured first met clusters still speeding up
            // (Seglog's RF=3 1 KiB: 111-122 MB/s after 20 s, 249-258 after 120 s, in single runs), so the figures
            // depended on the workloads' order (storage-bench/results/2026-12-07/versus-kafka/warm-up-investigation).
            long warmup = 120_000;
            long latency = 30_000;
            double rate = 2_000;
            boolean idempotence = DEFAULT_IDEMPOTENCE;
            final List<String> jvmArgs = new ArrayList<>();
            final List<String> only = new ArrayList<>();
            final List<String> systems = new ArrayList<>();
            final List<String> brokerConfig = new ArrayList<>();
            String child = null;
            String bootstrap = null;
            final List<Long> pids = new ArrayList<>();
            Path raw = null;
            for (int i = 0; i < args.length; i++) {
                final String arg = args[i];
                if (i + 1 >= args.length && !"--quick".equals(arg)) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                switch (arg) {
                    case "--out" -> out = Path.of(args[++i]);
                    case "--quick" -> quick = true;
                    case "--runs" -> runs = Integer.parseInt(args[++i]);
                    case "--setup" -> {
                        final String s = args[++i];
                        if ("all".equals(s)) {
                            setups.addAll(ALL_SETUPS);
                        } else {
                            setups.add(Setup.parse(s));
                        }
                    }
                    case "--throughput-ms" -> throughput = Long.parseLong(args[++i]);
                    case "--warmup-ms" -> warmup = Long.parseLong(args[++i]);
                    case "--latency-ms" -> latency = Long.parseLong(args[++i]);
                    case "--latency-rate" -> rate = Double.parseDouble(args[++i]);
                    case "--idempotence" -> idempotence = parseBoolean(args[++i]);
                    case "--broker-jvm-arg" -> jvmArgs.add(args[++i]);
                    case "--workload" -> only.add(args[++i]);
                    case "--system" -> systems.add(args[++i]);
                    case "--broker-config" -> brokerConfig.add(args[++i]);
                    case "--child" -> child = args[++i];
                    case "--bootstrap" -> bootstrap = args[++i];
                    case "--cluster-pids" -> {
                        for (final String pid : args[++i].split(",")) {
                            pids.add(Long.parseLong(pid));
                        }
                    }
                    case "--raw" -> raw = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown argument " + arg + " (--out DIR, --quick,"
                        + " --runs N, --setup BUFFERS/THREADS|all, --throughput-ms N, --warmup-ms N, --latency-ms N,"
                        + " --latency-rate N, --idempotence true|false, --broker-jvm-arg ARG, --workload NAME,"
                        + " --system NAME, --broker-config SYSTEM:KEY=VALUE)");
                }
            }
            if (systems.isEmpty()) {
                systems.addAll(SYSTEMS);
            } else if (!SYSTEMS.containsAll(systems)) {
                throw new IllegalArgumentException("--system " + systems + ": each one of " + SYSTEMS);
            }
            if (setups.isEmpty()) {
                setups.add(ALL_SETUPS.get(0));
            }
            setups.replaceAll(setup -> setup.withOverrides(brokerConfig));
            if (quick) {
                runs = 1;
                throughput = 1_000;
                warmup = 1_000;
                latency = 2_000;
                rate = 1_000;
            }
            if (runs < 1 || throughput < 1 || warmup < 0 || latency < 1 || rate <= 0) {
                throw new IllegalArgumentException("runs=" + runs + " throughput-ms=" + throughput + " warmup-ms="
                    + warmup + " latency-ms=" + latency + " latency-rate=" + rate
                    + ": runs, phases and rate must be positive, warm-up >= 0");
            }
            if (child != null && (!SYSTEMS.contains(child) || raw == null || bootstrap == null)) {
                throw new IllegalArgumentException("--child " + child + " needs one of " + SYSTEMS
                    + ", --bootstrap HOSTS and --raw FILE");
            }
            for (final String name : only) {
                if (WORKLOADS.stream().noneMatch(w -> w.name().equals(name))) {
                    throw new IllegalArgumentException("--workload " + name + " is none of "
                        + WORKLOADS.stream().map(Workload::name).toList());
                }
            }
            return new Options(out, quick, runs, List.copyOf(setups), throughput, warmup, latency, rate,
                idempotence, List.copyOf(jvmArgs), List.copyOf(only), List.copyOf(systems), child, bootstrap, List.copyOf(pids), raw);
        }

        private static boolean parseBoolean(final String text) {
            if (!"true".equals(text) && !"false".equals(text)) {
                throw new IllegalArgumentException("--idempotence " + text + " must be true or false");
            }
            return Boolean.parseBoolean(text);
        }

        /** The arguments of a client child measuring {@code system} at {@code bootstrap}. */
        List<String> childArgs(final String system, final String clusterBootstrap, final List<Long> pids,
                               final Path rawFile) {
            final List<String> args = new ArrayList<>(List.of("--child", system, "--bootstrap", clusterBootstrap,
                "--cluster-pids", pids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")),
                "--raw", rawFile.toString(), "--throughput-ms", Long.toString(throughputMs), "--warmup-ms",
                Long.toString(warmupMs), "--latency-ms", Long.toString(latencyMs), "--latency-rate",
                Double.toString(latencyRate), "--idempotence", Boolean.toString(idempotence)));
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

        /** @return each throughput phase's unmeasured lead-in: a fifth of the phase, at most 2 s */
        long leadInMs() {
            return Math.min(2_000, throughputMs / 5);
        }
    }

    /**
     * Runs the comparison (or, with {@code --child}, the clients of one system's part of one run).
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
                for (final VersusReport report : run(options, System.out)) {
                    System.out.println("wrote " + report.rows().size() + " rows for " + report.setup().label()
                        + " to " + options.out());
                }
            }
        } catch (final Exception | Error e) {
            // Printed here, on stdout: the parent relays a child's stdout, and the default handler's report of an
            // uncaught exception is not always seen before the exit below.
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        // kafka-clients can leave non-daemon threads behind their close; the work is done.
        System.exit(0);
    }

    /**
     * Runs every configuration's runs, alternating the order of the systems, and writes each configuration's files.
     *
     * @param options the run's options
     * @param out     progress
     * @return the reports written, one per configuration
     * @throws Exception when a cluster or a client child fails or a file cannot be written
     */
    static List<VersusReport> run(final Options options, final PrintStream out) throws Exception {
        final Path scratch = Files.createTempDirectory("versus-kafka");
        final List<VersusReport> reports = new ArrayList<>();
        try {
            Files.createDirectories(options.out());
            for (final Setup setup : options.setups()) {
                setup.describe(options.brokerJvmArgs()).forEach(out::println);
                final VersusReport report = new VersusReport(options, setup);
                for (int run = 1; run <= options.runs(); run++) {
                    final List<String> order = new ArrayList<>(options.systems());
                    if (run % 2 == 0) {
                        java.util.Collections.reverse(order);
                    }
                    for (final String system : order) {
                        out.printf(Locale.ROOT, "%s run %d/%d: %s%n", setup.label(), run, options.runs(), system);
                        final Path dir = scratch.resolve(setup.fileLabel() + "-" + run + "-" + system);
                        final Path raw = dir.resolve("raw.tsv");
                        final long start = System.nanoTime();
                        try (ProcessCluster cluster = new ProcessCluster(system, setup, options.brokerJvmArgs(),
                            dir)) {
                            out.printf(Locale.ROOT, "  cluster up in %.1f s at %s%n", (System.nanoTime() - start) / 1e9,
                                cluster.bootstrap());
                            forkClients(options, system, cluster.bootstrap(), cluster.pids(), raw, out);
                        } catch (final Exception e) {
                            final Path kept = options.out().resolve("failed-" + dir.getFileName());
                            try {
                                keepNodeLogs(dir, kept);
                                out.printf(Locale.ROOT, "  the nodes' logs of the failed run are in %s%n", kept);
                            } catch (final IOException copy) {
                                e.addSuppressed(copy);
                            }
                            throw e;
                        }
                        report.add(run, system, Files.readAllLines(raw));
                        delete(dir);
                    }
                }
                report.write(options.out());
                reports.add(report);
            }
            return reports;
        } finally {
            delete(scratch);
        }
    }

    private static void forkClients(final Options options, final String system, final String bootstrap,
                                    final List<Long> pids, final Path raw, final PrintStream out)
        throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Setup.clientJvm());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(VersusKafkaBench.class.getName());
        command.addAll(options.childArgs(system, bootstrap, pids, raw));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // A client that hangs is stopped once it has had three times what its phases need and five minutes more.
        final long budgetMs = 3 * (options.warmupMs() + options.workloads().size()
            * (options.leadInMs() + options.throughputMs() + options.latencyMs())) + 300_000;
        final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        final Thread watchdog = new Thread(() -> {
            try {
                if (!process.waitFor(budgetMs, TimeUnit.MILLISECONDS)) {
                    stopped.set(true);
                    process.destroyForcibly();
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-client-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.println("  [" + system + " clients] " + line);
            }
        } catch (final IOException | RuntimeException e) {
            // Not after the output ends: a client that has closed its output may still be exiting on its own.
            process.destroyForcibly();
            throw e;
        }
        final int exit = process.waitFor();
        if (exit != 0 || !Files.exists(raw)) {
            throw new IllegalStateException(system + " client process exited with " + exit + " (command " + command
                + (stopped.get() ? "; stopped by the harness after " + budgetMs + " ms" : "")
                + ")");
        }
    }

    /**
     * The client process of one system's part of one run: warms the cluster and this JVM on topics of their own (the
     * heaviest path, RF=3 acks=all 1 KiB, in stretches of {@link #WARM_CHUNK_MS}, then a paced phase), then measures
     * every workload on a fresh topic each; every topic is deleted once used. Raw figures go to {@code --raw}.
     */
    static void runChild(final Options options, final PrintStream out) throws Exception {
        final List<String> raw = new ArrayList<>();
        final String bootstrap = options.bootstrap();
        final CpuMeter cpu = new CpuMeter(options.clusterPids());
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
            java.util.Map.of(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            final long warmStart = System.nanoTime();
            int warmId = 0;
            for (final long chunk : warmChunks(options.warmupMs() * 3 / 4)) {
                onFreshTopic(admin, options.child(), "bench-warmup-" + (++warmId), 3, topic ->
                    ClientWorkload.throughput(bootstrap, topic, "all", options.idempotence(), 1024, 0, chunk, cpu));
            }
            onFreshTopic(admin, options.child(), "bench-warmup-paced", 3, topic ->
                ClientWorkload.paced(bootstrap, topic, "all", options.idempotence(), 1024, options.latencyRate(),
                    Math.max(1, options.warmupMs() / 4), cpu));
            out.printf(Locale.ROOT, "warmed up in %.1f s%n", (System.nanoTime() - warmStart) / 1e9);
            int topicId = 0;
            for (final Workload w : options.workloads()) {
                onFreshTopic(admin, options.child(), "bench-" + (++topicId), w.replicationFactor(),
                    topic -> measure(bootstrap, topic, w, options, cpu, raw, out));
            }
        }
        Files.write(options.raw(), raw);
    }

    /** What runs on a topic of its own. */
    @FunctionalInterface
    interface TopicWork {
        void run(String topic) throws Exception;
    }

    /**
     * Creates {@code topic} led by broker 1, runs {@code work} on it and deletes it: at full rate a run writes tens
     * of GB a minute, so no topic outlives its use.
     */
    static void onFreshTopic(final org.apache.kafka.clients.admin.Admin admin, final String system,
                             final String topic, final int replicationFactor, final TopicWork work) throws Exception {
        ClientWorkload.createLedByBrokerOne(admin, system, topic, replicationFactor);
        work.run(topic);
        ClientWorkload.delete(admin, system, topic);
    }

    /**
     * The warm-up's full-rate time cut into stretches of at most {@link #WARM_CHUNK_MS}, each run on a topic of its
     * own: two minutes at 300 MB/s times three replicas would otherwise fill the disk.
     */
    static long[] warmChunks(final long fullRateMs) {
        final int n = (int) ((Math.max(0, fullRateMs) + WARM_CHUNK_MS - 1) / WARM_CHUNK_MS);
        final long[] chunks = new long[n];
        for (int i = 0; i < n; i++) {
            chunks[i] = Math.min(WARM_CHUNK_MS, fullRateMs - i * WARM_CHUNK_MS);
        }
        return chunks;
    }

    private static void measure(final String bootstrap, final String topic, final Workload w, final Options options,
                                final CpuMeter cpu, final List<String> raw, final PrintStream out) throws Exception {
        final ClientWorkload.Throughput t = ClientWorkload.throughput(bootstrap, topic, w.acks(),
            options.idempotence(), w.recordBytes(), options.leadInMs(), options.throughputMs(), cpu);
        final ClientWorkload.Latencies l = ClientWorkload.paced(bootstrap, topic, w.acks(), options.idempotence(),
            w.recordBytes(), options.latencyRate(), options.latencyMs(), cpu);
        final double mb = t.records() * (double) w.recordBytes() / 1e6;
        raw.add(VersusReport.raw(w.name(), VersusReport.REC_PER_S, t.recordsPerSecond()));
        raw.add(VersusReport.raw(w.name(), VersusReport.MB_PER_S, t.recordsPerSecond() * w.recordBytes() / 1e6));
        raw.add(VersusReport.raw(w.name(), VersusReport.REPLICATED_MB_PER_S,
            t.replicatedPerSecond() * w.recordBytes() / 1e6));
        raw.add(VersusReport.raw(w.name(), VersusReport.CATCH_UP, t.catchUpMs()));
        raw.add(VersusReport.raw(w.name(), VersusReport.CLUSTER_CPU_PER_MB, t.clusterCpuMs() / mb));
        raw.add(VersusReport.raw(w.name(), VersusReport.CLIENT_CPU_PER_MB, t.clientCpuMs() / mb));
        raw.add(VersusReport.raw(w.name(), VersusReport.CLUSTER_CPU_PACED, 100 * l.clusterCpuMs() / l.elapsedMs()));
        for (final VersusReport.Percentile p : VersusReport.PERCENTILES) {
            raw.add(VersusReport.raw(w.name(), p.produceMetric(), ClientWorkload.percentile(l.produce(), p.q()) / 1e3));
            raw.add(VersusReport.raw(w.name(), p.endToEndMetric(),
                ClientWorkload.percentile(l.endToEnd(), p.q()) / 1e3));
        }
        out.printf(Locale.ROOT, "%s: %.0f rec/s accepted (%.1f MB/s), %.1f MB/s replicated (HW at the log end %.0f ms"
                + " after the last ack); at %.0f rec/s produce p50/p99/p99.9 %.0f/%.0f/%.0f us, e2e %.0f/%.0f/%.0f us"
                + " (%d records); cluster CPU %.1f ms/MB (clients %.1f), %.0f%% of a core at the paced rate%n", w.name(), t.recordsPerSecond(), t.recordsPerSecond() * w.recordBytes() / 1e6,
            t.replicatedPerSecond() * w.recordBytes() / 1e6, t.catchUpMs(), options.latencyRate(),
            ClientWorkload.percentile(l.produce(), 0.5) / 1e3, ClientWorkload.percentile(l.produce(), 0.99) / 1e3,
            ClientWorkload.percentile(l.produce(), 0.999) / 1e3, ClientWorkload.percentile(l.endToEnd(), 0.5) / 1e3,
            ClientWorkload.percentile(l.endToEnd(), 0.99) / 1e3, ClientWorkload.percentile(l.endToEnd(), 0.999) / 1e3,
            l.produce().getTotalCount(), t.clusterCpuMs() / mb, t.clientCpuMs() / mb,
            100 * l.clusterCpuMs() / l.elapsedMs());
    }

    /** Copies the nodes' own logs ({@code *.log} directly in {@code dir}, not their data) to {@code to}. */
    static void keepNodeLogs(final Path dir, final Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(dir)) {
            for (final Path f : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
                Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
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
