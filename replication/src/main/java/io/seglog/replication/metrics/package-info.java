/**
 * A broker's metrics under the names and JMX attributes of Kafka's own broker metrics
 * ({@link io.seglog.replication.metrics.KafkaMetrics}), so that Kafka dashboards and the Prometheus JMX exporter's Kafka
 * rules read a Seglog broker as they read Kafka. Gauges are read on demand; meters and histograms update without locks
 * or allocation.
 */
package io.seglog.replication.metrics;
