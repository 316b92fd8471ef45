#!/usr/bin/env bash
# Starts or stops a local Seglog cluster: broker processes (three by default) on an embedded ZooKeeper, or on the
# ensemble given with --zookeeper. Build first: mvn -B -q package -DskipTests
#
#   bin/seglog-cluster.sh start [--dir DIR] [--brokers N] [--zookeeper HOST:PORT[/chroot]] [--base-port 9092]
#                               [--jmx-base-port 9999]
#   bin/seglog-cluster.sh create-topic TOPIC [PARTITIONS] [REPLICATION_FACTOR]   (default 3 and min(3, brokers))
#   bin/seglog-cluster.sh status
#   bin/seglog-cluster.sh stop
#
# Brokers listen on 127.0.0.1:9092, :9093, :9094 (bootstrap.servers for Kafka's clients), keep their logs under DIR
# (default /tmp/seglog-cluster) and log to DIR/broker-N.log. Each exports Kafka's broker metrics over JMX on
# 127.0.0.1:9999, :10000, :10001 (Kafka's JMX_PORT; jconsole 127.0.0.1:9999, or the Prometheus JMX exporter). stop sends SIGTERM: each broker asks the controller to
# move its leaderships away, then closes and writes its checkpoints.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
classes="$root/replication/target/classes"
deps="$root/replication/target/runtime-classpath.txt"
main=io.seglog.replication.broker.SeglogBrokerMain
dir=${SEGLOG_CLUSTER_DIR:-/tmp/seglog-cluster}
brokers=3
zookeeper=""
zk_port=2181
base_port=9092
jmx_base_port=9999

die() { echo "seglog-cluster: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: $0 start|create-topic|status|stop [options]"
command=$1; shift
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --brokers) brokers=$2; shift 2 ;;
    --zookeeper) zookeeper=$2; shift 2 ;;
    --zookeeper-port) zk_port=$2; shift 2 ;;
    --base-port) base_port=$2; shift 2 ;;
    --jmx-base-port) jmx_base_port=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

[ -f "$deps" ] || die "no $deps: build first (mvn -B -q package -DskipTests)"
cp="$classes:$(cat "$deps")"

# Waits until a process prints its READY line, or fails with the end of its log.
await_ready() {
  local log=$1 pid=$2 what=$3
  for _ in $(seq 1 600); do
    if grep -q '^READY' "$log" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { tail -20 "$log" >&2; die "$what exited before it was ready (see $log)"; }
    sleep 0.1
  done
  tail -20 "$log" >&2
  die "$what not ready within 60 s (see $log)"
}

zk_connect() {
  if [ -f "$dir/zookeeper.connect" ]; then cat "$dir/zookeeper.connect"; else die "no cluster in $dir"; fi
}

case "$command" in
  start)
    mkdir -p "$dir"
    if [ -z "$zookeeper" ]; then
      java -cp "$cp" $main --zookeeper "$dir/zookeeper" "$zk_port" > "$dir/zookeeper.log" 2>&1 &
      echo $! > "$dir/zookeeper.pid"
      await_ready "$dir/zookeeper.log" "$(cat "$dir/zookeeper.pid")" "ZooKeeper"
      zookeeper="127.0.0.1:$zk_port"
    fi
    echo "$zookeeper" > "$dir/zookeeper.connect"
    bootstrap=""
    for i in $(seq 1 "$brokers"); do
      port=$((base_port + i - 1))
      cat > "$dir/broker-$i.properties" <<PROPS
broker.id=$i
listeners=PLAINTEXT://127.0.0.1:$port
log.dirs=$dir/broker-$i/logs
zookeeper.connect=$zookeeper
num.partitions=3
default.replication.factor=$(( brokers < 3 ? brokers : 3 ))
min.insync.replicas=$(( brokers < 3 ? 1 : 2 ))
PROPS
      jmx=$((jmx_base_port + i - 1))
      java -Dcom.sun.management.jmxremote.port=$jmx -Dcom.sun.management.jmxremote.rmi.port=$jmx \
        -Dcom.sun.management.jmxremote.host=127.0.0.1 -Djava.rmi.server.hostname=127.0.0.1 \
        -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false \
        -cp "$cp" $main "$dir/broker-$i.properties" > "$dir/broker-$i.log" 2>&1 &
      echo $! > "$dir/broker-$i.pid"
      bootstrap="${bootstrap:+$bootstrap,}127.0.0.1:$port"
    done
    for i in $(seq 1 "$brokers"); do
      await_ready "$dir/broker-$i.log" "$(cat "$dir/broker-$i.pid")" "broker $i"
    done
    echo "$bootstrap" > "$dir/bootstrap.servers"
    echo "Seglog cluster of $brokers brokers on ZooKeeper $zookeeper"
    echo "bootstrap.servers=$bootstrap"
    echo "metrics over JMX: 127.0.0.1:$jmx_base_port to 127.0.0.1:$((jmx_base_port + brokers - 1)) (Kafka's names)"
    ;;
  create-topic)
    [ ${#args[@]} -ge 1 ] || die "usage: $0 create-topic TOPIC [PARTITIONS] [REPLICATION_FACTOR]"
    running=$(ls "$dir"/broker-*.pid 2>/dev/null | wc -l)
    java -cp "$cp" $main --create-topic "$(zk_connect)" "${args[0]}" "${args[1]:-3}" \
      "${args[2]:-$(( running < 3 ? running : 3 ))}"
    ;;
  status)
    for f in "$dir"/*.pid; do
      [ -f "$f" ] || continue
      name=$(basename "$f" .pid)
      if kill -0 "$(cat "$f")" 2>/dev/null; then echo "$name running (pid $(cat "$f"))"; else echo "$name stopped"; fi
    done
    ;;
  stop)
    for f in "$dir"/broker-*.pid "$dir"/zookeeper.pid; do
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      if kill -TERM "$pid" 2>/dev/null; then
        for _ in $(seq 1 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && { echo "$(basename "$f" .pid) did not stop; killing it"; kill -KILL "$pid"; }
      fi
      rm -f "$f"
    done
    echo "stopped"
    ;;
  *) die "unknown command $command (start, create-topic, status, stop)" ;;
esac
