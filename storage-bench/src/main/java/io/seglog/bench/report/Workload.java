package io.seglog.bench.report;

/**
 * The kinds of workload in the summary, each with its headline metric and the system it is compared with.
 */
enum Workload {
    /** Append throughput; baseline the raw FileChannel write into a fresh file. */
    APPEND("append", true, Catalog.RAW_FRESH),
    /** Sequential read sent zero-copy to a loopback socket; reference: the plain transferTo loop (not a ceiling). */
    FETCH("fetch transferTo", true, Catalog.RAW_TRANSFER_TO),
    /** Sequential record-by-record iteration; baseline Kafka's consumer-style iteration. */
    ITERATE("iterate records", true, Catalog.KAFKA_ITERATE),
    /** Random-offset read latency (index lookup + slice); baseline Kafka. */
    RANDOM_READ("random-offset read", false, Catalog.KAFKA_RANDOM_READ),
    /** Offset-for-timestamp latency; baseline Kafka. */
    OFFSET_FOR_TIMESTAMP("offset for timestamp", false, Catalog.KAFKA_OFFSET_FOR_TIMESTAMP),
    /** Open after a crash with a full recovery scan, then close; baseline Kafka. */
    RECOVERY("recovery scan", true, Catalog.KAFKA_RECOVERY),
    /** Append and wait until durable; baseline the device (256 KiB write + fdatasync). */
    DURABLE("durable append", true, Catalog.RAW_SYNC),
    /** Anything not in the catalog. */
    OTHER("other", true, "");

    final String label;
    final boolean throughput;
    final String baselineSystem;

    Workload(String label, boolean throughput, String baselineSystem) {
        this.label = label;
        this.throughput = throughput;
        this.baselineSystem = baselineSystem;
    }

    /** @return the metric that ranks systems in this workload (and that ratios are taken of) */
    String headlineMetric() {
        return throughput ? Metrics.MREC_PER_S : Metrics.P50_US;
    }
}
