package io.seglog.storage;

import io.seglog.storage.checkpoint.PartitionMetadataFile;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * A topic id as Kafka has them since KIP-516: 128 bits, written as 16 bytes in URL-safe base64 without padding
 * (22 characters), the text of Kafka's {@code org.apache.kafka.common.Uuid#toString}. The same value type serves
 * the storage core ({@code partition.metadata}) and the replication layer (ZooKeeper, control messages, the wire),
 * so that the storage core needs no Kafka class.
 *
 * <p>{@link #ZERO} (Kafka's {@code ZERO_UUID}) means "no id"; it and {@link #ONE} (Kafka's {@code ONE_UUID}, the
 * KRaft metadata topic's id) are reserved: {@link #random} never returns them, nor an id whose text starts with
 * {@code '-'} (Kafka's rule, so that an id never looks like a command-line option).
 *
 * @param mostSignificantBits  the first 8 bytes, big-endian
 * @param leastSignificantBits the last 8 bytes, big-endian
 */
public record TopicId(long mostSignificantBits, long leastSignificantBits) {
    /** The null id (Kafka's {@code Uuid.ZERO_UUID}): a topic without an id. */
    public static final TopicId ZERO = new TopicId(0L, 0L);
    /** Reserved (Kafka's {@code Uuid.ONE_UUID} and {@code METADATA_TOPIC_ID}). */
    public static final TopicId ONE = new TopicId(0L, 1L);
    /** Bytes of an id. */
    public static final int LENGTH = 16;
    /** Characters of an id's text: 16 bytes in base64 without padding. */
    public static final int TEXT_LENGTH = 22;

    /**
     * A fresh random id (a version-4 UUID's bits, as Kafka's {@code Uuid.randomUuid}), never a reserved one and
     * never one whose text starts with {@code '-'}.
     *
     * @param random the source of bits (a {@link java.security.SecureRandom} in production)
     * @return the id
     */
    public static TopicId random(final RandomGenerator random) {
        Objects.requireNonNull(random, "random");
        while (true) {
            // The version (4) and variant (2) bits of java.util.UUID.randomUUID, so the ids look like Kafka's.
            final long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
            final long lsb = (random.nextLong() & ~(0xC000_0000_0000_0000L)) | 0x8000_0000_0000_0000L;
            final TopicId id = new TopicId(msb, lsb);
            if (!id.isReserved() && !id.toString().startsWith("-")) {
                return id;
            }
        }
    }

    /**
     * Parses Kafka's text form.
     *
     * @param text 22 characters of URL-safe base64 (Kafka also accepts the two padding characters)
     * @return the id
     * @throws IllegalArgumentException naming the text when it is not 16 bytes of URL-safe base64
     */
    public static TopicId fromString(final String text) {
        return of(PartitionMetadataFile.idFromText(text));
    }

    /**
     * The same bits as a {@link UUID}.
     *
     * @param uuid the bits
     * @return the id
     */
    public static TopicId of(final UUID uuid) {
        return new TopicId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /**
     * The same bits as a {@link UUID} (whose own text form is not Kafka's).
     *
     * @return the UUID
     */
    public UUID toUuid() {
        return new UUID(mostSignificantBits, leastSignificantBits);
    }

    /**
     * Whether this is {@link #ZERO} or {@link #ONE}, which no topic is given.
     *
     * @return whether reserved
     */
    public boolean isReserved() {
        return equals(ZERO) || equals(ONE);
    }

    /**
     * Whether this is {@link #ZERO}, Kafka's "no id".
     *
     * @return whether zero
     */
    public boolean isZero() {
        return mostSignificantBits == 0 && leastSignificantBits == 0;
    }

    /**
     * The 16 bytes, big-endian (Kafka's {@code uuid} wire type).
     *
     * @return a new array
     */
    public byte[] toBytes() {
        return ByteBuffer.allocate(LENGTH).putLong(mostSignificantBits).putLong(leastSignificantBits).array();
    }

    /**
     * Kafka's text form: the 16 bytes in URL-safe base64 without padding.
     *
     * @return 22 characters
     */
    @Override
    public String toString() {
        return PartitionMetadataFile.idToText(toUuid());
    }
}
