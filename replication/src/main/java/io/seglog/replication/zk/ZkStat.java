package io.seglog.replication.zk;

/**
 * The parts of a znode's {@code Stat} that the replication layer uses.
 *
 * @param czxid          the zxid of the create; for {@code /brokers/ids/<id>} this is the broker epoch (KIP-380)
 * @param version        the data version, the CAS token of conditional writes (the partition epoch of a state znode)
 * @param ephemeralOwner the session id owning an ephemeral znode, 0 for a persistent one
 * @param pzxid          the zxid of the last create or delete of a child (the create's for a znode without); every
 *                       child of {@code /brokers/ids} read at once has a czxid at most this, every later one more
 */
public record ZkStat(long czxid, int version, long ephemeralOwner, long pzxid) {
}
