package io.seglog.replication.replica;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Map;

/**
 * How a broker's replicas replicate, read from Kafka's property names so that a {@code server.properties} carries
 * over (unknown keys are ignored). {@code min.insync.replicas} is a topic setting: it comes from the partition's log
 * configuration, not from here.
 *
 * @param replicaLagTimeMaxMs        {@value #REPLICA_LAG_TIME_MAX_MS}: a follower not caught up for this long leaves
 *                                   the ISR (Kafka's default 30000)
 * @param fetchWaitMaxMs             {@value #REPLICA_FETCH_WAIT_MAX_MS}: how long a leader holds a follower's fetch
 *                                   that finds nothing new (500)
 * @param fetchMinBytes              {@value #REPLICA_FETCH_MIN_BYTES}: bytes a follower's fetch waits for (1)
 * @param fetchMaxBytes              {@value #REPLICA_FETCH_MAX_BYTES}: bytes fetched per partition (1 MiB; the first
 *                                   batch is returned whole even when larger)
 * @param fetchResponseMaxBytes      {@value #REPLICA_FETCH_RESPONSE_MAX_BYTES}: bytes per fetch response (10 MiB)
 * @param fetchBackoffMs             {@value #REPLICA_FETCH_BACKOFF_MS}: a fetcher's pause after an error (1000)
 * @param numReplicaFetchers         {@value #NUM_REPLICA_FETCHERS}: fetcher threads per source broker (1)
 * @param replicaSocketTimeoutMs     {@value #REPLICA_SOCKET_TIMEOUT_MS}: a fetcher gives up on a request after this
 *                                   long (30000)
 * @param durableAcks                {@value #DURABLE_ACKS} (Seglog's own, off by default): acks=all also waits until
 *                                   the leader and every follower that counted has the records on disk
 * @param replicaSocketReceiveBufferBytes {@value #REPLICA_SOCKET_RECEIVE_BUFFER_BYTES}: a fetcher's socket receive
 *                                   buffer; -1 (Seglog's default) leaves the OS's autotuning (Kafka's default 65536)
 * @param maxUnreplicatedBytes       {@value #MAX_UNREPLICATED_BYTES} (Seglog's own, 4 MiB by default): an acks=1
 *                                   produce is answered once every in-sync follower that is fetching is within this
 *                                   many bytes of its batches' end, so that a leader lost after a burst takes at most
 *                                   this much acknowledged data with it; the wait ends after
 *                                   {@link #flowControlWindowMs()} whatever the followers did. -1: answered at once,
 *                                   as Kafka does
 */
