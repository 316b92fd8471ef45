package io.seglog.storage.cleaner;

/**
 * A log the cleaner cannot clean (a compressed batch, a batch whose CRC does not match); the cleaner marks the
 * partition uncleanable and goes on with the others.
 */
final class UncleanableLogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what was found, naming the batch
     */
    UncleanableLogException(final String message) {
        super(message);
    }
}
