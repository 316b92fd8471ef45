package io.seglog.replication.wire;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One of Seglog's own APIs served on the same listener and framing as Kafka's (the control messages, which
 * kafka-clients 4.x no longer has classes for): its key (outside Kafka's range), the versions implemented, and the
 * handler. A request has Kafka's header v1 (apiKey, apiVersion, correlationId, clientId) and a body the handler
 * decodes; the response has header v0 (correlationId) and the body the handler encodes. Not advertised in
 * ApiVersions: Kafka's clients do not know them.
 *
 * @param key        the API key
 * @param minVersion the lowest version implemented
 * @param maxVersion the highest version implemented
 * @param handler    answers a request
 */
public record SeglogApi(short key, short minVersion, short maxVersion, Handler handler) {
    /** The lowest key Seglog's own APIs may use: far above Kafka's (below 100 in 4.4). */
    static final short MIN_KEY = 16_384;

    /**
     * Checks the key and range.
     *
     * @param key        the key, at least {@link #MIN_KEY}
     * @param minVersion the lowest version, 0 or more
     * @param maxVersion the highest version, at least {@code minVersion}
     * @param handler    the handler
     * @throws IllegalArgumentException naming the key when the key or range is invalid
     */
    public SeglogApi {
        Objects.requireNonNull(handler, "handler");
        if (key < MIN_KEY) {
            throw new IllegalArgumentException("key=" + key + " must be at least " + MIN_KEY + " (Kafka's keys are below)");
        }
        if (minVersion < 0 || maxVersion < minVersion) {
            throw new IllegalArgumentException("key=" + key + " versions " + minVersion + ".." + maxVersion
                + " must be a non-empty range from 0 up");
        }
    }

    /**
     * Whether a version is implemented.
     *
     * @param version the request's version
     * @return whether it lies in the range
     */
    public boolean supports(final short version) {
        return version >= minVersion && version <= maxVersion;
    }

    /**
     * A request to one of Seglog's APIs.
     *
     * @param key           the API key
     * @param version       the request's version
     * @param correlationId the id the response carries
     * @param clientId      the client id (empty when absent)
     * @param body          the body, a private copy positioned at its start
     * @param peer          the sender's address
     */
    public record Request(short key, short version, int correlationId, String clientId, ByteBuffer body,
                          SocketAddress peer) {
    }

    /** Answers requests of one of Seglog's APIs. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Answers a request, on the connection's event loop: do not block; complete the stage later for work that
         * waits.
         *
         * @param request the request
         * @return the response body (flipped, ready to read); a stage that fails closes the connection
         */
        CompletionStage<ByteBuffer> handle(Request request);
    }
}
