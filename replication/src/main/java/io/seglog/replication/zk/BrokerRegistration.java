package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The payload of the ephemeral {@code /brokers/ids/<id>}: where a broker can be reached.
 *
 * <pre>
 * {"version":5,"host":"h1","port":9092,"jmx_port":-1,"timestamp":"1700000000000",
 *  "endpoints":["PLAINTEXT://h1:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},
 *  "rack":"r1","features":{}}
 * </pre>
 *
 * <p>Version history (Kafka's {@code BrokerIdZNode}): 1 = {@code host, port, jmx_port, timestamp}; 2 adds
 * {@code endpoints}; 3 adds {@code rack}; 4 adds {@code listener_security_protocol_map}; 5 (Kafka 2.7+) adds
 * {@code features}. We write version 5 with empty features, and the top-level {@code host}/{@code port} are the
 * first PLAINTEXT endpoint's ({@code null}/-1 when there is none), as Kafka writes them for old clients. We read
 * every version from 1 on, later ones included (unknown fields are ignored, as Kafka does). The broker epoch is
 * not in the payload: it is the znode's {@code czxid}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param id          the broker id, zero or more
 * @param host        the broker's primary host (the top-level host, or the first endpoint's when that is null)
 * @param port        the broker's primary port, 0 to 65535
 * @param rack        the broker's rack, when it has one
 * @param timestampMs when the broker registered, epoch ms (informational; -1 when absent)
 * @param endpoints   the advertised listeners, at least one, distinct listener names (copied, immutable)
 * @param jmxPort     the JMX port, -1 when none
 */
public record BrokerRegistration(int id, String host, int port, Optional<String> rack, long timestampMs,
    List<Endpoint> endpoints, int jmxPort) {
    /** The version written. */
    static final int VERSION = 5;
    /** The listener name and security protocol of the default endpoint. */
    static final String PLAINTEXT = "PLAINTEXT";
    /** Kafka's security protocols: the legal values of {@code listener_security_protocol_map}. */
    static final Set<String> SECURITY_PROTOCOLS = Set.of(PLAINTEXT, "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    /** Most endpoints read from one registration. */
    static final int MAX_ENDPOINTS = 64;
    private static final int MAX_PORT = 65535;

    /**
     * Validates and copies.
     *
     * @param id          the broker id
     * @param host        the primary host
     * @param port        the primary port
     * @param rack        the rack
     * @param timestampMs the registration time
     * @param endpoints   the endpoints
     * @param jmxPort     the JMX port
     * @throws IllegalArgumentException naming the field and value when any is invalid
     */
    public BrokerRegistration {
        if (id < 0) {
            throw new IllegalArgumentException("id=" + id + " must be >= 0");
        }
        if (host == null) {
            throw new IllegalArgumentException("host=null (id=" + id + ")");
        }
        checkPort("port", port);
        if (rack == null) {
            throw new IllegalArgumentException("rack=null; use Optional.empty() (id=" + id + ")");
        }
        if (jmxPort < -1 || jmxPort > MAX_PORT) {
            throw new IllegalArgumentException("jmxPort=" + jmxPort + " outside [-1, " + MAX_PORT + "]");
        }
        if (endpoints == null || endpoints.isEmpty()) {
            throw new IllegalArgumentException("endpoints=" + endpoints + " must hold at least one endpoint (id=" + id + ")");
        }
        endpoints = List.copyOf(endpoints);
        final Set<String> names = new HashSet<>();
        for (final Endpoint endpoint : endpoints) {
            if (!names.add(endpoint.listenerName())) {
                throw new IllegalArgumentException("endpoints=" + endpoints + " name listener="
                    + endpoint.listenerName() + " twice");
            }
        }
    }

    /**
     * A broker with a single PLAINTEXT endpoint and no JMX port.
     *
     * @param id          the broker id
     * @param host        the host
     * @param port        the port
     * @param rack        the rack
     * @param timestampMs the registration time, epoch ms
     */
    public BrokerRegistration(final int id, final String host, final int port, final Optional<String> rack,
        final long timestampMs) {
        this(id, host, port, rack, timestampMs, List.of(new Endpoint(PLAINTEXT, PLAINTEXT, host, port)), -1);
    }

    /**
     * Encodes the payload in version 5.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final Endpoint plaintext = endpoints.stream()
            .filter(e -> e.securityProtocol().equals(PLAINTEXT)).findFirst().orElse(null);
        final ObjectNode obj = ZkJson.newObject().put("version", VERSION);
        if (plaintext == null) {
            obj.putNull("host");
            obj.put("port", -1);
        } else {
            obj.put("host", plaintext.host());
            obj.put("port", plaintext.port());
        }
        obj.put("jmx_port", jmxPort).put("timestamp", Long.toString(timestampMs));
        final ArrayNode array = obj.putArray("endpoints");
        endpoints.forEach(e -> array.add(e.connectionString()));
        final ObjectNode protocols = obj.putObject("listener_security_protocol_map");
        endpoints.forEach(e -> protocols.put(e.listenerName(), e.securityProtocol()));
        rack.ifPresent(r -> obj.put("rack", r));
        obj.putObject("features");
        return ZkJson.write(obj);
    }

    /**
     * Decodes a registration of any version.
     *
     * @param id   the broker id (the znode's name)
     * @param json the payload
     * @return the registration
     * @throws MalformedZnodeException when the payload is not a valid registration
     * @throws IllegalArgumentException when {@code id} is negative (a caller's mistake)
     */
    static BrokerRegistration fromJson(final int id, final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.brokerPath(id);
        final ObjectNode obj = ZkJson.parseObject(path, json);
        final int version = ZkJson.version(path, obj, 1, Integer.MAX_VALUE);
        final int jmxPort = ZkJson.requiredInt(path, obj, "jmx_port", -1, MAX_PORT);
        final JsonNode timestamp = obj.get("timestamp");
        final long timestampMs = timestamp == null ? -1 : ZkJson.timestampMs(path, "timestamp", timestamp);

        final List<Endpoint> endpoints;
        String host = null;
        int port = -1;
        if (version == 1) {
            host = ZkJson.requiredString(path, obj, "host");
            port = ZkJson.requiredInt(path, obj, "port", 0, MAX_PORT);
            endpoints = List.of(new Endpoint(PLAINTEXT, PLAINTEXT, host, port));
        } else {
            endpoints = readEndpoints(path, obj);
            final JsonNode hostNode = obj.get("host");
            final JsonNode portNode = obj.get("port");
            if (hostNode != null && !hostNode.isNull()) {
                host = ZkJson.asString(path, "host", hostNode);
                port = portNode == null ? -1 : ZkJson.asInt(path, "port", portNode, -1, MAX_PORT);
            }
            if (host == null || port < 0) {
                // No PLAINTEXT listener: Kafka writes host=null, port=-1; the first endpoint is the address.
                host = endpoints.get(0).host();
                port = endpoints.get(0).port();
            }
        }

        Optional<String> rack = Optional.empty();
        final JsonNode rackNode = obj.get("rack");
        if (rackNode != null && !rackNode.isNull()) {
            rack = Optional.of(ZkJson.asString(path, "rack", rackNode));
        }
        final JsonNode features = obj.get("features");
        if (features != null && !features.isNull()) {
            ZkJson.asObject(path, "features", features);
        }
        return new BrokerRegistration(id, host, port, rack, timestampMs, endpoints, jmxPort);
    }

    private static List<Endpoint> readEndpoints(final String path, final ObjectNode obj)
        throws MalformedZnodeException {
        final Map<String, String> protocols = new LinkedHashMap<>();
        final JsonNode mapNode = obj.get("listener_security_protocol_map");
        if (mapNode == null || mapNode.isNull()) {
            // Before version 4 listener names were security protocol names.
            SECURITY_PROTOCOLS.forEach(p -> protocols.put(p, p));
        } else {
            final ObjectNode map = ZkJson.asObject(path, "listener_security_protocol_map", mapNode);
            for (final Map.Entry<String, JsonNode> entry : map.properties()) {
                final String field = "listener_security_protocol_map." + entry.getKey();
                final String protocol = ZkJson.asString(path, field, entry.getValue());
                if (!SECURITY_PROTOCOLS.contains(protocol)) {
                    throw new MalformedZnodeException(path, field, "unknown security protocol=" + protocol
                        + "; expected one of " + SECURITY_PROTOCOLS);
                }
                protocols.put(entry.getKey(), protocol);
            }
        }
        final ArrayNode array = ZkJson.asArray(path, "endpoints", ZkJson.required(path, obj, "endpoints"), MAX_ENDPOINTS);
        if (array.isEmpty()) {
            throw new MalformedZnodeException(path, "endpoints", "must not be empty");
        }
        final List<Endpoint> endpoints = new ArrayList<>(array.size());
        final Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            final String field = "endpoints[" + i + "]";
            final Endpoint endpoint = Endpoint.parse(path, field, ZkJson.asString(path, field, array.get(i)), protocols);
            if (!names.add(endpoint.listenerName())) {
                throw new MalformedZnodeException(path, field, "listener=" + endpoint.listenerName() + " appears twice");
            }
            endpoints.add(endpoint);
        }
        return endpoints;
    }

    private static void checkPort(final String field, final int port) {
        if (port < 0 || port > MAX_PORT) {
            throw new IllegalArgumentException(field + "=" + port + " outside [0, " + MAX_PORT + "]");
        }
    }

    /**
     * One advertised listener: {@code <listener>://<host>:<port>} plus its security protocol.
     *
     * @param listenerName     the listener's name, such as {@code PLAINTEXT} or {@code REPLICATION}
     * @param securityProtocol one of {@link #SECURITY_PROTOCOLS}
     * @param host             the host name or address (IPv6 without brackets); empty means the default interface
     * @param port             the port, 0 to 65535
     */
    public record Endpoint(String listenerName, String securityProtocol, String host, int port) {
        /**
         * Validates.
         *
         * @param listenerName     the listener name
         * @param securityProtocol the security protocol
         * @param host             the host
         * @param port             the port
         * @throws IllegalArgumentException naming the field when any is invalid
         */
        public Endpoint {
            if (listenerName == null || listenerName.isEmpty() || listenerName.contains(":")
                || listenerName.contains("/")) {
                throw new IllegalArgumentException("listenerName=" + listenerName + " must be non-empty without ':' or '/'");
            }
            if (!SECURITY_PROTOCOLS.contains(securityProtocol)) {
                throw new IllegalArgumentException("securityProtocol=" + securityProtocol + " is not one of "
                    + SECURITY_PROTOCOLS);
            }
            if (host == null) {
                throw new IllegalArgumentException("host=null (listener=" + listenerName + ")");
            }
            checkPort("port", port);
        }

        /**
         * The endpoint as Kafka writes it in {@code endpoints}.
         *
         * @return {@code LISTENER://host:port}, an IPv6 host in brackets
         */
        public String connectionString() {
            final String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
            return listenerName + "://" + h + ":" + port;
        }

        static Endpoint parse(final String path, final String field, final String text,
            final Map<String, String> protocols) throws MalformedZnodeException {
            final int sep = text.indexOf("://");
            if (sep <= 0) {
                throw new MalformedZnodeException(path, field, "value=\"" + text + "\" is not LISTENER://host:port");
            }
            final String listener = text.substring(0, sep);
            final String rest = text.substring(sep + 3);
            final String host;
            final String portText;
            if (rest.startsWith("[")) {
                final int close = rest.indexOf(']');
                if (close < 0 || close + 1 >= rest.length() || rest.charAt(close + 1) != ':') {
                    throw new MalformedZnodeException(path, field, "value=\"" + text + "\" has a bad IPv6 host");
                }
                host = rest.substring(1, close);
                portText = rest.substring(close + 2);
            } else {
                final int colon = rest.lastIndexOf(':');
                if (colon < 0) {
                    throw new MalformedZnodeException(path, field, "value=\"" + text + "\" has no port");
                }
                host = rest.substring(0, colon);
                portText = rest.substring(colon + 1);
                if (host.indexOf(':') >= 0 || host.indexOf('/') >= 0) {
                    throw new MalformedZnodeException(path, field, "value=\"" + text + "\" has an illegal host");
                }
            }
            final int port = ZkPaths.canonicalNonNegativeInt(path, field + ".port", portText);
            if (port > MAX_PORT) {
                throw new MalformedZnodeException(path, field + ".port", "value=" + port + " exceeds limit=" + MAX_PORT);
            }
            final String protocol = protocols.get(listener);
            if (protocol == null) {
                throw new MalformedZnodeException(path, field, "listener=" + listener
                    + " is not in listener_security_protocol_map " + protocols.keySet());
            }
            try {
                return new Endpoint(listener, protocol, host, port);
            } catch (final IllegalArgumentException e) {
                throw new MalformedZnodeException(path, field, e.getMessage(), e);
            }
        }
    }
}
