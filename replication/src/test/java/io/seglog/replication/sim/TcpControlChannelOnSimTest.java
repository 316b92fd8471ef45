package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandler;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.wire.ControlCodec;
import io.seglog.replication.wire.SeglogApi;
import io.seglog.replication.wire.SimWireParts;
import io.seglog.replication.wire.TcpControlChannel;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The controller's {@link TcpControlChannel} over the simulated network against a broker that never answers one
 * request: a broker answers a connection's requests in order, so an attempt sent again on the same connection would
 * wait behind the unanswered one for good. As Kafka's NetworkClient, the channel closes a connection whose request
 * timed out, and the next attempt, on a new connection, is answered.
 */
class TcpControlChannelOnSimTest {
    private static final int CONTROLLER = 1;
    private static final int BROKER = 2;
    private static final int TIMEOUT_MS = 3_000;

    private final SimScheduler sim = new SimScheduler(3);
    private int connections;
    private int requests;
    private final SimNet net = new SimNet(sim, new SimNet.Topology() {
        @Override
        public int incarnation(final int node) {
            return 1;
        }

        @Override
        public boolean linkUp(final int from, final int to) {
            return true;
        }

        @Override
        public ChannelHandler[] serverHandlers(final int node) {
            connections++;
            // The first StopReplica is left unanswered (a handler that lost it); every other one is answered.
            final SeglogApi stopReplica = new SeglogApi(ControlCodec.STOP_REPLICA_KEY, ControlCodec.FIRST_VERSION,
                ControlCodec.latestVersion(ControlCodec.STOP_REPLICA_KEY), request -> ++requests == 1
                    ? new CompletableFuture<ByteBuffer>()
                    : CompletableFuture.completedFuture(ControlCodec.encodeResponse(ControlResponse.ok())));
            return SimWireParts.serverHandlers(SimWireParts.served(List.of()), List.of(stopReplica), 1 << 20);
        }

        @Override
        public long delayMs(final RandomGenerator random) {
            return 2;
        }
    });

    TcpControlChannelOnSimTest() {
        sim.afterEach(event -> net.pump());
    }

    @Test
    void aRequestThatTimedOutClosesItsConnectionAndTheNextAttemptIsAnsweredOnANewOne() {
        final TcpControlChannel channel = SimWireParts.controlChannel(CONTROLLER,
            broker -> SimWireParts.client(pipeline -> net.connect(CONTROLLER, 1, broker.id(), sim.random(),
                "seglog-controller-" + CONTROLLER, pipeline), "broker" + broker.id(), "seglog-controller-" + CONTROLLER,
                1 << 20),
            new SimScheduledExecutor(sim, "control-sender", CONTROLLER, () -> true),
            id -> Optional.of(new LiveBroker(id, 7, "broker" + id, 9092, Optional.empty())), TIMEOUT_MS);
        final CompletableFuture<ControlResponse> answer = channel.send(BROKER, new StopReplicaRequest(CONTROLLER, 1, 7,
            Set.of(new TopicPartition("t", 0)), false));
        sim.run(sim.nowMs() + TIMEOUT_MS - 100);
        assertFalse(answer.isDone(), "the first attempt is not answered");
        assertEquals(1, connections);
        assertTrue(sim.runUntil(answer::isDone, sim.nowMs() + 5 * TIMEOUT_MS), "the message is answered in the end");
        assertEquals(ControlResponse.ok(), answer.join());
        assertEquals(2, requests, "sent twice");
        assertEquals(2, connections, "the second attempt went on a new connection");
        // The channel goes on over the new connection.
        final CompletableFuture<ControlResponse> next = channel.send(BROKER, new StopReplicaRequest(CONTROLLER, 1, 7,
            Set.of(new TopicPartition("t", 1)), false));
        assertTrue(sim.runUntil(next::isDone, sim.nowMs() + TIMEOUT_MS), "answered");
        assertEquals(2, connections);
        channel.close();
        assertEquals(Map.of(), answer.join().partitionErrors());
    }
}
