package io.seglog.storage.format;

/**
 * Compressed bytes that cannot be decompressed: damaged, cut short, not in the codec's framing, or expanding past
 * the decompression limit ({@link #overLimit()}). The caller turns it into an error that names the batch.
 */
final class CodecException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean overLimit;

    /**
     * Creates the exception.
     *
     * @param message   what was wrong, with the values involved
     * @param overLimit whether the data would expand past the decompression limit (a well-formed stream may)
     * @param cause     the library's exception, or null
     */
    public CodecException(final String message, final boolean overLimit, final Throwable cause) {
        super(message, cause);
        this.overLimit = overLimit;
    }

    /**
     * Whether the output would pass the decompression limit.
     *
     * @return true for a limit refusal, false for damaged data
     */
    public boolean overLimit() {
        return overLimit;
    }
}
