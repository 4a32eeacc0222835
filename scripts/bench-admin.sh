#!/usr/bin/env bash
# The admin at scale: dubbo-admin's search over a generated registry of 10,000 services and
# 100,000 instances in a real ZooKeeper. The bar (docs/performance.md, "The admin at scale"):
# searches answered in under 100 ms at p99, the admin under 300 MB.
#
#   scripts/bench-admin.sh [--services N] [--apps A] [--per-service P] [--model M]
#                          [--searches S] [--seconds T] [--profile release|perf] [--runs R]
#                          [--admin BIN] [--load-timeout SECONDS] [--churn N] [--watch-limit N]
#
# Defaults: 10,000 services over 1,000 applications, 10 providers a service, each its own
# instance (100,000 instances), registered both ways (--model both: the provider URLs under
# /dubbo/<interface>/providers and the instances under /services/<app> with their metadata
# revisions in the metadata report; `interface` or `application` for one of them); at least
# 3,000 searches and 60 s of them (long enough for the admin to re-read the registry in the
# background while it answers); the release build (scripts/admin.sh's; --profile perf for fat
# LTO). --admin runs another dubbo-admin binary on the same registry (an older build, to
# compare); --load-timeout (default 600 s) is how long it may take to show the registry;
# --churn N adds N services (their providers and instances, N new applications' worth at most)
# to the registry 30 s into each run, while the searches go on, so the admin's watches and
# rebuilds are measured too (the services are left there for the next run); --watch-limit N
# sets the admin's `watch-limit` (default 20,000: above it the admin re-reads the registry
# rather than watching it; 200000 watches this registry whole).
#
# Steps, with progress on stderr:
#   1. builds dubbo-admin and examples/bench_registry (crates/admin);
#   2. starts a throw-away ZooKeeper (scripts/zookeeper.sh, 1 GB heap) and fills it with
#      examples/bench_registry (pipelined writes, ~1 min);
#   3. for each run (--runs, default 1): starts dubbo-admin on it and measures with
#      scripts/bench-admin-client.py: the time from the admin's start until it shows every
#      service and instance; latency p50/p90/p99/max of the searches, one at a time over one
#      keep-alive connection (service-name substrings, application names, instance addresses,
#      the instance and application lists, deep pages of everything; page sizes 10 to 50);
#      its RSS once loaded, after the searches (steady) and its peak (VmHWM); its CPU during the
#      searches and the load average; then stops it.
# Prints the table of each run at the end. Nothing is written to the tree.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

services=10000
apps=1000
per_service=10
model=both
searches=3000
seconds=60
profile=release
runs=1
admin_bin=""
load_timeout=600
churn=0
watch_limit=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --services) services=$2; shift ;;
    --apps) apps=$2; shift ;;
    --per-service) per_service=$2; shift ;;
    --model) model=$2; shift ;;
    --searches) searches=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --profile) profile=$2; shift ;;
    --runs) runs=$2; shift ;;
    --admin) admin_bin=$2; shift ;;
    --load-timeout) load_timeout=$2; shift ;;
    --churn) churn=$2; shift ;;
    --watch-limit) watch_limit=$2; shift ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "usage: scripts/bench-admin.sh [--services N] [--apps A] [--per-service P] [--model both|interface|application] [--searches S] [--seconds T] [--profile release|perf] [--runs R] [--admin BIN] [--load-timeout S] [--churn N] [--watch-limit N]" >&2; exit 2 ;;
  esac
  shift
done
instances=$((services * per_service))

log() { echo "bench-admin: $*" >&2; }

target="${CARGO_TARGET_DIR:-target}/$profile"
log "building dubbo-admin and examples/bench_registry (cargo build --profile $profile -p dubbo-admin)"
cargo build --quiet --profile "$profile" -p dubbo-admin --bin dubbo-admin --example bench_registry >&2
admin_bin=${admin_bin:-$target/dubbo-admin}

