#!/usr/bin/env bash
# Load-balancing simulation: three dubbo-rs providers on 127.0.0.1, one of them slow
# (sayHello waits --slow-ms, default 20 ms), called through one reference over dubbo:// by the
# interop client in load mode with each load balancer in turn. Prints, per balancer, the share
# of calls each provider answered, as a Markdown table (docs/cluster.md records a run).
#
#   scripts/cluster-sim.sh [--calls N] [--concurrency C] [--slow-ms D] [--protocol dubbo|tri]
#
# Not part of the test command: it measures, it does not check. ~1 minute.
set -euo pipefail
cd "$(dirname "$0")/.."

calls=3000
concurrency=16
slow_ms=20
protocol=dubbo
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls="$2"; shift ;;
    --concurrency) concurrency="$2"; shift ;;
    --slow-ms) slow_ms="$2"; shift ;;
    --protocol) protocol="$2"; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "usage: scripts/cluster-sim.sh [--calls N] [--concurrency C] [--slow-ms D] [--protocol dubbo|tri]" >&2; exit 2 ;;
  esac
  shift
done

echo "cluster-sim: building the interop programs (release)" >&2
cargo build --quiet --release -p dubbo-interop --bin interop-server --bin interop-client >&2
bin=target/release

work=$(mktemp -d /tmp/dubbo-rs-sim.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

dubbo_ports=(24881 24882 24883)
tri_ports=(14871 14872 14873)  # below the ephemeral range, like the dubbo ports
for i in 0 1 2; do
  delay=0
  [[ $i -eq 0 ]] && delay=$slow_ms
  "$bin/interop-server" --dubbo-port "${dubbo_ports[$i]}" --tri-port "${tri_ports[$i]}" \
    --app "sim-provider-$i" --delay-ms "$delay" >"$work/server$i.out" 2>"$work/server$i.err" &
  pids+=("$!")
done
for i in 0 1 2; do
  for _ in $(seq 1 100); do
    grep -q '^READY' "$work/server$i.out" 2>/dev/null && break
    sleep 0.1
  done
  grep -q '^READY' "$work/server$i.out" || { echo "provider $i did not start" >&2; cat "$work/server$i.err" >&2; exit 1; }
done

if [[ $protocol == tri ]]; then ports=("${tri_ports[@]}"); else ports=("${dubbo_ports[@]}"); fi
urls="$protocol://127.0.0.1:${ports[0]};$protocol://127.0.0.1:${ports[1]};$protocol://127.0.0.1:${ports[2]}"

echo "| load balancer | slow (${slow_ms} ms) | fast 1 | fast 2 | failed | wall s |"
echo "|---|---:|---:|---:|---:|---:|"
for lb in random roundrobin leastactive shortestresponse p2c adaptive; do
  echo "cluster-sim: $lb" >&2
  start=$(date +%s.%N)
  out=$("$bin/interop-client" --url "$urls" --load "$calls" --concurrency "$concurrency" --loadbalance "$lb" 2>"$work/client.err" || true)
  end=$(date +%s.%N)
  share() {
    local k
    k=$(echo "$out" | sed -n "s/^provider .*:$1 calls \([0-9]*\)$/\1/p")
    k=${k:-0}
    awk -v k="$k" -v n="$calls" 'BEGIN { printf "%.1f %%", 100 * k / n }'
  }
  failed=$(echo "$out" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p')
  printf '| %s | %s | %s | %s | %s | %.1f |\n' "$lb" "$(share "${ports[0]}")" "$(share "${ports[1]}")" \
    "$(share "${ports[2]}")" "${failed:-?}" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
done
