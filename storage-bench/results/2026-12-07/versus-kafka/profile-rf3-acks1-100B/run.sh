#!/bin/bash
# The profile of README.md: one run of each system on RF=3 acks=1 100 B with JFR on every broker.
cd "$(dirname "$0")"
for sys in Seglog Kafka; do
  java -Xmx256m -cp ../../../../target/benchmarks.jar io.seglog.bench.cluster.VersusKafkaBench --out /tmp/prof-$sys \
    --runs 1 --system $sys --workload "RF=3 acks=1 100 B" --warmup-ms 60000 --latency-ms 5000 \
    --broker-jvm-arg "-XX:StartFlightRecording=filename=/tmp/prof-$sys/{node}.jfr,settings=default"
done
