package io.seglog.replication.transport;

import java.util.Objects;
import java.util.Optional;

/**
 * A live broker as control messages carry it (Kafka's {@code UpdateMetadataBroker} and LeaderAndIsr's
 * {@code LiveLeaders}): its id and epoch, and where clients and other brokers reach it.
 *
 * @param id    the broker id
 * @param epoch the broker epoch (its registration's czxid)
 * @param host  the advertised host
 * @param port  the advertised port
 * @param rack  the rack, when it has one
 */
public record LiveBroker(int id, long epoch, String host, int port, Optional<String> rack) {
    /**
     * Checks the fields.
     *
     * @param id    the broker id, zero or more
     * @param epoch the broker epoch
     * @param host  the host, not null
     * @param port  the port, 0 to 65535
     * @param rack  the rack, not null
     * @throws IllegalArgumentException naming the field when one is out of range
     */
    public LiveBroker {
        if (id < 0) {
            throw new IllegalArgumentException("id=" + id + " must be >= 0");
        }
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(rack, "rack");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port=" + port + " must be in [0, 65535] (broker.id=" + id + ")");
        }
    }
}
