package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.seglog.storage.LogConfig;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A topic's configuration overrides, {@code /config/topics/<topic>} (Kafka's {@code ConfigEntityZNode}):
 *
 * <pre>
 * {"version":1,"config":{"unclean.leader.election.enable":"true","min.insync.replicas":"2"}}
 * </pre>
 *
 * <p>Version history: 1 is the only version. Every value is a JSON string, as Kafka writes it. Only the keys the
 * controller needs are interpreted ({@link #uncleanLeaderElectionEnable}); the others are kept as text. Immutable
 * and thread-safe.
 *
 * @param config key to value (copied, sorted, immutable)
 */
public record TopicConfigZnode(Map<String, String> config) {
    /** The version written. */
    static final int VERSION = 1;
    /** Kafka's topic-level override of the cluster's {@code unclean.leader.election.enable}. */
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG;

    /**
     * Copies.
     *
     * @param config key to value
     * @throws IllegalArgumentException when the map, a key or a value is null
     */
    public TopicConfigZnode {
        if (config == null) {
            throw new IllegalArgumentException("config=null");
        }
        final SortedMap<String, String> copy = new TreeMap<>();
        for (final Map.Entry<String, String> e : config.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("config entry " + e.getKey() + "=" + e.getValue()
                    + " must not hold null");
            }
            copy.put(e.getKey(), e.getValue());
        }
        config = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject().put("version", VERSION);
        final ObjectNode values = obj.putObject("config");
        config.forEach(values::put);
        return ZkJson.write(obj);
    }

    /**
     * Decodes a topic's configuration znode.
     *
     * @param path the znode's path, for messages
     * @param json the payload
     * @return the configuration
     * @throws MalformedZnodeException when the payload is not such an object or a value is not a string
     */
    static TopicConfigZnode fromJson(final String path, final byte[] json) throws MalformedZnodeException {
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, 1, Integer.MAX_VALUE);
        final ObjectNode values = ZkJson.asObject(path, "config", ZkJson.required(path, obj, "config"));
        final SortedMap<String, String> config = new TreeMap<>();
        for (final Map.Entry<String, JsonNode> e : values.properties()) {
            config.put(e.getKey(), ZkJson.asString(path, "config." + e.getKey(), e.getValue()));
        }
        return new TopicConfigZnode(config);
    }

    /**
     * The topic's override of {@code unclean.leader.election.enable}, parsed as Kafka's boolean config type does
     * ({@code true}/{@code false}, any case, surrounding blanks ignored).
     *
     * @param path the znode's path, for messages
     * @return the override, or empty when the topic does not set it
     * @throws MalformedZnodeException when the value is not a boolean
     */
    public Optional<Boolean> uncleanLeaderElectionEnable(final String path) throws MalformedZnodeException {
        final String value = config.get(UNCLEAN_LEADER_ELECTION_ENABLE);
        if (value == null) {
            return Optional.empty();
        }
        final String trimmed = value.trim();
        if (trimmed.equalsIgnoreCase("true")) {
            return Optional.of(true);
        }
        if (trimmed.equalsIgnoreCase("false")) {
            return Optional.of(false);
        }
        throw new MalformedZnodeException(path, "config." + UNCLEAN_LEADER_ELECTION_ENABLE,
            "value=\"" + value + "\" is not a boolean (expected true or false)");
    }
}
