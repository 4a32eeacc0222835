#!/usr/bin/env bash
# A throw-away ZooKeeper (Debian's `zookeeper` package) on 127.0.0.1 for tests and by hand.
#
#   scripts/zookeeper.sh [--port PORT] [--data DIR]
#
# Listens on 127.0.0.1 only: on PORT, or on a free port. Data lives in a temporary directory
# removed on exit, or in DIR, which is kept (so a restart on the same port and DIR is the same
# ZooKeeper coming back, sessions included); the admin server (Jetty, port 8080) is off. Once ZooKeeper answers `ruok`
# it prints two lines on stdout:
#
#   ZOOKEEPER 127.0.0.1:PORT
#   READY zookeeper://127.0.0.1:PORT
#
# and then runs until SIGTERM / SIGINT, or until its parent process exits (so it never outlives
# the test command that started it). Logs go to stderr only on failure (the last lines of the
# server log). Installs the package (apt-get, quietly) when it is missing and we are root.
# The JVM's heap is 256 MB, ZOOKEEPER_HEAP (a -Xmx value such as 1g) for large registries.
set -euo pipefail

port=""
data=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --data) data=${2:?--data needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--port PORT] [--data DIR]" >&2; exit 2 ;;
  esac
done

jar=/usr/share/java/zookeeper.jar
if [[ ! -f $jar ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "zookeeper.sh: $jar not found; install Debian's zookeeper package" >&2
    exit 1
  fi
  echo "zookeeper.sh: installing Debian's zookeeper package" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
fi

# A free port (the kernel's choice); a tiny race with other processes is acceptable here.
if [[ -z $port ]]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi

dir=$(mktemp -d /tmp/zookeeper.XXXXXX)
zk_pid=""
watch_pid=""
stop() {
  trap - EXIT TERM INT
  [[ -n $watch_pid ]] && kill "$watch_pid" 2>/dev/null
  if [[ -n $zk_pid ]] && kill -0 "$zk_pid" 2>/dev/null; then
    kill -TERM "$zk_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$zk_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$zk_pid" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 0' TERM INT

cat >"$dir/zoo.cfg" <<EOF
dataDir=${data:-$dir/data}
clientPort=$port
clientPortAddress=127.0.0.1
tickTime=2000
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
EOF
# ZooKeeper logs through log4j 1.2 in Debian's build: everything to one file.
cat >"$dir/log4j.properties" <<EOF
log4j.rootLogger=INFO, F
log4j.appender.F=org.apache.log4j.FileAppender
log4j.appender.F.File=$dir/zookeeper.log
log4j.appender.F.layout=org.apache.log4j.PatternLayout
log4j.appender.F.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1} - %m%n
EOF

# --pdeathsig: the JVM gets SIGTERM if this script dies, even by SIGKILL.
pdeath=()
setpriv --help 2>/dev/null | grep -q pdeathsig && pdeath=(setpriv --pdeathsig TERM)
"${pdeath[@]}" java -Xms32m "-Xmx${ZOOKEEPER_HEAP:-256m}" -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
  -Dzookeeper.jmx.log4j.disable=true -Dlog4j.configuration="file:$dir/log4j.properties" \
  -Dzookeeper.admin.enableServer=false \
  -cp "$dir:$jar" org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
  >"$dir/stdout.log" 2>&1 </dev/null &
zk_pid=$!

# Our parent going away (the test command, or a shell) ends us too: we are then reparented (to
# init or a subreaper), so watch our parent pid change.
parent=$PPID
self=$$
( while [[ "$(ps -o ppid= -p "$self" 2>/dev/null | tr -d ' ')" == "$parent" ]]; do sleep 1; done
  kill -TERM "$self" 2>/dev/null ) &
watch_pid=$!

ruok() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'ruok' >&3
  reply=$(timeout 2 cat <&3 || true)
  exec 3>&-
  [[ $reply == imok ]]
}

for _ in $(seq 1 300); do
  if ! kill -0 "$zk_pid" 2>/dev/null; then
    echo "zookeeper.sh: ZooKeeper exited before it accepted connections:" >&2
    tail -n 30 "$dir/stdout.log" "$dir/zookeeper.log" >&2 2>/dev/null || true
    exit 1
  fi
  if ruok 2>/dev/null; then
    echo "ZOOKEEPER 127.0.0.1:$port"
    echo "READY zookeeper://127.0.0.1:$port"
    # `wait` returns early on a trapped signal, then the trap runs stop().
    wait "$zk_pid" || true
    echo "zookeeper.sh: ZooKeeper exited" >&2
    tail -n 20 "$dir/zookeeper.log" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.1
done
echo "zookeeper.sh: ZooKeeper did not answer ruok on 127.0.0.1:$port within 30 s" >&2
tail -n 30 "$dir/stdout.log" "$dir/zookeeper.log" >&2 2>/dev/null || true
exit 1
