package io.seglog.replication.broker;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.KafkaWireServer;
import io.seglog.replication.wire.RequestMetrics;
import io.seglog.replication.wire.SeglogApi;
import io.seglog.replication.wire.WireClient;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A real broker's network: its listener ({@link KafkaWireServer}, bound to {@code listeners}) and its connections to
 * the other brokers (replica fetchers, the controller's channel), which share one Netty event loop, started at the
 * first connection.
 *
 * <p>Thread-safe.
 */
final class NettyNetwork implements BrokerSeams.Network {
    /** Largest response a broker's client (fetcher, control channel) accepts: Kafka's request limit. */
    private static final int MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

    private final SeglogBrokerConfig config;
    private final ThreadFactory threadFactory;
    /** The clients' event loop: null until the first connection. */
    private EventLoopGroup clientLoops;
    private boolean closed;

    NettyNetwork(final SeglogBrokerConfig config, final ThreadFactory threadFactory) {
        this.config = config;
        this.threadFactory = threadFactory;
    }

    @Override
    public WireClient connect(final int brokerId, final String host, final int port, final String clientId,
                              final int connectTimeoutMs, final int receiveBufferBytes) {
        return new WireClient(loops(), host, port, clientId, MAX_RESPONSE_BYTES, connectTimeoutMs, receiveBufferBytes);
    }

    private synchronized EventLoopGroup loops() {
        if (closed) {
            throw new IllegalStateException("the broker's network is closed");
        }
        if (clientLoops == null) {
            clientLoops = new NioEventLoopGroup(1, threadFactory);
        }
        return clientLoops;
    }

    @Override
    public BrokerSeams.Listener listen(final List<KafkaApi> apis, final List<SeglogApi> control,
                                       final KafkaMetrics metrics) {
        final KafkaWireServer server = KafkaWireServer.start(config.listener(), apis, control, config.networkThreads(),
            threadFactory, new RequestMetrics(metrics));
        return new BrokerSeams.Listener() {
            @Override
            public InetSocketAddress address() {
                return server.address();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (clientLoops != null) {
            clientLoops.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
