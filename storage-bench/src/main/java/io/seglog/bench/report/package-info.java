/**
 * Turns JMH's JSON into Seglog's benchmark summary: {@code bench-summary.csv}
 * ({@code workload,system,metric,value,error,unit}), a comparison table with ratios against the baseline
 * measured in the same run, and a PNG chart of the systems per workload; plus the standard suite's runner.
 */
package io.seglog.bench.report;
