package io.seglog.replication.wire;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to a Kafka API this broker does not serve (not advertised in ApiVersions, so Kafka's own clients never
 * send it): the API's response, empty, with UNSUPPORTED_VERSION as its top-level error code when the response has
 * one (Kafka's brokers answer an API they do not handle with {@code getErrorResponse(UNSUPPORTED_VERSION)}). The
 * connection stays open. A request at a version kafka-clients' classes cannot decode closes it, as Kafka's does.
 */
final class UnservedApis {
    private UnservedApis() {
    }

    /** The handler for every API key not served. */
    static KafkaApi.Handler handler() {
        return request -> CompletableFuture.completedFuture(errorResponse(request.api()));
    }

    /** The API's empty response with UNSUPPORTED_VERSION where it has a top-level error code. */
    static ApiMessage errorResponse(final ApiKeys api) {
        final ApiMessage response = api.messageType.newResponse();
        try {
            final Method setErrorCode = response.getClass().getMethod("setErrorCode", short.class);
            setErrorCode.invoke(response, Errors.UNSUPPORTED_VERSION.code());
        } catch (final NoSuchMethodException e) {
            // Per-item errors only (CreateTopics, ...): an empty answer, which the client reads as no results.
        } catch (final IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot set the error code of " + api + "'s response", e);
        }
        return response;
    }

    /** Whether kafka-clients' classes can decode this version of the API (stable or not). */
    static boolean decodable(final ApiKeys api, final short version) {
        return version >= api.oldestVersion() && version <= api.latestVersion(true);
    }
}
