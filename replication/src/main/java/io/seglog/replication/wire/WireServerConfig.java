package io.seglog.replication.wire;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Map;

/**
 * Configuration of a {@link KafkaWireServer}, read from Kafka's property names: {@value #LISTENERS} (one
 * {@code PLAINTEXT://host:port} listener; port 0 picks a free one), {@value #SOCKET_REQUEST_MAX_BYTES},
 * {@value #CONNECTIONS_MAX_IDLE_MS}, {@value #SOCKET_SEND_BUFFER_BYTES} and {@value #SOCKET_RECEIVE_BUFFER_BYTES}.
 *
 * @param host             the address to bind (a host name or literal; empty binds every interface)
 * @param port             the port, 0 for any free one
 * @param maxRequestBytes  the largest request frame accepted; a larger size closes the connection before any of
 *                         it is buffered
 * @param connectionsMaxIdleMs a connection with no bytes read or written for this long, and no request
 *                         unanswered, is closed (so a peer that sends part of a frame and stops does not hold its
 *                         buffer for ever)
 * @param sendBufferBytes  each connection's {@code SO_SNDBUF}; -1 leaves it to the OS (its autotuning)
 * @param receiveBufferBytes each connection's {@code SO_RCVBUF} (set on the listening socket, so the TCP window
 *                         scale agreed at the handshake allows it); -1 leaves it to the OS
 */
