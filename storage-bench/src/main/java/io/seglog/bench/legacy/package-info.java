/**
 * A frozen copy of the batch codec as it was before the codec-speed work of issue 4 (commit 72836d5 of
 * {@code io.seglog.storage.format}: Varint, UncheckedReads, Record, RecordHeader, RecordBatch,
 * RecordBatchValidator, Crc32cCalculator), so that {@code CodecBench} can measure old and new side by side in
 * one JMH invocation. Benchmark use only; nothing else may depend on it.
 */
package io.seglog.bench.legacy;
