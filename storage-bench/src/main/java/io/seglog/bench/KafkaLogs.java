package io.seglog.bench;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Builds Kafka 4.4.0's storage objects the way a broker would (kafka-storage.md §10), with Kafka's default
 * log configuration: 1 GiB segments, an index entry every 4 KiB, no fsync per append.
 *
 * <p>Stateless; thread-safe.
 */
final class KafkaLogs {

    /** v2 header positions (RecordBatchDescriptor has them too; kept local to not couple the peer to our code). */
    static final int BASE_OFFSET_OFFSET = 0;
    static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int BASE_TIMESTAMP_OFFSET = 27;
    static final int MAX_TIMESTAMP_OFFSET = 35;

    private KafkaLogs() {
    }

    /** @return Kafka's default log configuration */
    static LogConfig defaultConfig() {
        return new LogConfig(Map.of());
    }

    /** @return a started scheduler with one thread (Kafka's log needs one for async flush on roll) */
    static KafkaScheduler startScheduler() {
        KafkaScheduler scheduler = new KafkaScheduler(1, true, "kafka-bench-scheduler-");
        scheduler.startup();
        return scheduler;
    }

    /** @return a new (or cleanly reopened) UnifiedLog for partition bench-0 under {@code parent} */
    static UnifiedLog createLog(Path parent, KafkaScheduler scheduler) throws IOException {
        return openLog(parent, scheduler, true);
    }

    /**
     * Opens partition bench-0 under {@code parent}; after an unclean shutdown (recovery point 0) Kafka's
     * LogLoader recovers every segment: CRC check of every batch, index and producer-state rebuild.
     */
    static UnifiedLog openLog(Path parent, KafkaScheduler scheduler, boolean lastShutdownClean) throws IOException {
        return UnifiedLog.create(new File(parent.toFile(), "bench-0"), defaultConfig(), 0L, 0L, scheduler,
            new BrokerTopicStats(), Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false),
            600_000, new LogDirFailureChannel(10), lastShutdownClean, Optional.empty());
    }

    /** Closes the log the way a broker shuts down, trimming preallocated index files. */
    static void close(UnifiedLog log) {
        if (log != null) {
            log.prepareActiveSegmentForClose();
            log.close();
        }
    }

    /** Stops the scheduler; an interrupt is passed on. */
    static void shutdown(KafkaScheduler scheduler) {
        if (scheduler == null) {
            return;
        }
        try {
            scheduler.shutdown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Adds {@code deltaMs} to the base and max timestamps of the batch at {@code batch[position...]} and
     * recomputes its CRC (both fields are CRC-covered), so a log filled by repeating one data set still has
     * strictly increasing timestamps.
     */
    static void shiftTimestamps(ByteBuffer batch, int position, int sizeBytes, long deltaMs, CRC32C crc) {
        batch.putLong(position + BASE_TIMESTAMP_OFFSET, batch.getLong(position + BASE_TIMESTAMP_OFFSET) + deltaMs);
        batch.putLong(position + MAX_TIMESTAMP_OFFSET, batch.getLong(position + MAX_TIMESTAMP_OFFSET) + deltaMs);
        crc.reset();
        ByteBuffer covered = batch.duplicate();
        covered.limit(position + sizeBytes).position(position + ATTRIBUTES_OFFSET);
        crc.update(covered);
        batch.putInt(position + CRC_OFFSET, (int) crc.getValue());
    }
}
