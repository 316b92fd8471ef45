package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payload of a persistent-sequential {@code /config/changes/config_change_<seq>} (Kafka's
 * {@code ConfigEntityChangeNotificationSequenceZNode}): an entity whose configuration under {@code /config} changed,
 * so every broker re-reads it (Kafka's {@code ZkConfigManager}).
 *
 * <pre>
 * {"version":2,"entity_path":"topics/orders"}
 * </pre>
 *
 * <p>Version history: 1 ({@code "entity_type"} and {@code "entity_name"}, Kafka before 0.10.1) is read; 2 is
 * written. Immutable and thread-safe.
 *
 * @param entityPath the changed entity, {@code <entity type>/<entity name>} (e.g. {@code topics/orders})
 */
public record ConfigChangeNotificationZnode(String entityPath) {
    /** The version written. */
    static final int VERSION = 2;
    /** The entity type of a topic's configuration ({@code /config/topics/<topic>}). */
    public static final String TOPICS = "topics";

    /**
     * Checks the entity path.
     *
     * @param entityPath the changed entity
     * @throws IllegalArgumentException when the path is not {@code <type>/<name>}
     */
    public ConfigChangeNotificationZnode {
        if (entityPath == null || entityPath.indexOf('/') <= 0 || entityPath.endsWith("/")) {
            throw new IllegalArgumentException("entityPath=" + entityPath + " is not <entity type>/<entity name>");
        }
    }

    /**
     * The notification of a topic's configuration change.
     *
     * @param topic the topic
     * @return {@code topics/<topic>}
     */
    static ConfigChangeNotificationZnode topic(final String topic) {
        return new ConfigChangeNotificationZnode(TOPICS + "/" + topic);
    }

    /**
     * The entity type.
     *
     * @return the part before the first slash ({@code topics}, {@code clients}, ...)
     */
    public String entityType() {
        return entityPath.substring(0, entityPath.indexOf('/'));
    }

    /**
     * The entity name.
     *
     * @return the part after the first slash (a topic's name for {@code topics})
     */
    public String entityName() {
        return entityPath.substring(entityPath.indexOf('/') + 1);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject();
        obj.put("version", VERSION);
        obj.put("entity_path", entityPath);
        return ZkJson.write(obj);
    }

    /**
     * Decodes the payload, version 1 or 2.
     *
     * @param path the notification's path, for messages
     * @param json the payload
     * @return the notification
     * @throws MalformedZnodeException when the payload is not a valid notification
     */
    static ConfigChangeNotificationZnode fromJson(final String path, final byte[] json)
        throws MalformedZnodeException {
        final ObjectNode obj = ZkJson.parseObject(path, json);
        final int version = ZkJson.version(path, obj, 1, VERSION);
        final String entityPath = version == 1
            ? ZkJson.requiredString(path, obj, "entity_type") + "/" + ZkJson.requiredString(path, obj, "entity_name")
            : ZkJson.requiredString(path, obj, "entity_path");
        try {
            return new ConfigChangeNotificationZnode(entityPath);
        } catch (final IllegalArgumentException e) {
            throw new MalformedZnodeException(path, "entity_path", e.getMessage());
        }
    }
}
