package io.seglog.storage;

import io.seglog.storage.cleaner.CleanableLog;

/**
 * The cleaner's view of a {@link PartitionLog} a benchmark opened itself ({@code PartitionCleaning} is package-private
 * and the cleaner package is not exported). Lives in the bench module under the storage package: the benchmarks run
 * on the class path, where that split package is allowed; no embedder can do this under the module system.
 */
public final class BenchCleaning {
    private BenchCleaning() {
    }

    /**
     * @param log the log
     * @param tp  its partition
     * @return the cleaner's view of it
     */
    public static CleanableLog of(final PartitionLog log, final TopicPartition tp) {
        return new PartitionCleaning(log, tp);
    }
}
