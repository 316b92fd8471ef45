package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.storage.LogReader;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * WriteTxnMarkers on the partition leader, sent as Kafka's coordinator sends it (kafka-clients' v1 message over
 * loopback): a COMMIT marker written with acks=all and answered per partition, an unknown partition answered
 * UNKNOWN_TOPIC_OR_PARTITION, a deposed coordinator's marker TRANSACTION_COORDINATOR_FENCED and an old producer epoch's
 * INVALID_PRODUCER_EPOCH; the marker is Kafka's control record with the coordinator's epoch, and it moves the last
 * stable offset past the transaction.
 */
@Timeout(60)
class WriteTxnMarkersTest {
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final int LEADER_EPOCH = 2;

    @TempDir
    Path dir;
    private Set<Thread> threadsBefore;
    private KafkaApisBroker broker;
    private WireClient client;

    @BeforeEach
    void start() {
        threadsBefore = Await.threads();
        broker = new KafkaApisBroker(dir);
        client = broker.newClient();
        broker.lead(ORDERS, LEADER_EPOCH, List.of(KafkaApisBroker.BROKER), List.of(KafkaApisBroker.BROKER));
    }

    @AfterEach
    void stop() {
        broker.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner"));
    }

    @Test
    void markersAreWrittenAcknowledgedAndFencedAsKafkaWritesThem() throws IOException {
        final PartitionLog log = broker.log(ORDERS);
        transactional(log, 77, (short) 0, "in-transaction");
        assertEquals(0, log.lastStableOffset(), "the open transaction holds the LSO");

        final Map<String, Short> commit = send(marker(77, (short) 0, true, 3, Map.of("orders", List.of(0),
            "missing", List.of(5))));
        assertEquals(Map.of("orders-0", Errors.NONE.code(), "missing-5", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
            commit);
        assertEquals(log.logEndOffset(), log.highWatermark(), "acknowledged once below the high watermark");
        assertEquals(log.logEndOffset(), log.lastStableOffset(), "the commit decided the transaction");
        final RecordBatch last = lastBatch(log);
        assertTrue(last.isControlBatch() && last.isTransactional(), "a control batch");
        assertEquals(77, last.producerId());
        final Record record = last.iterator().next();
        assertEquals(ControlRecordType.COMMIT, ControlRecordType.parse(record.key()));
        assertEquals(3, EndTransactionMarker.deserialize(record).coordinatorEpoch());

        // A deposed coordinator (epoch 2 < 3) and a fenced producer epoch are refused; nothing is appended.
        final long end = log.logEndOffset();
        assertEquals(Map.of("orders-0", Errors.TRANSACTION_COORDINATOR_FENCED.code()),
            send(marker(77, (short) 0, false, 2, Map.of("orders", List.of(0)))));
        transactional(log, 77, (short) 1, "next");
        assertEquals(Map.of("orders-0", Errors.INVALID_PRODUCER_EPOCH.code()),
            send(marker(77, (short) 0, false, 4, Map.of("orders", List.of(0)))));
        assertEquals(end + 1, log.logEndOffset(), "only the new transaction's batch");
        assertEquals(Map.of("orders-0", Errors.NONE.code()),
            send(marker(77, (short) 1, false, 4, Map.of("orders", List.of(0)))));
        assertEquals(log.logEndOffset(), log.lastStableOffset(), "aborted, decided");
        assertEquals(ReplicaError.TRANSACTION_COORDINATOR_FENCED.code(), Errors.TRANSACTION_COORDINATOR_FENCED.code());
    }

    private Map<String, Short> send(final WriteTxnMarkersRequestData request) {
        final WriteTxnMarkersResponseData response = KafkaApisBroker.await(client.send(ApiKeys.WRITE_TXN_MARKERS,
            WriteTxnMarkersHandler.VERSION, request));
        final Map<String, Short> errors = new TreeMap<>();
        assertEquals(request.markers().size(), response.markers().size());
        for (final WriteTxnMarkersResponseData.WritableTxnMarkerResult m : response.markers()) {
            for (final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult t : m.topics()) {
                for (final WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult p : t.partitions()) {
                    errors.put(t.name() + "-" + p.partitionIndex(), p.errorCode());
                }
            }
        }
        return errors;
    }

    private static WriteTxnMarkersRequestData marker(final long producerId, final short epoch, final boolean commit,
                                                     final int coordinatorEpoch,
                                                     final Map<String, List<Integer>> partitions) {
        final WriteTxnMarkersRequestData.WritableTxnMarker marker = new WriteTxnMarkersRequestData.WritableTxnMarker()
            .setProducerId(producerId).setProducerEpoch(epoch).setTransactionResult(commit)
            .setCoordinatorEpoch(coordinatorEpoch);
        partitions.forEach((topic, ids) -> marker.topics().add(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
            .setName(topic).setPartitionIndexes(new ArrayList<>(ids))));
        return new WriteTxnMarkersRequestData().setMarkers(new ArrayList<>(List.of(marker)));
    }

    private static void transactional(final PartitionLog log, final long pid, final short epoch, final String value) {
        final MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, 0,
            new SimpleRecord(1_000L, null, value.getBytes(StandardCharsets.UTF_8)));
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer()).flip(), LEADER_EPOCH);
    }

    private static RecordBatch lastBatch(final PartitionLog log) throws IOException {
        final LogReader reader = log.reader();
        reader.read(log.logEndOffset() - 1, 1 << 20, Long.MAX_VALUE, true);
        final ByteBuffer bytes = ByteBuffer.allocate(reader.sizeInBytes());
        reader.readInto(bytes);
        RecordBatch last = null;
        for (final RecordBatch batch : MemoryRecords.readableRecords(bytes.flip()).batches()) {
            last = batch;
        }
        return last;
    }
}
