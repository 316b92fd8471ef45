package io.seglog.bench;

import java.util.zip.CRC32C;

/**
 * How the read benchmarks fill a log: {@link #copies} copies of one data set, each copy's batches stamped in
 * place with their final offsets and leader epoch 0 (outside the CRC) and with timestamps moved past the
 * previous copy's (CRC recomputed), so offsets and timestamps grow strictly through the whole log and every
 * system reads the same bytes.
 *
 * <p>Not thread-safe; used during set-up only.
 */
final class ReadLog {

    /**
     * 256 MiB: well above L3 and the CPU caches, small enough to fill in about a second. The smoke test
     * shrinks it with {@code -Dseglog.bench.fileMiB}, which also sizes the recycled file.
     */
    static final long TARGET_BYTES = fileBytes();

    /** @return {@code -Dseglog.bench.fileMiB} (default 256) in bytes */
    static long fileBytes() {
        return Long.getLong("seglog.bench.fileMiB", 256L) << 20;
    }

    final BenchData data;
    final int copies;
    final long logBytes;
    final long recordCount;
    private final CRC32C crc = new CRC32C();

    ReadLog(BenchData data) {
        this.data = data;
        this.copies = Math.toIntExact((TARGET_BYTES + data.totalBytes() - 1) / data.totalBytes());
        this.logBytes = (long) copies * data.totalBytes();
        this.recordCount = copies * data.recordCount;
    }

    /** Stamps the data set's batches as copy {@code copy}; copies must be prepared in order 0, 1, 2, ... */
    void prepareCopy(int copy) {
        long offset = copy * data.recordCount;
        for (int b = 0; b < data.batchCount; b++) {
            int position = data.batchPositions[b];
            data.batches.putLong(position + KafkaLogs.BASE_OFFSET_OFFSET, offset);
            data.batches.putInt(position + KafkaLogs.PARTITION_LEADER_EPOCH_OFFSET, 0);
            if (copy > 0) {
                KafkaLogs.shiftTimestamps(data.batches, position, data.batchBytes(b), data.recordCount, crc);
            }
            offset += data.recordsPerBatch;
        }
    }

    /** @return the timestamp of the log's first record */
    long firstTimestampMs() {
        return data.baseTimestampMs;
    }

    /** @return the timestamp of the log's last record (one ms per record) */
    long lastTimestampMs() {
        return data.baseTimestampMs + recordCount - 1;
    }
}
