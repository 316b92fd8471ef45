package io.seglog.storage.format;

/**
 * The compression codecs of Kafka's v2 record batch, by the id that attributes bits 0-2 carry and the name that
 * Kafka's {@code compression.type} uses.
 *
 * <p>Framing is Kafka's for each: gzip is RFC 1952 (the JDK's {@code java.util.zip}); snappy is snappy-java's
 * stream format (an 8-byte magic, two version ints, then length-prefixed snappy blocks of 32 KiB input); lz4 is
 * Kafka's LZ4 frame (magic {@code 0x184D2204}, independent 64 KiB blocks, no block or content checksum, a header
 * checksum Kafka computes over the descriptor only); zstd is a standard zstd frame (or several). docs/format.md
 * has the details.
 */
public enum CompressionType {
    /** Records stored plainly. */
    NONE(0, "none"),
    /** gzip (deflate with a gzip header and CRC-32 trailer). */
    GZIP(1, "gzip"),
    /** snappy, in snappy-java's stream framing. */
    SNAPPY(2, "snappy"),
    /** lz4, in Kafka's LZ4 frame. */
    LZ4(3, "lz4"),
    /** zstd. */
    ZSTD(4, "zstd");

    private static final CompressionType[] BY_ID = values();

    private final int id;
    private final String kafkaName;

    CompressionType(final int id, final String kafkaName) {
        this.id = id;
        this.kafkaName = kafkaName;
    }

    /**
     * The id in the batch attributes (bits 0-2).
     *
     * @return 0 to 4
     */
    public int id() {
        return id;
    }

    /**
     * The name Kafka's {@code compression.type} gives this codec.
     *
     * @return e.g. {@code "lz4"}
     */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * The codec of an attributes id.
     *
     * @param id the id, attributes bits 0-2
     * @return the codec
     * @throws IllegalArgumentException if no codec has that id (5 to 7 are not defined by Kafka)
     */
    public static CompressionType forId(final int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new IllegalArgumentException("compressionCodec=" + id + " is not a Kafka codec id (0-4)");
        }
        return BY_ID[id];
    }

    /**
     * The codec Kafka names so ({@code none}, {@code gzip}, {@code snappy}, {@code lz4}, {@code zstd}).
     *
     * @param name the name, any case
     * @return the codec
     * @throws IllegalArgumentException for any other name
     */
    public static CompressionType forName(final String name) {
        for (final CompressionType type : BY_ID) {
            if (type.kafkaName.equalsIgnoreCase(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("compression codec name=" + name + " is not one of none, gzip, snappy,"
            + " lz4, zstd");
    }
}
