/**
 * JMH benchmarks of Seglog's storage core, measured beside Kafka's storage code, Chronicle Queue and the
 * raw file-system limit in the same run.
 */
package io.seglog.bench;
