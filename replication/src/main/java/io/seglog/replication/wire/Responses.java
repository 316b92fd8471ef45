package io.seglog.replication.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Collection;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Encodes responses (size, response header, body) and builds the ApiVersions answer. Stateless. */
final class Responses {
    private Responses() {
    }

    /**
     * One response frame: int32 size, the response header at {@code responseHeaderVersion} (always v0 for
     * ApiVersions), the body at the request's version.
     */
    static ByteBuf encode(final ByteBufAllocator alloc, final ApiKeys api, final short version,
                          final int correlationId, final ApiMessage body) {
        final ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        final short headerVersion = api.responseHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        final int total = size.totalSize();
        final ByteBuf out = alloc.ioBuffer(Integer.BYTES + total);
        try {
            out.writeInt(total);
            final ByteBuffer view = out.nioBuffer(Integer.BYTES, total);
            final ByteBufferAccessor writer = new ByteBufferAccessor(view);
            header.write(writer, cache, headerVersion);
            body.write(writer, cache, version);
            if (view.hasRemaining()) {
                throw new IllegalStateException(api + " v" + version + " response wrote " + view.position() + " of "
                    + total + " bytes");
            }
            out.writerIndex(Integer.BYTES + total);
            return out;
        } catch (final RuntimeException | Error e) {
            out.release();
            throw e;
        }
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
