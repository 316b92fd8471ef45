package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kafka-protocol server over real loopback sockets, spoken to with kafka-clients' own message classes:
 * ApiVersions (and its v0 answer to an unknown version), responses in request order whatever order the handlers
 * finish in, no response for a request answered with null, and every malformed frame closing only its connection.
 */
@Timeout(60)
class KafkaWireServerTest {
    private static final short METADATA_MIN = 9;
    private static final short METADATA_MAX = 12;
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    private static final java.util.concurrent.ThreadFactory THREADS = task -> {
        final Thread thread = new Thread(task, "wire-test-" + THREAD_IDS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    };

    private KafkaWireServer server;
    /** Metadata requests by correlation id, held until a test completes them. */
    private final Map<Integer, CompletableFuture<ApiMessage>> held = new ConcurrentHashMap<>();
    private final AtomicInteger handled = new AtomicInteger();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(final int maxRequestBytes, final boolean hold) {
        final KafkaApi metadata = new KafkaApi(ApiKeys.METADATA, METADATA_MIN, METADATA_MAX, request -> {
            handled.incrementAndGet();
            final MetadataRequestData body = (MetadataRequestData) request.body();
            final MetadataResponseData answer = new MetadataResponseData().setThrottleTimeMs(request.correlationId())
                .setClusterId(body.topics() == null ? "all" : "topics=" + body.topics().size()).setControllerId(1);
            if ("admin".equals(request.header().clientId())) {
                // A real client needs a broker to talk to: this server, as broker 1.
                answer.setThrottleTimeMs(0).setClusterId("seglog-test").brokers().add(
                    new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                        .setHost(server.address().getHostString()).setPort(server.address().getPort()));
            }
            if ("throw".equals(request.header().clientId())) {
                throw new IllegalStateException("a handler bug");
            }
            if ("silent".equals(request.header().clientId())) {
                return CompletableFuture.completedFuture(null); // like a produce with acks=0
            }
            if (!hold) {
                return CompletableFuture.completedFuture(answer);
            }
            final CompletableFuture<ApiMessage> later = new CompletableFuture<>();
            held.put(request.correlationId(), later);
            return later.thenApply(ignored -> answer);
        });
        server = KafkaWireServer.start(new WireServerConfig("127.0.0.1", 0, maxRequestBytes), List.of(metadata), 1,
            THREADS);
    }

    /** A blocking client on one connection. */
    private static final class Client implements AutoCloseable {
        final Socket socket;
        final DataOutputStream out;
        final DataInputStream in;

        Client(final InetSocketAddress address) throws IOException {
            socket = new Socket(address.getAddress(), address.getPort());
            socket.setSoTimeout(30_000);
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        void send(final ApiKeys api, final short version, final int correlationId, final String clientId,
                  final ApiMessage body) throws IOException {
            out.write(frame(api, version, correlationId, clientId, body));
            out.flush();
        }

        /** A request frame with its int32 size, encoded with kafka-clients' classes. */
        static byte[] frame(final ApiKeys api, final short version, final int correlationId, final String clientId,
                            final ApiMessage body) {
            return WireClient.requestFrame(api, version, correlationId, clientId, body).array();
        }

        void sendRaw(final byte[] frame) throws IOException {
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
        }

        /** Reads one response: its header at {@code headerVersion}, and the body bytes after it. */
        ByteBuffer receive(final ApiKeys api, final short version, final ResponseHeaderData header)
            throws IOException {
            final byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            final ByteBuffer bytes = ByteBuffer.wrap(frame);
            header.read(new ByteBufferAccessor(bytes), api.responseHeaderVersion(version));
            return bytes;
        }

        /** Whether the server closed the connection (reads end). */
        boolean closedByServer() throws IOException {
            try {
                return in.read() < 0;
            } catch (final java.net.SocketException reset) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static ApiVersionsResponseData apiVersions(final Client client, final short version,
                                                       final int correlationId) throws IOException {
        client.send(ApiKeys.API_VERSIONS, version, correlationId, "test", new ApiVersionsRequestData()
            .setClientSoftwareName("seglog-test").setClientSoftwareVersion("1"));
        final ResponseHeaderData header = new ResponseHeaderData();
        final ByteBuffer body = client.receive(ApiKeys.API_VERSIONS, version, header);
        assertEquals(correlationId, header.correlationId());
        final ApiVersionsResponseData data = new ApiVersionsResponseData();
        data.read(new ByteBufferAccessor(body), version);
        assertEquals(0, body.remaining(), "the whole body read");
        return data;
    }

    @Test
    void apiVersionsAdvertisesExactlyWhatIsServedAtEveryStableVersion() throws IOException {
        assertEquals(ApiKeys.API_VERSIONS.latestVersion(false), KafkaWireServer.API_VERSIONS_MAX,
            "kafka-clients 4.4 sends its latest stable ApiVersions first; serving it saves a round trip");
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        try (Client client = new Client(server.address())) {
            for (short version = 0; version <= KafkaWireServer.API_VERSIONS_MAX; version++) {
                final ApiVersionsResponseData data = apiVersions(client, version, 100 + version);
                assertEquals(Errors.NONE.code(), data.errorCode());
                assertEquals(2, data.apiKeys().size(), data.toString());
                final ApiVersionsResponseData.ApiVersion metadata = data.apiKeys().find(ApiKeys.METADATA.id);
                assertEquals(METADATA_MIN, metadata.minVersion());
                assertEquals(METADATA_MAX, metadata.maxVersion());
                final ApiVersionsResponseData.ApiVersion self = data.apiKeys().find(ApiKeys.API_VERSIONS.id);
                assertEquals(0, self.minVersion());
                assertEquals(KafkaWireServer.API_VERSIONS_MAX, self.maxVersion());
            }
        }
    }

    @Test
    void anUnknownApiVersionsVersionIsAnsweredAtV0WithTheRanges() throws IOException {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        try (Client client = new Client(server.address())) {
            // A client newer than the server: a version the server cannot even parse. Kafka's rule: answer at v0.
            final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.API_VERSIONS.id)
                .setRequestApiVersion((short) 99).setCorrelationId(7).setClientId("future");
            final ByteBuffer frame = ByteBuffer.allocate(64);
            final ObjectSerializationCache cache = new ObjectSerializationCache();
            header.addSize(new MessageSizeAccumulator(), cache, (short) 2);
            header.write(new ByteBufferAccessor(frame), cache, (short) 2);
            frame.put(new byte[] {1, 2, 3}); // a body in a format the server does not know
            client.sendRaw(java.util.Arrays.copyOf(frame.array(), frame.position()));
            final ResponseHeaderData responseHeader = new ResponseHeaderData();
            final ByteBuffer body = client.receive(ApiKeys.API_VERSIONS, (short) 0, responseHeader);
            assertEquals(7, responseHeader.correlationId());
            final ApiVersionsResponseData data = new ApiVersionsResponseData();
            data.read(new ByteBufferAccessor(body), (short) 0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), data.errorCode());
            assertEquals(METADATA_MAX, data.apiKeys().find(ApiKeys.METADATA.id).maxVersion());
            // The client retries at a version both know, on the same connection.
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 8).errorCode());
        }
    }

