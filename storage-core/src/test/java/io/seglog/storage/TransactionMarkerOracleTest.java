package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction markers written by the leader for the coordinator, against Kafka 4.4's {@code UnifiedLog} (origin
 * COORDINATOR): the same transactional batches and markers give the same {@code .log} bytes and the same last stable
 * offsets, and a deposed coordinator's or a fenced producer's marker is refused by both.
 */
class TransactionMarkerOracleTest {
    @TempDir
    Path dir;

    @Test
    void markersAreWrittenAndFencedAsKafkaWritesAndFencesThem() throws Exception {
        final long now = System.currentTimeMillis();
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        final UnifiedLog kafka = UnifiedLog.create(dir.resolve("kafka-0").toFile(),
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of()), 0L, 0L, scheduler, new BrokerTopicStats(),
            Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
            new LogDirFailureChannel(10), true, Optional.of(Uuid.randomUuid()));
        try (PartitionLog ours = PartitionLog.open(dir.resolve("ours-0"), LogConfig.builder().build(), FileIO.system(),
            InstantSource.fixed(Instant.ofEpochMilli(now)))) {
            // Producer 7 (epoch 0) writes in a transaction, and producer 8 in another; the coordinator commits 7's.
            both(kafka, ours, MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 0, 0, record(now)));
            both(kafka, ours, MemoryRecords.withTransactionalRecords(Compression.NONE, 8L, (short) 0, 0, record(now),
                record(now)));
            assertEquals(coordinator(kafka, marker(now, 7L, (short) 0, ControlRecordType.COMMIT, 5)).lastOffset(),
                ours.appendTransactionMarker(7L, (short) 0, 5, true, 0));
            highWatermark(kafka, ours, kafka.logEndOffset());
            assertEquals(1, ours.lastStableOffset(), "8's transaction, from offset 1, is still open");
            assertEquals(kafka.lastStableOffset(), ours.lastStableOffset());

            // A deposed coordinator (epoch 4 < 5) cannot write 7's next marker; a fenced producer epoch neither.
            both(kafka, ours, MemoryRecords.withTransactionalRecords(Compression.NONE, 7L, (short) 1, 0, record(now)));
            assertThrows(org.apache.kafka.common.errors.TransactionCoordinatorFencedException.class, () ->
                coordinator(kafka, marker(now, 7L, (short) 1, ControlRecordType.ABORT, 4)));
            final TransactionCoordinatorFencedException deposed = assertThrows(
                TransactionCoordinatorFencedException.class, () -> ours.appendTransactionMarker(7L, (short) 1, 4, false,
                    0));
            assertEquals(4, deposed.coordinatorEpoch());
            assertEquals(5, deposed.currentCoordinatorEpoch());
            assertThrows(org.apache.kafka.common.errors.InvalidProducerEpochException.class, () ->
                coordinator(kafka, marker(now, 7L, (short) 0, ControlRecordType.ABORT, 6)));
            assertThrows(InvalidProducerEpochException.class, () -> ours.appendTransactionMarker(7L, (short) 0, 6,
                false, 0));
            assertEquals(kafka.logEndOffset(), ours.logEndOffset(), "nothing appended by the refusals");

            // The coordinator's next epoch aborts 7's second transaction and commits 8's; the LSO reaches the end.
            assertEquals(coordinator(kafka, marker(now, 7L, (short) 1, ControlRecordType.ABORT, 6)).lastOffset(),
                ours.appendTransactionMarker(7L, (short) 1, 6, false, 0));
            assertEquals(coordinator(kafka, marker(now, 8L, (short) 0, ControlRecordType.COMMIT, 6)).lastOffset(),
                ours.appendTransactionMarker(8L, (short) 0, 6, true, 0));
            highWatermark(kafka, ours, kafka.logEndOffset());
            assertEquals(ours.logEndOffset(), ours.lastStableOffset(), "no transaction open");
            assertEquals(kafka.lastStableOffset(), ours.lastStableOffset());
            kafka.flush(true);
            ours.close(); // trims the mapped tail's preallocation
            assertArrayEquals(Files.readAllBytes(dir.resolve("kafka-0").resolve("00000000000000000000.log")),
                Files.readAllBytes(dir.resolve("ours-0").resolve("00000000000000000000.log")),
                "the same bytes: data batches and markers alike");
        } finally {
            kafka.close();
            scheduler.shutdown();
        }
    }

    /** Kafka's leader append for the coordinator, with transaction version 0 (the classic markers Seglog writes). */
    private static org.apache.kafka.storage.internals.log.LogAppendInfo coordinator(final UnifiedLog kafka,
                                                                                   final MemoryRecords marker)
        throws Exception {
        return kafka.appendAsLeader(marker, 0, AppendOrigin.COORDINATOR,
            org.apache.kafka.server.common.RequestLocal.noCaching(),
            org.apache.kafka.storage.internals.log.VerificationGuard.SENTINEL, (short) 0);
    }

    private static SimpleRecord record(final long timestamp) {
        return new SimpleRecord(timestamp, null, "v".getBytes());
    }

    private static MemoryRecords marker(final long timestamp, final long producerId, final short producerEpoch,
                                        final ControlRecordType type, final int coordinatorEpoch) {
        return MemoryRecords.withEndTransactionMarker(0L, timestamp, 0, producerId, producerEpoch,
            new EndTransactionMarker(type, coordinatorEpoch));
    }

    private static void both(final UnifiedLog kafka, final PartitionLog ours, final MemoryRecords records)
        throws Exception {
        final ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer().duplicate()).flip();
        kafka.appendAsLeader(records, 0);
        ours.appendAsLeader(copy, 0);
        assertEquals(kafka.logEndOffset(), ours.logEndOffset());
    }

    private static void highWatermark(final UnifiedLog kafka, final PartitionLog ours, final long offset)
        throws Exception {
        kafka.updateHighWatermark(offset);
        ours.updateHighWatermark(offset);
    }
}
