package io.seglog.replication.broker;

import io.seglog.replication.transport.LiveBroker;
import java.util.Map;

/**
 * What a broker knows of the cluster's membership: its own broker epoch (its registration's czxid) and the live
 * brokers as the last UpdateMetadata described them. Created before the replica layer, which reads it (the epoch sent
 * with every fetch, whether a follower is alive to hold the high watermark back); written only by the broker's
 * {@link BrokerControlHandler}, so the replica layer needs no reference to the control plane built after it.
 *
 * <p>Thread-safe: both are published as immutable values; readers never wait.
 */
final class BrokerMembership {
    /** Broker epoch while the broker has no registration. */
    static final long NO_BROKER_EPOCH = -1;

    private volatile long brokerEpoch = NO_BROKER_EPOCH;
    private volatile Map<Integer, LiveBroker> liveBrokers = Map.of();

    /** @return this broker's current epoch, or {@link #NO_BROKER_EPOCH} */
    long brokerEpoch() {
        return brokerEpoch;
    }

    /** @return an immutable snapshot: broker id to broker */
    Map<Integer, LiveBroker> liveBrokers() {
        return liveBrokers;
    }

    /**
     * @param brokerId a broker
     * @return whether the last UpdateMetadata described it as alive
     */
    boolean isLive(final int brokerId) {
        return liveBrokers.containsKey(brokerId);
    }

    /** Written by the control handler only, under its lock. */
    void brokerEpoch(final long epoch) {
        this.brokerEpoch = epoch;
    }

    /** Written by the control handler only, under its lock. */
    void liveBrokers(final Map<Integer, LiveBroker> live) {
        this.liveBrokers = live; // as the message gave it: immutable, its iteration order kept
    }
}
