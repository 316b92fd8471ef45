#!/usr/bin/env bash
# Seglog's cluster harness: three brokers and a ZooKeeper in one JVM, kafka-clients producers over loopback, beside
# the single-node append rate of the same run (about 4 minutes on 2 cores). Builds storage-bench/target/benchmarks.jar
# when it is missing or older than the sources, and writes
#   storage-bench/target/cluster-summary.csv   (workload,system,metric,value,error,unit)
#   storage-bench/target/cluster-summary.md
# Arguments go to io.seglog.bench.cluster.ClusterBench: [--quick] [--duration-ms N] [--runs N] [--failover-trials N].
# MAVEN_ARGS is passed to Maven (e.g. MAVEN_ARGS=-o for offline).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=storage-bench/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find storage-bench/src/main storage-bench/pom.xml storage-core/src/main replication/src/main pom.xml -newer "$jar" -print -quit)" ]]; then
  echo "Building $jar ..."
  mvn -B -q ${MAVEN_ARGS:-} -pl storage-bench -am package -DskipTests
fi
exec java -Xmx4g -cp "$jar" io.seglog.bench.cluster.ClusterBench --out storage-bench/target "$@"
