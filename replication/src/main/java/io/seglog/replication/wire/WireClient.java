package io.seglog.replication.wire;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka-protocol connection from one broker to another (a follower's fetcher, the controller's control channel):
 * requests are framed with Kafka's request header and pipelined on one socket, and each response is matched to the
 * oldest unanswered request by its correlation id (the server answers in order). Responses larger than the limit
 * close the connection before they are buffered. A lost connection fails every request in flight; the next request
 * connects again.
 *
 * <p>Thread-safe: requests may be sent from any thread; the socket is served by a Netty event loop of the given group.
 */
public final class WireClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WireClient.class);

    private final Connector connector;
    private final String host;
    private final int port;
    private final String clientId;
    private final int maxResponseBytes;
    private final AtomicInteger correlationIds = new AtomicInteger();
    private Channel channel;
    private ChannelFuture connecting;
    private boolean closed;

    private final AtomicInteger framesHeld = new AtomicInteger();

    /**
     * A request waiting for its response; touched only on the channel's event loop. An in-place request's decoder
     * reads the receive buffer itself and gets the hook that gives it back; the others read a copy.
     */
    private record InFlight(int correlationId, boolean inPlace, BiFunction<ByteBuffer, Runnable, Object> decoder,
                            CompletableFuture<Object> result) {
    }

    /**
     * Opens a client's connections: NIO sockets in a broker; in tests, channels whose bytes the test carries itself
     * (the cluster simulation's network). The handler given is the client's pipeline, to install on the new channel.
     */
    @FunctionalInterface
    interface Connector {
        /**
         * Starts a connection.
         *
         * @param pipeline installs the client's handlers on the channel
         * @return completes when the connection is up, or fails
         */
        ChannelFuture connect(ChannelHandler pipeline);
    }

    /**
     * A client of one broker (it connects at the first request).
     *
     * @param group            the event loops the socket is served by (shared; owned by the caller)
     * @param host             the broker's host
     * @param port             the broker's port
     * @param clientId         sent in every request header
     * @param maxResponseBytes the largest response frame accepted
     * @param connectTimeoutMs how long a connect may take
     */
    WireClient(final EventLoopGroup group, final String host, final int port, final String clientId,
               final int maxResponseBytes, final int connectTimeoutMs) {
        this(group, host, port, clientId, maxResponseBytes, connectTimeoutMs, -1);
    }

    /**
     * A client of one broker with its own socket receive buffer (a follower's
     * {@code replica.socket.receive.buffer.bytes}).
     *
     * @param group              the event loops the socket is served by (shared; owned by the caller)
     * @param host               the broker's host
     * @param port               the broker's port
     * @param clientId           sent in every request header
     * @param maxResponseBytes   the largest response frame accepted
     * @param connectTimeoutMs   how long a connect may take
     * @param receiveBufferBytes {@code SO_RCVBUF}, set before the connect; -1 leaves the OS's autotuning
     */
    public WireClient(final EventLoopGroup group, final String host, final int port, final String clientId,
                      final int maxResponseBytes, final int connectTimeoutMs, final int receiveBufferBytes) {
        this(pipeline -> {
            final Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs);
            if (receiveBufferBytes > 0) {
                bootstrap.option(ChannelOption.SO_RCVBUF, receiveBufferBytes);
            }
            return bootstrap.handler(pipeline).connect(host, port);
        }, host, port, clientId, maxResponseBytes);
    }

    /**
     * A client whose connections the connector opens (the cluster simulation carries their bytes).
     *
     * @param connector        opens each connection
     * @param host             the broker's host (for messages)
     * @param port             the broker's port (for messages)
     * @param clientId         sent in every request header
     * @param maxResponseBytes the largest response frame accepted
     */
    WireClient(final Connector connector, final String host, final int port, final String clientId,
               final int maxResponseBytes) {
        this.connector = connector;
        this.host = host;
        this.port = port;
        this.clientId = clientId;
        this.maxResponseBytes = maxResponseBytes;
    }

    /**
     * Sends a Kafka request and decodes its response with kafka-clients' message class.
     *
     * @param api     the API
     * @param version the version (both sides must implement it)
     * @param body    the request body
     * @return completes with the response body, or exceptionally with an {@link IOException} when the connection
     *     fails or closes first
     */
    public CompletableFuture<ApiMessage> send(final ApiKeys api, final short version, final ApiMessage body) {
        final int correlationId = correlationIds.incrementAndGet();
        final ByteBuffer frame = requestFrame(api, version, correlationId, clientId, body);
        final short responseHeaderVersion = api.responseHeaderVersion(version);
        final CompletableFuture<Object> result = new CompletableFuture<>();
        submit(new InFlight(correlationId, false, (bytes, release) -> decode(api, version, responseHeaderVersion, bytes),
            result), frame);
        return result.thenApply(ApiMessage.class::cast);
    }

    /**
     * Sends a Kafka request and decodes its response in place: the response's byte fields (a fetch's records) are
     * views into the connection's receive buffer, not copies, which stays held until the view made of the response is
     * closed. {@code view} runs on the connection's event loop; it is handed the hook that gives the buffer back and
     * must run it from its {@code close()}. A view nobody waits for any more (the future was cancelled or completed
     * first) is closed here; if {@code view} throws, the buffer is given back and the future fails.
     *
     * @param api     the API
     * @param version the version (both sides must implement it)
     * @param body    the request body
     * @param view    makes the caller's view of the response, given the response and the release hook
     * @param <T>     the view
     * @return completes with the view, or exceptionally with an {@link IOException} when the connection fails or
     *     closes first or the response is malformed
     */
    <T extends AutoCloseable> CompletableFuture<T> sendInPlace(final ApiKeys api, final short version,
                                                                     final ApiMessage body,
                                                                     final BiFunction<ApiMessage, Runnable, T> view) {
        final int correlationId = correlationIds.incrementAndGet();
        final ByteBuffer frame = requestFrame(api, version, correlationId, clientId, body);
        final short responseHeaderVersion = api.responseHeaderVersion(version);
        final CompletableFuture<Object> result = new CompletableFuture<>();
        submit(new InFlight(correlationId, true,
            (bytes, release) -> view.apply(decode(api, version, responseHeaderVersion, bytes), release), result),
            frame);
        @SuppressWarnings("unchecked")
        final CompletableFuture<T> typed = (CompletableFuture<T>) (CompletableFuture<?>) result;
        return typed;
    }

    private static ApiMessage decode(final ApiKeys api, final short version, final short responseHeaderVersion,
                                     final ByteBuffer bytes) {
        final ByteBufferAccessor accessor = new ByteBufferAccessor(bytes);
        new ResponseHeaderData(accessor, responseHeaderVersion);
        final ApiMessage response = api.messageType.newResponse();
        response.read(accessor, version);
        return response;
    }

    /**
     * Receive buffers held by in-place responses not yet closed (for tests: a leak shows as a count that stays up).
     *
     * @return the count
     */
    int framesHeld() {
        return framesHeld.get();
    }

    /**
     * Encodes a request frame with kafka-clients' classes: int32 size, request header (the version the API's version
     * calls for), body.
     *
     * @param api           the API
     * @param version       its version
     * @param correlationId the header's correlation id
     * @param clientId      the header's client id
     * @param body          the request body
     * @return the frame, positioned at its start
     */
    static ByteBuffer requestFrame(final ApiKeys api, final short version, final int correlationId,
                                   final String clientId, final ApiMessage body) {
        final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
            .setCorrelationId(correlationId).setClientId(clientId);
        final short headerVersion = api.requestHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        final ByteBuffer frame = ByteBuffer.allocate(Integer.BYTES + size.totalSize());
        frame.putInt(size.totalSize());
        final ByteBufferAccessor writer = new ByteBufferAccessor(frame);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        return frame.flip();
    }

    /**
     * Sends a request to one of Seglog's own APIs: request header v1, the body as given; response header v0.
     *
     * @param key     the API key
     * @param version the version
     * @param body    the body (read from its position to its limit)
     * @return completes with the response body, positioned at its start
     */
    CompletableFuture<ByteBuffer> sendSeglog(final short key, final short version, final ByteBuffer body) {
        final int correlationId = correlationIds.incrementAndGet();
        final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key).setRequestApiVersion(version)
            .setCorrelationId(correlationId).setClientId(clientId);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, (short) 1);
        final int total = size.totalSize() + body.remaining();
        final ByteBuffer frame = ByteBuffer.allocate(Integer.BYTES + total);
        frame.putInt(total);
        header.write(new ByteBufferAccessor(frame), cache, (short) 1);
        frame.put(body.duplicate());
        frame.flip();
        final CompletableFuture<Object> result = new CompletableFuture<>();
        // Response header v0 is the correlation id alone: the body follows it.
        submit(new InFlight(correlationId, false, (bytes, release) -> bytes.position(Integer.BYTES).slice(), result),
            frame);
        return result.thenApply(ByteBuffer.class::cast);
    }

    private void submit(final InFlight request, final ByteBuffer frame) {
        final ChannelFuture connection;
        synchronized (this) {
            if (closed) {
                request.result().completeExceptionally(new IOException("client of " + host + ":" + port + " is closed"));
                return;
            }
            connection = connect();
        }
        connection.addListener(done -> {
            if (!done.isSuccess()) {
                request.result().completeExceptionally(new IOException("cannot connect to " + host + ":" + port + ": "
                    + done.cause(), done.cause()));
                return;
            }
            final Channel ch = connection.channel();
            ch.eventLoop().execute(() -> {
                if (!ch.isActive()) {
                    request.result().completeExceptionally(new IOException("connection to " + host + ":" + port
                        + " closed"));
                    return;
                }
                final Handler handler = ch.pipeline().get(Handler.class);
                handler.inFlight.add(request);
                ch.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(frame)).addListener(written -> {
                    if (!written.isSuccess()) {
                        ch.close(); // fails every request in flight, this one included
                    }
                });
            });
        });
    }

    /** The current connection, or a new one; under the lock. */
    private ChannelFuture connect() {
        if (connecting != null && (!connecting.isDone() || connecting.isSuccess() && channel.isActive())) {
            return connecting;
        }
        connecting = connector.connect(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(final Channel ch) {
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(maxResponseBytes, 0, Integer.BYTES, 0,
                    Integer.BYTES), new Handler());
            }
        });
        channel = connecting.channel();
        return connecting;
    }

    /** Matches responses to requests, oldest first; fails them all when the connection goes. */
    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final InFlight head = inFlight.poll();
            final int correlationId = frame.getInt(frame.readerIndex());
            if (head == null || head.correlationId() != correlationId) {
                LOG.warn("closing the connection to {}:{}: response with correlation id {}, expected {}", host, port,
                    correlationId, head == null ? "none" : head.correlationId());
                if (head != null) {
                    head.result().completeExceptionally(new IOException("response out of order from " + host + ":"
                        + port));
                }
                ctx.close();
                return;
            }
            if (head.inPlace() && frame.nioBufferCount() == 1) {
                readInPlace(ctx, head, frame);
                return;
            }
            final ByteBuffer bytes = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(bytes);
            bytes.flip();
            try {
                head.result().complete(head.decoder().apply(bytes, () -> { }));
            } catch (final RuntimeException e) {
                malformed(ctx, head, e);
            }
        }

        /** Decodes from the receive buffer itself, held (retained) until the caller's view is closed. */
        private void readInPlace(final ChannelHandlerContext ctx, final InFlight head, final ByteBuf frame) {
            final HeldFrame held = new HeldFrame(frame.retain());
            final Object view;
            try {
                view = head.decoder().apply(frame.nioBuffer(), held);
            } catch (final RuntimeException e) {
                held.run();
                malformed(ctx, head, e);
                return;
            }
            if (!head.result().complete(view)) {
                // Nobody waits for it any more (cancelled after a timeout): give the buffer back now.
                try {
                    ((AutoCloseable) view).close();
                } catch (final Exception e) {
                    LOG.warn("closing an unclaimed response from {}:{} failed", host, port, e);
                    held.run();
                }
            }
        }

        private void malformed(final ChannelHandlerContext ctx, final InFlight head, final RuntimeException e) {
            head.result().completeExceptionally(new IOException("malformed response from " + host + ":" + port
                + ": " + e, e));
            ctx.close();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            final IOException closed = new IOException("connection to " + host + ":" + port + " closed");
            for (InFlight f = inFlight.poll(); f != null; f = inFlight.poll()) {
                f.result().completeExceptionally(closed);
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.debug("connection to {}:{} failed: {}", host, port, cause.toString());
            ctx.close();
        }
    }

    /** A retained receive buffer and its release, run once from whichever thread closes the view. */
    private final class HeldFrame implements Runnable {
        private final AtomicReference<ByteBuf> frame;

        HeldFrame(final ByteBuf frame) {
            this.frame = new AtomicReference<>(frame);
            framesHeld.incrementAndGet();
        }

        @Override
        public void run() {
            final ByteBuf f = frame.getAndSet(null);
            if (f != null) {
                f.release();
                framesHeld.decrementAndGet();
            }
        }
    }

    /**
     * The broker this client talks to.
     *
     * @return host:port
     */
    String address() {
        return host + ":" + port;
    }

    /** Closes the connection; requests in flight fail. Idempotent. */
    @Override
    public void close() {
        final Channel ch;
        synchronized (this) {
            closed = true;
            ch = channel;
        }
        if (ch != null) {
            ch.close();
        }
    }
}
