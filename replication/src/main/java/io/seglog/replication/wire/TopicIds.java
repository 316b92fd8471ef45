package io.seglog.replication.wire;

import io.seglog.storage.TopicId;
import org.apache.kafka.common.Uuid;

/** Converts between Seglog's {@link TopicId} and kafka-clients' {@link Uuid}, the same 128 bits. Stateless. */
final class TopicIds {
    private TopicIds() {
    }

    /**
     * The id a message carries.
     *
     * @param uuid kafka-clients' id
     * @return the same bits
     */
    static TopicId of(final Uuid uuid) {
        return new TopicId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /**
     * The id to put in a message.
     *
     * @param id Seglog's id, {@link TopicId#ZERO} for none
     * @return the same bits ({@link Uuid#ZERO_UUID} for none)
     */
    static Uuid uuid(final TopicId id) {
        return id.isZero() ? Uuid.ZERO_UUID : new Uuid(id.mostSignificantBits(), id.leastSignificantBits());
    }
}
