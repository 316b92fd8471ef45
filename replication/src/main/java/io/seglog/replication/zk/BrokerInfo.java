package io.seglog.replication.zk;

/**
 * A live broker as read from {@code /brokers/ids/<id>}.
 *
 * @param registration the registration payload
 * @param epoch        the broker epoch: the czxid of the registration znode (KIP-380); a bounced broker has a new one
 */
public record BrokerInfo(BrokerRegistration registration, long epoch) {
    /**
     * The broker id.
     *
     * @return the id
     */
    public int id() {
        return registration.id();
    }
}
