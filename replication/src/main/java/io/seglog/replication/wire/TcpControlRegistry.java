package io.seglog.replication.wire;

import io.seglog.replication.transport.ControlHandlerRegistry;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlRequestHandler;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.ControllerRequestHandler;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.StaleBrokerEpochException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * A broker's control handlers served on its Kafka-protocol listener ({@link ControlCodec}'s keys): the controller's
 * LeaderAndIsr, UpdateMetadata and StopReplica are decoded on the connection's event loop and applied on the
 * broker's control thread (they may open, truncate or delete logs), one at a time in arrival order; ControlledShutdown
 * goes to the controller's own queue. The answer carries the handler's outcome: accepted (with refused partitions),
 * or the whole message refused for a stale epoch. A broker with no handler registered (not started, or leaving)
 * closes the connection, which the sender sees as unreachable.
 *
 * <p>Thread-safe.
 */
public final class TcpControlRegistry implements ControlHandlerRegistry {
    private final int brokerId;
    private final Executor controlThread;
    private volatile ControlRequestHandler broker;
    private volatile ControllerRequestHandler controller;

    /**
     * @param brokerId      the broker whose handlers these are
     * @param controlThread applies control messages in order (a single thread)
     */
    public TcpControlRegistry(final int brokerId, final Executor controlThread) {
        this.brokerId = brokerId;
        this.controlThread = controlThread;
    }

    @Override
    public void register(final int id, final ControlRequestHandler brokerHandler,
                         final ControllerRequestHandler controllerHandler) {
        if (id != brokerId) {
            throw new IllegalArgumentException("broker.id=" + id + " registered on the listener of broker.id=" + brokerId);
        }
        this.broker = brokerHandler;
        this.controller = controllerHandler;
    }

    @Override
    public void unregister(final int id) {
        if (id == brokerId) {
            broker = null;
            controller = null;
        }
    }

    /**
     * The APIs to serve on the broker's listener.
     *
     * @return the control APIs
     */
    public List<SeglogApi> apis() {
        return List.of(
            new SeglogApi(ControlCodec.LEADER_AND_ISR_KEY, ControlCodec.FIRST_VERSION,
                ControlCodec.latestVersion(ControlCodec.LEADER_AND_ISR_KEY), this::control),
            new SeglogApi(ControlCodec.UPDATE_METADATA_KEY, ControlCodec.FIRST_VERSION,
                ControlCodec.latestVersion(ControlCodec.UPDATE_METADATA_KEY), this::control),
            new SeglogApi(ControlCodec.STOP_REPLICA_KEY, ControlCodec.FIRST_VERSION,
                ControlCodec.latestVersion(ControlCodec.STOP_REPLICA_KEY), this::control),
            new SeglogApi(ControlCodec.CONTROLLED_SHUTDOWN_KEY, ControlCodec.FIRST_VERSION, ControlCodec.FIRST_VERSION,
                this::controlledShutdown));
    }

    private CompletableFuture<ByteBuffer> control(final SeglogApi.Request request) {
        final ControlRequest decoded = ControlCodec.decodeRequest(request.key(), request.version(), request.body());
        final ControlRequestHandler handler = broker;
        if (handler == null) {
            return CompletableFuture.failedFuture(new IOException("broker.id=" + brokerId + " has no control handler"));
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ControlCodec.encodeResponse(handler.handle(decoded));
            } catch (final ControlRequestRefusedException refused) {
                return ControlCodec.encodeRefusal(refused);
            }
        }, controlThread);
    }

    private CompletableFuture<ByteBuffer> controlledShutdown(final SeglogApi.Request request) {
        final ControlCodec.ControlledShutdown decoded = ControlCodec.decodeControlledShutdownRequest(request.version(),
            request.body());
        final ControllerRequestHandler handler = controller;
        if (handler == null) {
            return CompletableFuture.completedFuture(ControlCodec.encodeControlledShutdownRefusal(
                new NotControllerException(brokerId)));
        }
        return handler.controlledShutdown(decoded.brokerId(), decoded.brokerEpoch()).handle((stillLed, failure) -> {
            if (failure == null) {
                return ControlCodec.encodeControlledShutdownResponse(stillLed);
            }
            final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
            if (cause instanceof NotControllerException || cause instanceof StaleBrokerEpochException) {
                return ControlCodec.encodeControlledShutdownRefusal((RuntimeException) cause);
            }
            throw new CompletionException(cause);
        });
    }
}
