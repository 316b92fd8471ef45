#!/usr/bin/env bash
# Seglog's cluster harness: three brokers and a ZooKeeper in one JVM, kafka-clients producers over loopback, beside
# the single-node append rate of the same run (about 4 minutes on 2 cores). Builds storage-bench/target/benchmarks.jar
# when it is missing or older than the sources, and writes
#   storage-bench/target/cluster-summary.csv   (workload,system,metric,value,error,unit)
#   storage-bench/target/cluster-summary.md
# Arguments go to io.seglog.bench.cluster.ClusterBench: [--quick] [--duration-ms N] [--runs N] [--failover-trials N].
#
# With --versus-kafka first, runs io.seglog.bench.cluster.VersusKafkaBench instead: the same kafka-clients workload
# against the Seglog cluster (three broker processes and a ZooKeeper process) and a real Kafka 4.4 cluster (three
# broker processes and a KRaft controller process), each node with its own start script's JVM flags, the clients in
# one more process; one system at a time, alternating which goes first, each cluster warmed 2 minutes, 5 runs per
# configuration (about 70 minutes for the default configuration, --quick about 2), writing per configuration
#   storage-bench/target/versus-kafka-BUFFERS-THREADS.csv / .md / .png   (--quick: versus-kafka-quick-*)
# Its arguments: [--quick] [--runs N] [--setup autotuned|kafka-defaults/defaults|sized | all]...
#   [--throughput-ms N] [--warmup-ms N] [--latency-ms N] [--latency-rate N] [--idempotence true|false]
#   [--broker-jvm-arg ARG]... [--broker-config Seglog|Kafka:KEY=VALUE]... [--system Seglog|Kafka]
#   [--workload NAME]... [--out DIR]; --broker-jvm-arg may name the node with {node} (e.g. a JFR file per broker).
# MAVEN_ARGS is passed to Maven (e.g. MAVEN_ARGS=-o for offline).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=storage-bench/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find storage-bench/src/main storage-bench/pom.xml storage-core/src/main replication/src/main pom.xml -newer "$jar" -print -quit)" ]]; then
  echo "Building $jar ..."
  mvn -B -q ${MAVEN_ARGS:-} -pl storage-bench -am package -DskipTests
fi
if [[ "${1:-}" == "--versus-kafka" ]]; then
  shift
  exec java -Xmx256m -cp "$jar" io.seglog.bench.cluster.VersusKafkaBench --out storage-bench/target "$@"
fi
exec java -Xmx4g -cp "$jar" io.seglog.bench.cluster.ClusterBench --out storage-bench/target "$@"
