package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.FetchResponse;
import io.seglog.replication.replica.FetchedPartition;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.storage.LogSlice;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's fetch over the wire decodes in place: the records it gets are views into the connection's receive
 * buffer, equal to the leader's stored batches, and the buffer is given back when the answer is closed, or, for an
 * answer nobody waits for any more (the fetcher's timeout cancelled it), as soon as it arrives. Against broker 1 of
 * {@link KafkaApisBroker} (real server, real replica layer, real log) on loopback.
 */
class WireLeaderEndpointTest {
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int EPOCH = 3;
    private static final int FOLLOWER = 2;

    @TempDir
    Path dir;

    private KafkaApisBroker broker;
    private WireClient client;
    private WireLeaderEndpoint endpoint;

    @BeforeEach
    void start() {
        broker = new KafkaApisBroker(dir);
        client = broker.newClient();
        endpoint = new WireLeaderEndpoint(client);
        broker.lead(TP, EPOCH, List.of(KafkaApisBroker.BROKER, FOLLOWER), List.of(KafkaApisBroker.BROKER, FOLLOWER));
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private void produce(final int records) {
        final SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            batch[i] = new SimpleRecord(1_700_000_000_000L + i, ("key-" + i).getBytes(UTF_8),
                ("value-" + i).repeat(20).getBytes(UTF_8));
        }
        final ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(TP.topic())
            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(TP.partition())
                .setRecords(MemoryRecords.withRecords(Compression.NONE, batch)))));
        final ProduceResponseData resp = KafkaApisBroker.await(client.send(ApiKeys.PRODUCE, (short) 9, data));
        assertEquals(0, resp.responses().iterator().next().partitionResponses().get(0).errorCode(), resp::toString);
    }

    private static FetchRequest fetchFrom(final long offset, final int maxWaitMs) {
        return new FetchRequest(FOLLOWER, 1, maxWaitMs, 1, 1 << 20,
            List.of(new PartitionFetch(TP, EPOCH, offset, offset == 0 ? -1 : EPOCH, 0, -1, 1 << 20)));
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private byte[] stored(final long from) throws IOException {
        final LogSlice slice = broker.log(TP).read(from, 1 << 20, Long.MAX_VALUE, true);
        final ByteBuffer out = ByteBuffer.allocate(slice.sizeInBytes());
        slice.readInto(out);
        return bytes(out.flip());
    }

    @Test
    void theRecordsAreTheStoredBatchesReadFromTheReceiveBufferWhichIsHeldUntilTheAnswerIsClosed() throws Exception {
        produce(50);
        produce(30);
        final FetchResponse response = endpoint.fetch(fetchFrom(0, 0)).get(30, TimeUnit.SECONDS);
        final FetchedPartition answer = response.partitions().get(0);
        assertEquals(ReplicaError.NONE, answer.error());
        assertEquals(1, client.framesHeld(), "the answer holds its receive buffer");
        assertArrayEquals(stored(0), bytes(answer.records()), "the records are the leader's stored batches");
        assertTrue(answer.records().isDirect() || !answer.records().hasArray()
                || answer.records().arrayOffset() + answer.records().position() > 0,
            "the records are a view at an offset inside the frame, not a buffer of their own");
        response.close();
        assertTrue(response.closed());
        assertEquals(0, client.framesHeld(), "closing gives the receive buffer back");
        response.close();
        assertEquals(0, client.framesHeld(), "a second close gives nothing back twice");
    }

    @Test
    void anAnswerWithoutRecordsIsGivenBackOnCloseToo() throws Exception {
        try (FetchResponse response = endpoint.fetch(fetchFrom(0, 0)).get(30, TimeUnit.SECONDS)) {
            assertNull(response.partitions().get(0).records(), "an empty log serves no records");
            assertEquals(1, client.framesHeld());
        }
        assertEquals(0, client.framesHeld());
    }

    @Test
    void anAnswerArrivingAfterTheWaitWasCancelledIsGivenBackWhenItArrives() throws Exception {
        produce(10);
        final long end = broker.log(TP).logEndOffset();
        // A long poll at the log end: the leader holds it until something is appended.
        final CompletableFuture<FetchResponse> pending = endpoint.fetch(fetchFrom(end, 60_000));
        assertFalse(pending.isDone(), "the leader holds a fetch at its log end");
        assertTrue(pending.cancel(false), "the fetcher stops waiting (its timeout)");
        produce(10);
        // Answers come in request order: once the next fetch is answered, the cancelled one was too, and only the
        // next one's buffer may still be held.
        try (FetchResponse next = endpoint.fetch(fetchFrom(end, 0)).get(30, TimeUnit.SECONDS)) {
            assertArrayEquals(stored(end), bytes(next.partitions().get(0).records()));
            assertEquals(1, client.framesHeld(), "the cancelled answer's buffer was given back when it arrived");
        }
        assertEquals(0, client.framesHeld());
    }
}
