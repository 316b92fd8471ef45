package io.seglog.replication.wire;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.seglog.replication.transport.LiveBroker;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The wire package's parts that the cluster simulation runs on its in-memory connections, opened to it from the same
 * package (they are package-private in the main code): the broker's connection handlers, exactly as
 * {@link KafkaWireServer} installs them on a socket, and {@link WireClient} over a connection the simulation carries.
 */
public final class SimWireParts {
    private SimWireParts() {
    }

    /**
     * A broker's Kafka APIs as its server answers them (ApiVersions added).
     *
     * @param apis the APIs, as {@code SeglogBroker} passes them to {@link KafkaWireServer#start}
     * @return the served APIs, to give to {@link #serverHandlers} for each connection
     */
    public static Map<ApiKeys, KafkaApi> served(final List<KafkaApi> apis) {
        return KafkaWireServer.served(apis);
    }

    /**
     * The handlers that serve one connection: the request decoder and the connection's dispatcher.
     *
     * @param served          the APIs, from {@link #served}
     * @param maxRequestBytes the largest request frame accepted
     * @return new handlers, for one connection
     */
    public static ChannelHandler[] serverHandlers(final Map<ApiKeys, KafkaApi> served, final int maxRequestBytes) {
        return serverHandlers(served, List.of(), maxRequestBytes);
    }

    /**
     * The handlers that serve one connection to a listener that also serves Seglog's own APIs (the control
     * messages), as {@code SeglogBroker} starts its listener.
     *
     * @param served          the Kafka APIs, from {@link #served}
     * @param seglogApis      Seglog's APIs ({@link TcpControlRegistry#apis()})
     * @param maxRequestBytes the largest request frame accepted
     * @return new handlers, for one connection
     */
    public static ChannelHandler[] serverHandlers(final Map<ApiKeys, KafkaApi> served, final List<SeglogApi> seglogApis,
                                                  final int maxRequestBytes) {
        return KafkaWireServer.connectionHandlers(maxRequestBytes, served, KafkaWireServer.seglogServed(seglogApis),
            RequestMetrics.NONE);
    }

    /**
     * The controller's channel to the brokers as {@code SeglogBroker} builds it, over clients the simulation carries.
     *
     * @param localBrokerId    the sending broker
     * @param clients          a client of a broker at its registered address
     * @param retries          the channel's thread (sends, pauses between attempts, timeouts)
     * @param directory        a broker's current registration, or empty
     * @param requestTimeoutMs how long one attempt may take
     * @return the channel
     */
    public static TcpControlChannel controlChannel(final int localBrokerId,
                                                   final Function<LiveBroker, WireClient> clients,
                                                   final ScheduledExecutorService retries,
                                                   final IntFunction<Optional<LiveBroker>> directory,
                                                   final int requestTimeoutMs) {
        return new TcpControlChannel(localBrokerId, clients, retries, directory, requestTimeoutMs);
    }

    /**
     * A client whose connections the simulation opens and carries.
     *
     * @param connector        opens a connection with the client's pipeline installed on it
     * @param host             the broker's name (for messages)
     * @param clientId         the request headers' client id
     * @param maxResponseBytes the largest response accepted
     * @return the client
     */
    public static WireClient client(final Function<ChannelHandler, ChannelFuture> connector, final String host,
                                    final String clientId, final int maxResponseBytes) {
        return new WireClient(connector::apply, host, 9092, clientId, maxResponseBytes);
    }
}
