package io.seglog.replication.wire;

import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * WriteTxnMarkers (v1, the baseline since Kafka 4.0): the transaction coordinator's COMMIT and ABORT markers written
 * by this broker as the leader of each partition named (Kafka's {@code handleWriteTxnMarkersRequest}: origin
 * COORDINATOR, acks=all), answered per partition once each marker is below its high watermark: NONE, or
 * UNKNOWN_TOPIC_OR_PARTITION (no such partition), NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, INVALID_PRODUCER_EPOCH
 * (a newer producer epoch wrote there), TRANSACTION_COORDINATOR_FENCED (a newer coordinator did),
 * KAFKA_STORAGE_ERROR or REQUEST_TIMED_OUT. Version 2's transactions version (KIP-1228, for transactions version 2) is
 * not served: the cluster does not offer transactions version 2.
 *
 * <p>Thread-safe: each marker's partitions are written by the replica layer; the response is assembled when the last
 * write is acknowledged.
 */
final class WriteTxnMarkersHandler {
    /** The only version served. */
    static final short VERSION = 1;
    /** How long a marker waits for its partition's ISR: Kafka's {@code request.timeout.ms} default. */
    static final long TIMEOUT_MS = 30_000;

    private final ReplicaManager replicas;
    private final ClusterView cluster;

    WriteTxnMarkersHandler(final ReplicaManager replicas, final ClusterView cluster) {
        this.replicas = replicas;
        this.cluster = cluster;
    }

    KafkaApi api() {
        return new KafkaApi(ApiKeys.WRITE_TXN_MARKERS, VERSION, VERSION, this::handle);
    }

    private CompletionStage<ApiMessage> handle(final KafkaRequest request) {
        final WriteTxnMarkersRequestData req = (WriteTxnMarkersRequestData) request.body();
        final WriteTxnMarkersResponseData resp = new WriteTxnMarkersResponseData();
        final List<CompletableFuture<Void>> writes = new ArrayList<>();
        final Map<TopicPartition, ?> known = cluster.partitions();
        for (final WriteTxnMarkersRequestData.WritableTxnMarker marker : req.markers()) {
            final WriteTxnMarkersResponseData.WritableTxnMarkerResult result =
                new WriteTxnMarkersResponseData.WritableTxnMarkerResult().setProducerId(marker.producerId());
            resp.markers().add(result);
            final List<TopicPartition> targets = new ArrayList<>();
            for (final WriteTxnMarkersRequestData.WritableTxnMarkerTopic topic : marker.topics()) {
                final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topicResult =
                    new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName(topic.name());
                result.topics().add(topicResult);
                for (final int partition : topic.partitionIndexes()) {
                    final TopicPartition tp = new TopicPartition(topic.name(), partition);
                    if (known.containsKey(tp)) {
                        targets.add(tp);
                    } else {
                        topicResult.partitions().add(partitionResult(partition,
                            ReplicaError.UNKNOWN_TOPIC_OR_PARTITION));
                    }
                }
            }
            if (targets.isEmpty()) {
                continue;
            }
            writes.add(replicas.writeMarkers(marker.producerId(), marker.producerEpoch(), marker.coordinatorEpoch(),
                marker.transactionResult(), targets, TIMEOUT_MS).thenAccept(results -> record(result, results)));
        }
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).thenApply(done -> resp);
    }

    /**
     * Each written partition's answer, under its topic. One call per marker (its partitions' results come together),
     * and each marker has its own result object, so no two threads touch one.
     */
    private static void record(final WriteTxnMarkersResponseData.WritableTxnMarkerResult result,
                               final Map<TopicPartition, AppendResult> written) {
        written.forEach((tp, r) -> {
            for (final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topic : result.topics()) {
                if (topic.name().equals(tp.topic())) {
                    topic.partitions().add(partitionResult(tp.partition(), r.error()));
                    return;
                }
            }
        });
    }

    private static WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult partitionResult(
        final int partition, final ReplicaError error) {
        return new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult().setPartitionIndex(partition)
            .setErrorCode(error.code());
    }
}
