/**
 * The cluster harnesses, driven by kafka-clients over loopback. {@link io.seglog.bench.cluster.ClusterBench}: Seglog
 * brokers started in this JVM over an embedded ZooKeeper, each figure set against the single-node append rate
 * measured in the same run. {@link io.seglog.bench.cluster.VersusKafkaBench}: the Seglog cluster and a real Kafka 4.4
 * cluster (KRaft) under the same workload, one at a time in a fresh JVM each, with the same-run ratio Seglog / Kafka.
 * Not JMH: a produce workload is a whole cluster's behaviour over seconds, measured as acknowledged records per
 * second and per-record latency.
 */
package io.seglog.bench.cluster;
