package io.seglog.replication.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.ArrayDeque;
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
 * before it. A request that gets no response (acks=0) still keeps its place. A handler that throws or fails its
 * stage closes the connection, logged with the peer and the API.
 *
 * <p>One per connection; everything runs on the connection's event loop (completions are moved onto it).
 */
final class ConnectionHandler extends SimpleChannelInboundHandler<RequestDecoder.Decoded> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    private final Map<ApiKeys, KafkaApi> apis;
    /** Requests answered or in progress, oldest first; only the event loop touches it. */
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();

    /** A request's place in the order and its answer. */
    private record Pending(ApiKeys api, short version, int correlationId, CompletableFuture<ApiMessage> answer) {
    }

    ConnectionHandler(final Map<ApiKeys, KafkaApi> apis) {
        this.apis = apis;
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final RequestDecoder.Decoded decoded) {
        final Pending pending;
        if (decoded instanceof RequestDecoder.UnsupportedApiVersions unsupported) {
            // Kafka's rule: answered at v0 with this server's ranges, so the client retries at a version both know.
            pending = new Pending(ApiKeys.API_VERSIONS, (short) 0, unsupported.correlationId(),
                CompletableFuture.completedFuture(Responses.apiVersions(apis.values(), Errors.UNSUPPORTED_VERSION)));
        } else {
            final KafkaRequest request = ((RequestDecoder.Request) decoded).request();
            CompletableFuture<ApiMessage> answer;
            try {
                final CompletionStage<ApiMessage> stage = apis.get(request.api()).handler().handle(request);
                answer = stage.toCompletableFuture();
            } catch (final RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            pending = new Pending(request.api(), request.version(), request.correlationId(), answer);
        }
        inFlight.addLast(pending);
        if (pending.answer().isDone()) {
            drain(ctx);
        } else {
            pending.answer().whenComplete((body, failure) -> ctx.executor().execute(() -> drain(ctx)));
        }
    }

    /** Writes every answered response at the head of the queue, in order. */
    private void drain(final ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!inFlight.isEmpty() && inFlight.peekFirst().answer().isDone()) {
            final Pending head = inFlight.removeFirst();
            final ApiMessage body;
            try {
                body = head.answer().join();
            } catch (final RuntimeException e) {
                LOG.warn("closing the connection from {}: the {} v{} handler failed (correlation id {})",
                    ctx.channel().remoteAddress(), head.api(), head.version(), head.correlationId(), e);
                inFlight.clear();
                ctx.close();
                return;
            }
            if (body != null && ctx.channel().isActive()) {
                ctx.write(Responses.encode(ctx.alloc(), head.api(), head.version(), head.correlationId(), body));
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        LOG.warn("closing the connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
