package io.seglog.replication.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames and decodes requests: an int32 size, checked against the maximum before a byte more is buffered, then
 * the whole frame, its header ({@code requestHeaderVersion} of the API and version) and its body (the API's
 * {@code *RequestData} at the version). ApiVersions at a version this server does not implement is passed on
 * undecoded (it is answered at v0 with UNSUPPORTED_VERSION, Kafka's rule, so the client can retry at a version
 * both know). A Kafka API or version this server does not serve, but that kafka-clients' classes decode, is handed
 * on and answered with UNSUPPORTED_VERSION ({@link UnservedApis}). Anything else malformed (a size out of range, an
 * unknown API key, a version no class decodes, a body
 * that does not decode or leaves bytes over, which Kafka does not check) closes this connection only, logged with
 * the peer, the field and the value. Lengths inside a body are bounded by the frame: kafka-clients' readers refuse a collection larger than the
 * bytes left.
 *
 * <p>One per connection (it keeps the partial frame); runs on the connection's event loop.
 */
final class RequestDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDecoder.class);
    /** apiKey, apiVersion and correlationId: the least a request header holds. */
    static final int MIN_FRAME_BYTES = 8;

    private final int maxFrameBytes;
    private final Map<ApiKeys, KafkaApi> apis;
    private final Map<Short, SeglogApi> seglogApis;

    RequestDecoder(final int maxFrameBytes, final Map<ApiKeys, KafkaApi> apis, final Map<Short, SeglogApi> seglogApis) {
        this.maxFrameBytes = maxFrameBytes;
        this.apis = apis;
        this.seglogApis = seglogApis;
    }

    /**
     * What the decoder hands on: a request, an ApiVersions request at a version it does not implement, or a request to
     * one of Seglog's own APIs.
     */
    sealed interface Decoded permits Request, UnsupportedApiVersions, SeglogRequest {
    }

    /** A request to one of Seglog's APIs. */
    record SeglogRequest(SeglogApi.Request request) implements Decoded {
    }

    /**
     * A decoded request.
     *
     * @param request the request
     * @param frame   the receive buffer's frame that the body's records are views of (a Produce), retained until the
     *                handler has returned, when the consumer must release it; null when the body was decoded from a
     *                private copy
     */
    record Request(KafkaRequest request, ByteBuf frame) implements Decoded {
        /** Releases the retained frame, if any (once the handler has returned). */
        void release() {
            if (frame != null) {
                frame.release();
            }
        }
    }

    /** An ApiVersions request at a version this server does not implement: answered at v0. */
    record UnsupportedApiVersions(int correlationId, short version) implements Decoded {
    }

    @Override
    protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
        if (!ctx.channel().isActive()) {
            in.skipBytes(in.readableBytes()); // closed (a refused frame, a failed handler): decode nothing more
            return;
        }
        if (in.readableBytes() < Integer.BYTES) {
            return;
        }
        final int size = in.getInt(in.readerIndex());
        if (size < MIN_FRAME_BYTES || size > maxFrameBytes) {
            refuse(ctx, in, "size", size + " (must be in [" + MIN_FRAME_BYTES + ", socket.request.max.bytes="
                + maxFrameBytes + "])");
            return;
        }
        if (in.readableBytes() < Integer.BYTES + size) {
            return; // wait for the rest; the size was bounded above, and only received bytes are buffered
        }
        in.skipBytes(Integer.BYTES);
        final ByteBuf frame = in.readSlice(size);
        final ByteBuffer bytes = frame.nioBuffer();
        final short key = bytes.getShort(0);
        final short version = bytes.getShort(2);
        final SeglogApi seglog = seglogApis.get(key);
        if (seglog != null) {
            decodeSeglog(ctx, in, out, seglog, bytes, size, version);
            return;
        }
        if (!ApiKeys.hasId(key)) {
            refuse(ctx, in, "apiKey", Short.toString(key));
            return;
        }
        final ApiKeys api = ApiKeys.forId(key);
        final KafkaApi served = apis.get(api);
        if (api == ApiKeys.API_VERSIONS && (served == null || !served.supports(version))) {
            out.add(new UnsupportedApiVersions(bytes.getInt(4), version));
            return;
        }
        if ((served == null || !served.supports(version)) && !UnservedApis.decodable(api, version)) {
            // Not even kafka-clients' classes know this version: nothing to answer with (Kafka closes too).
            refuse(ctx, in, "apiVersion", api + " v" + version + " (served: " + (served == null ? "none"
                : served.minVersion() + ".." + served.maxVersion()) + ")");
            return;
        }
        // A Produce body is decoded in place: its records are views of the receive buffer, which is retained (Netty
        // would otherwise release or reuse the cumulation before the handler runs) until the handler has returned
        // (Produce appends before it returns, see KafkaApi.Handler); this saves a heap copy of every batch. Every
        // other body is decoded from a private copy, so that views it keeps stay valid after Netty reuses the
        // cumulation.
        final boolean inPlace = api == ApiKeys.PRODUCE;
        final ByteBuffer copy = inPlace ? bytes : ByteBuffer.allocate(size).put(bytes).flip();
        final ByteBufferAccessor accessor = new ByteBufferAccessor(copy);
        final RequestHeaderData header;
        final ApiMessage body;
        try {
            header = new RequestHeaderData(accessor, api.requestHeaderVersion(version));
            body = api.messageType.newRequest();
            body.read(accessor, version);
        } catch (final RuntimeException e) {
            refuse(ctx, in, api + " v" + version + " body", e.toString());
            return;
        }
        if (copy.hasRemaining()) {
            refuse(ctx, in, api + " v" + version + " body", copy.remaining() + " bytes after the end of the body");
            return;
        }
        if (header.clientId() == null) {
            header.setClientId(""); // Kafka's RequestHeader.parse does the same
        }
        out.add(new Request(new KafkaRequest(api, version, header, body, ctx.channel().remoteAddress()),
            inPlace ? frame.retain() : null));
    }

    /** Header v1, then the body as a private copy for the API's own codec. */
    private void decodeSeglog(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out,
                              final SeglogApi api, final ByteBuffer bytes, final int size, final short version) {
        if (!api.supports(version)) {
            refuse(ctx, in, "apiVersion", "Seglog API " + api.key() + " v" + version + " (served: " + api.minVersion()
                + ".." + api.maxVersion() + ")");
            return;
        }
        final ByteBuffer copy = ByteBuffer.allocate(size).put(bytes).flip();
        final RequestHeaderData header;
        try {
            header = new RequestHeaderData(new ByteBufferAccessor(copy), (short) 1);
        } catch (final RuntimeException e) {
            refuse(ctx, in, "Seglog API " + api.key() + " v" + version + " header", e.toString());
            return;
        }
        out.add(new SeglogRequest(new SeglogApi.Request(api.key(), version, header.correlationId(),
            header.clientId() == null ? "" : header.clientId(), copy.slice(), ctx.channel().remoteAddress())));
    }

    private void refuse(final ChannelHandlerContext ctx, final ByteBuf in, final String field, final String value) {
        LOG.warn("closing the connection from {}: malformed request, {}={}", ctx.channel().remoteAddress(), field,
            value);
        in.skipBytes(in.readableBytes());
        ctx.close();
    }
}
