package io.seglog.replication.example;

/** The demo saw something other than what it shows (or a step ran out of time); the message says what. */
final class DemoFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DemoFailure(final String message) {
        super(message);
    }

    DemoFailure(final String message, final Throwable cause) {
        super(message, cause);
    }
}
