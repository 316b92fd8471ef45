package io.seglog.replication.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each request of one connection to its API's handler and writes the responses in request order (Kafka's
 * clients match responses to requests first in, first out): a response that completes early waits for the ones
 * before it. A request that gets no response (acks=0) still keeps its place. A handler that throws, a stage that
 * fails, or a response that cannot be encoded closes the connection, logged with the peer, the API and the
 * correlation id (a failure behind an unfinished earlier request closes it when it reaches the head).
 *
 * <p>Backpressure: the connection stops reading while {@value #MAX_IN_FLIGHT} requests are unanswered or its
 * responses are not being read (the outbound buffer is above its high-water mark), and reads again when both
 * clear, so a client that pipelines without reading cannot grow this server's memory without bound. When the
 * connection closes, the stages still pending are cancelled and forgotten.
 *
 * <p>One per connection; everything runs on the connection's event loop (completions are moved onto it).
 */
final class ConnectionHandler extends SimpleChannelInboundHandler<RequestDecoder.Decoded> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);
    /** Unanswered requests per connection before it stops reading (Kafka's producer pipelines up to 5). */
    static final int MAX_IN_FLIGHT = 64;

    private final Map<ApiKeys, KafkaApi> apis;
    private final Map<Short, SeglogApi> seglogApis;
    private final RequestMetrics metrics;
    /** Requests answered or in progress, oldest first; only the event loop touches it. */
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();

    /** Turns an answer into the parts of its response frame. */
    @FunctionalInterface
    private interface Encoder {
        List<Object> encode(ByteBufAllocator alloc, Object body);
    }

    /**
     * A request's place in the order and its answer.
     *
     * @param key           the Kafka API, or null for Seglog's own
     * @param receivedNanos when it was decoded, for {@code TotalTimeMs}
     */
    private record Pending(String api, short version, int correlationId, CompletableFuture<?> answer,
                           Encoder encoder, ApiKeys key, long receivedNanos) {
    }

    ConnectionHandler(final Map<ApiKeys, KafkaApi> apis, final Map<Short, SeglogApi> seglogApis,
                      final RequestMetrics metrics) {
        this.apis = apis;
        this.seglogApis = seglogApis;
        this.metrics = metrics;
    }

    private Pending kafka(final ApiKeys api, final short version, final int correlationId,
                          final CompletableFuture<ApiMessage> answer) {
        metrics.received(api, version);
        return new Pending(api.name(), version, correlationId, answer,
            (alloc, body) -> ResponseWriter.encode(alloc, api, version, correlationId, (ApiMessage) body), api,
            System.nanoTime());
    }

    /** Response header v0 (the correlation id), then the handler's body. */
    private static List<Object> encodeSeglog(final ByteBufAllocator alloc, final int correlationId,
                                             final ByteBuffer body) {
        final ByteBuf out = alloc.ioBuffer(2 * Integer.BYTES + body.remaining());
        out.writeInt(Integer.BYTES + body.remaining());
        out.writeInt(correlationId);
        out.writeBytes(body.duplicate());
        return List.of(out);
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final RequestDecoder.Decoded decoded) {
        if (!ctx.channel().isActive()) {
            if (decoded instanceof RequestDecoder.Request request) {
                request.release();
            }
            return; // decoded before the close took effect: never handed to a handler
        }
        final Pending pending;
        if (decoded instanceof RequestDecoder.UnsupportedApiVersions unsupported) {
            // Kafka's rule: answered at v0 with this server's ranges, so the client retries at a version both know.
            pending = kafka(ApiKeys.API_VERSIONS, (short) 0, unsupported.correlationId(),
                CompletableFuture.completedFuture(Responses.apiVersions(apis.values(), Errors.UNSUPPORTED_VERSION)));
        } else if (decoded instanceof RequestDecoder.SeglogRequest seglog) {
            final SeglogApi.Request request = seglog.request();
            CompletableFuture<ByteBuffer> answer;
            try {
                final CompletionStage<ByteBuffer> stage = seglogApis.get(request.key()).handler().handle(request);
                answer = stage == null ? CompletableFuture.failedFuture(new IllegalStateException(
                    "the handler returned no stage")) : stage.toCompletableFuture();
            } catch (final RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            final int correlationId = request.correlationId();
            pending = new Pending("SeglogApi" + request.key(), request.version(), correlationId, answer,
                (alloc, body) -> encodeSeglog(alloc, correlationId, (ByteBuffer) body), null, 0);
        } else {
            final RequestDecoder.Request decodedRequest = (RequestDecoder.Request) decoded;
            final KafkaRequest request = decodedRequest.request();
            CompletableFuture<ApiMessage> answer;
            try {
                final KafkaApi served = apis.get(request.api());
                final CompletionStage<ApiMessage> stage = served != null && served.supports(request.version())
                    ? served.handler().handle(request) : UnservedApis.handler().handle(request);
                answer = stage == null ? CompletableFuture.failedFuture(new IllegalStateException(
                    "the handler returned no stage")) : stage.toCompletableFuture();
            } catch (final RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            } finally {
                decodedRequest.release(); // the handler has returned: the records it was given are no longer read
            }
            pending = kafka(request.api(), request.version(), request.correlationId(), answer);
        }
        inFlight.addLast(pending);
        updateReading(ctx);
        if (pending.answer().isDone()) {
            drain(ctx);
        } else {
            pending.answer().whenComplete((body, failure) -> {
                if (!ctx.executor().isShuttingDown()) {
                    ctx.executor().execute(() -> drain(ctx));
                }
            });
        }
    }

    /** Writes every answered response at the head of the queue, in order. */
    private void drain(final ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!inFlight.isEmpty() && inFlight.peekFirst().answer().isDone() && ctx.channel().isActive()) {
            final Pending head = inFlight.removeFirst();
            try {
                final Object body = head.answer().join();
                if (body != null) {
                    for (final Object part : head.encoder().encode(ctx.alloc(), body)) {
                        ctx.write(part);
                    }
                    wrote = true;
                }
                if (head.key() != null) {
                    metrics.answered(head.key(), head.receivedNanos(), System.nanoTime());
                }
            } catch (final RuntimeException e) {
                LOG.warn("closing the connection from {}: the {} v{} response (correlation id {}) failed",
                    ctx.channel().remoteAddress(), head.api(), head.version(), head.correlationId(), e);
                abandonAll();
                ctx.close();
                return;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        updateReading(ctx);
    }

    /** Reads while few requests are unanswered and the client reads its responses. */
    private void updateReading(final ChannelHandlerContext ctx) {
        final boolean read = inFlight.size() < MAX_IN_FLIGHT && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        updateReading(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) {
        if (event instanceof IdleStateEvent && inFlight.isEmpty()) {
            // connections.max.idle.ms: nothing read or written, nothing unanswered (a long-poll keeps it open).
            LOG.debug("closing the idle connection from {}", ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        abandonAll();
        ctx.fireChannelInactive();
    }

    /** Cancels the stages still pending (their handlers may stop early) and forgets them. */
    private void abandonAll() {
        for (final Pending pending : inFlight) {
            pending.answer().cancel(false);
        }
        inFlight.clear();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("closing the connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            LOG.warn("closing the connection from {}", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
