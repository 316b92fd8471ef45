package io.seglog.replication.wire;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

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
        return request -> CompletableFuture.completedFuture(errorResponse(request.api(), request.version()));
    }

    /**
     * The API's empty response with UNSUPPORTED_VERSION where it has a top-level error code at this version (a field
     * set outside its versions would fail the encoding, which would close the connection).
     */
    static ApiMessage errorResponse(final ApiKeys api, final short version) {
        final ApiMessage response = api.messageType.newResponse();
        try {
            final Method setErrorCode = response.getClass().getMethod("setErrorCode", short.class);
            setErrorCode.invoke(response, Errors.UNSUPPORTED_VERSION.code());
        } catch (final NoSuchMethodException e) {
            return response; // per-item errors only (CreateTopics, ...): an empty answer, read as no results
        } catch (final IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot set the error code of " + api + "'s response", e);
        }
        try {
            // Encoded once to find out (a field outside its versions fails the write, not the sizing).
            final ObjectSerializationCache cache = new ObjectSerializationCache();
            final MessageSizeAccumulator size = new MessageSizeAccumulator();
            response.addSize(size, cache, version);
            response.write(new ByteBufferAccessor(ByteBuffer.allocate(size.totalSize())), cache, version);
            return response;
        } catch (final RuntimeException notInThisVersion) {
            return api.messageType.newResponse(); // the error code is a field of other versions
        }
    }

    /** Whether kafka-clients' classes can decode this version of the API (stable or not). */
    static boolean decodable(final ApiKeys api, final short version) {
        return version >= api.oldestVersion() && version <= api.latestVersion(true);
    }
}
