package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * The payload of {@code /cluster/id} (Kafka's {@code ClusterIdZNode}): {@code {"version":"1","id":"<id>"}}, with the
 * version a <em>string</em>, as Kafka writes it. The first broker creates it with a random id (a UUID in URL-safe
 * base64 without padding, 22 characters, as Kafka's {@code Uuid.randomUuid().toString()}); every broker reads it and
 * answers clients with it. Stateless and thread-safe.
 */
public final class ClusterIdZnode {
    /** The version written. */
    static final String VERSION = "1";
    /** The longest id read. */
    static final int MAX_ID_LENGTH = 256;

    private ClusterIdZnode() {
    }

    /**
     * A new random cluster id.
     *
     * @return 22 URL-safe base64 characters
     */
    public static String randomId() {
        final UUID uuid = UUID.randomUUID();
        return encode(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /**
     * A new cluster id drawn from a given generator (a simulation's seeded one).
     *
     * @param random the generator
     * @return 22 URL-safe base64 characters
     */
    public static String randomId(final java.util.random.RandomGenerator random) {
        return encode(random.nextLong(), random.nextLong());
    }

    private static String encode(final long high, final long low) {
        final ByteBuffer bytes = ByteBuffer.allocate(16).putLong(high).putLong(low);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /**
     * Encodes an id.
     *
     * @param id the id, not empty
     * @return the JSON payload
     */
    static byte[] toJson(final String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("clusterId=" + id + " must have 1 to " + MAX_ID_LENGTH + " characters");
        }
        final ObjectNode obj = ZkJson.newObject();
        obj.put("version", VERSION);
        obj.put("id", id);
        return ZkJson.write(obj);
    }

    /**
     * Decodes the payload.
     *
     * @param json the payload
     * @return the id
     * @throws MalformedZnodeException naming the field when it is not Kafka's format
     */
    public static String fromJson(final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.CLUSTER_ID;
        final ObjectNode obj = ZkJson.parseObject(path, json);
        final String id = ZkJson.requiredString(path, obj, "id");
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw new MalformedZnodeException(path, "id", "length=" + id.length() + " outside [1, " + MAX_ID_LENGTH + "]");
        }
        return id;
    }
}
