#!/usr/bin/env bash
# Builds side by side: consumer and provider CPU per call of several builds of dubbo-rs, in one
# run, alternating, so that whatever else the machine does falls on every build alike.
#
#   scripts/bench-builds.sh DIR1 DIR2 [DIR...] [--runs N]
#
# Each DIR holds a `dubbo-bench` and a `bench-server` built with `--profile perf`, e.g. for the
# commit REV:
#   git worktree add /tmp/wt-REV REV && (cd /tmp/wt-REV && cargo build --profile perf -p dubbo-bench)
#   mkdir -p /tmp/builds/REV && cp /tmp/wt-REV/target/perf/{dubbo-bench,bench-server} /tmp/builds/REV/
#
# Every build gets its own bench-server (dubbo:// only) pinned to core 0; its dubbo-bench, pinned
# to core 1, calls it at a fixed rate: echo128 at 40,000 calls/s and list100 at 4,000 calls/s,
# 32 callers on one connection, 4 s after 1 s of warm-up. The consumer's CPU is the client
# process's user + system time (/usr/bin/time), the provider's the server's (/proc/PID/stat);
# both are divided by the calls sent. Prints one CSV line per build, scenario and run, then the
# best and mean of each with its ratio to the first build.
set -euo pipefail
dirs=()
runs=4
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) dirs+=("$1") ;;
  esac
  shift
done
[ "${#dirs[@]}" -ge 2 ] || { echo "usage: scripts/bench-builds.sh DIR1 DIR2 [DIR...] [--runs N]" >&2; exit 2; }
for d in "${dirs[@]}"; do
  [ -x "$d/dubbo-bench" ] && [ -x "$d/bench-server" ] || { echo "$d: no dubbo-bench and bench-server" >&2; exit 2; }
done
prio=""
if [ "$(id -u)" -eq 0 ] && command -v chrt >/dev/null && chrt -r 10 true 2>/dev/null; then prio="chrt -r 10"; fi
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
declare -A port spid
k=0
for d in "${dirs[@]}"; do
  port[$d]=$((23881 + k))
  k=$((k + 1))
  $prio taskset -c 0 "$d/bench-server" --dubbo-port "${port[$d]}" --tri-port $((port[$d] + 20000)) >"$work/$k.log" 2>&1 &
  pids+=($!)
  spid[$d]=$!
  for _ in $(seq 1 600); do grep -q READY "$work/$k.log" 2>/dev/null && break; sleep 0.1; done
done
hz=$(getconf CLK_TCK)
echo "build,scenario,run,consumer_us_per_call,provider_us_per_call,qps,errors" | tee "$work/all.csv"
for run in $(seq 1 "$runs"); do
  for scenario in echo128 list100; do
    rate=40000
    [ "$scenario" = list100 ] && rate=4000
    calls=$((rate * 5))
    for d in "${dirs[@]}"; do
      echo "bench-builds: run $run/$runs $scenario $d" >&2
      rm -f "$work/pt.csv"
      t0=$(awk '{print $14+$15}' "/proc/${spid[$d]}/stat")
      /usr/bin/time -f "%U %S" -o "$work/t.txt" $prio taskset -c 1 "$d/dubbo-bench" --target dubbo \
        --addr "127.0.0.1:${port[$d]}" --scenario "$scenario" --concurrency 32 --connections 1 \
        --rate "$rate" --duration 4s --warmup 1s --csv "$work/pt.csv" --quiet >/dev/null 2>"$work/err" ||
        { echo "bench-builds: $d $scenario failed:" >&2; cat "$work/err" >&2; continue; }
      t1=$(awk '{print $14+$15}' "/proc/${spid[$d]}/stat")
      cpu=$(awk -v n="$calls" 'END { printf "%.3f", ($1+$2)*1e6/n }' "$work/t.txt")
      pcpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$calls" 'BEGIN { printf "%.3f", (b-a)/hz*1e6/n }')
      qps=$(awk -F, 'NR==2 { printf "%d", $10 }' "$work/pt.csv")
      err=$(awk -F, 'NR==2 { print $9 }' "$work/pt.csv")
      echo "$d,$scenario,$run,$cpu,$pcpu,$qps,$err" | tee -a "$work/all.csv"
    done
  done
done
echo
echo "best (mean) µs per call, and the ratio of best to the first build's:"
awk -F, -v first="${dirs[0]}" 'NR > 1 {
  k = $1 SUBSEP $2
  if (!(k in cb) || $4 < cb[k]) cb[k] = $4
  if (!(k in pb) || $5 < pb[k]) pb[k] = $5
  cs[k] += $4; ps[k] += $5; n[k]++
  if (!seen[$1]++) order[++nb] = $1
  if (!sseen[$2]++) sc[++ns] = $2
} END {
  for (j = 1; j <= ns; j++) for (i = 1; i <= nb; i++) {
    k = order[i] SUBSEP sc[j]; f = first SUBSEP sc[j]
    printf "%-10s %-40s consumer %7.3f (%7.3f) x%.3f   provider %7.3f (%7.3f) x%.3f\n", sc[j], order[i],
      cb[k], cs[k]/n[k], cb[k]/cb[f], pb[k], ps[k]/n[k], pb[k]/pb[f]
  }
}' "$work/all.csv"
