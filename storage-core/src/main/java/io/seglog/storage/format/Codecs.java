package io.seglog.storage.format;

import java.util.function.Predicate;
import java.util.zip.Deflater;

/**
 * One owner's codec instances, created on first use and reused: the inflater, the lz4 and zstd contexts live as
 * long as the owner, so steady-state batches allocate none of them. A codec whose library is not on the class
 * path, or whose native part does not load here, is reported by {@link CodecUnavailableException} naming the codec
 * and the artifact. Levels are Kafka's defaults unless set ({@code compression.gzip.level} etc.).
 *
 * <p>Not thread-safe; {@link #close()} releases native contexts and is idempotent.
 */
final class Codecs implements AutoCloseable {
    /** Kafka's default zstd level. */
    public static final int ZSTD_DEFAULT_LEVEL = 3;
    /** Kafka's default lz4 level (its fast compressor). */
    public static final int LZ4_DEFAULT_LEVEL = Lz4Codec.DEFAULT_LEVEL;
    /** Kafka's default gzip level: zlib's default. */
    public static final int GZIP_DEFAULT_LEVEL = Deflater.DEFAULT_COMPRESSION;

    private final Codec[] codecs = new Codec[CompressionType.values().length];
    private final Predicate<String> classPresent;
    private final int gzipLevel;
    private final int lz4Level;
    private final int zstdLevel;

    /** Codecs at Kafka's default levels, found on this class's class loader. */
    public Codecs() {
        this(GZIP_DEFAULT_LEVEL, LZ4_DEFAULT_LEVEL, ZSTD_DEFAULT_LEVEL);
    }

    /**
     * Codecs at the given levels.
     *
     * @param gzipLevel gzip level, -1 (zlib's default) or 1 to 9
     * @param lz4Level  lz4 level, 1 to 17 (9 selects the fast compressor, as in Kafka)
     * @param zstdLevel zstd level
     */
    public Codecs(final int gzipLevel, final int lz4Level, final int zstdLevel) {
        this(gzipLevel, lz4Level, zstdLevel, Codecs::loadable);
    }

    /**
     * Codecs with a stand-in for the class-path probe, so that a test can hide a codec's library.
     *
     * @param classPresent tells whether a class of the given name can be loaded
     */
    Codecs(final int gzipLevel, final int lz4Level, final int zstdLevel, final Predicate<String> classPresent) {
        if (gzipLevel != GZIP_DEFAULT_LEVEL && (gzipLevel < 1 || gzipLevel > 9)) {
            throw new IllegalArgumentException("compression.gzip.level=" + gzipLevel + " outside 1..9 (or -1)");
        }
        if (lz4Level < 1 || lz4Level > 17) {
            throw new IllegalArgumentException("compression.lz4.level=" + lz4Level + " outside 1..17");
        }
        if (zstdLevel < -131072 || zstdLevel > 22) {
            throw new IllegalArgumentException("compression.zstd.level=" + zstdLevel + " outside -131072..22");
        }
        this.gzipLevel = gzipLevel;
        this.lz4Level = lz4Level;
        this.zstdLevel = zstdLevel;
        this.classPresent = classPresent;
    }

    /**
     * Codecs for a test whose class-path probe is given.
     *
     * @param classPresent tells whether a class of the given name can be loaded
     * @return codecs at the default levels
     */
    public static Codecs withClassProbe(final Predicate<String> classPresent) {
        return new Codecs(GZIP_DEFAULT_LEVEL, LZ4_DEFAULT_LEVEL, ZSTD_DEFAULT_LEVEL, classPresent);
    }

    /**
     * The codec of a type, created on first use.
     *
     * @param type a compressed type (not {@code NONE})
     * @return this owner's instance
     * @throws CodecUnavailableException if its library is missing or does not load
     */
    public Codec codec(final CompressionType type) {
        final Codec existing = codecs[type.id()];
        if (existing != null) {
            return existing;
        }
        final Codec created = create(type);
        codecs[type.id()] = created;
        return created;
    }

    private Codec create(final CompressionType type) {
        switch (type) {
            case GZIP:
                return new GzipCodec(gzipLevel);
            case SNAPPY:
                require(type, "org.xerial.snappy.Snappy", "org.xerial.snappy:snappy-java");
                try {
                    return new SnappyCodec();
                } catch (final LinkageError e) {
                    throw new CodecUnavailableException(type, "org.xerial.snappy:snappy-java", e);
                }
            case LZ4:
                require(type, "net.jpountz.lz4.LZ4Factory", "at.yawk.lz4:lz4-java");
                try {
                    return new Lz4Codec(lz4Level);
                } catch (final LinkageError e) {
                    throw new CodecUnavailableException(type, "at.yawk.lz4:lz4-java", e);
                }
            case ZSTD:
                require(type, "com.github.luben.zstd.ZstdDecompressCtx", "com.github.luben:zstd-jni");
                try {
                    return new ZstdCodec(zstdLevel);
                } catch (final LinkageError e) {
                    throw new CodecUnavailableException(type, "com.github.luben:zstd-jni", e);
                }
            default:
                throw new IllegalArgumentException("codec=" + type + " has no codec to run");
        }
    }

    private void require(final CompressionType type, final String className, final String artifact) {
        if (!classPresent.test(className)) {
            throw new CodecUnavailableException(type, artifact, new ClassNotFoundException(className));
        }
    }

    private static boolean loadable(final String className) {
        try {
            Class.forName(className, false, Codecs.class.getClassLoader());
            return true;
        } catch (final ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < codecs.length; i++) {
            if (codecs[i] != null) {
                codecs[i].close();
                codecs[i] = null;
            }
        }
    }
}
