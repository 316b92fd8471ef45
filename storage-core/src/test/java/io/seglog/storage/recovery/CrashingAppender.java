package io.seglog.storage.recovery;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.InstantSource;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The child process of {@link ProcessCrashTest}: appends batches to the log in {@code args[0]} forever, one
 * record each whose value names its offset; after every few it waits with {@link PartitionLog#awaitDurable}
 * (group commit; the standalone log runs the fsync on this thread) and prints {@code durable <offset>} for the
 * highest offset the completed future reports on disk. The parent kills it with SIGKILL at a moment of its
 * choosing.
 */
public final class CrashingAppender {
    private CrashingAppender() {
    }

    /** The value the record at {@code offset} carries. */
    static byte[] valueFor(final long offset) {
        return ("record-" + offset).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Runs the appender.
     *
     * @param args the partition directory and the number of batches between flushes
     */
    public static void main(final String[] args) throws Exception {
        final Path dir = Paths.get(args[0]);
        final int flushEvery = Integer.parseInt(args[1]);
        final LogConfig config = LogConfig.builder().segmentBytes(16 * 1024).indexIntervalBytes(512)
            .segmentIndexBytes(4096).build();
        final PartitionLog log = PartitionLog.open(dir, config, FileIO.system(), InstantSource.system());
        long next = log.logEndOffset();
        int sinceFlush = 0;
        while (true) {
            final SimpleRecord record = new SimpleRecord(System.currentTimeMillis(), null, valueFor(next));
            final long last = log.appendAsLeader(KafkaBatches.batch(0, record), 1);
            next = last + 1;
            if (++sinceFlush == flushEvery) {
                sinceFlush = 0;
                final long durableEnd = log.awaitDurable(last).get();
                System.out.println("durable " + (durableEnd - 1));
                System.out.flush();
            }
        }
    }
}