work=$(mktemp -d /tmp/bench-admin.XXXXXX)
zk_pid=""
admin_pid=""
cleanup() {
  [[ -n $admin_pid ]] && kill "$admin_pid" 2>/dev/null || true
  [[ -n $zk_pid ]] && kill "$zk_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "starting ZooKeeper (scripts/zookeeper.sh, 1 GB heap)"
ZOOKEEPER_HEAP=1g scripts/zookeeper.sh >"$work/zk.out" 2>"$work/zk.err" &
zk_pid=$!
for _ in $(seq 1 600); do
  grep -q '^READY' "$work/zk.out" 2>/dev/null && break
  kill -0 "$zk_pid" 2>/dev/null || { cat "$work/zk.err" >&2; exit 1; }
  sleep 0.1
done
zk=$(sed -n 's/^ZOOKEEPER //p' "$work/zk.out")
[[ -n $zk ]] || { log "ZooKeeper did not start"; cat "$work/zk.err" >&2; exit 1; }
log "ZooKeeper at $zk; generating $services services, $instances instances, $apps applications (--model $model)"
"$target/examples/bench_registry" "$zk" --services "$services" --apps "$apps" \
  --per-service "$per_service" --model "$model" | sed 's/^/bench-admin: /' >&2

cat >"$work/admin.yaml" <<EOF
users:
  - name: bench
    password: bench-password
    role: read-only
session-key: bench-admin-session-key-of-at-least-32-characters
data-dir: $work/admin-data
EOF
if [[ -n $watch_limit ]]; then echo "watch-limit: $watch_limit" >>"$work/admin.yaml"; fi

results=()
for run in $(seq 1 "$runs"); do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  log "run $run/$runs: starting dubbo-admin on 127.0.0.1:$port (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  started=$(date +%s.%N)
  "$admin_bin" --registry "zookeeper://$zk" --port "$port" --config "$work/admin.yaml" \
    >"$work/admin.out" 2>"$work/admin.err" &
  admin_pid=$!
  for _ in $(seq 1 300); do
    grep -q '^READY' "$work/admin.out" 2>/dev/null && break
    kill -0 "$admin_pid" 2>/dev/null || { cat "$work/admin.err" >&2; exit 1; }
    sleep 0.1
  done
  churn_pid=""
  if [[ $churn -gt 0 ]]; then
    (sleep 30 && "$target/examples/bench_registry" "$zk" --services "$((services + churn * run))" \
      --apps "$apps" --per-service "$per_service" --model "$model" | sed 's/^/bench-admin: churn: /' >&2) &
    churn_pid=$!
  fi
  python3 scripts/bench-admin-client.py --base "http://127.0.0.1:$port" --pid "$admin_pid" \
    --started "$started" --services "$services" --instances "$instances" --apps "$apps" \
    --searches "$searches" --seconds "$seconds" --load-timeout "$load_timeout" \
    --label "ZooKeeper ($model), $admin_bin" >"$work/run-$run.txt" || {
    log "run $run: the admin was not measured (see above)"
    echo "run $run: not measured (not loaded within ${load_timeout} s, or failed: see above)" >"$work/run-$run.txt"
  }
  [[ -n $churn_pid ]] && wait "$churn_pid" 2>/dev/null || true
  if [[ $churn -gt 0 ]]; then
    log "run $run: after the churn the admin shows $(curl -s -b "$work/churn.jar" -c "$work/churn.jar" \
      -H 'Content-Type: application/json' -d '{"username":"bench","password":"bench-password"}' \
      "http://127.0.0.1:$port/api/v1/auth/login" >/dev/null; curl -s -b "$work/churn.jar" "http://127.0.0.1:$port/api/v1/catalog")"
  fi
  kill "$admin_pid" 2>/dev/null || true
  wait "$admin_pid" 2>/dev/null || true
  admin_pid=""
  results+=("$work/run-$run.txt")
done

echo
echo "scripts/bench-admin.sh --services $services --apps $apps --per-service $per_service --model $model --searches $searches --seconds $seconds --profile $profile --churn $churn${watch_limit:+ --watch-limit $watch_limit}, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
for r in "${results[@]}"; do
  cat "$r"
  echo
done
