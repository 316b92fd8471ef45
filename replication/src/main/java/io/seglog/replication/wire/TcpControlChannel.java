package io.seglog.replication.wire;

import io.netty.channel.EventLoopGroup;
import io.seglog.replication.transport.BrokerUnreachableException;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ControlChannel} over TCP: control messages in {@link ControlCodec}'s format on the brokers'
 * Kafka-protocol listeners. Messages to one broker go one at a time, in the order sent (as Kafka's
 * {@code ControllerChannelManager} queue per broker); a message whose connection fails is sent again after a pause
 * for as long as the broker stays registered (its address comes from the directory, ZooKeeper's
 * {@code /brokers/ids}), and fails with {@link BrokerUnreachableException} once it is not. The epoch checks are the
 * receiving broker's, as with the in-JVM channel: a refused message fails its future with the same exception.
 *
 * <p>Thread-safe.
 */
public final class TcpControlChannel implements ControlChannel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpControlChannel.class);
    /** Pause before a message whose connection failed is sent again (Kafka's controller waits 100 ms too). */
    static final long RETRY_BACKOFF_MS = 100;

    private final int localBrokerId;
    private final Function<LiveBroker, WireClient> clients;
    private final ScheduledExecutorService retries;
    private final IntFunction<Optional<LiveBroker>> directory;
    private final int requestTimeoutMs;
    private final Map<Integer, Target> targets = new HashMap<>();
    private boolean closed;

    /**
     * @param localBrokerId    the sending broker (in the client id)
     * @param loops            the event loops the connections run on (owned by the caller)
     * @param retries          the channel's thread: runs every send and the pauses between attempts (one thread,
     *                         owned by the caller)
     * @param directory        a broker's current registration (address and epoch), or empty when it is not registered
     * @param requestTimeoutMs how long one attempt may take
     */
    public TcpControlChannel(final int localBrokerId, final EventLoopGroup loops, final ScheduledExecutorService retries,
                             final IntFunction<Optional<LiveBroker>> directory, final int requestTimeoutMs) {
        this(localBrokerId, broker -> new WireClient(loops, broker.host(), broker.port(),
            "seglog-controller-" + localBrokerId, WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, requestTimeoutMs),
            retries, directory, requestTimeoutMs);
    }

    /**
     * A channel whose connections the given function opens (the cluster simulation's network).
     *
     * @param localBrokerId    the sending broker
     * @param clients          a client of a broker at its registered address
     * @param retries          the channel's thread (see the public constructor)
     * @param directory        a broker's current registration, or empty when it is not registered
     * @param requestTimeoutMs how long one attempt may take
     */
    public TcpControlChannel(final int localBrokerId, final Function<LiveBroker, WireClient> clients,
                      final ScheduledExecutorService retries, final IntFunction<Optional<LiveBroker>> directory,
                      final int requestTimeoutMs) {
        this.localBrokerId = localBrokerId;
        this.clients = clients;
        this.retries = retries;
        this.directory = directory;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** One queued message: how to send it and how to read its answer. */
    private record Message(short key, ByteBuffer body, java.util.function.Function<ByteBuffer, Object> decoder,
                           CompletableFuture<Object> result, boolean retry) {
    }

    /** The queue and connection of one target broker. */
    private final class Target {
        final int brokerId;
        final ArrayDeque<Message> queue = new ArrayDeque<>();
        WireClient client;
        String address;
        boolean sending;

        Target(final int brokerId) {
            this.brokerId = brokerId;
        }
    }

    @Override
    public CompletableFuture<ControlResponse> send(final int brokerId, final ControlRequest request) {
        final short key = ControlCodec.apiKey(request);
        final CompletableFuture<Object> result = new CompletableFuture<>();
        enqueue(brokerId, new Message(key, ControlCodec.encodeRequest(request),
            body -> ControlCodec.decodeResponse(key, ControlCodec.latestVersion(key), body), result, true));
        return result.thenApply(ControlResponse.class::cast);
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<Set<TopicPartition>> controlledShutdown(final int controllerId, final int brokerId,
                                                                     final long brokerEpoch) {
        final CompletableFuture<Object> result = new CompletableFuture<>();
        enqueue(controllerId, new Message(ControlCodec.CONTROLLED_SHUTDOWN_KEY,
            ControlCodec.encodeControlledShutdownRequest(brokerId, brokerEpoch),
            body -> ControlCodec.decodeControlledShutdownResponse(ControlCodec.FIRST_VERSION, body), result, false));
        return result.thenApply(r -> (Set<TopicPartition>) r);
    }

    private void enqueue(final int brokerId, final Message message) {
        synchronized (this) {
            if (closed) {
                message.result().completeExceptionally(new BrokerUnreachableException(brokerId));
                return;
            }
            final Target target = targets.computeIfAbsent(brokerId, Target::new);
            target.queue.add(message);
            if (target.sending) {
                return;
            }
            target.sending = true;
        }
        submit(targets.get(brokerId));
    }

    /** Sends run on the channel's own thread: the directory reads ZooKeeper, which no event loop may wait for. */
    private void submit(final Target target) {
        try {
            retries.execute(() -> sendNext(target));
        } catch (final java.util.concurrent.RejectedExecutionException e) {
            synchronized (this) {
                target.sending = false;
                failAll(target);
            }
        }
    }

    /** Sends the head of a target's queue; the next one goes when it is answered. */
    private void sendNext(final Target target) {
        final Message message;
        synchronized (this) {
            message = target.queue.peek();
            if (message == null || closed) {
                target.sending = false;
                if (closed) {
                    failAll(target);
                }
                return;
            }
        }
        final Optional<LiveBroker> where;
        try {
            where = directory.apply(target.brokerId);
        } catch (final RuntimeException e) {
            retryLater(target, message, e);
            return;
        }
        if (where.isEmpty()) {
            finish(target, message, null, new BrokerUnreachableException(target.brokerId));
            return;
        }
        final WireClient client = clientFor(target, where.get());
        final CompletableFuture<ByteBuffer> attempt = client.sendSeglog(message.key(), ControlCodec.latestVersion(message.key()),
            message.body().duplicate());
        // The timeout runs on the channel's own thread (CompletableFuture.orTimeout would start a JDK thread). As
        // Kafka's NetworkClient, a request that timed out closes its connection: a broker answers a connection's
        // requests in order, so the next attempt on it would wait behind the unanswered one, maybe for good.
        final java.util.concurrent.ScheduledFuture<?> timeout = retries.schedule(() -> {
            if (attempt.completeExceptionally(new java.util.concurrent.TimeoutException("no answer from broker.id="
                + target.brokerId + " within " + requestTimeoutMs + " ms"))) {
                dropConnection(target, client);
            }
        }, requestTimeoutMs, TimeUnit.MILLISECONDS);
        attempt.whenComplete((ignored, failure) -> timeout.cancel(false));
        attempt
            .whenComplete((body, failure) -> {
                if (failure == null) {
                    try {
                        finish(target, message, message.decoder().apply(body), null);
                    } catch (final RuntimeException refusedOrMalformed) {
                        finish(target, message, null, refusedOrMalformed);
                    }
                    return;
                }
                final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
                if (message.retry()) {
                    retryLater(target, message, cause);
                } else {
                    finish(target, message, null, new BrokerUnreachableException(target.brokerId));
                }
            });
    }

    private synchronized WireClient clientFor(final Target target, final LiveBroker broker) {
        final String address = broker.host() + ":" + broker.port();
        if (target.client == null || !address.equals(target.address)) {
            if (target.client != null) {
                target.client.close();
            }
            target.client = clients.apply(broker);
            target.address = address;
        }
        return target.client;
    }

    /** Closes a target's connection if it is still the given one (the next attempt opens another). */
    private void dropConnection(final Target target, final WireClient client) {
        synchronized (this) {
            if (target.client != client) {
                return;
            }
            target.client = null;
            target.address = null;
        }
        LOG.info("closing the control connection to broker.id={}: a request timed out", target.brokerId);
        client.close();
    }

    private void retryLater(final Target target, final Message message, final Throwable cause) {
        LOG.debug("control message {} to broker.id={} not delivered ({}); retrying in {} ms", message.key(),
            target.brokerId, cause.toString(), RETRY_BACKOFF_MS);
        try {
            retries.schedule(() -> sendNext(target), RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
        } catch (final java.util.concurrent.RejectedExecutionException e) {
            finish(target, message, null, new BrokerUnreachableException(target.brokerId));
        }
    }

    private void finish(final Target target, final Message message, final Object value, final Throwable failure) {
        synchronized (this) {
            target.queue.poll();
        }
        if (failure != null) {
            message.result().completeExceptionally(failure);
        } else {
            message.result().complete(value);
        }
        submit(target);
    }

    private void failAll(final Target target) {
        for (Message m = target.queue.poll(); m != null; m = target.queue.poll()) {
            m.result().completeExceptionally(new BrokerUnreachableException(target.brokerId));
        }
    }

    /** Closes every connection; queued messages fail as unreachable. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            for (final Target t : targets.values()) {
                failAll(t);
                if (t.client != null) {
                    t.client.close();
                }
            }
        }
    }
}
