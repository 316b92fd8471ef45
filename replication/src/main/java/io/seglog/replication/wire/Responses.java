package io.seglog.replication.wire;

import java.util.Collection;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/** Builds the ApiVersions answer (responses are encoded by {@link ResponseWriter}). Stateless. */
final class Responses {
    private Responses() {
    }

    /** The ApiVersions answer: every served API with its range, and the error (NONE or UNSUPPORTED_VERSION). */
    static ApiVersionsResponseData apiVersions(final Collection<KafkaApi> apis, final Errors error) {
        final ApiVersionsResponseData.ApiVersionCollection versions = new ApiVersionsResponseData.ApiVersionCollection();
        for (final KafkaApi api : apis) {
            versions.add(new ApiVersionsResponseData.ApiVersion().setApiKey(api.key().id)
                .setMinVersion(api.minVersion()).setMaxVersion(api.maxVersion()));
        }
        return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(versions).setThrottleTimeMs(0);
    }
}
