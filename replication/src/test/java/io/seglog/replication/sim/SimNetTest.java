package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandler;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.SimWireParts;
import io.seglog.replication.wire.WireClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

/**
 * The simulated network under a real {@link WireClient} and a broker's real server handlers: bytes arrive after the
 * links' delays and in order, a cut or a crash breaks the connection and fails what is in flight, a down node refuses.
 */
class SimNetTest {
    private static final int CLIENT = 0;
    private static final int SERVER = 1;

    /** Node 1 serves Metadata with answers the test completes itself, and ApiVersions; node 0 is the client. */
    private final SimScheduler sim = new SimScheduler(7);
    private final Set<String> cut = new HashSet<>();
    private final int[] incarnation = {0, 1};
    private long minDelayMs = 5;
    private long maxDelayMs = 5;
    private final List<CompletableFuture<ApiMessage>> metadataAnswers = new ArrayList<>();
    private final SimNet net = new SimNet(sim, new SimNet.Topology() {
        @Override
        public int incarnation(final int node) {
            return incarnation[node];
        }

        @Override
        public boolean linkUp(final int from, final int to) {
            return !cut.contains(from + ">" + to);
        }

        @Override
        public ChannelHandler[] serverHandlers(final int node) {
            return SimWireParts.serverHandlers(SimWireParts.served(List.of(new KafkaApi(ApiKeys.METADATA, (short) 0,
                (short) 12, request -> {
                    final CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
                    metadataAnswers.add(answer);
                    return answer;
                }))), 1 << 20);
        }

        @Override
        public long delayMs(final RandomGenerator random) {
            return random.nextLong(minDelayMs, maxDelayMs + 1);
        }
    });
    private final WireClient client = SimWireParts.client(pipeline -> net.connect(CLIENT, 0, SERVER, sim.random(),
        "test-client", pipeline), "broker1", "test-client", 1 << 20);

    SimNetTest() {
        sim.afterEach(event -> net.pump());
    }

    /** Sends as an event would: the channel tasks the send queued run at once (the simulation pumps after events). */
    private CompletableFuture<ApiMessage> apiVersions() {
        final CompletableFuture<ApiMessage> answer = client.send(ApiKeys.API_VERSIONS, (short) 3,
            new ApiVersionsRequestData().setClientSoftwareName("sim").setClientSoftwareVersion("1"));
        net.pump();
        return answer;
    }

    private CompletableFuture<ApiMessage> metadata() {
        final CompletableFuture<ApiMessage> answer = client.send(ApiKeys.METADATA, (short) 12,
            new MetadataRequestData());
        net.pump();
        return answer;
    }

