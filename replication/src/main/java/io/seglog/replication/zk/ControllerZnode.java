package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payload of the ephemeral {@code /controller}: which broker is the active controller.
 *
 * <pre>
 * {"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}
 * </pre>
 *
 * <p>Version history: 1 = {@code version, brokerid, timestamp} (Kafka up to 3.3); 2 (Kafka 3.4+, KIP-866) adds
 * {@code kraftControllerEpoch}, -1 for a ZooKeeper-mode controller. We write version 2 as Kafka 3.9 does and
 * read both (and later versions, as Kafka's decoder does: it reads only {@code brokerid}). The timestamp is a
 * decimal string of epoch milliseconds; a missing timestamp reads as -1 since nothing depends on it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param brokerId    the controller's broker id, zero or more
 * @param timestampMs when it became controller, epoch ms (informational)
 */
record ControllerZnode(int brokerId, long timestampMs) {
    /** The version written. */
    public static final int VERSION = 2;
    /** The {@code kraftControllerEpoch} of a ZooKeeper-mode controller. */
    private static final int NO_KRAFT_CONTROLLER_EPOCH = -1;

    /**
     * Validates.
     *
     * @param brokerId    the broker id
     * @param timestampMs the timestamp
     * @throws IllegalArgumentException when the broker id is negative
     */
    public ControllerZnode {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId=" + brokerId + " must be >= 0");
        }
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject()
            .put("version", VERSION)
            .put("brokerid", brokerId)
            .put("timestamp", Long.toString(timestampMs))
            .put("kraftControllerEpoch", NO_KRAFT_CONTROLLER_EPOCH);
        return ZkJson.write(obj);
    }

    /**
     * Decodes the payload.
     *
     * @param json the payload of {@code /controller}
     * @return the registration
     * @throws MalformedZnodeException when the payload is not a controller registration
     */
    public static ControllerZnode fromJson(final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.CONTROLLER;
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, 1, Integer.MAX_VALUE);
        final int brokerId = ZkJson.requiredInt(path, obj, "brokerid", 0, Integer.MAX_VALUE);
        final JsonNode timestamp = obj.get("timestamp");
        final long timestampMs = timestamp == null ? -1 : ZkJson.timestampMs(path, "timestamp", timestamp);
        final JsonNode kraftEpoch = obj.get("kraftControllerEpoch");
        if (kraftEpoch != null) {
            ZkJson.asInt(path, "kraftControllerEpoch", kraftEpoch, -1, Integer.MAX_VALUE);
        }
        return new ControllerZnode(brokerId, timestampMs);
    }
}