    @Test
    void responsesGoInRequestOrderWhateverOrderTheHandlersFinishIn() throws Exception {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, true);
        try (Client client = new Client(server.address())) {
            final int requests = 20;
            for (int id = 1; id <= requests; id++) {
                client.send(ApiKeys.METADATA, METADATA_MAX, id, id % 5 == 0 ? "silent" : "client",
                    new MetadataRequestData().setTopics(null));
            }
            // Wait (with a deadline) until every answered request is held, then finish them last to first.
            final int answeredCount = requests - requests / 5;
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while ((held.size() < answeredCount || handled.get() < requests) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(answeredCount, held.size(), "requests held by the handler");
            assertEquals(requests, handled.get(), "requests handled");
            final List<Integer> ids = new ArrayList<>(held.keySet());
            ids.sort(java.util.Comparator.reverseOrder());
            for (final int id : ids) {
                held.get(id).complete(null);
            }
            final List<Integer> answered = new ArrayList<>();
            for (int i = 0; i < requests - requests / 5; i++) {
                final ResponseHeaderData header = new ResponseHeaderData();
                final ByteBuffer body = client.receive(ApiKeys.METADATA, METADATA_MAX, header);
                final MetadataResponseData data = new MetadataResponseData();
                data.read(new ByteBufferAccessor(body), METADATA_MAX);
                assertEquals(header.correlationId(), data.throttleTimeMs(), "the body belongs to its header");
                assertEquals("all", data.clusterId());
                answered.add(header.correlationId());
            }
            final List<Integer> expected = new ArrayList<>();
            for (int id = 1; id <= requests; id++) {
                if (id % 5 != 0) {
                    expected.add(id);
                }
            }
            assertEquals(expected, answered, "in request order, the silent ones skipped");
        }
    }

