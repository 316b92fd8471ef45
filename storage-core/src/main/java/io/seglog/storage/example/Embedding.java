package io.seglog.storage.example;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogReader;
import io.seglog.storage.LogRecord;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Map;

/**
 * The embedding example the README quotes (between the {@code README-begin} and {@code README-end} markers; a test
 * holds the two together): open a log directory, append, wait for durability, read by offset zero-copy, by
 * timestamp and record by record.
 */
public final class Embedding {
    private Embedding() {
    }

    /**
     * Runs the example against {@code dir}.
     *
     * @param dir           a log directory
     * @param batches       Kafka v2 record batches, e.g. from {@code RecordBatchBuilder} or a produce request
     * @param leaderEpoch   the epoch the leader appends in
     * @param socketChannel where the read goes, zero copy
     * @param timestampMs   a timestamp to look up
     * @param out           where the records are printed
     * @throws IOException if the transfer fails
     */
    public static void run(final Path dir, final ByteBuffer batches, final int leaderEpoch,
                           final WritableByteChannel socketChannel, final long timestampMs, final PrintStream out)
        throws IOException {
        // README-begin
        LogManagerConfig config = LogManagerConfig.builder()
            .logDirs(dir)
            .logConfig(LogConfig.fromProperties(Map.of("segment.bytes", "1073741824", "retention.ms", "604800000")))
            .build();
        try (LogManager logs = LogManager.open(config)) {               // locks the dirs, recovers after a crash
            PartitionLog log = logs.getOrCreate(new TopicPartition("orders", 0));
            long last = log.appendAsLeader(batches, leaderEpoch);       // validates, assigns offsets in place
            log.awaitDurable(last).join();                              // group commit: acknowledge durable data only
            log.updateHighWatermark(last + 1);                          // retention never passes the high watermark
            LogReader reader = log.reader();                            // one per reading thread; reuse: no allocation
            reader.read(0, 1 << 20, log.highWatermark(), true);         // whole batches below the high watermark
            reader.transferTo(socketChannel);                           // zero copy (FileChannel.transferTo)
            out.println("first offset at " + timestampMs + ": " + log.offsetForTimestamp(timestampMs));
            for (LogRecord record : Records.of(log, 0, log.highWatermark())) {  // no Agrona needed to read records
                out.println(record.offset() + ": " + record.value().remaining() + " bytes");
            }
        }                                                               // checkpoints + clean-shutdown marker
        // README-end
    }
}