public record ReplicaManagerConfig(long replicaLagTimeMaxMs, int fetchWaitMaxMs, int fetchMinBytes, int fetchMaxBytes,
                                   int fetchResponseMaxBytes, long fetchBackoffMs, int numReplicaFetchers,
                                   int replicaSocketTimeoutMs, boolean durableAcks,
                                   int replicaSocketReceiveBufferBytes, long maxUnreplicatedBytes) {
    /** Kafka's socket receive buffer of a replica fetcher's connection. */
    public static final String REPLICA_SOCKET_RECEIVE_BUFFER_BYTES = "replica.socket.receive.buffer.bytes";
    /** Kafka's follower lag limit. */
    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
    /** Kafka's longest wait of a follower's fetch on the leader. */
    public static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";
    /** Kafka's fewest bytes a follower's fetch waits for. */
    public static final String REPLICA_FETCH_MIN_BYTES = "replica.fetch.min.bytes";
    /** Kafka's bytes per partition per follower fetch. */
    public static final String REPLICA_FETCH_MAX_BYTES = "replica.fetch.max.bytes";
    /** Kafka's bytes per follower fetch response. */
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES = "replica.fetch.response.max.bytes";
    /** Kafka's back-off of a fetcher after an error. */
    public static final String REPLICA_FETCH_BACKOFF_MS = "replica.fetch.backoff.ms";
    /** Kafka's number of fetcher threads per source broker. */
    public static final String NUM_REPLICA_FETCHERS = "num.replica.fetchers";
    /** Kafka's request timeout of a follower's fetcher. */
    public static final String REPLICA_SOCKET_TIMEOUT_MS = "replica.socket.timeout.ms";
    /** Seglog's durable acknowledgements (KIP-966's "last replica standing" closed by fsync before ack). */
    public static final String DURABLE_ACKS = "seglog.acks.all.durable";
    /** Seglog's bound on acknowledged acks=1 bytes that only the leader holds. */
    public static final String MAX_UNREPLICATED_BYTES = "seglog.acks.one.max.unreplicated.bytes";
    /**
     * {@value #MAX_UNREPLICATED_BYTES}'s default: four follower fetches ({@value #REPLICA_FETCH_MAX_BYTES}'s default),
     * so the followers fetch full answers while the producer keeps going (a bound of one fetch put leader and followers
     * in lockstep and halved the acks=1 rate in the cluster comparison).
     */
    public static final long DEFAULT_MAX_UNREPLICATED_BYTES = 4 << 20;

    private static final String READER = "replica manager";
    private static final ConfigDef TABLE = new ConfigDef("ReplicaManagerConfig");
    /** The one definition of {@value #REPLICA_LAG_TIME_MAX_MS} (ReplicationConfig reads it too). */
    static final ConfigKey<Long> REPLICA_LAG_TIME_MAX = TABLE.longKey(REPLICA_LAG_TIME_MAX_MS, 30_000, 1,
        "a follower not caught up for this long leaves the ISR", READER);
    private static final ConfigKey<Integer> FETCH_WAIT_MAX = TABLE.intKey(REPLICA_FETCH_WAIT_MAX_MS, 500, 0,
        "how long a leader holds a follower's fetch that finds nothing new", READER);
    private static final ConfigKey<Integer> FETCH_MIN = TABLE.intKey(REPLICA_FETCH_MIN_BYTES, 1, 1,
        "bytes a follower's fetch waits for", READER);
    private static final ConfigKey<Integer> FETCH_MAX = TABLE.intKey(REPLICA_FETCH_MAX_BYTES, 1 << 20, 1,
        "bytes fetched per partition (the first batch is returned whole even when larger)", READER);
    private static final ConfigKey<Integer> FETCH_RESPONSE_MAX = TABLE.intKey(REPLICA_FETCH_RESPONSE_MAX_BYTES,
        10 << 20, 1, "bytes per fetch response", READER);
    private static final ConfigKey<Long> FETCH_BACKOFF = TABLE.longKey(REPLICA_FETCH_BACKOFF_MS, 1_000, 0,
        "a fetcher's pause after an error", READER);
    private static final ConfigKey<Integer> FETCHERS = TABLE.intKey(NUM_REPLICA_FETCHERS, 1, 1,
        "fetcher threads per source broker", READER);
    private static final ConfigKey<Integer> SOCKET_TIMEOUT = TABLE.intKey(REPLICA_SOCKET_TIMEOUT_MS, 30_000, 1,
        "a fetcher gives up on a request after this long", READER);
    private static final ConfigKey<Boolean> DURABLE = TABLE.booleanKey(DURABLE_ACKS, false,
        "Seglog's own: acks=all also waits until the leader and every follower that counted has the records on disk",
        READER);
    private static final ConfigKey<Integer> RECEIVE_BUFFER = TABLE.intKeyWhere(REPLICA_SOCKET_RECEIVE_BUFFER_BYTES, -1,
        v -> v == -1 || v > 0, "must be -1 (the OS's) or positive",
        "a fetcher's socket receive buffer; -1 leaves the OS's autotuning (Kafka's default is 65536)", READER);
    private static final ConfigKey<Long> UNREPLICATED = TABLE.longKey(MAX_UNREPLICATED_BYTES,
        DEFAULT_MAX_UNREPLICATED_BYTES, -1, "Seglog's own: an acks=1 produce is answered once every in-sync follower"
            + " that is fetching is within this many bytes of its batches' end; -1 answers at once, as Kafka does",
        READER);

    static {
        // Kafka's rule: a fetch held for its whole wait must still answer before the fetcher gives up on it.
        TABLE.crossRule(v -> v.get(FETCH_WAIT_MAX) < v.get(SOCKET_TIMEOUT) ? null
            : REPLICA_FETCH_WAIT_MAX_MS + "=" + v.get(FETCH_WAIT_MAX) + " must be >= 0 and below "
                + REPLICA_SOCKET_TIMEOUT_MS + "=" + v.get(SOCKET_TIMEOUT));
    }

    /**
     * Checks every value, naming the key.
     *
     * @param replicaLagTimeMaxMs   the lag limit, at least 1
     * @param fetchWaitMaxMs        the fetch wait, 0 or more and below the socket timeout
     * @param fetchMinBytes         at least 1
     * @param fetchMaxBytes         at least 1
     * @param fetchResponseMaxBytes at least 1
     * @param fetchBackoffMs        0 or more
     * @param numReplicaFetchers    at least 1
     * @param replicaSocketTimeoutMs at least 1
     * @param durableAcks           whether acks=all waits for disks
     * @param replicaSocketReceiveBufferBytes -1 (the OS's) or positive
     * @param maxUnreplicatedBytes  -1 (no acks=1 flow control) or 0 and more
     * @throws IllegalArgumentException naming the key and value
     */
    public ReplicaManagerConfig {
        TABLE.assign().set(REPLICA_LAG_TIME_MAX, replicaLagTimeMaxMs).set(FETCH_WAIT_MAX, fetchWaitMaxMs)
            .set(FETCH_MIN, fetchMinBytes).set(FETCH_MAX, fetchMaxBytes).set(FETCH_RESPONSE_MAX, fetchResponseMaxBytes)
            .set(FETCH_BACKOFF, fetchBackoffMs).set(FETCHERS, numReplicaFetchers).set(SOCKET_TIMEOUT,
                replicaSocketTimeoutMs).set(DURABLE, durableAcks).set(RECEIVE_BUFFER, replicaSocketReceiveBufferBytes)
            .set(UNREPLICATED, maxUnreplicatedBytes).validate();
    }

    /**
     * How long an acks=1 produce waits at most for its followers ({@value #MAX_UNREPLICATED_BYTES}), and how recently
     * a follower must have fetched to be waited for: twice {@value #REPLICA_FETCH_WAIT_MAX_MS}, at least a second. A
     * follower fetching from behind asks again at once, so one silent this long is stopped or paused, and the
     * producers do not wait for it.
     *
     * @return milliseconds
     */
    public long flowControlWindowMs() {
        return Math.max(1_000, 2L * fetchWaitMaxMs);
    }


    /**
     * Kafka's defaults, durable acks off.
     *
     * @return the configuration
     */
    public static ReplicaManagerConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads Kafka's property names (and {@value #DURABLE_ACKS}, {@value #MAX_UNREPLICATED_BYTES}); missing keys keep their defaults, other keys are
     * ignored.
     *
     * @param props property name to value (strings or numbers)
     * @return the configuration
     * @throws IllegalArgumentException naming the key when a value does not parse or is out of range
     */
    public static ReplicaManagerConfig fromProperties(final Map<String, ?> props) {
        return new ReplicaManagerConfig(REPLICA_LAG_TIME_MAX.read(props), FETCH_WAIT_MAX.read(props),
            FETCH_MIN.read(props), FETCH_MAX.read(props), FETCH_RESPONSE_MAX.read(props), FETCH_BACKOFF.read(props),
            FETCHERS.read(props), SOCKET_TIMEOUT.read(props), DURABLE.read(props), RECEIVE_BUFFER.read(props),
            UNREPLICATED.read(props));
    }

    /**
     * The table of this class's keys (for the configuration reference).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }

    /**
     * A configuration with the OS's socket buffers and acks=1 flow control at its default.
     *
     * @param replicaLagTimeMaxMs    {@value #REPLICA_LAG_TIME_MAX_MS}
     * @param fetchWaitMaxMs         {@value #REPLICA_FETCH_WAIT_MAX_MS}
     * @param fetchMinBytes          {@value #REPLICA_FETCH_MIN_BYTES}
     * @param fetchMaxBytes          {@value #REPLICA_FETCH_MAX_BYTES}
     * @param fetchResponseMaxBytes  {@value #REPLICA_FETCH_RESPONSE_MAX_BYTES}
     * @param fetchBackoffMs         {@value #REPLICA_FETCH_BACKOFF_MS}
     * @param numReplicaFetchers     {@value #NUM_REPLICA_FETCHERS}
     * @param replicaSocketTimeoutMs {@value #REPLICA_SOCKET_TIMEOUT_MS}
     * @param durableAcks            {@value #DURABLE_ACKS}
     */
    public ReplicaManagerConfig(final long replicaLagTimeMaxMs, final int fetchWaitMaxMs, final int fetchMinBytes,
                                final int fetchMaxBytes, final int fetchResponseMaxBytes, final long fetchBackoffMs,
                                final int numReplicaFetchers, final int replicaSocketTimeoutMs,
                                final boolean durableAcks) {
        this(replicaLagTimeMaxMs, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes, fetchResponseMaxBytes, fetchBackoffMs,
            numReplicaFetchers, replicaSocketTimeoutMs, durableAcks, -1, DEFAULT_MAX_UNREPLICATED_BYTES);
    }




    /**
     * This configuration with another lag limit.
     *
     * @param ms {@value #REPLICA_LAG_TIME_MAX_MS}
     * @return a copy
     */
    public ReplicaManagerConfig withReplicaLagTimeMaxMs(final long ms) {
        return new ReplicaManagerConfig(ms, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes, fetchResponseMaxBytes,
            fetchBackoffMs, numReplicaFetchers, replicaSocketTimeoutMs, durableAcks, replicaSocketReceiveBufferBytes,
            maxUnreplicatedBytes);
    }

    /**
     * This configuration with another fetch wait.
     *
     * @param ms {@value #REPLICA_FETCH_WAIT_MAX_MS}
     * @return a copy
     */
    public ReplicaManagerConfig withFetchWaitMaxMs(final int ms) {
        return new ReplicaManagerConfig(replicaLagTimeMaxMs, ms, fetchMinBytes, fetchMaxBytes, fetchResponseMaxBytes,
            fetchBackoffMs, numReplicaFetchers, replicaSocketTimeoutMs, durableAcks, replicaSocketReceiveBufferBytes,
            maxUnreplicatedBytes);
    }

    /**
     * This configuration with another fetch back-off.
     *
     * @param ms {@value #REPLICA_FETCH_BACKOFF_MS}
     * @return a copy
     */
    public ReplicaManagerConfig withFetchBackoffMs(final long ms) {
        return new ReplicaManagerConfig(replicaLagTimeMaxMs, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes,
            fetchResponseMaxBytes, ms, numReplicaFetchers, replicaSocketTimeoutMs, durableAcks,
            replicaSocketReceiveBufferBytes, maxUnreplicatedBytes);
    }

    /**
     * This configuration with durable acks on or off.
     *
     * @param on {@value #DURABLE_ACKS}
     * @return a copy
     */
    public ReplicaManagerConfig withDurableAcks(final boolean on) {
        return new ReplicaManagerConfig(replicaLagTimeMaxMs, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes,
            fetchResponseMaxBytes, fetchBackoffMs, numReplicaFetchers, replicaSocketTimeoutMs, on,
            replicaSocketReceiveBufferBytes, maxUnreplicatedBytes);
    }

    /**
     * This configuration with another acks=1 bound.
     *
     * @param bytes {@value #MAX_UNREPLICATED_BYTES}; -1 answers acks=1 at once, as Kafka does
     * @return a copy
     */
    public ReplicaManagerConfig withMaxUnreplicatedBytes(final long bytes) {
        return new ReplicaManagerConfig(replicaLagTimeMaxMs, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes,
            fetchResponseMaxBytes, fetchBackoffMs, numReplicaFetchers, replicaSocketTimeoutMs, durableAcks,
            replicaSocketReceiveBufferBytes, bytes);
    }

    /**
     * Kafka's names and this configuration's values, from the table.
     *
     * @return e.g. {@code ReplicaManagerConfig{replica.lag.time.max.ms=30000, ...}}
     */
    @Override
    public String toString() {
        return assigned().toString();
    }

    /**
     * This configuration under Kafka's names, as a broker's DescribeConfigs shows it.
     *
     * @return name to value text, in the table's order
     */
    public Map<String, String> kafkaProperties() {
        return assigned().shownProperties();
    }

    private ConfigDef.Assignment assigned() {
        return TABLE.assign().set(REPLICA_LAG_TIME_MAX, replicaLagTimeMaxMs).set(FETCH_WAIT_MAX, fetchWaitMaxMs)
            .set(FETCH_MIN, fetchMinBytes).set(FETCH_MAX, fetchMaxBytes).set(FETCH_RESPONSE_MAX, fetchResponseMaxBytes)
            .set(FETCH_BACKOFF, fetchBackoffMs).set(FETCHERS, numReplicaFetchers).set(SOCKET_TIMEOUT,
                replicaSocketTimeoutMs).set(DURABLE, durableAcks).set(RECEIVE_BUFFER, replicaSocketReceiveBufferBytes)
            .set(UNREPLICATED, maxUnreplicatedBytes);
    }
}
