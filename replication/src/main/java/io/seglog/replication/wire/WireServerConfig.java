package io.seglog.replication.wire;

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
        if (maxRequestBytes < RequestDecoder.MIN_FRAME_BYTES) {
            throw new IllegalArgumentException(SOCKET_REQUEST_MAX_BYTES + "=" + maxRequestBytes + " must be at least "
                + RequestDecoder.MIN_FRAME_BYTES);
        }
        if (connectionsMaxIdleMs < 1) {
            throw new IllegalArgumentException(CONNECTIONS_MAX_IDLE_MS + "=" + connectionsMaxIdleMs + " must be >= 1");
        }
        if (sendBufferBytes == 0 || sendBufferBytes < -1) {
            throw new IllegalArgumentException(SOCKET_SEND_BUFFER_BYTES + "=" + sendBufferBytes
                + " must be -1 (the OS's) or positive");
        }
        if (receiveBufferBytes == 0 || receiveBufferBytes < -1) {
            throw new IllegalArgumentException(SOCKET_RECEIVE_BUFFER_BYTES + "=" + receiveBufferBytes
                + " must be -1 (the OS's) or positive");
        }
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
        final Object listeners = props.get(LISTENERS);
        if (listeners == null) {
            throw new IllegalArgumentException(LISTENERS + " must be set, e.g. PLAINTEXT://127.0.0.1:9092");
        }
        final String listener = listeners.toString().trim();
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
        final long max = number(props, SOCKET_REQUEST_MAX_BYTES, DEFAULT_MAX_REQUEST_BYTES);
        if (max > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(SOCKET_REQUEST_MAX_BYTES + "=" + max + " does not fit in an int");
        }
        return new WireServerConfig(hostPort.substring(0, colon), port, (int) max,
            number(props, CONNECTIONS_MAX_IDLE_MS, DEFAULT_CONNECTIONS_MAX_IDLE_MS),
            (int) number(props, SOCKET_SEND_BUFFER_BYTES, DEFAULT_SOCKET_BUFFER_BYTES),
            (int) number(props, SOCKET_RECEIVE_BUFFER_BYTES, DEFAULT_SOCKET_BUFFER_BYTES));
    }

    /** A numeric property, or its default when absent; the error names the key and the value. */
    private static long number(final Map<String, ?> props, final String key, final long defaultValue) {
        final Object value = props.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a number", e);
        }
    }
}
