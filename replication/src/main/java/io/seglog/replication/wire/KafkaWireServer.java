package io.seglog.replication.wire;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A Kafka-protocol server: one listening socket, connections served by Netty event loops, requests framed,
 * decoded and answered as {@link io.seglog.replication.wire} describes, by the {@link KafkaApi}s it was started
 * with. ApiVersions is built in: it advertises exactly those APIs and versions (and itself).
 *
 * <p>Thread-safe. Threads: one acceptor and {@code ioThreads} event loops from the given factory, ended by
 * {@link #close()}.
 */
public final class KafkaWireServer implements AutoCloseable {
    /**
     * ApiVersions versions served: v0 to the latest stable one (v5 in kafka-clients 4.4, which sends it first; v3 is
     * the first flexible one). v5's ClusterId and NodeId are not compared yet.
     */
    static final short API_VERSIONS_MAX = ApiKeys.API_VERSIONS.latestVersion(false);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final Map<ApiKeys, KafkaApi> apis;

    private KafkaWireServer(final EventLoopGroup boss, final EventLoopGroup workers, final Channel listener,
                            final Map<ApiKeys, KafkaApi> apis) {
        this.boss = boss;
        this.workers = workers;
        this.listener = listener;
        this.apis = apis;
    }

    /**
     * Binds and starts serving.
     *
     * @param config        where to listen and the request size limit
     * @param served        the APIs to serve (ApiVersions is added; passing it is an error)
     * @param ioThreads     event-loop threads for the connections, at least 1
     * @param threadFactory makes the acceptor and event-loop threads
     * @return the running server, owned (and closed) by the caller
     * @throws IllegalArgumentException if an API is given twice, or ApiVersions is given
     * @throws UncheckedIOException naming the address when it cannot bind (every thread is ended first)
     */
    static KafkaWireServer start(final WireServerConfig config, final List<KafkaApi> served,
                                 final int ioThreads, final ThreadFactory threadFactory) {
        return start(config, served, List.of(), ioThreads, threadFactory);
    }

    /**
     * Binds and starts serving Kafka's APIs and Seglog's own (the control messages) on one listener.
     *
     * @param config        where to listen and the request size limit
     * @param served        the Kafka APIs to serve (ApiVersions is added; passing it is an error)
     * @param seglogServed  Seglog's own APIs
     * @param ioThreads     event-loop threads for the connections, at least 1
     * @param threadFactory makes the acceptor and event-loop threads
     * @return the running server, owned (and closed) by the caller
     * @throws IllegalArgumentException if an API is given twice, or ApiVersions is given
     * @throws UncheckedIOException naming the address when it cannot bind (every thread is ended first)
     */
    static KafkaWireServer start(final WireServerConfig config, final List<KafkaApi> served,
                                 final List<SeglogApi> seglogServed, final int ioThreads,
                                 final ThreadFactory threadFactory) {
        return start(config, served, seglogServed, ioThreads, threadFactory, RequestMetrics.NONE);
    }

    /**
     * Binds and starts serving, recording Kafka's request metrics ({@code kafka.network:type=RequestMetrics}).
     *
     * @param config        where to listen and the request size limit
     * @param served        the Kafka APIs to serve (ApiVersions is added; passing it is an error)
     * @param seglogServed  Seglog's own APIs
     * @param ioThreads     event-loop threads for the connections, at least 1
     * @param threadFactory makes the acceptor and event-loop threads
     * @param metrics       where request rates and times go
     * @return the running server, owned (and closed) by the caller
     * @throws IllegalArgumentException if an API is given twice, or ApiVersions is given
     * @throws UncheckedIOException naming the address when it cannot bind (every thread is ended first)
     */
    public static KafkaWireServer start(final WireServerConfig config, final List<KafkaApi> served,
                                        final List<SeglogApi> seglogServed, final int ioThreads,
                                        final ThreadFactory threadFactory, final RequestMetrics metrics) {
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(threadFactory, "threadFactory");
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads=" + ioThreads + " must be at least 1");
        }
        final Map<ApiKeys, KafkaApi> view = served(served);
        final Map<Short, SeglogApi> seglogApis = seglogServed(seglogServed);
        EventLoopGroup boss = null;
        EventLoopGroup workers = null;
        try {
            boss = new NioEventLoopGroup(1, named(threadFactory, "wire-acceptor"));
            workers = new NioEventLoopGroup(ioThreads, named(threadFactory, "wire-network"));
            final ServerBootstrap bootstrap = new ServerBootstrap().group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true);
            // Kafka's socket.send/receive.buffer.bytes; -1 leaves the OS's autotuning. The receive buffer is set on
            // the listening socket too, so the window scale agreed at the handshake allows it.
            if (config.receiveBufferBytes() > 0) {
                bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes())
                    .childOption(ChannelOption.SO_RCVBUF, config.receiveBufferBytes());
            }
            if (config.sendBufferBytes() > 0) {
                bootstrap.childOption(ChannelOption.SO_SNDBUF, config.sendBufferBytes());
            }
            bootstrap
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel channel) {
                        channel.pipeline().addLast(
                            new IdleStateHandler(0, 0, config.connectionsMaxIdleMs(), TimeUnit.MILLISECONDS));
                        channel.pipeline().addLast(connectionHandlers(config.maxRequestBytes(), view, seglogApis,
                            metrics));
                    }
                });
            final InetSocketAddress address = config.host().isEmpty() ? new InetSocketAddress(config.port())
                : new InetSocketAddress(config.host(), config.port());
            // awaitUninterruptibly, not sync: sync rethrows the bind failure (a checked BindException) as it is.
            final ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
            if (!bound.isSuccess()) {
                throw new UncheckedIOException(new IOException("cannot listen on " + address + ": " + bound.cause(),
                    bound.cause()));
            }
            return new KafkaWireServer(boss, workers, bound.channel(), view);
        } catch (final RuntimeException | Error e) {
            shutdown(boss, workers);
            throw e;
        }
    }

    /**
     * The Kafka APIs a server answers: those given, and ApiVersions advertising them all.
     *
     * @param served the APIs given to the server
     * @return an unmodifiable map
     * @throws IllegalArgumentException if an API is given twice, or ApiVersions is given
     */
    static Map<ApiKeys, KafkaApi> served(final List<KafkaApi> served) {
        final Map<ApiKeys, KafkaApi> apis = new EnumMap<>(ApiKeys.class);
        for (final KafkaApi api : served) {
            if (api.key() == ApiKeys.API_VERSIONS) {
                throw new IllegalArgumentException("ApiVersions is served by the server itself");
            }
            if (apis.put(api.key(), api) != null) {
                throw new IllegalArgumentException(api.key() + " given twice");
            }
        }
        final Map<ApiKeys, KafkaApi> view = Collections.unmodifiableMap(apis);
        apis.put(ApiKeys.API_VERSIONS, new KafkaApi(ApiKeys.API_VERSIONS, (short) 0, API_VERSIONS_MAX,
            request -> CompletableFuture.completedFuture(Responses.apiVersions(view.values(), Errors.NONE))));
        return view;
    }

    /**
     * Seglog's own APIs by key.
     *
     * @param served the APIs
     * @return the map
     * @throws IllegalArgumentException if a key is given twice
     */
    static Map<Short, SeglogApi> seglogServed(final List<SeglogApi> served) {
        final Map<Short, SeglogApi> seglogApis = new HashMap<>();
        for (final SeglogApi api : served) {
            if (seglogApis.put(api.key(), api) != null) {
                throw new IllegalArgumentException("Seglog API " + api.key() + " given twice");
            }
        }
        return seglogApis;
    }

    /**
     * The handlers that serve one connection, after the socket's own: the request decoder and the connection's
     * dispatcher (the cluster simulation installs the same ones on its in-memory connections).
     *
     * @param maxRequestBytes the largest request frame accepted
     * @param apis            the Kafka APIs, from {@link #served}
     * @param seglogApis      Seglog's own APIs, from {@link #seglogServed}
     * @param metrics         where request rates and times go
     * @return new handlers for one connection
     */
    static ChannelHandler[] connectionHandlers(final int maxRequestBytes, final Map<ApiKeys, KafkaApi> apis,
                                              final Map<Short, SeglogApi> seglogApis, final RequestMetrics metrics) {
        return new ChannelHandler[] {new RequestDecoder(maxRequestBytes, apis, seglogApis),
            new ConnectionHandler(apis, seglogApis, metrics)};
    }

    /**
     * Where the server listens (the port chosen when the configuration asked for 0).
     *
     * @return the bound address
     */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /**
     * The APIs served, ApiVersions included.
     *
     * @return an unmodifiable view
     */
    Map<ApiKeys, KafkaApi> apis() {
        return apis;
    }

    /**
     * Stops listening, closes every connection and ends the threads; waits for them. Idempotent. Not from a
     * handler (an event-loop thread would wait for itself).
     */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        shutdown(boss, workers);
    }

    private static void shutdown(final EventLoopGroup boss, final EventLoopGroup workers) {
        // No quiet period: the listener is closed, and the workers' shutdown closes every connection.
        if (boss != null) {
            boss.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (workers != null) {
            workers.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * The factory's threads with {@code -<prefix>-<n>} added to the name it gave them, so that thread dumps and
     * profiles show what they do (the factory's part, often the broker, stays).
     */
    private static ThreadFactory named(final ThreadFactory factory, final String prefix) {
        final AtomicInteger count = new AtomicInteger();
        return r -> {
            final Thread t = factory.newThread(r);
            t.setName(t.getName() + "-" + prefix + "-" + count.getAndIncrement());
            return t;
        };
    }
}
