package io.seglog.bench;

import java.nio.file.Path;
import java.time.InstantSource;

import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;

/**
 * Opens Seglog's log the way an embedder would, with Kafka's defaults (1 GiB segments, an index entry every
 * 4 KiB, no fsync per append), so Seglog and Kafka run with the same settings.
 *
 * <p>Stateless; thread-safe.
 */
final class SeglogLogs {

    private SeglogLogs() {
    }

    /** @return a new log for partition bench-0 under {@code parent} */
    static PartitionLog open(Path parent) {
        return PartitionLog.open(parent.resolve("bench-0"), LogConfig.defaults(), FileIO.system(), InstantSource.system());
    }

    /** @return a new log for partition bench-0 under {@code parent} with {@code config} */
    static PartitionLog open(Path parent, LogConfig config) {
        return PartitionLog.open(parent.resolve("bench-0"), config, FileIO.system(), InstantSource.system());
    }

    /** Closes a log; null is ignored. */
    static void close(PartitionLog log) {
        if (log != null) {
            log.close();
        }
    }
}
