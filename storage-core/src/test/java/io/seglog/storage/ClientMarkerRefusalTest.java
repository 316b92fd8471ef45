package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
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
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction marker in a client's produce is refused, as Kafka's leader refuses it (a client's COMMIT or ABORT
 * would end a transaction it does not own, and move the last stable offset): nothing is appended, the open
 * transaction stays open, and the refusal names the batch.
 */
class ClientMarkerRefusalTest {
    @TempDir
    Path dir;

    @Test
    void aClientsMarkerIsRefusedAsKafkaRefusesIt() throws Exception {
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        final UnifiedLog kafka = UnifiedLog.create(dir.resolve("kafka-0").toFile(),
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of()), 0L, 0L, scheduler, new BrokerTopicStats(),
            Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
            new LogDirFailureChannel(10), true, Optional.of(Uuid.randomUuid()));
        try (PartitionLog ours = PartitionLog.open(dir.resolve("ours-0"), LogConfig.builder().build(), FileIO.system(),
            InstantSource.system())) {
            // An open transaction of producer 7, then its marker sent as if by a client.
            final MemoryRecords txn = MemoryRecords.withTransactionalRecords(0L, Compression.NONE, 7L, (short) 0, 0, 0,
                new SimpleRecord(System.currentTimeMillis(), null, "v".getBytes()));
            ours.appendAsFollower(copy(txn));
            kafka.appendAsFollower(txn, 0);
            ours.updateHighWatermark(1);
            kafka.updateHighWatermark(1);
            final MemoryRecords marker = MemoryRecords.withEndTransactionMarker(0L, System.currentTimeMillis(), 0, 7L,
                (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0));

            final org.apache.kafka.common.InvalidRecordException theirs = assertThrows(
                org.apache.kafka.common.InvalidRecordException.class, () -> kafka.appendAsLeader(marker, 0));
            final InvalidRecordException refused = assertThrows(InvalidRecordException.class,
                () -> ours.appendAsLeader(copy(marker), 0));
            assertTrue(refused.getMessage().contains("control records"), refused.getMessage());
            assertTrue(theirs.getMessage().contains("control records"), theirs.getMessage());
            assertEquals("attributes", refused.field());
            assertEquals(kafka.logEndOffset(), ours.logEndOffset(), "nothing appended");
            assertEquals(0, ours.lastStableOffset(), "the transaction is still open");
            assertEquals(kafka.lastStableOffset(), ours.lastStableOffset());
        } finally {
            kafka.close();
            scheduler.shutdown();
        }
    }

    private static ByteBuffer copy(final MemoryRecords records) {
        return ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer().duplicate()).flip();
    }
}
