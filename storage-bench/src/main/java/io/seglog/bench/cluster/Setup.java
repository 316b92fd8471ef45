package io.seglog.bench.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How each system is configured in a {@link VersusKafkaBench} run, every setting with its reason, so that the run's
 * output says exactly what each system was given: the settings both share, the socket-buffer policy and the thread
 * policy the run was asked for (each applied to both systems alike), and the JVM flags each system's own start
 * scripts use.
 *
 * @param buffers   the socket-buffer policy, the same for both systems
 * @param threads   the thread policy
 * @param overrides broker settings asked for on the command line ({@code --broker-config SYSTEM:KEY=VALUE}), as
 *                  {@code SYSTEM:KEY} to value, applied last; empty in the configurations the results report
 */
record Setup(Buffers buffers, Threads threads, Map<String, String> overrides) {
    Setup {
        overrides = Map.copyOf(overrides);
    }

    Setup(final Buffers buffers, final Threads threads) {
        this(buffers, threads, Map.of());
    }

    /**
     * This configuration with broker settings of one system overridden.
     *
     * @param specs {@code SYSTEM:KEY=VALUE} each, e.g. {@code Seglog:seglog.acks.one.max.unreplicated.bytes=-1}
     * @return a copy
     * @throws IllegalArgumentException naming a spec that is not of that form or names no system
     */
    Setup withOverrides(final List<String> specs) {
        final Map<String, String> all = new java.util.TreeMap<>(overrides);
        for (final String spec : specs) {
            final int colon = spec.indexOf(':');
            final int eq = spec.indexOf('=');
            if (colon < 1 || eq < colon + 2 || !VersusKafkaBench.SYSTEMS.contains(spec.substring(0, colon))) {
                throw new IllegalArgumentException("--broker-config " + spec + " is not SYSTEM:KEY=VALUE with SYSTEM one of "
                    + VersusKafkaBench.SYSTEMS);
            }
            all.put(spec.substring(0, eq), spec.substring(eq + 1));
        }
        return new Setup(buffers, threads, all);
    }
    /** Kafka's {@code KAFKA_JVM_PERFORMANCE_OPTS} default ({@code bin/kafka-run-class.sh}). */
    static final List<String> KAFKA_PERFORMANCE_OPTS = List.of("-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
        "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15",
        "-Djava.awt.headless=true");

    /** Where the socket buffers come from. */
    enum Buffers {
        /** Both systems leave every buffer to the OS's autotuning (-1), as Kafka's documentation advises for fast links. */
        AUTOTUNED("autotuned", -1, -1, -1),
        /** Both systems at Kafka's defaults: 100 KiB send and receive, 64 KiB for a replica fetcher's receive. */
        KAFKA_DEFAULTS("kafka-defaults", 102_400, 102_400, 65_536);

        final String label;
        final int send;
        final int receive;
        final int replicaReceive;

        Buffers(final String label, final int send, final int receive, final int replicaReceive) {
            this.label = label;
            this.send = send;
            this.receive = receive;
            this.replicaReceive = replicaReceive;
        }

        static Buffers parse(final String text) {
            for (final Buffers b : values()) {
                if (b.label.equals(text)) {
                    return b;
                }
            }
            throw new IllegalArgumentException("--buffers " + text + " is none of autotuned, kafka-defaults");
        }
    }

    /** How many threads each broker runs. */
    enum Threads {
        /** Each system's defaults: Kafka 3 network, 8 I/O and 10 background threads; Seglog 3 network threads. */
        DEFAULTS("defaults"),
        /**
         * Sized for this machine, three brokers on two cores: one network thread each; Kafka also 2 I/O and 2 background
         * threads. One replica fetcher each, as by default.
         */
        SIZED("sized");

        final String label;

        Threads(final String label) {
            this.label = label;
        }

        static Threads parse(final String text) {
            for (final Threads t : values()) {
                if (t.label.equals(text)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("--threads " + text + " is none of defaults, sized");
        }
    }

    /** A setting and why it has that value. */
    record Setting(String value, String reason) {
    }

    /**
     * Parses {@code BUFFERS/THREADS}, e.g. {@code autotuned/defaults}.
     *
     * @param text the configuration
     * @return it
     * @throws IllegalArgumentException naming what is not known
     */
    static Setup parse(final String text) {
        final int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("--setup " + text + " is not BUFFERS/THREADS (e.g. autotuned/defaults)");
        }
        return new Setup(Buffers.parse(text.substring(0, slash)), Threads.parse(text.substring(slash + 1)));
    }

    /** @return a short name of the configuration, e.g. {@code buffers=autotuned threads=defaults} */
    String label() {
        return "buffers=" + buffers.label + " threads=" + threads.label
            + (overrides.isEmpty() ? "" : " overrides=" + overrides);
    }

    /** @return the configuration in file names, e.g. {@code autotuned-defaults} */
    String fileLabel() {
        return buffers.label + "-" + threads.label + (overrides.isEmpty() ? "" : "-overridden");
    }