    @Test
    void aRealKafkaClientNegotiatesVersionsAndReadsTheMetadata() throws Exception {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        final Map<String, Object> config = Map.of(
            org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            server.address().getHostString() + ":" + server.address().getPort(),
            org.apache.kafka.clients.admin.AdminClientConfig.CLIENT_ID_CONFIG, "admin",
            org.apache.kafka.clients.admin.AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000,
            org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 40_000);
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(config)) {
            // ApiVersions first, then Metadata at the highest version both sides know (12), header v2, flexible.
            final org.apache.kafka.clients.admin.DescribeClusterResult cluster = admin.describeCluster();
            assertEquals("seglog-test", cluster.clusterId().get(40, java.util.concurrent.TimeUnit.SECONDS));
            final org.apache.kafka.common.Node node = cluster.nodes().get(40, java.util.concurrent.TimeUnit.SECONDS)
                .iterator().next();
            assertEquals(1, node.id());
            assertEquals(server.address().getPort(), node.port());
        }
        assertTrue(handled.get() > 0, "the client's metadata requests reached the handler");
    }

    /**
     * A Kafka API the server does not serve (not advertised: Kafka's clients never send it), or a version of a served
     * API it does not implement, is answered with UNSUPPORTED_VERSION where the response has an error code, and the
     * connection stays open (the rule: never a hang or a dropped connection).
     */
    @Test
    void anUnservedApiOrVersionIsAnsweredUnsupportedAndTheConnectionStaysOpen() throws IOException {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        try (Client client = new Client(server.address())) {
            client.send(ApiKeys.JOIN_GROUP, (short) 5, 41, "client", new org.apache.kafka.common.message
                .JoinGroupRequestData().setGroupId("g").setMemberId("").setProtocolType("consumer"));
            final ResponseHeaderData header = new ResponseHeaderData();
            final ByteBuffer body = client.receive(ApiKeys.JOIN_GROUP, (short) 5, header);
            final org.apache.kafka.common.message.JoinGroupResponseData join =
                new org.apache.kafka.common.message.JoinGroupResponseData();
            join.read(new ByteBufferAccessor(body), (short) 5);
            assertEquals(41, header.correlationId());
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), join.errorCode());
            // A version of Metadata this server does not serve (v13's response has an error code).
            client.send(ApiKeys.METADATA, (short) 13, 42, "client", new MetadataRequestData().setTopics(null));
            final ResponseHeaderData header13 = new ResponseHeaderData();
            final MetadataResponseData metadata = new MetadataResponseData();
            metadata.read(new ByteBufferAccessor(client.receive(ApiKeys.METADATA, (short) 13, header13)), (short) 13);
            assertEquals(42, header13.correlationId());
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), metadata.errorCode());
            assertEquals(0, handled.get(), "never handed to the Metadata handler");
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 43).errorCode(), "still open");
        }
    }

    @Test
    void aMalformedFrameClosesItsConnectionOnlyAndIsNeverBuffered() throws IOException {
        start(1024, false);
        final Client bystander = new Client(server.address());
        assertEquals(Errors.NONE.code(), apiVersions(bystander, (short) 3, 1).errorCode());
        final List<byte[]> bad = new ArrayList<>();
        bad.add(new byte[] {0, 0, 0, 1}); // shorter than a header
        bad.add(ByteBuffer.allocate(12).putShort((short) 999).putShort((short) 0).putInt(1).array()); // no such API
        bad.add(ByteBuffer.allocate(12).putShort(ApiKeys.METADATA.id).putShort((short) 1).putInt(2).array()); // v1
        bad.add(ByteBuffer.allocate(12).putShort(ApiKeys.METADATA.id).putShort(METADATA_MAX).putInt(3).array());
        for (final byte[] frame : bad) {
            try (Client client = new Client(server.address())) {
                client.sendRaw(frame);
                assertTrue(client.closedByServer(), "closed: " + java.util.HexFormat.of().formatHex(frame));
            }
        }
        // A size above socket.request.max.bytes: closed at once, before the server waits for (or buffers) the body.
        try (Client client = new Client(server.address())) {
            client.out.writeInt(1_000_000_000);
            client.out.flush();
            assertTrue(client.closedByServer());
        }
        try (Client client = new Client(server.address())) {
            client.out.writeInt(-5);
            client.out.flush();
            assertTrue(client.closedByServer());
        }
        // The server still serves everyone else: the connection open all along, and a new one.
        try (Client client = bystander) {
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 2).errorCode());
        }
        try (Client client = new Client(server.address())) {
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 1).errorCode());
        }
        assertEquals(0, handled.get(), "no malformed request reached a handler");
    }

    @Test
    void theSizeLimitIsExactAndBothSidesOfItAreHandled() throws IOException {
        start(1024, false);
        // A metadata request whose topic name makes the frame exactly socket.request.max.bytes, then one byte more.
        int length = 1024 - frameSize(metadataFor(""));
        while (frameSize(metadataFor("t".repeat(length))) > 1024) {
            length--; // the name's length prefix is a varint: one byte more from 127 on
        }
        final int exactLength = length;
        try (Client client = new Client(server.address())) {
            final MetadataRequestData exact = metadataFor("t".repeat(exactLength));
            assertEquals(1024, frameSize(exact));
            client.send(ApiKeys.METADATA, METADATA_MAX, 5, "client", exact);
            final ResponseHeaderData header = new ResponseHeaderData();
            client.receive(ApiKeys.METADATA, METADATA_MAX, header);
            assertEquals(5, header.correlationId());
        }
        try (Client client = new Client(server.address())) {
            final MetadataRequestData over = metadataFor("t".repeat(exactLength + 1));
            assertEquals(1025, frameSize(over));
            client.send(ApiKeys.METADATA, METADATA_MAX, 6, "client", over);
            assertTrue(client.closedByServer());
        }
        assertEquals(1, handled.get());
    }

    private static MetadataRequestData metadataFor(final String topic) {
        final MetadataRequestData data = new MetadataRequestData();
        data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
        return data;
    }

    /** The size of a Metadata request frame (without its int32 size) as {@link Client#send} writes it. */
    private static int frameSize(final MetadataRequestData body) {
        final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.METADATA.id)
            .setRequestApiVersion(METADATA_MAX).setCorrelationId(1).setClientId("client");
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, ApiKeys.METADATA.requestHeaderVersion(METADATA_MAX));
        body.addSize(size, cache, METADATA_MAX);
        return size.totalSize();
    }

    @Test
    void aConnectionThatStoppedReadingForUnansweredRequestsReadsAgainAsTheyAreAnswered() throws Exception {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, true);
        final int requests = 5_000; // far more than one socket read and than MAX_IN_FLIGHT
        try (Client client = new Client(server.address())) {
            final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int id = 1; id <= requests; id++) {
                all.write(Client.frame(ApiKeys.METADATA, METADATA_MAX, id, "client",
                    new MetadataRequestData().setTopics(null)));
            }
            client.out.write(all.toByteArray());
            client.out.flush();
            // Answer whatever is held, again and again: each answer lets the connection read more, until every
            // request got through (a connection that never read again would stop this loop at the deadline).
            final long deadline = System.nanoTime() + 50_000_000_000L;
            while (handled.get() < requests && System.nanoTime() < deadline) {
                for (final CompletableFuture<ApiMessage> future : held.values()) {
                    future.complete(null);
                }
                Thread.onSpinWait();
            }
            assertEquals(requests, handled.get(), "requests handled");
            held.values().forEach(future -> future.complete(null));
            for (int id = 1; id <= requests; id++) {
                final ResponseHeaderData header = new ResponseHeaderData();
                client.receive(ApiKeys.METADATA, METADATA_MAX, header);
                assertEquals(id, header.correlationId(), "in order");
            }
        }
    }

    @Test
    void aFailingHandlerClosesItsConnectionAndNothingPipelinedAfterItIsHandled() throws IOException {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        try (Client client = new Client(server.address())) {
            // Both in one write: the second is decoded from the same read, after the close began.
            final java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream();
            both.write(Client.frame(ApiKeys.METADATA, METADATA_MAX, 1, "throw",
                new MetadataRequestData().setTopics(null)));
            both.write(Client.frame(ApiKeys.METADATA, METADATA_MAX, 2, "client",
                new MetadataRequestData().setTopics(null)));
            client.out.write(both.toByteArray());
            client.out.flush();
            assertTrue(client.closedByServer());
        }
        assertEquals(1, handled.get(), "the request after the failing one never reached a handler");
        try (Client client = new Client(server.address())) {
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 3).errorCode(), "still serving");
        }
    }

    @Test
    void aPortInUseFailsTheStartClearlyAndLeavesNoThread() throws IOException {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
            java.net.InetAddress.getLoopbackAddress())) {
            final AtomicInteger made = new AtomicInteger();
            final java.util.concurrent.ThreadFactory factory = task -> {
                final Thread thread = new Thread(task, "wire-bind-" + made.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            };
            final java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                () -> KafkaWireServer.start(new WireServerConfig("127.0.0.1", taken.getLocalPort(), 1024), List.of(),
                    1, factory));
            assertTrue(e.getMessage().contains(Integer.toString(taken.getLocalPort())), e.getMessage());
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (threads("wire-bind-") > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(0, threads("wire-bind-"), "threads left after a failed start");
        }
    }

    @Test
    void seededGarbageFramesAreRefusedOrAnsweredAndTheServerKeepsServing() throws IOException {
        start(4096, false);
        final java.util.SplittableRandom random = new java.util.SplittableRandom(
            Long.getLong("seglog.wire.fuzz.seed", 20261201L));
        final int frames = Integer.getInteger("seglog.wire.fuzz.frames", 300);
        int answered = 0;
        for (int i = 0; i < frames; i++) {
            final byte[] frame = new byte[RequestDecoder.MIN_FRAME_BYTES + random.nextInt(120)];
            random.nextBytes(frame);
            // Half of them start like a request this server serves, so the body decoders see the garbage.
            if (random.nextBoolean()) {
                final ApiKeys api = random.nextBoolean() ? ApiKeys.METADATA : ApiKeys.API_VERSIONS;
                final short version = api == ApiKeys.METADATA
                    ? (short) (METADATA_MIN + random.nextInt(METADATA_MAX - METADATA_MIN + 1))
                    : (short) random.nextInt(KafkaWireServer.API_VERSIONS_MAX + 1);
                ByteBuffer.wrap(frame).putShort(api.id).putShort(version);
            }
            final int correlationId = ByteBuffer.wrap(frame).getInt(4);
            try (Client client = new Client(server.address())) {
                client.sendRaw(frame);
                // Refused (the connection ends), or answered with a whole frame for this correlation id.
                final int size;
                try {
                    size = client.in.readInt();
                } catch (final EOFException | java.net.SocketException closed) {
                    continue;
                }
                final byte[] response = new byte[size];
                client.in.readFully(response);
                assertEquals(correlationId, ByteBuffer.wrap(response).getInt(), "frame " + i + " answered as another");
                answered++; // a garbage body that happened to decode: answered, as Kafka would
            } catch (final java.net.SocketException reset) {
                // closed while the frame was still being written: refused
            }
        }
        try (Client client = new Client(server.address())) {
            assertEquals(Errors.NONE.code(), apiVersions(client, (short) 3, 1).errorCode(), "still serving");
        }
        assertTrue(answered < frames / 2, "most garbage is refused: answered " + answered + " of " + frames);
    }

    @Test
    void aConnectionLeftIdleInsideAFrameIsClosed() throws IOException {
        server = KafkaWireServer.start(new WireServerConfig("127.0.0.1", 0, 1024, 200), List.of(), 1, THREADS);
        try (Client client = new Client(server.address())) {
            client.out.writeInt(100);
            client.out.write(new byte[10]); // part of a frame, then nothing: its buffer is not held for ever
            client.out.flush();
            assertTrue(client.closedByServer(), "closed after connections.max.idle.ms");
        }
    }

    @Test
    void configurationReadsKafkaNamesAndRefusesWhatItCannotServe() {
        final WireServerConfig config = WireServerConfig.fromProperties(Map.of("listeners", "PLAINTEXT://0.0.0.0:9093",
            "socket.request.max.bytes", "4096", "connections.max.idle.ms", "1000", "log.dirs", "/ignored"));
        assertEquals(new WireServerConfig("0.0.0.0", 9093, 4096, 1000), config);
        assertEquals(WireServerConfig.DEFAULT_CONNECTIONS_MAX_IDLE_MS,
            WireServerConfig.fromProperties(Map.of("listeners", "PLAINTEXT://h:1")).connectionsMaxIdleMs());
        for (final String listeners : new String[] {"SSL://h:1", "PLAINTEXT://h", "PLAINTEXT://h:x",
            "PLAINTEXT://a:1,PLAINTEXT://b:2"}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WireServerConfig.fromProperties(Map.of("listeners", listeners)), listeners);
            assertTrue(e.getMessage().startsWith("listeners=" + listeners), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new KafkaApi(ApiKeys.METADATA, (short) 5, (short) 99,
            request -> null));
        assertThrows(IllegalArgumentException.class, () -> KafkaWireServer.start(WireServerConfig.loopback(),
            List.of(new KafkaApi(ApiKeys.API_VERSIONS, (short) 0, (short) 3, request -> null)), 1, THREADS));
    }

    @Test
    void closingEndsEveryThread() throws Exception {
        start(WireServerConfig.DEFAULT_MAX_REQUEST_BYTES, false);
        try (Client client = new Client(server.address())) {
            apiVersions(client, (short) 3, 1);
        }
        server.close();
        server = null;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (threads("wire-test-") > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, threads("wire-test-"), "wire threads left");
    }

    private static long threads(final String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive()
            && t.getName().startsWith(prefix)).count();
    }
}
