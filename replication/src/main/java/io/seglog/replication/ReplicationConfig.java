package io.seglog.replication;

import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.storage.LogConfig;
import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Configuration of one broker's replication layer: its identity, its ZooKeeper session and the
 * controller's election policies. Built once by {@link #builder()} or read from Kafka's property names
 * by {@link #fromProperties(Map)}, validated in one pass whose messages name the key and the value. Its keys are
 * defined once, in its table ({@link #configDef()}); the cluster-wide {@value #MIN_INSYNC_REPLICAS} and
 * {@value #UNCLEAN_LEADER_ELECTION_ENABLE} are LogConfig's keys and {@value #REPLICA_LAG_TIME_MAX_MS} is
 * ReplicaManagerConfig's, read through their tables.
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
    /**
     * Kafka's switch for electing a leader outside the ISR when no ISR member is alive: the cluster's default of the
     * topic-level key LogConfig defines.
     */
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG;
    /** Kafka's switch for the periodic preferred-leader rebalance. */
    public static final String AUTO_LEADER_REBALANCE_ENABLE = "auto.leader.rebalance.enable";
    /** Kafka's threshold, in percent, of a broker's misplaced leaderships that triggers a rebalance. */
    public static final String LEADER_IMBALANCE_PER_BROKER_PERCENTAGE = "leader.imbalance.per.broker.percentage";
    /** Kafka's interval between two imbalance checks. */
    public static final String LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS = "leader.imbalance.check.interval.seconds";
    /** Kafka's minimum ISR size for acks=all produce requests (the topic-level key LogConfig defines). */
    public static final String MIN_INSYNC_REPLICAS = LogConfig.MIN_INSYNC_REPLICAS_CONFIG;
    /** Kafka's time after which a follower that has not caught up leaves the ISR (ReplicaManagerConfig defines it). */
    public static final String REPLICA_LAG_TIME_MAX_MS = ReplicaManagerConfig.REPLICA_LAG_TIME_MAX_MS;


    private static final ConfigDef TABLE = new ConfigDef("ReplicationConfig");
    private static final ConfigKey<Integer> ID = TABLE.intKeyWhere(BROKER_ID, -1, v -> v >= -1, "must be set and >= 0",
        "the broker's id, unique in the cluster (required)", "broker");
    private static final ConfigKey<String> RACK = TABLE.stringKey(BROKER_RACK, null,
        "the broker's rack, for rack-aware replica assignment", "controller");
    private static final ConfigKey<String> HOST = TABLE.stringKey(ADVERTISED_HOST, "localhost",
        "the host other brokers reach this one at (advertised.listeners takes precedence in a broker)", "broker");
    private static final ConfigKey<Integer> PORT = TABLE.intKey(ADVERTISED_PORT, 9092, 0, 65_535,
        "the port other brokers reach this one at", "broker");
    private static final ConfigKey<String> ZK_CONNECT = TABLE.stringKey(ZOOKEEPER_CONNECT, null,
        "host:port[,host:port...][/chroot] of the ZooKeeper ensemble (required)", "zookeeper");
    private static final ConfigKey<Integer> ZK_SESSION = TABLE.intKey(ZOOKEEPER_SESSION_TIMEOUT_MS, 18_000, 100,
        "the ZooKeeper session timeout", "zookeeper");
    private static final ConfigKey<Integer> ZK_CONNECTION = TABLE.intKeyWhere(ZOOKEEPER_CONNECTION_TIMEOUT_MS, -1,
        v -> v == -1 || v >= 100, "must be -1 or at least 100",
        "how long to wait for a ZooKeeper connection; -1 is the session timeout", "zookeeper");
    private static final ConfigKey<Integer> ZK_REQUEST = TABLE.intKeyWhere(ZOOKEEPER_REQUEST_TIMEOUT_MS, -1,
        v -> v == -1 || v >= 100, "must be -1 or at least 100",
        "how long to wait for a ZooKeeper answer; -1 is the session timeout", "zookeeper");
    private static final ConfigKey<Boolean> ZK_SET_ACL = TABLE.booleanKey(ZOOKEEPER_SET_ACL, false,
        "create znodes with secure ACLs (needs zookeeper.digest.credentials and a chroot)", "zookeeper");
    private static final ConfigKey<String> ZK_DIGEST = TABLE.stringKey(ZOOKEEPER_DIGEST, null,
        "user:password of the brokers' ZooKeeper digest identity (secret, never printed)", "zookeeper");
    private static final ConfigKey<Boolean> AUTO_REBALANCE = TABLE.booleanKey(AUTO_LEADER_REBALANCE_ENABLE, true,
        "whether the controller moves leadership back to preferred replicas", "controller");
    private static final ConfigKey<Integer> IMBALANCE_PERCENTAGE = TABLE.intKey(
        LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, 10, 0, 100,
        "the share of a broker's misplaced leaderships, in percent, that triggers a rebalance", "controller");
    private static final ConfigKey<Long> IMBALANCE_INTERVAL = TABLE.longKey(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS,
        300, 1, "the interval between two imbalance checks", "controller");
    // Defined once elsewhere: the cluster-wide defaults of two topic-level keys, and the replica manager's lag limit.
    private static final ConfigKey<Boolean> UNCLEAN = LogConfig.configDef().key(UNCLEAN_LEADER_ELECTION_ENABLE,
        Boolean.class);
    private static final ConfigKey<Integer> MIN_ISR = LogConfig.configDef().key(MIN_INSYNC_REPLICAS, Integer.class);
    private static final ConfigKey<Long> LAG = ReplicaManagerConfig.configDef().key(REPLICA_LAG_TIME_MAX_MS,
        Long.class);

    static {
        TABLE.secret(ZK_DIGEST);
        TABLE.required(ID, ZK_CONNECT);
        TABLE.crossRule(v -> v.get(HOST).isBlank() ? ADVERTISED_HOST + "=" + v.get(HOST) + " must not be empty" : null);
        // The value is a secret: the message names the key and the rule, never the value.
        TABLE.crossRule(v -> v.get(ZK_DIGEST) != null && !isUserPassword(v.get(ZK_DIGEST))
            ? ZOOKEEPER_DIGEST + " must be user:password (value hidden)" : null);
        TABLE.crossRule(v -> v.get(ZK_SET_ACL) && v.get(ZK_DIGEST) == null
            ? ZOOKEEPER_SET_ACL + "=true requires " + ZOOKEEPER_DIGEST : null);
        TABLE.crossRule(v -> connectProblem(v.get(ZK_CONNECT)));
        // Secure ACLs protect the znodes brokers create, not the ZooKeeper root (world:anyone:cdrwa): without a chroot
        // an unauthenticated client could create /controller (an ephemeral, absent between elections) or
        // /brokers/ids/<id> first and stop elections. Under a chroot the brokers create (creator-all, world-read), only
        // authenticated brokers can create those znodes.
        TABLE.crossRule(v -> v.get(ZK_SET_ACL) && chroot(v.get(ZK_CONNECT)).isEmpty()
            ? ZOOKEEPER_SET_ACL + "=true requires a chroot in " + ZOOKEEPER_CONNECT + "=" + v.get(ZK_CONNECT)
                + " (e.g. " + v.get(ZK_CONNECT) + "/seglog): the root znode's ACL lets any client create /controller"
                + " and stop elections; the brokers create the chroot with secure ACLs" : null);
        TABLE.crossRule(v -> v.get(RACK) != null && v.get(RACK).isBlank()
            ? BROKER_RACK + "='" + v.get(RACK) + "' must not be blank" : null);
    }

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
        final Builder b = builder().brokerId(ID.read(props)).advertisedHost(HOST.read(props))
            .advertisedPort(PORT.read(props)).zookeeperConnect(ZK_CONNECT.read(props))
            .zookeeperSessionTimeoutMs(ZK_SESSION.read(props)).zookeeperConnectionTimeoutMs(ZK_CONNECTION.read(props))
            .zookeeperRequestTimeoutMs(ZK_REQUEST.read(props)).zookeeperSetAcl(ZK_SET_ACL.read(props))
            .uncleanLeaderElectionEnable(UNCLEAN.read(props)).autoLeaderRebalanceEnable(AUTO_REBALANCE.read(props))
            .leaderImbalancePerBrokerPercentage(IMBALANCE_PERCENTAGE.read(props))
            .leaderImbalanceCheckIntervalSeconds(IMBALANCE_INTERVAL.read(props)).minInsyncReplicas(MIN_ISR.read(props))
            .replicaLagTimeMaxMs(LAG.read(props));
        final String rack = RACK.read(props);
        if (rack != null && !rack.isBlank()) {
            b.brokerRack(rack);
        }
        final Object digest = props.get(ZOOKEEPER_DIGEST); // untrimmed: a secret is taken as given
        if (digest != null) {
            b.zookeeperDigest(digest.toString());
        }
        return b.build();
    }

    /**
     * The table of this class's keys (for the configuration reference). {@value #UNCLEAN_LEADER_ELECTION_ENABLE} and
     * {@value #MIN_INSYNC_REPLICAS} are LogConfig's, {@value #REPLICA_LAG_TIME_MAX_MS} ReplicaManagerConfig's.
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
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

    /** Whether a digest identity has the form user:password (both parts non-empty). */
    private static boolean isUserPassword(final String digest) {
        final int colon = digest.indexOf(':');
        return colon > 0 && colon < digest.length() - 1;
    }

    /** What is wrong with a connect string's servers or chroot, or null when it is valid. */
    private static String connectProblem(final String connect) {
        final int slash = connect.indexOf('/');
        if (slash == 0 || connect.substring(0, slash < 0 ? connect.length() : slash).isBlank()) {
            return ZOOKEEPER_CONNECT + "=" + connect + " must name at least one host:port";
        }
        return slash < 0 ? null : chrootProblem(connect.substring(slash));
    }

    /**
     * What is wrong with a chroot, or null when it is valid: it must be absolute, with no empty, {@code .} or
     * {@code ..} element (ZooKeeper would resolve none of them, and {@code /..} would put the cluster's znodes beside
     * the root's) and no character ZooKeeper refuses in a path.
     */
    private static String chrootProblem(final String chroot) {
        final String c = trimTrailingSlashes(chroot);
        if (c.equals("/")) {
            return null;
        }
        for (final String element : c.substring(1).split("/", -1)) {
            if (element.isEmpty() || element.equals(".") || element.equals("..")) {
                return ZOOKEEPER_CONNECT + " chroot=" + chroot + " has an empty, '.' or '..' path element";
            }
        }
        for (int i = 0; i < c.length(); i++) {
            // The characters ZooKeeper refuses in a path (its PathUtils rule; ZooKeeper classes stay in the zk
            // package): controls, and the surrogate, private-use and special ranges.
            final char ch = c.charAt(i);
            if (ch <= '\u001f' || ch >= '\u007f' && ch <= '\u009f' || ch >= '\ud800' && ch <= '\uf8ff'
                || ch >= '\ufff0') {
                return ZOOKEEPER_CONNECT + " chroot=" + chroot + " has a character ZooKeeper refuses in a path at"
                    + " index " + i + " (U+" + String.format("%04X", (int) ch) + ")";
            }
        }
        return null;
    }

    /** The chroot of a valid connect string, without trailing slashes; empty for none or the root. */
    private static Optional<String> chroot(final String connect) {
        final int slash = connect.indexOf('/');
        final String c = slash < 0 ? "/" : trimTrailingSlashes(connect.substring(slash));
        return c.equals("/") ? Optional.empty() : Optional.of(c);
    }

    private static String trimTrailingSlashes(final String chroot) {
        String c = chroot;
        while (c.length() > 1 && c.endsWith("/")) {
            c = c.substring(0, c.length() - 1);
        }
        return c;
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
        final String own = TABLE.toString(values(this));
        return own.substring(0, own.length() - 1) + ", " + UNCLEAN_LEADER_ELECTION_ENABLE + "="
            + uncleanLeaderElectionEnable + ", " + MIN_INSYNC_REPLICAS + "=" + minInsyncReplicas + ", "
            + REPLICA_LAG_TIME_MAX_MS + "=" + replicaLagTimeMaxMs + "}";
    }

    /**
     * This configuration under Kafka's names, as a broker's DescribeConfigs shows it: the table's keys that have a
     * value (the digest, a secret, left out), then the keys of other tables read as the cluster's defaults.
     *
     * @return name to value text, ordered
     */
    public Map<String, String> kafkaProperties() {
        final Map<String, String> out = new LinkedHashMap<>(TABLE.shownProperties(values(this)));
        out.put(UNCLEAN.name(), UNCLEAN.format(uncleanLeaderElectionEnable));
        out.put(MIN_ISR.name(), MIN_ISR.format(minInsyncReplicas));
        out.put(LAG.name(), LAG.format(replicaLagTimeMaxMs));
        return Collections.unmodifiableMap(out);
    }

    private static Object[] values(final ReplicationConfig c) {
        final Object[] v = TABLE.defaults();
        ConfigDef.put(v, ID, c.brokerId);
        ConfigDef.put(v, RACK, c.brokerRack.orElse(null));
        ConfigDef.put(v, HOST, c.advertisedHost);
        ConfigDef.put(v, PORT, c.advertisedPort);
        ConfigDef.put(v, ZK_CONNECT, c.zookeeperConnect);
        ConfigDef.put(v, ZK_SESSION, c.zookeeperSessionTimeoutMs);
        ConfigDef.put(v, ZK_CONNECTION, c.zookeeperConnectionTimeoutMs);
        ConfigDef.put(v, ZK_REQUEST, c.zookeeperRequestTimeoutMs);
        ConfigDef.put(v, ZK_SET_ACL, c.zookeeperSetAcl);
        ConfigDef.put(v, ZK_DIGEST, c.zookeeperDigest.orElse(null));
        ConfigDef.put(v, AUTO_REBALANCE, c.autoLeaderRebalanceEnable);
        ConfigDef.put(v, IMBALANCE_PERCENTAGE, c.leaderImbalancePerBrokerPercentage);
        ConfigDef.put(v, IMBALANCE_INTERVAL, c.leaderImbalanceCheckIntervalSeconds);
        return v;
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
            // The one pass over the table: every key's range (broker.id and zookeeper.connect are required), then the
            // rules (the digest's form, the connect string's servers and chroot, secure ACLs, a blank rack).
            TABLE.assign().set(ID, brokerId).set(RACK, brokerRack.orElse(null)).set(HOST, advertisedHost)
                .set(PORT, advertisedPort).set(ZK_CONNECT, zookeeperConnect).set(ZK_SESSION, zookeeperSessionTimeoutMs)
                .set(ZK_CONNECTION, zookeeperConnectionTimeoutMs).set(ZK_REQUEST, zookeeperRequestTimeoutMs)
                .set(ZK_SET_ACL, zookeeperSetAcl).set(ZK_DIGEST, zookeeperDigest.orElse(null))
                .set(AUTO_REBALANCE, autoLeaderRebalanceEnable)
                .set(IMBALANCE_PERCENTAGE, leaderImbalancePerBrokerPercentage)
                .set(IMBALANCE_INTERVAL, leaderImbalanceCheckIntervalSeconds).validate();
            MIN_ISR.check(minInsyncReplicas);
            LAG.check(replicaLagTimeMaxMs);
            parsedChroot = chroot(zookeeperConnect);
            return new ReplicationConfig(this);
        }
    }
}
