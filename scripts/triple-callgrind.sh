#!/usr/bin/env bash
# Instructions per Triple unary call in the server, dubbo-rs against tonic, counted by callgrind
# (valgrind), so the result does not depend on the machine's load.
#
#   scripts/triple-callgrind.sh [--rest [--h1]] [--requests N] [--streams M] [--bin DIR] [--keep DIR]
#
# Each server (bench-server's Triple port, tonic-server) runs under
# `valgrind --tool=callgrind`; h2load sends 2,000 Echo calls (128 B, gRPC framing) to warm it
# up, the counters are zeroed (callgrind_control -z), h2load sends N calls (default 20,000) on
# one connection with M streams (default 32), and the counters are dumped (callgrind_control
# -d). Instructions per call = the dump's total ÷ N (every thread of the server: runtime,
# HTTP/2, filters, the service). --keep DIR keeps the dumps for callgrind_annotate.
# The binaries are those of `cargo build --profile perf -p dubbo-bench` (or --bin DIR).
# --rest: REST over h2c instead, `GET /users/7` and `POST /users` (a JSON user) on
# bench-server's Triple port against axum-server, the requests of the rest row of
# scripts/bench-h2load.sh; and the default form of an unmapped method,
# `GET /org.apache.dubbo.bench.EchoService/listUsers?n=1` (dubbo-rs only: axum has no such
# route; its nearest work is the GET above). --h1 (with --rest): over HTTP/1.1 instead, M
# connections with one request in flight each (h2load --h1 -c M -m 1).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
requests=20000
streams=32
bin=""
keep=""
rest=0
h1=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --requests) requests="$2"; shift ;;
    --streams) streams="$2"; shift ;;
    --bin) bin="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --rest) rest=1 ;;
    --h1) h1=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "usage: scripts/triple-callgrind.sh [--rest [--h1]] [--requests N] [--streams M] [--bin DIR] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done
command -v valgrind >/dev/null || { echo "triple-callgrind: valgrind missing" >&2; exit 1; }
command -v h2load >/dev/null || { echo "triple-callgrind: h2load missing (Debian: nghttp2-client)" >&2; exit 1; }
if [[ -z "$bin" ]]; then
  cargo build --profile perf -q -p dubbo-bench >&2
  bin="${CARGO_TARGET_DIR:-$root/target}/perf"
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

python3 - "$work/echo128.grpc" <<'PY'
import sys
msg = bytes([0x0A, 0x80, 0x01]) + bytes([0x5A] * 128)
open(sys.argv[1], "wb").write(b"\x00" + len(msg).to_bytes(4, "big") + msg)
PY
printf '%s' '{"id":7,"name":"user-7","age":27,"tags":["t7"],"attrs":{"k":"v7"}}' > "$work/user.json"

# measure NAME PORT CMD...: prints "NAME instructions-per-call". REQ (echo, get, post) says
# which request h2load sends.
req=echo
measure() {
  local name="$1" port="$2"; shift 2
  local url="http://127.0.0.1:$port/org.apache.dubbo.bench.BenchService/Echo"
  local h2=(-c 1 -m "$streams" -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc")
  case "$req" in
    get) url="http://127.0.0.1:$port/users/7"; h2=(-c 1 -m "$streams") ;;
    default) url="http://127.0.0.1:$port/org.apache.dubbo.bench.EchoService/listUsers?n=1"
      h2=(-c 1 -m "$streams") ;;
    post) url="http://127.0.0.1:$port/users"
      h2=(-c 1 -m "$streams" -H 'content-type: application/json' -d "$work/user.json") ;;
  esac
  if [[ $h1 -eq 1 && "$req" != echo ]]; then
    h2=(--h1 -c "$streams" -m 1 "${h2[@]:4}")
  fi
  taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$work/$name.%p" "$@" \
    >"$work/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    grep -q READY "$work/$name.log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; exit 1; }
    sleep 0.2
  done
  taskset -c 1 h2load -n 2000 "${h2[@]}" "$url" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  taskset -c 1 h2load -n "$requests" "${h2[@]}" "$url" > "$work/$name.h2load"
  callgrind_control --dump="$name" "$pid" >/dev/null 2>&1
  local ok
  ok="$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$work/$name.h2load")"
  [[ "$ok" == "$requests" ]] || { echo "triple-callgrind: $name answered $ok of $requests" >&2; exit 1; }
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local dump
  dump="$(ls "$work/$name".*.1 2>/dev/null | head -1)"
  [[ -n "$dump" ]] || { echo "triple-callgrind: no dump for $name" >&2; ls "$work" >&2; exit 1; }
  [[ -n "$keep" ]] && { mkdir -p "$keep"; cp "$dump" "$keep/$name.callgrind"; }
  awk -v n="$requests" -v name="$name" '/^summary:/ { printf "%s %.0f\n", name, $2 / n }' "$dump"
}

if [[ $rest -eq 1 ]]; then
  for req in get post; do
    rs="$(measure "dubbo-rs-$req" 25151 "$bin/bench-server" --dubbo-port 25880 --tri-port 25151)"
    axum="$(measure "axum-$req" 25153 "$bin/axum-server" --port 25153)"
    echo "$rs"
    echo "$axum"
    awk -v a="${rs##* }" -v b="${axum##* }" -v n="$requests" -v m="$streams" -v r="$req" \
      -v how="$([[ $h1 -eq 1 ]] && echo "HTTP/1.1, $streams connections" || echo "h2c, 1 connection, $streams streams")" \
      'BEGIN { printf "instructions per REST %s (%d requests, %s): dubbo-rs %d, axum %d, dubbo-rs / axum %.3f\n", toupper(r), n, how, a, b, a / b }'
  done
  req=default
  rs="$(measure dubbo-rs-default 25151 "$bin/bench-server" --dubbo-port 25880 --tri-port 25151)"
  echo "$rs"
  awk -v a="${rs##* }" -v n="$requests" -v m="$streams" \
    -v how="$([[ $h1 -eq 1 ]] && echo "HTTP/1.1, $streams connections" || echo "h2c, 1 connection, $streams streams")" \
    'BEGIN { printf "instructions per REST default-form GET (%d requests, %s): dubbo-rs %d\n", n, how, a }'
  exit 0
fi
rs="$(measure dubbo-rs 25151 "$bin/bench-server" --dubbo-port 25880 --tri-port 25151)"
tonic="$(measure tonic 25152 "$bin/tonic-server" --port 25152)"
echo "$rs"
echo "$tonic"
awk -v a="${rs##* }" -v b="${tonic##* }" -v n="$requests" -v m="$streams" \
  'BEGIN { printf "instructions per Echo call (%d calls, 1 connection, %d streams): dubbo-rs %d, tonic %d, dubbo-rs / tonic %.3f\n", n, m, a, b, a / b }'
