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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/** Embeds the log: open a log directory, append, wait until durable, read by offset (zero-copy) and by timestamp. */
public final class Embedding {
    private Embedding() {
    }

    /**
     * Runs the example.
     *
     * @param args the log directory (default /tmp/seglog-embedding)
     * @throws IOException if the zero-copy transfer fails
     */
    public static void main(final String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/seglog-embedding");
        LogManagerConfig config = LogManagerConfig.builder()
            .logDirs(dir)
            .logConfig(LogConfig.fromProperties(Map.of("segment.bytes", "1073741824", "retention.ms", "604800000")))
            .build();
        try (LogManager logs = LogManager.open(config)) {               // locks the dir, recovers after a crash
            PartitionLog log = logs.getOrCreate(new TopicPartition("orders", 0));
            long now = System.currentTimeMillis();
            ByteBuffer batch = Records.builder()                        // a Kafka v2 batch from plain keys and values
                .add(now, "order-1".getBytes(StandardCharsets.UTF_8), "{\"qty\":2}".getBytes(StandardCharsets.UTF_8))
                .add(now, "order-2".getBytes(StandardCharsets.UTF_8), "{\"qty\":5}".getBytes(StandardCharsets.UTF_8))
                .build();
            long last = log.appendAsLeader(batch, 0);                  // validates, assigns offsets in place
            log.awaitDurable(last).join();                              // group commit: acknowledge durable data only
            log.updateHighWatermark(last + 1);                          // retention never passes the high watermark
            LogReader reader = log.reader();                            // one per reading thread; reuse: no allocation
            reader.read(0, 1 << 20, log.highWatermark(), true);         // whole batches below the high watermark
            try (FileChannel out = FileChannel.open(dir.resolve("orders-0.copy"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                reader.transferTo(out);                                 // zero copy, as to a socket
            }
            System.out.println("first offset at " + now + ": " + log.offsetForTimestamp(now));
            for (LogRecord record : Records.of(log, 0, log.highWatermark())) {
                System.out.println(record.offset() + ": " + StandardCharsets.UTF_8.decode(record.key()) + " = "
                    + StandardCharsets.UTF_8.decode(record.value()));
            }
        }                                                               // checkpoints + clean-shutdown marker
    }
}
