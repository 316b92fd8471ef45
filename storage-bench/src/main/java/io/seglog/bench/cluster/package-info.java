/**
 * The cluster harness: Seglog brokers started in this JVM over an embedded ZooKeeper, driven by kafka-clients
 * producers over loopback ({@link io.seglog.bench.cluster.ClusterBench}). Not JMH: a produce workload is a whole
 * cluster's behaviour over seconds, measured as acknowledged records per second and per-record latency, each set
 * against the single-node append rate measured in the same run.
 */
package io.seglog.bench.cluster;
