package io.seglog.replication.wire;

import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One API a {@link KafkaWireServer} serves: its key, the versions it implements (advertised in ApiVersions, and
 * the only ones accepted) and the handler that answers it.
 *
 * @param key        the API
 * @param minVersion the lowest version implemented
 * @param maxVersion the highest version implemented
 * @param handler    answers a decoded request
 */
public record KafkaApi(ApiKeys key, short minVersion, short maxVersion, Handler handler) {
    /**
     * Checks the version range against what kafka-clients' classes can decode.
     *
     * @param key        the API
     * @param minVersion the lowest version implemented
     * @param maxVersion the highest version implemented
     * @param handler    the handler
     * @throws IllegalArgumentException naming the API and the versions when the range is empty or outside the
     *     message classes' stable versions
     */
    public KafkaApi {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(handler, "handler");
        if (minVersion > maxVersion || minVersion < key.oldestVersion() || maxVersion > key.latestVersion(false)) {
            throw new IllegalArgumentException(key + " versions " + minVersion + ".." + maxVersion + " must be a"
                + " range within " + key.oldestVersion() + ".." + key.latestVersion(false) + " (stable versions)");
        }
    }

    /**
     * Whether a request version is one this API implements.
     *
     * @param version the request's version
     * @return whether it lies in {@code [minVersion, maxVersion]}
     */
    public boolean supports(final short version) {
        return version >= minVersion && version <= maxVersion;
    }

    /** Answers requests of one API. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Answers a request. Called on the connection's event-loop thread: do not block; complete the stage later
         * for work that waits (a produce waiting for its acknowledgements). A Produce request's records are views of
         * the connection's receive buffer, valid only until this method returns: append or copy them before.
         *
         * @param request the decoded request
         * @return the response body (of the request's API, written at the request's version), or a stage completed
         *     with null for a request that gets no response (a produce with acks=0); a stage that fails closes
         *     the connection
         */
        CompletionStage<ApiMessage> handle(KafkaRequest request);
    }
}
