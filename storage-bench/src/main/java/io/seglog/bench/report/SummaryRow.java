package io.seglog.bench.report;

/**
 * One line of {@code bench-summary.csv}.
 *
 * @param workload e.g. {@code append 1KiB x100} (value size, records per batch)
 * @param system   e.g. {@code Kafka UnifiedLog.appendAsLeader}
 * @param metric   e.g. {@code Mrec/s}, {@code MB/s}, {@code p50 us/op}, {@code B/op}, {@code x baseline}
 * @param value    the value
 * @param error    JMH's 99.9% confidence half-width scaled like the value; NaN when unknown
 * @param unit     the unit of value and error
 */
public record SummaryRow(String workload, String system, String metric, double value, double error, String unit) {
}
