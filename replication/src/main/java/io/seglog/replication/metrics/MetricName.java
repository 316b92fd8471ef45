package io.seglog.replication.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * A metric's name in Kafka's JMX shape: a domain ({@code kafka.server}), a type ({@code ReplicaManager}), a name
 * ({@code UnderReplicatedPartitions}) and tags in order ({@code topic=orders,partition=0}), so that the object name
 * is the one Kafka's broker registers and dashboards and the Prometheus JMX exporter's Kafka rules match it.
 *
 * @param domain the JMX domain
 * @param type   the {@code type} key
 * @param name   the {@code name} key
 * @param tags   further keys, in the order Kafka writes them (copied)
 */
public record MetricName(String domain, String type, String name, Map<String, String> tags) {
    /**
     * Checks and copies.
     *
     * @param domain the domain
     * @param type   the type
     * @param name   the name
     * @param tags   the tags, in order
     */
    public MetricName {
        Objects.requireNonNull(domain, "domain");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        tags = Collections.unmodifiableMap(new LinkedHashMap<>(tags));
    }

    /**
     * A name with tags given as key, value, key, value...
     *
     * @param domain   the domain
     * @param type     the type
     * @param name     the name
     * @param keyValue tag keys and values, alternating
     * @return the name
     */
    public static MetricName of(final String domain, final String type, final String name, final String... keyValue) {
        if (keyValue.length % 2 != 0) {
            throw new IllegalArgumentException("tags come in key-value pairs: " + String.join(",", keyValue));
        }
        final Map<String, String> tags = new LinkedHashMap<>();
        for (int i = 0; i < keyValue.length; i += 2) {
            tags.put(keyValue[i], keyValue[i + 1]);
        }
        return new MetricName(domain, type, name, tags);
    }

    /**
     * The JMX object name, e.g. {@code kafka.log:type=Log,name=LogEndOffset,topic=orders,partition=0}.
     *
     * @return the object name
     */
    public ObjectName objectName() {
        final StringBuilder s = new StringBuilder(domain).append(":type=").append(type).append(",name=").append(name);
        tags.forEach((k, v) -> s.append(',').append(k).append('=').append(quoteIfNeeded(v)));
        try {
            return new ObjectName(s.toString());
        } catch (final MalformedObjectNameException e) {
            throw new IllegalArgumentException("not a JMX object name: " + s, e);
        }
    }

    private static String quoteIfNeeded(final String value) {
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n') {
                return ObjectName.quote(value);
            }
        }
        return value;
    }

    @Override
    public String toString() {
        return objectName().toString();
    }
}