public record WireServerConfig(String host, int port, int maxRequestBytes, long connectionsMaxIdleMs,
                               int sendBufferBytes, int receiveBufferBytes) {
    /** Kafka's listener list; one PLAINTEXT listener is supported. */
    public static final String LISTENERS = "listeners";
    /** Kafka's largest request size. */
    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
    /** Kafka's default of {@value #SOCKET_REQUEST_MAX_BYTES}: 100 MiB. */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;
    /** Kafka's time after which an idle connection is closed. */
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    /** Kafka's default of {@value #CONNECTIONS_MAX_IDLE_MS}: 10 minutes. */
    public static final long DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;
    /** Kafka's socket send buffer of the broker's connections. */
    public static final String SOCKET_SEND_BUFFER_BYTES = "socket.send.buffer.bytes";
    /** Kafka's socket receive buffer of the broker's connections. */
    public static final String SOCKET_RECEIVE_BUFFER_BYTES = "socket.receive.buffer.bytes";
    /**
     * Seglog's default of both buffers: -1, the OS's autotuning, as Kafka's documentation advises for fast links
     * (Kafka's own default is 102400 bytes each).
     */
    public static final int DEFAULT_SOCKET_BUFFER_BYTES = -1;
    private static final String PLAINTEXT = "PLAINTEXT://";

    private static final ConfigDef TABLE = new ConfigDef("WireServerConfig");
    private static final ConfigKey<String> LISTENER = TABLE.stringKey(LISTENERS, null,
        "the one PLAINTEXT://host:port listener the broker serves Kafka clients on (required)", "wire");
    private static final ConfigKey<Integer> REQUEST_MAX = TABLE.intKey(SOCKET_REQUEST_MAX_BYTES,
        DEFAULT_MAX_REQUEST_BYTES, RequestDecoder.MIN_FRAME_BYTES, "the largest request frame accepted", "wire");
    private static final ConfigKey<Long> IDLE = TABLE.longKey(CONNECTIONS_MAX_IDLE_MS, DEFAULT_CONNECTIONS_MAX_IDLE_MS,
        1, "a connection idle this long is closed", "wire");
    private static final ConfigKey<Integer> SEND_BUFFER = TABLE.intKeyWhere(SOCKET_SEND_BUFFER_BYTES,
        DEFAULT_SOCKET_BUFFER_BYTES, v -> v == -1 || v > 0, "must be -1 (the OS's) or positive",
        "a connection's socket send buffer; -1 leaves the OS's autotuning (Kafka's default is 102400)", "wire");
    private static final ConfigKey<Integer> RECEIVE_BUFFER = TABLE.intKeyWhere(SOCKET_RECEIVE_BUFFER_BYTES,
        DEFAULT_SOCKET_BUFFER_BYTES, v -> v == -1 || v > 0, "must be -1 (the OS's) or positive",
        "a connection's socket receive buffer; -1 leaves the OS's autotuning (Kafka's default is 102400)", "wire");

    /**
     * Validates the fields.
     *
     * @param host            the bind address
     * @param port            the port
     * @param maxRequestBytes the largest request frame
     * @param connectionsMaxIdleMs the idle time after which a connection is closed
     * @param sendBufferBytes      {@code SO_SNDBUF}, or -1
     * @param receiveBufferBytes   {@code SO_RCVBUF}, or -1
     * @throws IllegalArgumentException naming the key and the value
     */
    public WireServerConfig {
        if (host == null) {
            throw new IllegalArgumentException(LISTENERS + " host must not be null");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(LISTENERS + " port=" + port + " must be in [0, 65535]");
        }
        TABLE.assign().set(REQUEST_MAX, maxRequestBytes).set(IDLE, connectionsMaxIdleMs)
            .set(SEND_BUFFER, sendBufferBytes).set(RECEIVE_BUFFER, receiveBufferBytes).validate();
    }

    /**
     * A server with the OS's socket buffers.
     *
     * @param host                 the bind address
     * @param port                 the port
     * @param maxRequestBytes      the largest request frame
     * @param connectionsMaxIdleMs the idle time after which a connection is closed
     */
    public WireServerConfig(final String host, final int port, final int maxRequestBytes,
                            final long connectionsMaxIdleMs) {
        this(host, port, maxRequestBytes, connectionsMaxIdleMs, DEFAULT_SOCKET_BUFFER_BYTES,
            DEFAULT_SOCKET_BUFFER_BYTES);
    }

    /**
     * Kafka's idle limit with the given address and request limit.
     *
     * @param host            the bind address
     * @param port            the port
     * @param maxRequestBytes the largest request frame
     */
    public WireServerConfig(final String host, final int port, final int maxRequestBytes) {
        this(host, port, maxRequestBytes, DEFAULT_CONNECTIONS_MAX_IDLE_MS);
    }

    /**
     * A server on the loopback address and a free port, with Kafka's request limit: for tests and embedding.
     *
     * @return the configuration
     */
    public static WireServerConfig loopback() {
        return new WireServerConfig("127.0.0.1", 0, DEFAULT_MAX_REQUEST_BYTES);
    }

    /**
     * Reads Kafka's property names; other keys are ignored so that a whole {@code server.properties} can be passed.
     *
     * @param props property name to value
     * @return the configuration
     * @throws IllegalArgumentException naming the key and the value when one is missing or invalid
     */
    public static WireServerConfig fromProperties(final Map<String, ?> props) {
        final String listener = LISTENER.read(props);
        if (listener == null) {
            throw new IllegalArgumentException(LISTENERS + " must be set, e.g. PLAINTEXT://127.0.0.1:9092");
        }
        if (!listener.startsWith(PLAINTEXT) || listener.indexOf(',') >= 0) {
            throw new IllegalArgumentException(LISTENERS + "=" + listener + " must be one PLAINTEXT://host:port"
                + " listener (TLS and SASL are not served yet)");
        }
        final String hostPort = listener.substring(PLAINTEXT.length());
        final int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(LISTENERS + "=" + listener + " has no port");
        }
        final int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(LISTENERS + "=" + listener + " has a port that is not a number", e);
        }
        return new WireServerConfig(hostPort.substring(0, colon), port, REQUEST_MAX.read(props), IDLE.read(props),
            SEND_BUFFER.read(props), RECEIVE_BUFFER.read(props));
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
     * Kafka's names and this configuration's values, from the table.
     *
     * @return e.g. {@code WireServerConfig{listeners=PLAINTEXT://127.0.0.1:9092, ...}}
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
        return TABLE.assign().set(LISTENER, PLAINTEXT + host + ":" + port).set(REQUEST_MAX, maxRequestBytes)
            .set(IDLE, connectionsMaxIdleMs).set(SEND_BUFFER, sendBufferBytes).set(RECEIVE_BUFFER, receiveBufferBytes);
    }
}
