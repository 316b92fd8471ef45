package io.seglog.storage.format;

/**
 * A batch needs a compression codec whose library is not on the class path (or whose native part does not load
 * on this platform). The message names the codec and the Maven artifact that provides it; nothing was appended or
 * read.
 *
 * <p>Immutable, so thread-safe.
 */
public final class CodecUnavailableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient CompressionType codec;

    /**
     * Creates the exception.
     *
     * @param codec    the codec that is missing
     * @param artifact the Maven coordinates that provide it
     * @param cause    what the class loader or the native loader said
     */
    public CodecUnavailableException(final CompressionType codec, final String artifact, final Throwable cause) {
        super("compression codec " + codec.kafkaName() + " is not available: add " + artifact
            + " to the class path (" + cause + ")", cause);
        this.codec = codec;
    }

    /**
     * The codec that is missing.
     *
     * @return the codec
     */
    public CompressionType codec() {
        return codec;
    }
}
