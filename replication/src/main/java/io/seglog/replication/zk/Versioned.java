package io.seglog.replication.zk;

/**
 * A value read from a znode with the znode's data version.
 *
 * @param value   the decoded payload
 * @param version the znode's version, for a later conditional write
 * @param <T>     the payload type
 */
public record Versioned<T>(T value, int version) {
}