    private static Throwable failureOf(final CompletableFuture<?> f) {
        assertTrue(f.isCompletedExceptionally(), "failed");
        try {
            f.join();
            throw new AssertionError("unreachable");
        } catch (final CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void aRequestIsDecodedByTheBrokersHandlersAndAnsweredAfterTheLinksDelays() {
        final CompletableFuture<ApiMessage> answer = apiVersions();
        sim.run(19);
        assertFalse(answer.isDone(), "a connect's round trip, the request and the answer take 4 x 5 ms");
        sim.run(20);
        assertTrue(answer.isDone());
        final ApiVersionsResponseData versions = (ApiVersionsResponseData) answer.join();
        assertEquals(0, versions.errorCode());
        assertTrue(versions.apiKeys().stream().anyMatch(k -> k.apiKey() == ApiKeys.METADATA.id && k.maxVersion() == 12),
            "the server's own ApiVersions lists the API it was given: " + versions);
        assertEquals(2, net.frames(), "one request frame, one response frame");
    }

    @Test
    void framesOfOneConnectionArriveInOrderWhateverTheirDelays() {
        minDelayMs = 1;
        maxDelayMs = 40;
        final List<CompletableFuture<ApiMessage>> answers = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            final int sendAt = i;
            sim.schedule("send " + i, CLIENT, sendAt, () -> answers.add(apiVersions()));
        }
        sim.run(1_000);
        assertEquals(30, answers.size());
        // WireClient fails a response that arrives out of order, and closes the connection.
        for (final CompletableFuture<ApiMessage> a : answers) {
            assertTrue(a.isDone());
            assertEquals(0, ((ApiVersionsResponseData) a.join()).errorCode());
        }
        assertEquals(60, net.frames());
    }

    @Test
    void aCutLinkHoldsTheConnectionsFramesUntilItHealsThenDeliversThemInOrder() {
        final CompletableFuture<ApiMessage> connected = apiVersions();
        sim.run(20);
        assertTrue(connected.isDone(), "connected and answered");
        cut.add(CLIENT + ">" + SERVER);
        final CompletableFuture<ApiMessage> first = apiVersions();
        final CompletableFuture<ApiMessage> second = metadata();
        final CompletableFuture<ApiMessage> third = apiVersions();
        sim.run(500);
        assertFalse(first.isDone(), "held while the link is cut");
        assertEquals(0, metadataAnswers.size());
        cut.clear();
        // Sent again every 200 ms from its due time (25 ms): the attempt at 625 ms gets through, the rest behind it.
        sim.run(629);
        assertFalse(first.isDone());
        assertEquals(1, metadataAnswers.size(), "the held requests reached the server");
        sim.run(630);
        assertTrue(first.isDone());
        assertEquals(0, ((ApiVersionsResponseData) first.join()).errorCode());
        assertFalse(third.isDone(), "answered in order: behind the Metadata request still being served");
        sim.schedule("answer", SERVER, 0, () -> metadataAnswers.get(0).complete(new MetadataResponseData()));
        sim.run(700);
        assertTrue(second.isDone() && third.isDone(), "answered in order once the Metadata answer completes");
        assertEquals(0, ((ApiVersionsResponseData) third.join()).errorCode());
    }

    @Test
    void aConnectOverACutLinkTimesOut() {
        cut.add(SERVER + ">" + CLIENT);
        final CompletableFuture<ApiMessage> answer = apiVersions();
        sim.run(SimNet.CONNECT_TIMEOUT_MS + 4);
        assertFalse(answer.isDone());
        sim.run(SimNet.CONNECT_TIMEOUT_MS + 5);
        final Throwable why = failureOf(answer);
        assertInstanceOf(IOException.class, why);
        assertTrue(why.getMessage().contains("timed out"), why.getMessage());
    }

    @Test
    void anAnswerCompletedLaterIsWrittenThen() {
        final CompletableFuture<ApiMessage> pending = metadata();
        sim.run(500);
        assertFalse(pending.isDone());
        sim.schedule("answer", SERVER, 0, () -> metadataAnswers.get(0).complete(new MetadataResponseData()
            .setClusterId("sim-cluster")));
        sim.run(504);
        assertFalse(pending.isDone(), "the answer is on its way");
        sim.run(505);
        assertTrue(pending.isDone());
        assertEquals("sim-cluster", ((MetadataResponseData) pending.join()).clusterId());
    }

    @Test
    void aServerThatEndsClosesItsPeersEndALinkDelayLater() {
        final CompletableFuture<ApiMessage> pending = metadata();
        sim.run(50);
        incarnation[SERVER] = -1;
        net.ended(SERVER);
        assertTrue(metadataAnswers.get(0).isCancelled(), "the crashed process's end closed at once");
        sim.run(54);
        assertFalse(pending.isDone());
        sim.run(55);
        assertInstanceOf(IOException.class, failureOf(pending));
        final CompletableFuture<ApiMessage> refused = apiVersions();
        sim.run(200);
        final Throwable why = failureOf(refused);
        assertInstanceOf(IOException.class, why);
        assertTrue(why.getMessage().contains("refused"), why.getMessage());
    }

    @Test
    void aResetLosesWhatIsInFlightEitherWayAndTheClientConnectsAgain() {
        final CompletableFuture<ApiMessage> served = metadata();
        sim.run(15);
        assertEquals(1, metadataAnswers.size(), "the request reached the server at 15 ms");
        sim.schedule("answer", SERVER, 5, () -> metadataAnswers.get(0).complete(new MetadataResponseData()));
        sim.run(22);
        assertFalse(served.isDone(), "the answer is on its way, due at 25 ms");
        final long before = net.frames();
        assertEquals(1, net.reset(SERVER));
        net.pump();
        assertInstanceOf(IOException.class, failureOf(served), "the client learns its request's fate is unknown");
        sim.run(100);
        assertEquals(before, net.frames(), "the lost answer was not sent again");
        final CompletableFuture<ApiMessage> again = apiVersions();
        sim.run(119);
        assertFalse(again.isDone());
        sim.run(120);
        assertEquals(0, ((ApiVersionsResponseData) again.join()).errorCode(), "a new connection, a round trip later");
        assertEquals(0, net.reset(CLIENT + 5), "a node without connections has none to reset");
    }

    @Test
    void aServerThatEndsWhileItsHandshakeIsOnTheWayFailsTheConnect() {
        final CompletableFuture<ApiMessage> answer = apiVersions();
        sim.run(7);
        incarnation[SERVER] = -1;
        net.ended(SERVER); // its end opened at 5 ms; the handshake's answer reaches the client at 10 ms
        sim.run(10);
        final Throwable why = failureOf(answer);
        assertInstanceOf(IOException.class, why, "a connect that never completes would stall the client for good");
        incarnation[SERVER] = 2;
        final CompletableFuture<ApiMessage> again = apiVersions();
        sim.run(40);
        assertEquals(0, ((ApiVersionsResponseData) again.join()).errorCode(), "the next request connects again");
    }
}
