package io.seglog.replication.zk;

import java.nio.charset.StandardCharsets;

/**
 * The payload of {@code /controller_epoch}: the controller epoch as a plain decimal string such as {@code 5}
 * (not JSON). Kafka creates it as {@code 0}; every controller election writes the next value, and the znode's
 * version is the controller's fencing token. Stateless and thread-safe.
 */
public final class ControllerEpochZnode {
    /** The epoch the znode is created with. */
    static final int INITIAL_EPOCH = 0;

    private ControllerEpochZnode() {
    }

    /**
     * Encodes an epoch.
     *
     * @param epoch the epoch, zero or more
     * @return its decimal digits in UTF-8
     * @throws IllegalArgumentException when the epoch is negative
     */
    public static byte[] toBytes(final int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("controllerEpoch=" + epoch + " must be >= 0");
        }
        return Integer.toString(epoch).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Decodes an epoch.
     *
     * @param json the payload
     * @return the epoch
     * @throws MalformedZnodeException when the payload is not a non-negative decimal int
     */
    public static int fromBytes(final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.CONTROLLER_EPOCH;
        if (json == null || json.length == 0) {
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD, "no data");
        }
        if (json.length > 11) {
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD,
                "length=" + json.length + " exceeds limit=11 for a decimal int");
        }
        final long value = ZkJson.parseDecimalLong(path, "epoch", new String(json, StandardCharsets.UTF_8));
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new MalformedZnodeException(path, "epoch", "value=" + value + " outside [0, " + Integer.MAX_VALUE + "]");
        }
        return (int) value;
    }
}
