package io.seglog.storage;

import io.seglog.storage.format.CompressionType;

/**
 * The codec a log stores batches in, Kafka's topic-level {@code compression.type}: {@code producer} keeps each
 * producer's codec (offsets are assigned in the header, nothing is re-encoded); any other value makes the leader
 * re-compress a batch whose codec differs, as Kafka's {@code LogValidator} does.
 */
public enum TopicCompression {
    /** Keep the producer's codec (Kafka's default). */
    PRODUCER("producer", null),
    /** Store records uncompressed. */
    UNCOMPRESSED("uncompressed", CompressionType.NONE),
    /** Store gzip batches. */
    GZIP("gzip", CompressionType.GZIP),
    /** Store snappy batches. */
    SNAPPY("snappy", CompressionType.SNAPPY),
    /** Store lz4 batches. */
    LZ4("lz4", CompressionType.LZ4),
    /** Store zstd batches. */
    ZSTD("zstd", CompressionType.ZSTD);

    private final String kafkaName;
    private final CompressionType codec;

    TopicCompression(final String kafkaName, final CompressionType codec) {
        this.kafkaName = kafkaName;
        this.codec = codec;
    }

    /**
     * The value of {@code compression.type}.
     *
     * @return e.g. {@code producer}, {@code zstd}
     */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * The codec batches are stored in.
     *
     * @return the codec, or null for {@link #PRODUCER} (each producer's own)
     */
    public CompressionType codec() {
        return codec;
    }

    /**
     * Parses a value of {@code compression.type}.
     *
     * @param name {@code producer}, {@code uncompressed}, {@code gzip}, {@code snappy}, {@code lz4} or {@code zstd}
     * @return the setting
     * @throws IllegalArgumentException naming the key and the value for any other name
     */
    public static TopicCompression fromKafkaName(final String name) {
        for (final TopicCompression type : values()) {
            if (type.kafkaName.equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException(LogConfig.COMPRESSION_TYPE_CONFIG + "=" + name
            + " must be one of producer, uncompressed, gzip, snappy, lz4, zstd");
    }
}