    /**
     * The broker settings of a system under this configuration, each with its reason.
     *
     * @param system {@code Seglog} or {@code Kafka}
     * @return property name to value and reason, in print order
     */
    Map<String, Setting> brokerSettings(final String system) {
        final boolean kafka = "Kafka".equals(system);
        final Map<String, Setting> s = new LinkedHashMap<>();
        s.put("log.segment.bytes", new Setting(Integer.toString(1 << 30), "Kafka's default, given to both"));
        s.put("auto.leader.rebalance.enable", new Setting("false", "no leader moves under a measurement"));
        s.put("auto.create.topics.enable", new Setting("false", "topics are created with an explicit assignment"));
        s.put("log.segment.delete.delay.ms", new Setting("1000",
            "the harness deletes each topic once measured; its files go a second later, so a run's disk stays"
                + " bounded"));
        s.put("log.flush.interval.messages", new Setting(Long.toString(Long.MAX_VALUE),
            "no fsync per message (both defaults); both flush a rolled segment in the background"));
        final String bufferReason = buffers == Buffers.AUTOTUNED ? "the same on both: the OS's autotuning"
            : "the same on both: Kafka's defaults";
        s.put("socket.send.buffer.bytes", new Setting(Integer.toString(buffers.send), bufferReason));
        s.put("socket.receive.buffer.bytes", new Setting(Integer.toString(buffers.receive), bufferReason));
        s.put("replica.socket.receive.buffer.bytes", new Setting(Integer.toString(buffers.replicaReceive),
            bufferReason));
        if (threads == Threads.SIZED) {
            s.put("num.network.threads", new Setting("1", "sized: three brokers share two cores"));
            if (kafka) {
                s.put("num.io.threads", new Setting("2", "sized: Kafka's request handlers, one per core"));
                s.put("background.threads", new Setting("2", "sized: Kafka's background pool"));
            }
        } else {
            s.put("num.network.threads", new Setting("3", "each system's default"));
            if (kafka) {
                s.put("num.io.threads", new Setting("8", "Kafka's default"));
                s.put("background.threads", new Setting("10", "Kafka's default"));
            }
        }
        s.put("num.replica.fetchers", new Setting("1", "both defaults"));
        if (!kafka) {
            s.put("seglog.acks.one.max.unreplicated.bytes", new Setting(
                Long.toString(io.seglog.replication.replica.ReplicaManagerConfig.DEFAULT_MAX_UNREPLICATED_BYTES),
                "Seglog only, its default: an acks=1 produce waits while in-sync followers trail by more than this;"
                    + " Kafka has no such bound (-1 turns it off)"));
        }
        overrides.forEach((key, value) -> {
            if (key.startsWith(system + ":")) {
                s.put(key.substring(system.length() + 1), new Setting(value, "asked for with --broker-config"));
            }
        });
        return s;
    }

    /**
     * The JVM flags of a broker process: what each system's own start script uses.
     *
     * @param system {@code Seglog} or {@code Kafka}
     * @return the flags
     */
    static List<String> brokerJvm(final String system) {
        final List<String> flags = new ArrayList<>();
        if ("Kafka".equals(system)) {
            flags.addAll(List.of("-Xmx1G", "-Xms1G")); // bin/kafka-server-start.sh's KAFKA_HEAP_OPTS
            flags.addAll(KAFKA_PERFORMANCE_OPTS);
        } else {
            flags.addAll(List.of("-Xms1g", "-Xmx1g")); // bin/seglog-cluster.sh's SEGLOG_HEAP_OPTS
        }
        return flags;
    }

    /**
     * The JVM flags of the coordination process (Kafka's KRaft controller, Seglog's ZooKeeper).
     *
     * @param system {@code Seglog} or {@code Kafka}
     * @return the flags
     */
    static List<String> coordinationJvm(final String system) {
        if ("Kafka".equals(system)) {
            return brokerJvm(system); // the controller starts through kafka-server-start.sh too
        }
        final List<String> flags = new ArrayList<>(List.of("-Xmx512M", "-Xms512M")); // zookeeper-server-start.sh's
        flags.addAll(KAFKA_PERFORMANCE_OPTS); // ... through kafka-run-class.sh, as Kafka 3.9 ran its ZooKeeper
        return flags;
    }

    /** @return the client process's flags, the same for both systems: Kafka's perf tools' (kafka-run-class.sh) */
    static List<String> clientJvm() {
        final List<String> flags = new ArrayList<>(List.of("-Xmx512M", "-Xms512M"));
        flags.addAll(KAFKA_PERFORMANCE_OPTS);
        return flags;
    }

    /**
     * What a run prints of its configuration: every setting with its reason, and the JVM flags.
     *
     * @param extraBrokerJvmArgs the run's {@code --broker-jvm-arg}s, given to both systems' brokers
     * @return lines
     */
    List<String> describe(final List<String> extraBrokerJvmArgs) {
        final List<String> lines = new ArrayList<>();
        lines.add("configuration " + label() + ":");
        for (final String system : VersusKafkaBench.SYSTEMS) {
            final List<String> jvm = new ArrayList<>(brokerJvm(system));
            jvm.addAll(extraBrokerJvmArgs);
            lines.add("  " + system + " brokers (one JVM each): " + String.join(" ", jvm));
            lines.add("  " + system + " " + ("Kafka".equals(system) ? "KRaft controller" : "ZooKeeper")
                + " (its own JVM): " + String.join(" ", coordinationJvm(system)));
            brokerSettings(system).forEach((k, v) -> lines.add(String.format(Locale.ROOT, "    %s=%s  (%s)", k,
                v.value(), v.reason())));
        }
        lines.add("  clients (one JVM, both systems): " + String.join(" ", clientJvm()));
        return lines;
    }
}
