#!/usr/bin/env bash
# A throw-away etcd (Debian's `etcd-server` package, /usr/bin/etcd) on 127.0.0.1 for tests and by
# hand.
#
#   scripts/etcd.sh [--port PORT] [--peer-port PORT] [--data DIR]
#
# Listens on 127.0.0.1 only, for clients on PORT and for peers on the peer port (each a free port
# unless given; a single member, so nobody dials the peer port). Data lives in a temporary
# directory removed on exit, or in DIR, which is kept (so a restart on the same ports and DIR is
# the same etcd coming back, leases included). Once etcd answers a KV read through its gateway it
# prints two lines on stdout:
#
#   ETCD 127.0.0.1:PORT
#   READY etcd3://127.0.0.1:PORT
#
# and then runs until SIGTERM / SIGINT, or until its parent process exits (so it never outlives
# the test command that started it). Logs go to stderr only on failure (the last lines of etcd's
# log). Installs the package (apt-get, quietly) when it is missing and we are root.
set -euo pipefail

port=""
peer_port=""
data=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --peer-port) peer_port=${2:?--peer-port needs a value}; shift 2 ;;
    --data) data=${2:?--data needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--port PORT] [--peer-port PORT] [--data DIR]" >&2; exit 2 ;;
  esac
done

etcd=/usr/bin/etcd
if [[ ! -x $etcd ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "etcd.sh: $etcd not found; install Debian's etcd-server package" >&2
    exit 1
  fi
  echo "etcd.sh: installing Debian's etcd-server package" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
fi

# Free ports (the kernel's choice); a tiny race with other processes is acceptable here.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
[[ -n $port ]] || port=$(free_port)
if [[ -z $peer_port ]]; then
  peer_port=$(free_port)
  while [[ $peer_port == "$port" ]]; do peer_port=$(free_port); done
fi

dir=$(mktemp -d /tmp/etcd.XXXXXX)
etcd_pid=""
watch_pid=""
stop() {
  trap - EXIT TERM INT
  [[ -n $watch_pid ]] && kill "$watch_pid" 2>/dev/null
  if [[ -n $etcd_pid ]] && kill -0 "$etcd_pid" 2>/dev/null; then
    kill -TERM "$etcd_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$etcd_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$etcd_pid" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 0' TERM INT

client="http://127.0.0.1:$port"
peer="http://127.0.0.1:$peer_port"
# --pdeathsig: etcd gets SIGTERM if this script dies, even by SIGKILL.
pdeath=()
setpriv --help 2>/dev/null | grep -q pdeathsig && pdeath=(setpriv --pdeathsig TERM)
# ETCD_UNSUPPORTED_ARCH: etcd refuses to start on some architectures (arm64 in 3.4) without it.
ETCD_UNSUPPORTED_ARCH=$(uname -m | sed 's/x86_64//;s/aarch64/arm64/') \
  "${pdeath[@]}" "$etcd" --name default \
  --data-dir "${data:-$dir/data}" \
  --listen-client-urls "$client" --advertise-client-urls "$client" \
  --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
  --initial-cluster "default=$peer" \
  >"$dir/etcd.log" 2>&1 </dev/null &
etcd_pid=$!

# Our parent going away (the test command, or a shell) ends us too: we are then reparented (to
# init or a subreaper), so watch our parent pid change.
parent=$PPID
self=$$
( while [[ "$(ps -o ppid= -p "$self" 2>/dev/null | tr -d ' ')" == "$parent" ]]; do sleep 1; done
  kill -TERM "$self" 2>/dev/null ) &
watch_pid=$!

# A linearizable read of one key through etcd's gRPC gateway: the member is leader and serves.
serves() {
  curl -sf -m 2 -X POST -d '{"key":"AA=="}' "$client/v3/kv/range" 2>/dev/null | grep -q '"header"'
}

for _ in $(seq 1 300); do
  if ! kill -0 "$etcd_pid" 2>/dev/null; then
    echo "etcd.sh: etcd exited before it served:" >&2
    tail -n 30 "$dir/etcd.log" >&2 2>/dev/null || true
    exit 1
  fi
  if serves; then
    echo "ETCD 127.0.0.1:$port"
    echo "READY etcd3://127.0.0.1:$port"
    # `wait` returns early on a trapped signal, then the trap runs stop().
    wait "$etcd_pid" || true
    echo "etcd.sh: etcd exited" >&2
    tail -n 20 "$dir/etcd.log" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.1
done
echo "etcd.sh: etcd did not serve on 127.0.0.1:$port within 30 s" >&2
tail -n 30 "$dir/etcd.log" >&2 2>/dev/null || true
exit 1
