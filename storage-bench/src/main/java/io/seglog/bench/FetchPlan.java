package io.seglog.bench;

/**
 * Batch-aligned fetches over a log made of repeated copies of one data set: fetch i covers whole batches
 * starting at byte {@code start(i)} and offset {@code firstOffset(i)}, at most {@link #FETCH_BYTES} long, as a
 * broker answers a consumer's fetch. All batches of a data set have the same size (same record count,
 * value size and deltas), which {@link #FetchPlan} checks.
 *
 * <p>Immutable.
 */
final class FetchPlan {

    /** Kafka's default max.partition.fetch.bytes. */
    static final int FETCH_BYTES = 1 << 20;

    final int batchBytes;
    final int batchesPerFetch;
    final int bytesPerFetch;
    final int recordsPerFetch;
    final int fetches;

    FetchPlan(BenchData data, long logBytes) {
        int size = data.batchBytes(0);
        for (int b = 1; b < data.batchCount; b++) {
            if (data.batchBytes(b) != size) {
                throw new IllegalStateException("batch " + b + " has " + data.batchBytes(b) + " bytes, batch 0 " + size);
            }
        }
        this.batchBytes = size;
        this.batchesPerFetch = Math.max(1, FETCH_BYTES / size);
        this.bytesPerFetch = batchesPerFetch * size;
        this.recordsPerFetch = batchesPerFetch * data.recordsPerBatch;
        this.fetches = Math.toIntExact(logBytes / bytesPerFetch);
    }

    long start(int fetch) {
        return (long) fetch * bytesPerFetch;
    }

    long firstOffset(int fetch) {
        return (long) fetch * recordsPerFetch;
    }
}
