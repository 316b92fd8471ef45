package io.seglog.replication;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Configuration of one broker's replication layer: its identity, its ZooKeeper session and the
 * controller's election policies. Built once by {@link #builder()} or read from Kafka's property names
 * by {@link #fromProperties(Map)}, validated in one pass whose messages name the key and the value.
 *
 * <p>Immutable and thread-safe. {@link #toString()} never prints the ZooKeeper digest secret.
 */
public final class ReplicationConfig {
    /** Kafka's name for the broker id. */
    public static final String BROKER_ID = "broker.id";
    /** Kafka's name for the broker's rack. */
    public static final String BROKER_RACK = "broker.rack";
    /** Host that other brokers use to reach this one (written into the registration). */
    public static final String ADVERTISED_HOST = "advertised.host.name";
    /** Port that other brokers use to reach this one (written into the registration). */
    public static final String ADVERTISED_PORT = "advertised.port";
    /** Kafka's name for the ZooKeeper connection string ({@code host:port[,host:port...][/chroot]}). */
    public static final String ZOOKEEPER_CONNECT = "zookeeper.connect";
    /** Kafka's name for the ZooKeeper session timeout. */
    public static final String ZOOKEEPER_SESSION_TIMEOUT_MS = "zookeeper.session.timeout.ms";
    /** Kafka's name for the time allowed to establish a ZooKeeper connection. */
    public static final String ZOOKEEPER_CONNECTION_TIMEOUT_MS = "zookeeper.connection.timeout.ms";
    /** Seglog's deadline for one ZooKeeper call (Kafka has none: its calls retry until connected). */
    public static final String ZOOKEEPER_REQUEST_TIMEOUT_MS = "zookeeper.request.timeout.ms";
    /** Kafka's switch for secure ACLs on the znodes this broker creates. */
    public static final String ZOOKEEPER_SET_ACL = "zookeeper.set.acl";
    /** Seglog's digest credentials {@code user:password} used when ACLs are on (Kafka uses JAAS instead). */
    public static final String ZOOKEEPER_DIGEST = "zookeeper.digest.credentials";
    /** Kafka's switch for electing a leader outside the ISR when no ISR member is alive. */
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    /** Kafka's switch for the periodic preferred-leader rebalance. */
    public static final String AUTO_LEADER_REBALANCE_ENABLE = "auto.leader.rebalance.enable";
    /** Kafka's threshold, in percent, of a broker's misplaced leaderships that triggers a rebalance. */
    public static final String LEADER_IMBALANCE_PER_BROKER_PERCENTAGE = "leader.imbalance.per.broker.percentage";
    /** Kafka's interval between two imbalance checks. */
    public static final String LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS = "leader.imbalance.check.interval.seconds";
    /** Kafka's minimum ISR size for acks=all produce requests. */
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    /** Kafka's time after which a follower that has not caught up leaves the ISR. */
    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";

    private final int brokerId;
    private final Optional<String> brokerRack;
    private final String advertisedHost;
    private final int advertisedPort;
    private final String zookeeperConnect;
    private final Optional<String> zookeeperChroot;
    private final int zookeeperSessionTimeoutMs;
    private final int zookeeperConnectionTimeoutMs;
    private final int zookeeperRequestTimeoutMs;
    private final boolean zookeeperSetAcl;
    private final Optional<String> zookeeperDigest;
    private final boolean uncleanLeaderElectionEnable;
    private final boolean autoLeaderRebalanceEnable;
    private final int leaderImbalancePerBrokerPercentage;
    private final long leaderImbalanceCheckIntervalSeconds;
    private final int minInsyncReplicas;
    private final long replicaLagTimeMaxMs;

    private ReplicationConfig(final Builder b) {
        this.brokerId = b.brokerId;
        this.brokerRack = b.brokerRack;
        this.advertisedHost = b.advertisedHost;
        this.advertisedPort = b.advertisedPort;
        this.zookeeperConnect = b.zookeeperConnect;
        this.zookeeperChroot = b.parsedChroot;
        this.zookeeperSessionTimeoutMs = b.zookeeperSessionTimeoutMs;
        this.zookeeperConnectionTimeoutMs = b.zookeeperConnectionTimeoutMs > 0
            ? b.zookeeperConnectionTimeoutMs : b.zookeeperSessionTimeoutMs;
        this.zookeeperRequestTimeoutMs = b.zookeeperRequestTimeoutMs > 0
            ? b.zookeeperRequestTimeoutMs : b.zookeeperSessionTimeoutMs;
        this.zookeeperSetAcl = b.zookeeperSetAcl;
        this.zookeeperDigest = b.zookeeperDigest;
        this.uncleanLeaderElectionEnable = b.uncleanLeaderElectionEnable;
        this.autoLeaderRebalanceEnable = b.autoLeaderRebalanceEnable;
        this.leaderImbalancePerBrokerPercentage = b.leaderImbalancePerBrokerPercentage;
        this.leaderImbalanceCheckIntervalSeconds = b.leaderImbalanceCheckIntervalSeconds;
        this.minInsyncReplicas = b.minInsyncReplicas;
        this.replicaLagTimeMaxMs = b.replicaLagTimeMaxMs;
    }

    /**
     * Starts a builder with Kafka's defaults; {@code broker.id} and {@code zookeeper.connect} must be set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads Kafka's property names (the constants of this class); unknown keys are ignored so that a whole
     * Kafka {@code server.properties} can be passed.
     *
     * @param props property name to value (strings, numbers or booleans)
     * @return the validated configuration
     * @throws IllegalArgumentException naming the key and the value when one is missing or invalid
     */
    public static ReplicationConfig fromProperties(final Map<String, ?> props) {
        final Builder b = builder();
        final Object id = props.get(BROKER_ID);
        if (id != null) {
            b.brokerId(parseInt(BROKER_ID, id));
        }
        final Object rack = props.get(BROKER_RACK);
        if (rack != null && !rack.toString().isBlank()) {
            b.brokerRack(rack.toString().trim());
        }
        if (props.get(ADVERTISED_HOST) != null) {
            b.advertisedHost(props.get(ADVERTISED_HOST).toString().trim());
        }
        if (props.get(ADVERTISED_PORT) != null) {
            b.advertisedPort(parseInt(ADVERTISED_PORT, props.get(ADVERTISED_PORT)));
        }
        if (props.get(ZOOKEEPER_CONNECT) != null) {
            b.zookeeperConnect(props.get(ZOOKEEPER_CONNECT).toString().trim());
        }
        if (props.get(ZOOKEEPER_SESSION_TIMEOUT_MS) != null) {
            b.zookeeperSessionTimeoutMs(parseInt(ZOOKEEPER_SESSION_TIMEOUT_MS, props.get(ZOOKEEPER_SESSION_TIMEOUT_MS)));
        }
        if (props.get(ZOOKEEPER_CONNECTION_TIMEOUT_MS) != null) {
            b.zookeeperConnectionTimeoutMs(
                parseInt(ZOOKEEPER_CONNECTION_TIMEOUT_MS, props.get(ZOOKEEPER_CONNECTION_TIMEOUT_MS)));
        }
        if (props.get(ZOOKEEPER_REQUEST_TIMEOUT_MS) != null) {
            b.zookeeperRequestTimeoutMs(parseInt(ZOOKEEPER_REQUEST_TIMEOUT_MS, props.get(ZOOKEEPER_REQUEST_TIMEOUT_MS)));
        }
        if (props.get(ZOOKEEPER_SET_ACL) != null) {
            b.zookeeperSetAcl(parseBoolean(ZOOKEEPER_SET_ACL, props.get(ZOOKEEPER_SET_ACL)));
        }
        if (props.get(ZOOKEEPER_DIGEST) != null) {
            b.zookeeperDigest(props.get(ZOOKEEPER_DIGEST).toString());
        }
        if (props.get(UNCLEAN_LEADER_ELECTION_ENABLE) != null) {
            b.uncleanLeaderElectionEnable(
                parseBoolean(UNCLEAN_LEADER_ELECTION_ENABLE, props.get(UNCLEAN_LEADER_ELECTION_ENABLE)));
        }
        if (props.get(AUTO_LEADER_REBALANCE_ENABLE) != null) {
            b.autoLeaderRebalanceEnable(parseBoolean(AUTO_LEADER_REBALANCE_ENABLE, props.get(AUTO_LEADER_REBALANCE_ENABLE)));
        }
        if (props.get(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE) != null) {
            b.leaderImbalancePerBrokerPercentage(
                parseInt(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, props.get(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE)));
        }
        if (props.get(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS) != null) {
            b.leaderImbalanceCheckIntervalSeconds(
                parseLong(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS, props.get(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS)));
        }
        if (props.get(MIN_INSYNC_REPLICAS) != null) {
            b.minInsyncReplicas(parseInt(MIN_INSYNC_REPLICAS, props.get(MIN_INSYNC_REPLICAS)));
        }
        if (props.get(REPLICA_LAG_TIME_MAX_MS) != null) {
            b.replicaLagTimeMaxMs(parseLong(REPLICA_LAG_TIME_MAX_MS, props.get(REPLICA_LAG_TIME_MAX_MS)));
        }
        return b.build();
    }

    private static int parseInt(final String key, final Object value) {
        final long v = parseLong(key, value);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + "=" + value + " does not fit in an int");
        }
        return (int) v;
    }

    private static long parseLong(final String key, final Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not an integer", e);
        }
    }

    private static boolean parseBoolean(final String key, final Object value) {
        if (value instanceof Boolean b) {
            return b;
        }
        final String s = value.toString().trim();
        if (s.equalsIgnoreCase("true")) {
            return true;
        }
        if (s.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(key + "=" + value + " is not true or false");
    }

    /** @return {@value #BROKER_ID} */
    public int brokerId() {
        return brokerId;
    }

    /** @return {@value #BROKER_RACK}, empty when not set */
    public Optional<String> brokerRack() {
        return brokerRack;
    }

    /** @return {@value #ADVERTISED_HOST} */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** @return {@value #ADVERTISED_PORT} */
    public int advertisedPort() {
        return advertisedPort;
    }

    /** @return {@value #ZOOKEEPER_CONNECT}, possibly ending in a chroot */
    public String zookeeperConnect() {
        return zookeeperConnect;
    }

    /**
     * The servers part of {@value #ZOOKEEPER_CONNECT}.
     *
     * @return {@code host:port[,host:port...]}
     */
    public String zookeeperServers() {
        final int slash = zookeeperConnect.indexOf('/');
        return slash < 0 ? zookeeperConnect : zookeeperConnect.substring(0, slash);
    }

    /**
     * The chroot of {@value #ZOOKEEPER_CONNECT}, normalised (no trailing {@code /}; {@code /} alone is none).
     *
     * @return the chroot starting with {@code /}, or empty
     */
    public Optional<String> zookeeperChroot() {
        return zookeeperChroot;
    }

    /**
     * Checks a chroot: absolute, no empty, {@code .} or {@code ..} element (ZooKeeper would resolve none of
     * them, and {@code /..} would put the cluster's znodes beside the root's).
     */
    private static Optional<String> normaliseChroot(final String chroot) {
        String c = chroot;
        while (c.length() > 1 && c.endsWith("/")) {
            c = c.substring(0, c.length() - 1);
        }
        if (c.equals("/")) {
            return Optional.empty();
        }
        for (final String element : c.substring(1).split("/", -1)) {
            if (element.isEmpty() || element.equals(".") || element.equals("..")) {
                throw new IllegalArgumentException(ZOOKEEPER_CONNECT + " chroot=" + chroot
                    + " has an empty, '.' or '..' path element");
            }
        }
        for (int i = 0; i < c.length(); i++) {
            // The characters ZooKeeper refuses in a path (its PathUtils rule; ZooKeeper classes stay in the zk
            // package): controls, and the surrogate, private-use and special ranges.
            final char ch = c.charAt(i);
            if (ch <= '\u001f' || ch >= '\u007f' && ch <= '\u009f' || ch >= '\ud800' && ch <= '\uf8ff'
                || ch >= '\ufff0') {
                throw new IllegalArgumentException(ZOOKEEPER_CONNECT + " chroot=" + chroot + " has a character"
                    + " ZooKeeper refuses in a path at index " + i + " (U+" + String.format("%04X", (int) ch) + ")");
            }
        }
        return Optional.of(c);
    }

    /** @return {@value #ZOOKEEPER_SESSION_TIMEOUT_MS} */
    public int zookeeperSessionTimeoutMs() {
        return zookeeperSessionTimeoutMs;
    }

    /** @return {@value #ZOOKEEPER_CONNECTION_TIMEOUT_MS} (defaults to the session timeout) */
    public int zookeeperConnectionTimeoutMs() {
        return zookeeperConnectionTimeoutMs;
    }

    /** @return {@value #ZOOKEEPER_REQUEST_TIMEOUT_MS} (defaults to the session timeout) */
    public int zookeeperRequestTimeoutMs() {
        return zookeeperRequestTimeoutMs;
    }

    /** @return {@value #ZOOKEEPER_SET_ACL} */
    public boolean zookeeperSetAcl() {
        return zookeeperSetAcl;
    }

    /** @return {@value #ZOOKEEPER_DIGEST} ({@code user:password}), empty when not set; never log it */
    public Optional<String> zookeeperDigest() {
        return zookeeperDigest;
    }

    /**
     * The cluster's default; a topic's override in {@code /config/topics/<topic>} wins when the controller elects.
     *
     * @return {@value #UNCLEAN_LEADER_ELECTION_ENABLE}
     */
    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    /** @return {@value #AUTO_LEADER_REBALANCE_ENABLE} */
    public boolean autoLeaderRebalanceEnable() {
        return autoLeaderRebalanceEnable;
    }

    /** @return {@value #LEADER_IMBALANCE_PER_BROKER_PERCENTAGE} */
    public int leaderImbalancePerBrokerPercentage() {
        return leaderImbalancePerBrokerPercentage;
    }

    /** @return {@value #LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS} */
    public long leaderImbalanceCheckIntervalSeconds() {
        return leaderImbalanceCheckIntervalSeconds;
    }

    /** @return {@value #MIN_INSYNC_REPLICAS} */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** @return {@value #REPLICA_LAG_TIME_MAX_MS} */
    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    /**
     * A copy with another broker id and rack, the rest unchanged (handy for several brokers in one JVM).
     *
     * @param id   the new broker id
     * @param rack the new rack, or null for none
     * @return the copy
     */
    public ReplicationConfig withBroker(final int id, final String rack) {
        final Builder b = toBuilder();
        b.brokerId(id);
        b.brokerRack = Optional.ofNullable(rack);
        return b.build();
    }

    /**
     * A builder holding this configuration's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        final Builder b = new Builder();
        b.brokerId = brokerId;
        b.brokerRack = brokerRack;
        b.advertisedHost = advertisedHost;
        b.advertisedPort = advertisedPort;
        b.zookeeperConnect = zookeeperConnect;
        b.zookeeperSessionTimeoutMs = zookeeperSessionTimeoutMs;
        b.zookeeperConnectionTimeoutMs = zookeeperConnectionTimeoutMs;
        b.zookeeperRequestTimeoutMs = zookeeperRequestTimeoutMs;
        b.zookeeperSetAcl = zookeeperSetAcl;
        b.zookeeperDigest = zookeeperDigest;
        b.uncleanLeaderElectionEnable = uncleanLeaderElectionEnable;
        b.autoLeaderRebalanceEnable = autoLeaderRebalanceEnable;
        b.leaderImbalancePerBrokerPercentage = leaderImbalancePerBrokerPercentage;
        b.leaderImbalanceCheckIntervalSeconds = leaderImbalanceCheckIntervalSeconds;
        b.minInsyncReplicas = minInsyncReplicas;
        b.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        return b;
    }

    @Override
    public String toString() {
        return "ReplicationConfig{" + BROKER_ID + "=" + brokerId + ", " + BROKER_RACK + "=" + brokerRack.orElse("")
            + ", " + ZOOKEEPER_CONNECT + "=" + zookeeperConnect + ", " + ZOOKEEPER_SESSION_TIMEOUT_MS + "="
            + zookeeperSessionTimeoutMs + ", " + ZOOKEEPER_SET_ACL + "=" + zookeeperSetAcl + ", "
            + ZOOKEEPER_DIGEST + "=" + (zookeeperDigest.isPresent() ? "[hidden]" : "") + ", "
            + UNCLEAN_LEADER_ELECTION_ENABLE + "=" + uncleanLeaderElectionEnable + ", "
            + AUTO_LEADER_REBALANCE_ENABLE + "=" + autoLeaderRebalanceEnable + ", "
            + LEADER_IMBALANCE_PER_BROKER_PERCENTAGE + "=" + leaderImbalancePerBrokerPercentage + ", "
            + LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS + "=" + leaderImbalanceCheckIntervalSeconds + ", "
            + MIN_INSYNC_REPLICAS + "=" + minInsyncReplicas + "}";
    }

    /** Mutable builder of {@link ReplicationConfig}; not thread-safe. */
    public static final class Builder {
        private int brokerId = -1;
        private Optional<String> brokerRack = Optional.empty();
        private String advertisedHost = "localhost";
        private int advertisedPort = 9092;
        private String zookeeperConnect;
        private int zookeeperSessionTimeoutMs = 18_000;
        private int zookeeperConnectionTimeoutMs = -1;
        private int zookeeperRequestTimeoutMs = -1;
        private boolean zookeeperSetAcl;
        private Optional<String> zookeeperDigest = Optional.empty();
        private boolean uncleanLeaderElectionEnable;
        private boolean autoLeaderRebalanceEnable = true;
        private int leaderImbalancePerBrokerPercentage = 10;
        private long leaderImbalanceCheckIntervalSeconds = 300;
        private int minInsyncReplicas = 1;
        private long replicaLagTimeMaxMs = 30_000;
        /** Set by {@link #build()} from {@code zookeeperConnect}. */
        private Optional<String> parsedChroot = Optional.empty();

        private Builder() {
        }

        /**
         * Sets {@value #BROKER_ID}, zero or more.
         *
         * @param v the value
         * @return this builder
         */
        public Builder brokerId(final int v) {
            brokerId = v;
            return this;
        }

        /**
         * Sets {@value #BROKER_RACK}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder brokerRack(final String v) {
            brokerRack = Optional.of(Objects.requireNonNull(v, BROKER_RACK));
            return this;
        }

        /**
         * Sets {@value #ADVERTISED_HOST}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder advertisedHost(final String v) {
            advertisedHost = v;
            return this;
        }

        /**
         * Sets {@value #ADVERTISED_PORT}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder advertisedPort(final int v) {
            advertisedPort = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_CONNECT}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperConnect(final String v) {
            zookeeperConnect = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_SESSION_TIMEOUT_MS}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperSessionTimeoutMs(final int v) {
            zookeeperSessionTimeoutMs = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_CONNECTION_TIMEOUT_MS}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperConnectionTimeoutMs(final int v) {
            zookeeperConnectionTimeoutMs = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_REQUEST_TIMEOUT_MS}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperRequestTimeoutMs(final int v) {
            zookeeperRequestTimeoutMs = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_SET_ACL}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperSetAcl(final boolean v) {
            zookeeperSetAcl = v;
            return this;
        }

        /**
         * Sets {@value #ZOOKEEPER_DIGEST} as {@code user:password}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder zookeeperDigest(final String v) {
            zookeeperDigest = Optional.of(Objects.requireNonNull(v, ZOOKEEPER_DIGEST));
            return this;
        }

        /**
         * Sets {@value #UNCLEAN_LEADER_ELECTION_ENABLE}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder uncleanLeaderElectionEnable(final boolean v) {
            uncleanLeaderElectionEnable = v;
            return this;
        }

        /**
         * Sets {@value #AUTO_LEADER_REBALANCE_ENABLE}.
         *
         * @param v the value
         * @return this builder
         */
        public Builder autoLeaderRebalanceEnable(final boolean v) {
            autoLeaderRebalanceEnable = v;
            return this;
        }

        /**
         * Sets {@value #LEADER_IMBALANCE_PER_BROKER_PERCENTAGE}, 0 to 100.
         *
         * @param v the value
         * @return this builder
         */
        public Builder leaderImbalancePerBrokerPercentage(final int v) {
            leaderImbalancePerBrokerPercentage = v;
            return this;
        }

        /**
         * Sets {@value #LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS}, at least 1.
         *
         * @param v the value
         * @return this builder
         */
        public Builder leaderImbalanceCheckIntervalSeconds(final long v) {
            leaderImbalanceCheckIntervalSeconds = v;
            return this;
        }

        /**
         * Sets {@value #MIN_INSYNC_REPLICAS}, at least 1.
         *
         * @param v the value
         * @return this builder
         */
        public Builder minInsyncReplicas(final int v) {
            minInsyncReplicas = v;
            return this;
        }

        /**
         * Sets {@value #REPLICA_LAG_TIME_MAX_MS}, at least 1.
         *
         * @param v the value
         * @return this builder
         */
        public Builder replicaLagTimeMaxMs(final long v) {
            replicaLagTimeMaxMs = v;
            return this;
        }

        /**
         * Validates every value once.
         *
         * @return the configuration
         * @throws IllegalArgumentException naming the key and the value of the first invalid setting
         */
        public ReplicationConfig build() {
            require(brokerId >= 0, BROKER_ID, brokerId, "must be set and >= 0");
            require(zookeeperConnect != null && !zookeeperConnect.isBlank(), ZOOKEEPER_CONNECT, zookeeperConnect,
                "must be set");
            require(advertisedHost != null && !advertisedHost.isBlank(), ADVERTISED_HOST, advertisedHost,
                "must not be empty");
            require(advertisedPort >= 0 && advertisedPort <= 65_535, ADVERTISED_PORT, advertisedPort,
                "must be in [0, 65535]");
            require(zookeeperSessionTimeoutMs >= 100, ZOOKEEPER_SESSION_TIMEOUT_MS, zookeeperSessionTimeoutMs,
                "must be >= 100");
            require(zookeeperConnectionTimeoutMs == -1 || zookeeperConnectionTimeoutMs >= 100,
                ZOOKEEPER_CONNECTION_TIMEOUT_MS, zookeeperConnectionTimeoutMs, "must be >= 100");
            require(zookeeperRequestTimeoutMs == -1 || zookeeperRequestTimeoutMs >= 100,
                ZOOKEEPER_REQUEST_TIMEOUT_MS, zookeeperRequestTimeoutMs, "must be >= 100");
            require(leaderImbalancePerBrokerPercentage >= 0 && leaderImbalancePerBrokerPercentage <= 100,
                LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, leaderImbalancePerBrokerPercentage, "must be in [0, 100]");
            require(leaderImbalanceCheckIntervalSeconds >= 1, LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS,
                leaderImbalanceCheckIntervalSeconds, "must be >= 1");
            require(minInsyncReplicas >= 1, MIN_INSYNC_REPLICAS, minInsyncReplicas, "must be >= 1");
            require(replicaLagTimeMaxMs >= 1, REPLICA_LAG_TIME_MAX_MS, replicaLagTimeMaxMs, "must be >= 1");
            if (zookeeperDigest.isPresent()) {
                final String d = zookeeperDigest.get();
                final int colon = d.indexOf(':');
                if (colon <= 0 || colon == d.length() - 1) {
                    // The value is a secret: name the key and the rule, never the value.
                    throw new IllegalArgumentException(ZOOKEEPER_DIGEST + " must be user:password (value hidden)");
                }
            }
            if (zookeeperSetAcl && zookeeperDigest.isEmpty()) {
                throw new IllegalArgumentException(ZOOKEEPER_SET_ACL + "=true requires " + ZOOKEEPER_DIGEST);
            }
            final int slash = zookeeperConnect.indexOf('/');
            require(slash != 0 && !zookeeperConnect.substring(0, slash < 0 ? zookeeperConnect.length() : slash)
                .isBlank(), ZOOKEEPER_CONNECT, zookeeperConnect, "must name at least one host:port");
            parsedChroot = slash < 0 ? Optional.empty() : normaliseChroot(zookeeperConnect.substring(slash));
            if (zookeeperSetAcl && parsedChroot.isEmpty()) {
                // Secure ACLs protect the znodes brokers create, not the ZooKeeper root (world:anyone:cdrwa): without
                // a chroot an unauthenticated client could create /controller (an ephemeral, absent between
                // elections) or /brokers/ids/<id> first and stop elections. Under a chroot the brokers create
                // (creator-all, world-read), only authenticated brokers can create those znodes.
                throw new IllegalArgumentException(ZOOKEEPER_SET_ACL + "=true requires a chroot in " + ZOOKEEPER_CONNECT
                    + "=" + zookeeperConnect + " (e.g. " + zookeeperConnect + "/seglog): the root znode's ACL lets any"
                    + " client create /controller and stop elections; the brokers create the chroot with secure ACLs");
            }
            if (brokerRack.isPresent() && brokerRack.get().isBlank()) {
                throw new IllegalArgumentException(BROKER_RACK + "='" + brokerRack.get() + "' must not be blank");
            }
            return new ReplicationConfig(this);
        }

        private static void require(final boolean ok, final String key, final Object value, final String rule) {
            if (!ok) {
                throw new IllegalArgumentException(key + "=" + value + " " + rule);
            }
        }
    }
}
