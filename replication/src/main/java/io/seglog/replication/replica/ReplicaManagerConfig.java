package io.seglog.replication.replica;

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
        positive(REPLICA_LAG_TIME_MAX_MS, replicaLagTimeMaxMs);
        positive(REPLICA_FETCH_MIN_BYTES, fetchMinBytes);
        positive(REPLICA_FETCH_MAX_BYTES, fetchMaxBytes);
        positive(REPLICA_FETCH_RESPONSE_MAX_BYTES, fetchResponseMaxBytes);
        positive(NUM_REPLICA_FETCHERS, numReplicaFetchers);
        positive(REPLICA_SOCKET_TIMEOUT_MS, replicaSocketTimeoutMs);
        if (replicaSocketReceiveBufferBytes == 0 || replicaSocketReceiveBufferBytes < -1) {
            throw new IllegalArgumentException(REPLICA_SOCKET_RECEIVE_BUFFER_BYTES + "="
                + replicaSocketReceiveBufferBytes + " must be -1 (the OS's) or positive");
        }
        if (fetchWaitMaxMs < 0 || fetchWaitMaxMs >= replicaSocketTimeoutMs) {
            // Kafka's rule: a fetch held for its whole wait must still answer before the fetcher gives up on it.
            throw new IllegalArgumentException(REPLICA_FETCH_WAIT_MAX_MS + "=" + fetchWaitMaxMs + " must be >= 0 and below "
                + REPLICA_SOCKET_TIMEOUT_MS + "=" + replicaSocketTimeoutMs);
        }
        if (fetchBackoffMs < 0) {
            throw new IllegalArgumentException(REPLICA_FETCH_BACKOFF_MS + "=" + fetchBackoffMs + " must be >= 0");
        }
        if (maxUnreplicatedBytes < -1) {
            throw new IllegalArgumentException(MAX_UNREPLICATED_BYTES + "=" + maxUnreplicatedBytes
                + " must be -1 (answer acks=1 at once) or >= 0");
        }
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

    private static void positive(final String key, final long value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + "=" + value + " must be >= 1");
        }
    }

    /**
     * Kafka's defaults, durable acks off.
     *
     * @return the configuration
     */
    public static ReplicaManagerConfig defaults() {
        return new ReplicaManagerConfig(30_000, 500, 1, 1 << 20, 10 << 20, 1_000, 1, 30_000, false, -1,
            DEFAULT_MAX_UNREPLICATED_BYTES);
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
        final ReplicaManagerConfig d = defaults();
        return new ReplicaManagerConfig(
            number(props, REPLICA_LAG_TIME_MAX_MS, d.replicaLagTimeMaxMs()),
            (int) number(props, REPLICA_FETCH_WAIT_MAX_MS, d.fetchWaitMaxMs()),
            (int) number(props, REPLICA_FETCH_MIN_BYTES, d.fetchMinBytes()),
            (int) number(props, REPLICA_FETCH_MAX_BYTES, d.fetchMaxBytes()),
            (int) number(props, REPLICA_FETCH_RESPONSE_MAX_BYTES, d.fetchResponseMaxBytes()),
            number(props, REPLICA_FETCH_BACKOFF_MS, d.fetchBackoffMs()),
            (int) number(props, NUM_REPLICA_FETCHERS, d.numReplicaFetchers()),
            (int) number(props, REPLICA_SOCKET_TIMEOUT_MS, d.replicaSocketTimeoutMs()),
            bool(props, DURABLE_ACKS, d.durableAcks()),
            (int) number(props, REPLICA_SOCKET_RECEIVE_BUFFER_BYTES, d.replicaSocketReceiveBufferBytes()),
            numberAnySize(props, MAX_UNREPLICATED_BYTES, d.maxUnreplicatedBytes()));
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

    private static long numberAnySize(final Map<String, ?> props, final String key, final long fallback) {
        final Object value = props.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a number", e);
        }
    }

    private static long number(final Map<String, ?> props, final String key, final long fallback) {
        final Object value = props.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            final long parsed = Long.parseLong(value.toString().trim());
            if (parsed > Integer.MAX_VALUE && !key.endsWith(".ms")) {
                throw new IllegalArgumentException(key + "=" + value + " must be at most " + Integer.MAX_VALUE);
            }
            return parsed;
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a number", e);
        }
    }

    private static boolean bool(final Map<String, ?> props, final String key, final boolean fallback) {
        final Object value = props.get(key);
        if (value == null) {
            return fallback;
        }
        final String text = value.toString().trim();
        if (!"true".equalsIgnoreCase(text) && !"false".equalsIgnoreCase(text)) {
            throw new IllegalArgumentException(key + "=" + value + " must be true or false");
        }
        return Boolean.parseBoolean(text);
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
}
