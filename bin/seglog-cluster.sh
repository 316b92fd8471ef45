#!/usr/bin/env bash
# Starts or stops a local Seglog cluster: broker processes (three by default) on an embedded ZooKeeper, or on the
# ensemble given with --zookeeper. Build first: mvn -B -q package -DskipTests. bin/seglog-cluster.sh --help lists
# the commands and options.
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
# Each broker's heap, as Kafka's kafka-server-start.sh sizes its (Seglog allocates next to nothing per record; the heap
# holds indexes' metadata, group state and request buffers).
heap_opts=${SEGLOG_HEAP_OPTS:--Xms1g -Xmx1g}

usage() {
  cat <<USAGE
Usage: bin/seglog-cluster.sh COMMAND [OPTIONS]

A local Seglog cluster: broker processes on an embedded ZooKeeper (or an existing ensemble), each a
SeglogBrokerMain with its broker-N.properties, log directory and log file under DIR.

Commands:
  start                                   start ZooKeeper (unless --zookeeper) and the brokers; waits until each
                                          prints READY, then prints bootstrap.servers
  create-topic TOPIC [PARTITIONS] [RF]    create a topic (default 3 partitions, replication factor min(3, brokers))
  status                                  say what runs in DIR: ZooKeeper and each broker, with its pid and address
  stop                                    SIGTERM every broker (a controlled shutdown: leaderships move away first),
                                          then ZooKeeper; waits for each to exit
Options:
  --dir DIR              where the cluster lives (default \$SEGLOG_CLUSTER_DIR or /tmp/seglog-cluster)
  --brokers N            how many brokers start (default 3)
  --zookeeper CONNECT    use this ensemble, host:port[,host:port...][/chroot], instead of an embedded ZooKeeper
  --zookeeper-port PORT  the embedded ZooKeeper's port (default 2181)
  --base-port PORT       broker N listens on PORT + N - 1 (default 9092: 9092, 9093, 9094)
  --jmx-base-port PORT   broker N exports its metrics over JMX on PORT + N - 1 (default 9999)
  -h, --help             this text

Exit codes: 0 done (status: every process runs), 1 a failure (status: a process has stopped), 2 a usage error,
3 (status) no cluster in DIR.

Brokers keep their logs under DIR/broker-N/logs and log to DIR/broker-N.log. Each runs with \$SEGLOG_HEAP_OPTS
(default -Xms1g -Xmx1g, the heap Kafka's start script gives a broker). Kafka's clients and tools use
bootstrap.servers=127.0.0.1:9092 (with the default ports).
USAGE
}

die() { echo "seglog-cluster: $*" >&2; exit 1; }
usage_error() { echo "seglog-cluster: $*" >&2; echo "Try: bin/seglog-cluster.sh --help" >&2; exit 2; }
[ $# -ge 1 ] || usage_error "missing command (start, create-topic, status, stop)"
case "$1" in -h|--help|help) usage; exit 0 ;; esac
command=$1; shift
case "$command" in start|create-topic|status|stop) ;; *) usage_error "unknown command '$command' (start, create-topic, status, stop)" ;; esac
number() { [[ "$2" =~ ^[0-9]+$ ]] || usage_error "$1 needs a number, got '$2'"; }
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dir|--brokers|--zookeeper|--zookeeper-port|--base-port|--jmx-base-port)
      [ $# -ge 2 ] || usage_error "$1 needs a value"
      case "$1" in
        --dir) dir=$2 ;;
        --brokers) number "$1" "$2"; brokers=$2 ;;
        --zookeeper) zookeeper=$2 ;;
        --zookeeper-port) number "$1" "$2"; zk_port=$2 ;;
        --base-port) number "$1" "$2"; base_port=$2 ;;
        --jmx-base-port) number "$1" "$2"; jmx_base_port=$2 ;;
      esac
      shift 2 ;;
    -*) usage_error "unknown option '$1'" ;;
    *) args+=("$1"); shift ;;
  esac
done
case "$command" in
  start|status|stop) [ ${#args[@]} -eq 0 ] || usage_error "$command takes no argument, got '${args[*]}'" ;;
  create-topic) [ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 3 ] || usage_error "usage: create-topic TOPIC [PARTITIONS] [REPLICATION_FACTOR]" ;;
esac

classpath() {
  [ -f "$deps" ] || die "no $deps: build first (mvn -B -q package -DskipTests)"
  echo "$classes:$(cat "$deps")"
}

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
    cp=$(classpath)
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
      # shellcheck disable=SC2086
      java $heap_opts -Dcom.sun.management.jmxremote.port=$jmx -Dcom.sun.management.jmxremote.rmi.port=$jmx \
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
    cp=$(classpath)
    running=$(ls "$dir"/broker-*.pid 2>/dev/null | wc -l)
    java -cp "$cp" $main --create-topic "$(zk_connect)" "${args[0]}" "${args[1]:-3}" \
      "${args[2]:-$(( running < 3 ? running : 3 ))}"
    ;;
  status)
    [ -d "$dir" ] || { echo "no cluster in $dir (the directory does not exist)"; exit 3; }
    found=0
    running=0
    for f in "$dir"/zookeeper.pid "$dir"/broker-*.pid; do
      [ -f "$f" ] || continue
      found=$((found + 1))
      name=$(basename "$f" .pid)
      where=""
      [ "$name" = zookeeper ] && [ -f "$dir/zookeeper.connect" ] && where=" on $(cat "$dir/zookeeper.connect")"
      [ -f "$dir/$name.properties" ] && where=" on $(sed -n 's/^listeners=PLAINTEXT:\/\///p' "$dir/$name.properties")"
      if kill -0 "$(cat "$f")" 2>/dev/null; then
        echo "$name running (pid $(cat "$f"))$where"
        running=$((running + 1))
      else
        echo "$name stopped (pid $(cat "$f") is gone; see $dir/$name.log)"
      fi
    done
    if [ "$found" -eq 0 ]; then
      echo "no cluster in $dir (no process was started there, or it was stopped)"
      exit 3
    fi
    [ -f "$dir/bootstrap.servers" ] && echo "bootstrap.servers=$(cat "$dir/bootstrap.servers")"
    echo "$running of $found processes running"
    [ "$running" -eq "$found" ] || exit 1
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
esac
