#!/usr/bin/env bash
# Seglog's standard benchmark suite: builds storage-bench/target/benchmarks.jar when it is missing or older
# than the sources, runs the standard suite (about 9 minutes on 2 cores), and writes
#   storage-bench/target/bench-results.json  (JMH)
#   storage-bench/target/bench-summary.csv   (workload,system,metric,value,error,unit)
#   storage-bench/target/bench-summary.md    (the comparison table)
#   storage-bench/target/bench-summary.png   (systems per workload)
# Arguments go to io.seglog.bench.report.StandardSuite: [--quick] [--no-gc] [--only REGEX] [--out DIR].
# --quick (one unwarmed 200 ms iteration each) checks the pipeline: its files are bench-quick-*, headed as such,
# and it prints no target verdicts.
# MAVEN_ARGS is passed to Maven (e.g. MAVEN_ARGS=-o for offline).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=storage-bench/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find storage-bench/src/main storage-bench/pom.xml storage-core/src/main replication/src/main pom.xml -newer "$jar" -print -quit)" ]]; then
  echo "Building $jar ..."
  mvn -B -q ${MAVEN_ARGS:-} -pl storage-bench -am package -DskipTests
fi
exec java -Djava.awt.headless=true -cp "$jar" io.seglog.bench.report.StandardSuite --out storage-bench/target "$@"
