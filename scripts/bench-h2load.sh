# The rows of scripts/bench.sh whose client is h2load (nghttp2), a neutral HTTP/2 and HTTP/1.1
# load generator, so that servers are compared with one client that is neither's own:
#
#   triple-h2load  Triple unary (gRPC framing, BenchService/Echo with a 128-byte protobuf
#                  Payload) on one connection, 1/32/100 streams: dubbo-rs bench-server against
#                  tonic-server.
#   rest           GET /users/{id} and POST /users (JSON): dubbo-rs REST on the Triple port of
#                  bench-server (through the provider's filter chain) against axum-server
#                  (side by side), then Java Dubbo 3.3's triple rest alone at normal priority
#                  (the interop RestProvider: the same resource with Spring MVC annotations,
#                  left out with --no-java or without java/mvn); HTTP/1.1 (h2load --h1, one connection per concurrent request) and
#                  h2c (one connection, that many streams), concurrency 32 and 100.
#   tls            dubbo-rs over TLS against plaintext: dubbo:// echo128 c=32 at a fixed rate
#                  (dubbo-bench, consumer + provider CPU per call) and Triple Echo over h2/TLS
#                  against h2c (h2load, server CPU per call); Triple over TLS against tonic over
#                  TLS (h2load); new TLS handshakes: dubbo-rs against Java Dubbo 3.3's TLS
#                  provider (h2load --h1, one request per new connection).
#
# Sourced by scripts/bench.sh, which provides bin, work, prio, server_core, load_core, quick,
# log and proc_cpu_ticks. Each row writes $work/<row>.csv (every run of every point) and
# $work/<row>.md (its table, best of the runs, with the exact h2load commands); bench.sh prints
# the table with --<row>-only and puts it into docs/performance.md after a full run.
#
# Each point: an h2load warm-up of $h2_warmup s, then $h2_duration s measured with --log-file
# (p50/p99 from the per-request durations it logs); the server's CPU (utime + stime from
# /proc/<pid>/stat) before and after the measured run, over the requests h2load completed. The
# servers of a row run at once on the server core and the points alternate between them, so a
# neighbour's build disturbs both alike; $h2_runs runs each, and the table keeps the run with the
# highest QPS (its p50/p99) and the lowest CPU per call of all runs.

if [[ ${quick:-0} -eq 1 ]]; then
  h2_duration=3; h2_warmup=1; h2_runs=1; tls_runs=2; hs_rounds=2
else
  h2_duration=5; h2_warmup=2; h2_runs=3; tls_runs=5; hs_rounds=5
fi
h2_pids=()
# Ports, below the ephemeral range like bench.sh's.
h2_rs_dubbo=20900; h2_rs_tri=15091; h2_tonic=15092; h2_axum=18081
h2_rs_tls_dubbo=20901; h2_rs_tls_tri=15093; h2_tonic_tls=15094; h2_java_tls_dubbo=20902
h2_java_tls_tri=15095; h2_java_rest_tri=15096
h2_url_echo="/org.apache.dubbo.bench.BenchService/Echo"

h2load_ready() {
  if ! command -v h2load >/dev/null; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
      log "installing h2load (Debian package nghttp2-client)"
      apt-get install -y -q nghttp2-client >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nghttp2-client >/dev/null 2>&1; }
    fi
    command -v h2load >/dev/null || { log "h2load missing: install nghttp2-client"; exit 1; }
  fi
}

# h2_start NAME CMD...: starts a server of the row on the server core, waits for READY, and
# leaves its pid in h2_pid (and in h2_pids, for h2_stop_all).
h2_start() {
  local name="$1"; shift
  local log_file="$work/$name.log"
  $prio taskset -c "$server_core" "$@" >"$log_file" 2>&1 &
  h2_pid=$!
  h2_pids+=("$h2_pid")
  for _ in $(seq 1 1200); do
    grep -q READY "$log_file" 2>/dev/null && break
    if ! kill -0 "$h2_pid" 2>/dev/null; then
      log "$name failed to start:"; cat "$log_file" >&2; exit 1
    fi
    sleep 0.1
  done
  grep -q READY "$log_file" || { log "$name never printed READY"; cat "$log_file" >&2; exit 1; }
}

h2_stop_all() {
  local p
  for p in "${h2_pids[@]}"; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  h2_pids=()
}

# The request bodies, made once: a gRPC message (flag 0, length, protobuf Payload{data: 128 x
# 0x5a}) and a JSON user as GET /users/7 answers it.
h2_bodies() {
  python3 - "$work/echo128.grpc" <<'PY'
import sys
msg = bytes([0x0A, 0x80, 0x01]) + bytes([0x5A] * 128)
open(sys.argv[1], "wb").write(b"\x00" + len(msg).to_bytes(4, "big") + msg)
PY
  printf '%s' '{"id":7,"name":"user-7","age":27,"tags":["t7"],"attrs":{"k":"v7"}}' > "$work/user.json"
}

# h2_point ROW SERVER PID DESC CONC CONNS STREAMS H2LOAD-ARGS... URL: one run of one point,
# appended to $work/ROW.csv; the h2load command goes to $work/ROW.cmds once per server, DESC
# and CONC (body files named as in the work directory).
h2_point() {
  local row="$1" server="$2" pid="$3" desc="$4" conc="$5" conns="$6" streams="$7"
  shift 7
  local out="$work/h2load.out" hz t0 t1
  hz="$(getconf CLK_TCK)"
  local quoted
  quoted="$(printf '%q ' "$@")"
  grep -qF "$server|$desc c=$conc|" "$work/$row.cmds" 2>/dev/null ||
    echo "$server|$desc c=$conc|taskset -c $load_core h2load -D $h2_duration ${quoted//$work\//}" >> "$work/$row.cmds"
  $prio taskset -c "$load_core" h2load -D "$h2_warmup" "$@" >/dev/null 2>&1 || true
  rm -f "$work/h2load.log"
  t0="$(proc_cpu_ticks "$pid")"
  if ! $prio taskset -c "$load_core" h2load -D "$h2_duration" --log-file "$work/h2load.log" "$@" \
      >"$out" 2>&1; then
    log "$row $server $desc c=$conc FAILED: $(tail -2 "$out" | tr '\n' ' ')"
    return 0
  fi
  t1="$(proc_cpu_ticks "$pid")"
  python3 - "$out" "$work/h2load.log" "$t0" "$t1" "$hz" "$row" "$server" "$desc" "$conc" \
      "$conns" "$streams" >> "$work/$row.csv" <<'PY'
import re, sys
out, logf, t0, t1, hz, row, server, desc, conc, conns, streams = sys.argv[1:12]
text = open(out).read()
qps = float(re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", text).group(1))
m = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored", text)
ok, failed, errored = int(m.group(1)), int(m.group(2)), int(m.group(3))
data = int(re.search(r"headers \(space savings [^)]*\), [\d.]+[KMG]?B \((\d+)\) data", text).group(1))
lat = sorted(int(l.split("\t")[2]) for l in open(logf) if l.count("\t") == 2)
def pct(p):
    return lat[min(len(lat) - 1, int(len(lat) * p))] if lat else float("nan")
cpu = (int(t1) - int(t0)) / int(hz) * 1e6 / ok if ok else float("nan")
print(f"{row},{server},{desc},{conc},{conns},{streams},{qps:.0f},{pct(0.5)},{pct(0.99)},{cpu:.2f},"
      f"{ok},{failed + errored},{data / ok if ok else 0:.1f}")
PY
  tail -1 "$work/$row.csv" | awk -F, '{ printf "bench: %s %-9s %-22s c=%-3s qps %-7s p50 %-6s p99 %-7s us  srv %-6s us/call  ok %s failed %s  %s B/answer\n", $1, $2, $3, $4, $7, $8, $9, $10, $11, $12, $13 }' >&2
}

# h2_table ROW TITLE PAIRS...: $work/ROW.md from $work/ROW.csv; PAIRS are "A/B" server labels
# whose ratios (QPS, p99, CPU per call) are given for every point both have.
h2_table() {
  local row="$1" title="$2"; shift 2
  python3 - "$work/$row.csv" "$work/$row.cmds" "$title" "$h2_runs" "$h2_duration" "$@" > "$work/$row.md" <<'PY'
import csv, sys
path, cmds_path, title, runs, duration = sys.argv[1:6]
pairs = [p.split("/") for p in sys.argv[6:]]
cols = ["row", "server", "desc", "conc", "conns", "streams", "qps", "p50", "p99", "cpu", "ok", "failed", "bytes"]
rows = [dict(zip(cols, r)) for r in csv.reader(open(path))]
best = {}
for r in rows:
    k = (r["server"], r["desc"], int(r["conc"]))
    b = best.setdefault(k, dict(r, cpu_min=float(r["cpu"]), n=0, failed_all=0))
    b["n"] += 1
    b["failed_all"] += int(r["failed"])
    if float(r["qps"]) > float(b["qps"]):
        for c in ("qps", "p50", "p99", "ok", "bytes"):
            b[c] = r[c]
    b["cpu_min"] = min(b["cpu_min"], float(r["cpu"]))
servers = []
for r in rows:
    if r["server"] not in servers:
        servers.append(r["server"])
keys = sorted({(k[1], k[2]) for k in best}, key=lambda k: (k[0], k[1]))
print(f"### {title}")
print()
print(f"h2load on core 1, servers on core 0; {duration} s measured per run after a warm-up, best of "
      f"{runs} run(s) by QPS (its p50/p99), lowest server CPU per call of the runs.")
print()
print("| request | conc | server | QPS | p50 µs | p99 µs | srv CPU µs/call | B/answer | failed |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for d, c in keys:
    for s in servers:
        b = best.get((s, d, c))
        if b:
            print(f'| {d} | {c} | {s} | {float(b["qps"]):,.0f} | {b["p50"]} | {b["p99"]} | {b["cpu_min"]:.2f} | {b["bytes"]} | {b["failed_all"]} |')
print()
if pairs:
    print("| request | conc | ratio | QPS | p99 | srv CPU per call |")
    print("|---|---:|---|---:|---:|---:|")
    for d, c in keys:
        for a, p in pairs:
            x, y = best.get((a, d, c)), best.get((p, d, c))
            if x and y and float(y["qps"]) > 0 and float(y["p99"]) > 0 and y["cpu_min"] > 0:
                print(f'| {d} | {c} | {a} ÷ {p} | {float(x["qps"]) / float(y["qps"]):.2f}× | '
                      f'{float(x["p99"]) / float(y["p99"]):.2f}× | {x["cpu_min"] / y["cpu_min"]:.2f}× |')
    print()
print("Commands (`-D` seconds measured; the warm-up run is the same with `-D` of the warm-up):")
print()
print("```sh")
for line in open(cmds_path):
    s, d, cmd = line.rstrip("\n").split("|", 2)
    print(f"# {s}, {d}")
    print(cmd)
print("```")
print()
PY
}

# The Triple row: dubbo-rs and tonic, Echo 128 B, one connection, 1/32/100 streams.
triple_h2load_row() {
  h2load_ready
  h2_bodies
  : > "$work/triple-h2load.csv"; : > "$work/triple-h2load.cmds"
  h2_start h2-dubbo-rs "$bin/bench-server" --dubbo-port "$h2_rs_dubbo" --tri-port "$h2_rs_tri"
  local rs_pid=$h2_pid
  h2_start h2-tonic "$bin/tonic-server" --port "$h2_tonic"
  local tonic_pid=$h2_pid
  log "triple-h2load row: Echo 128 B, 1 connection, 1/32/100 streams, ${h2_runs} run(s) of ${h2_duration} s"
  local run m
  for run in $(seq 1 "$h2_runs"); do
    for m in 1 32 100; do
      h2_point triple-h2load dubbo-rs "$rs_pid" "Echo 128 B (h2c)" "$m" 1 "$m" -c 1 -m "$m" \
        -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc" \
        "http://127.0.0.1:$h2_rs_tri$h2_url_echo"
      h2_point triple-h2load tonic "$tonic_pid" "Echo 128 B (h2c)" "$m" 1 "$m" -c 1 -m "$m" \
        -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc" \
        "http://127.0.0.1:$h2_tonic$h2_url_echo"
    done
  done
  h2_stop_all
  h2_table triple-h2load "Triple unary under h2load: dubbo-rs against tonic" "dubbo-rs/tonic"
}

# The REST row: dubbo-rs REST and axum (side by side, points alternating), then Java 3.3's
# triple rest alone; GET /users/7 and POST /users, h1 and h2c, c=32 and 100.
rest_row() {
  h2load_ready
  h2_bodies
  : > "$work/rest.csv"; : > "$work/rest.cmds"
  h2_start rest-dubbo-rs "$bin/bench-server" --dubbo-port "$h2_rs_dubbo" --tri-port "$h2_rs_tri"
  rest_pid_dubbo_rs=$h2_pid
  h2_start rest-axum "$bin/axum-server" --port "$h2_axum"
  rest_pid_axum=$h2_pid
  log "rest row: GET /users/7 and POST /users, HTTP/1.1 and h2c, c=32 and 100, ${h2_runs} run(s) of ${h2_duration} s"
  rest_points dubbo-rs axum
  h2_stop_all
  local rest_jar="${INTEROP_JAVA_REST_JAR:-}"
  if [[ -z "$rest_jar" && ${java:-1} -eq 1 ]] && command -v java >/dev/null && command -v mvn >/dev/null; then
    local vars
    vars="$(bash interop/java/build.sh)" && eval "$vars"
    rest_jar="${INTEROP_JAVA_REST_JAR:-}"
  fi
  if [[ -n "$rest_jar" && ${java:-1} -eq 1 ]]; then
    # Alone on the server core and at normal priority: under SCHED_RR its busy threads (GC,
    # the HTTP/1.1 connections' event loops) starve the core's softirq thread, which carries
    # loopback traffic, and every server on the core stops answering.
    local prio_row=$prio
    prio=""
    DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
      h2_start rest-java java -cp "$rest_jar" org.apache.dubbo.interop.rest.RestProvider --tri-port "$h2_java_rest_tri"
    rest_pid_java=$h2_pid
    prio=$prio_row
    # Java's JIT compiles the paths measured first: every request shape for a while.
    local java_warmup=15 url="http://127.0.0.1:$h2_java_rest_tri/users"
    [[ ${quick:-0} -eq 1 ]] && java_warmup=8
    log "rest row: Java 3.3's triple rest, JIT warm-up of ${java_warmup} s of each request, then its points"
    $prio taskset -c "$load_core" h2load -D "$java_warmup" --h1 -c 32 -m 1 "$url/7" >/dev/null 2>&1 || true
    $prio taskset -c "$load_core" h2load -D "$java_warmup" -c 1 -m 32 "$url/7" >/dev/null 2>&1 || true
    $prio taskset -c "$load_core" h2load -D "$java_warmup" --h1 -c 32 -m 1 \
      -H 'content-type: application/json' -d "$work/user.json" "$url" >/dev/null 2>&1 || true
    $prio taskset -c "$load_core" h2load -D "$java_warmup" -c 1 -m 32 \
      -H 'content-type: application/json' -d "$work/user.json" "$url" >/dev/null 2>&1 || true
    rest_points java
    h2_stop_all
  else
    log "rest row: Java 3.3's triple rest is left out (java or mvn missing, or --no-java)"
  fi
  h2_table rest "REST under h2load: dubbo-rs REST (filter chain included) against axum and Java 3.3's triple rest" \
    "dubbo-rs/axum" "dubbo-rs/java"
}

# rest_points SERVER...: every point of the rest row for each server (rest_pid_SERVER, its
# port), $h2_runs runs, the servers alternating within each point.
rest_points() {
  local run c proto server pid port shape req conns streams
  for run in $(seq 1 "$h2_runs"); do
    for c in 32 100; do
      for req in get post; do
        for proto in h1 h2c; do
          for server in "$@"; do
            case $server in
              dubbo-rs) pid=$rest_pid_dubbo_rs; port=$h2_rs_tri ;;
              axum) pid=$rest_pid_axum; port=$h2_axum ;;
              java) pid=$rest_pid_java; port=$h2_java_rest_tri ;;
            esac
            # h1: one connection per concurrent request (no pipelining); h2c: one connection.
            if [[ $proto == h1 ]]; then
              conns=$c; streams=1; shape=(--h1 -c "$c" -m 1)
            else
              conns=1; streams=$c; shape=(-c 1 -m "$c")
            fi
            if [[ $req == get ]]; then
              h2_point rest "$server" "$pid" "GET /users/7 ($proto)" "$c" "$conns" "$streams" \
                "${shape[@]}" "http://127.0.0.1:$port/users/7"
            else
              h2_point rest "$server" "$pid" "POST /users ($proto)" "$c" "$conns" "$streams" \
                "${shape[@]}" -H 'content-type: application/json' -d "$work/user.json" \
                "http://127.0.0.1:$port/users"
            fi
          done
        done
      done
    done
  done
}

# Certificates for the TLS row: a CA and a P-256 server certificate for 127.0.0.1 (openssl).
tls_bench_certs() {
  local d="$work/tls"
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/ca.key" \
    -out "$d/ca.pem" -days 2 -subj "/CN=dubbo-rs bench CA" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/server.key" \
    -out "$d/server.csr" -subj "/CN=bench-server" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' > "$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
    -days 2 -out "$d/server.pem" -extfile "$d/server.ext" 2>/dev/null
}

# hs_round PORT CONNS BATCH: CONNS new TLS connections to PORT, BATCH at once, one request each;
# prints how many got an answer (any status).
hs_round() {
  local port="$1" conns="$2" batch="$3" i n total=0
  for i in $(seq 1 $((conns / batch))); do
    $prio taskset -c "$load_core" h2load -n "$batch" -c "$batch" -m 1 "https://127.0.0.1:$port/" \
      > "$work/hs.out" 2>&1 || true
    n="$(sed -n 's/^requests: [0-9]* total, [0-9]* started, \([0-9]*\) done.*/\1/p' "$work/hs.out")"
    total=$((total + ${n:-0}))
  done
  echo "$total"
}

# The TLS row.
tls_rate=30000
tls_row() {
  h2load_ready
  h2_bodies
  tls_bench_certs
  local d="$work/tls"
  : > "$work/tls.csv"; : > "$work/tls.cmds"
  h2_start tls-dubbo-rs-plain "$bin/bench-server" --dubbo-port "$h2_rs_dubbo" --tri-port "$h2_rs_tri"
  local plain_pid=$h2_pid
  h2_start tls-dubbo-rs-tls "$bin/bench-server" --dubbo-port "$h2_rs_tls_dubbo" \
    --tri-port "$h2_rs_tls_tri" --tls-cert "$d/server.pem" --tls-key "$d/server.key"
  local tls_pid=$h2_pid
  h2_start tls-tonic-tls "$bin/tonic-server" --port "$h2_tonic_tls" --tls-cert "$d/server.pem" \
    --tls-key "$d/server.key"
  local tonic_pid=$h2_pid

  # dubbo:// echo128, c=32, open loop at a rate both sustain: consumer CPU from /usr/bin/time
  # over every call (warm-up included), provider CPU from /proc/<pid>/stat.
  local hz calls run mode port pid t0 t1 cpu pcpu qps errors ca
  hz="$(getconf CLK_TCK)"
  calls=$((tls_rate * (h2_duration + 1)))
  echo "mode,run,consumer_cpu_us_per_call,provider_cpu_us_per_call,qps,errors" > "$work/tls-dubbo.csv"
  log "tls row: dubbo:// echo128 c=32 at $tls_rate calls/s, TLS against plaintext, $tls_runs runs each"
  for run in $(seq 1 "$tls_runs"); do
    for mode in tls plain; do
      port=$h2_rs_dubbo; pid=$plain_pid; ca=""
      [[ $mode == tls ]] && { port=$h2_rs_tls_dubbo; pid=$tls_pid; ca="$d/ca.pem"; }
      rm -f "$work/tls-point.csv"
      t0="$(proc_cpu_ticks "$pid")"
      if ! env ${ca:+DUBBO_BENCH_TLS_CA="$ca"} /usr/bin/time -f "%U %S" -o "$work/tls-time.txt" \
          $prio taskset -c "$load_core" "$bin/dubbo-bench" --target dubbo \
          --addr "127.0.0.1:$port" --scenario echo128 --concurrency 32 --rate "$tls_rate" \
          --duration "${h2_duration}s" --warmup 1s --csv "$work/tls-point.csv" --quiet \
          >/dev/null 2>"$work/last.err"; then
        log "tls row dubbo:// $mode run $run FAILED: $(tail -1 "$work/last.err")"
        continue
      fi
      t1="$(proc_cpu_ticks "$pid")"
      cpu="$(awk -v n="$calls" 'END { printf "%.3f", ($1 + $2) * 1e6 / n }' "$work/tls-time.txt")"
      pcpu="$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$calls" 'BEGIN { printf "%.3f", (b - a) / hz * 1e6 / n }')"
      qps="$(awk -F, 'NR==2 { printf "%d", $10 }' "$work/tls-point.csv")"
      errors="$(awk -F, 'NR==2 { print $9 }' "$work/tls-point.csv")"
      echo "$mode,$run,$cpu,$pcpu,$qps,$errors" >> "$work/tls-dubbo.csv"
      log "tls row run $run: dubbo:// $mode  consumer $cpu us/call  provider $pcpu us/call  qps $qps  errors $errors"
    done
  done

  # Triple Echo under h2load: dubbo-rs over TLS, dubbo-rs plaintext, tonic over TLS.
  log "tls row: Triple Echo 128 B under h2load, 1 connection, 32 and 100 streams, ${h2_runs} run(s)"
  local m
  for run in $(seq 1 "$h2_runs"); do
    for m in 32 100; do
      h2_point tls dubbo-rs-tls "$tls_pid" "Echo 128 B (h2 TLS or h2c)" "$m" 1 "$m" -c 1 -m "$m" \
        -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc" \
        "https://127.0.0.1:$h2_rs_tls_tri$h2_url_echo"
      h2_point tls dubbo-rs-plain "$plain_pid" "Echo 128 B (h2 TLS or h2c)" "$m" 1 "$m" -c 1 -m "$m" \
        -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc" \
        "http://127.0.0.1:$h2_rs_tri$h2_url_echo"
      h2_point tls tonic-tls "$tonic_pid" "Echo 128 B (h2 TLS or h2c)" "$m" 1 "$m" -c 1 -m "$m" \
        -H 'content-type: application/grpc' -H 'te: trailers' -d "$work/echo128.grpc" \
        "https://127.0.0.1:$h2_tonic_tls$h2_url_echo"
    done
  done
  h2_stop_all

  # New TLS handshakes: batches of $hs_batch connections at once, each opened, handshaken
  # (TLS 1.3, P-256 certificate), one HTTP/2 request (GET /, a 404 from both) and closed,
  # $hs_conns connections a round; server CPU per connection (/proc/<pid>/stat, so a server's
  # own background work counts too) and connections per second of wall time.
  local hs_conns=200 hs_batch=20
  echo "server,round,conns,seconds,handshakes_per_s,server_cpu_us_per_handshake,done" > "$work/tls-hs.csv"
  local java_jar="${INTEROP_JAVA_DUBBO_JAR:-}"
  if [[ -z "$java_jar" && ${java:-1} -eq 1 ]] && command -v java >/dev/null && command -v mvn >/dev/null; then
    local vars
    vars="$(bash interop/java/build.sh)" && eval "$vars"
    java_jar="${INTEROP_JAVA_DUBBO_JAR:-}"
  fi
  h2_start tls-hs-dubbo-rs "$bin/bench-server" --dubbo-port "$h2_rs_tls_dubbo" \
    --tri-port "$h2_rs_tls_tri" --tls-cert "$d/server.pem" --tls-key "$d/server.key"
  local hs_servers=("dubbo-rs $h2_pid $h2_rs_tls_tri")
  if [[ -n "$java_jar" && ${java:-1} -eq 1 ]]; then
    DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
      h2_start tls-hs-java java -cp "$java_jar" org.apache.dubbo.interop.Provider \
      --dubbo-port "$h2_java_tls_dubbo" --tri-port "$h2_java_tls_tri" \
      --tls-cert "$d/server.pem" --tls-key "$d/server.key"
    hs_servers+=("java $h2_pid $h2_java_tls_tri")
    log "tls row: Java's JIT warm-up, $((hs_conns * 2)) handshakes"
    hs_round "$h2_java_tls_tri" $((hs_conns * 2)) "$hs_batch" >/dev/null
  else
    log "tls row: the Java 3.3 provider is left out (java or mvn missing, or --no-java): handshakes of dubbo-rs only"
  fi
  echo "handshakes|h2load, $hs_conns connections a round|for i in \$(seq $((hs_conns / hs_batch))); do taskset -c $load_core h2load -n $hs_batch -c $hs_batch -m 1 https://127.0.0.1:PORT/; done" >> "$work/tls.cmds"
  log "tls row: new TLS handshakes, $hs_conns connections a round ($hs_batch at once), $hs_rounds rounds"
  local round s name spid sport t_start t_end done_
  for round in $(seq 1 "$hs_rounds"); do
    for s in "${hs_servers[@]}"; do
      read -r name spid sport <<< "$s"
      t0="$(proc_cpu_ticks "$spid")"
      t_start="$(date +%s.%N)"
      done_="$(hs_round "$sport" "$hs_conns" "$hs_batch")"
      t_end="$(date +%s.%N)"
      t1="$(proc_cpu_ticks "$spid")"
      if [[ -z "$done_" || "$done_" -eq 0 ]]; then
        log "tls row handshakes $name round $round FAILED: $(tail -2 "$work/hs.out" | tr '\n' ' ')"
        continue
      fi
      awk -v n="$name" -v r="$round" -v c="$hs_conns" -v s0="$t_start" -v s1="$t_end" -v a="$t0" -v b="$t1" -v hz="$hz" -v d="$done_" \
        'BEGIN { s = s1 - s0; printf "%s,%s,%s,%.3f,%.0f,%.1f,%s\n", n, r, c, s, d / s, (b - a) / hz * 1e6 / d, d }' >> "$work/tls-hs.csv"
      tail -1 "$work/tls-hs.csv" | awk -F, '{ printf "bench: tls handshakes %s round %s: %s/s, server %s us per handshake (%s of %s done)\n", $1, $2, $5, $6, $7, $3 }' >&2
    done
  done
  h2_stop_all

  h2_table tls "TLS: Triple under h2load over TLS (dubbo-rs, tonic) and plaintext (dubbo-rs)" \
    "dubbo-rs-tls/dubbo-rs-plain" "dubbo-rs-tls/tonic-tls"
  python3 - "$work/tls-dubbo.csv" "$work/tls-hs.csv" "$tls_rate" "$h2_duration" "$load_core" >> "$work/tls.md" <<'PY'
import csv, sys
dub, hs, rate, duration, core = sys.argv[1:6]
d = {}
for r in csv.DictReader(open(dub)):
    d.setdefault(r["mode"], []).append(r)
if d.get("tls") and d.get("plain"):
    print("### TLS: dubbo:// over TLS against plaintext (dubbo-bench)")
    print()
    print(f"echo128, 32 callers, open loop at {rate} calls/s, {duration} s after 1 s warm-up, runs alternating; "
          "consumer CPU from `/usr/bin/time` over every call, provider CPU from /proc/<pid>/stat. "
          "µs per call, best (mean):")
    print()
    print("| mode | consumer | provider | consumer + provider | runs | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    agg = {}
    for m in ("tls", "plain"):
        rs = d[m]
        c = [float(r["consumer_cpu_us_per_call"]) for r in rs]
        p = [float(r["provider_cpu_us_per_call"]) for r in rs]
        s = [a + b for a, b in zip(c, p)]
        agg[m] = (min(c), sum(c) / len(c), min(p), sum(p) / len(p), min(s), sum(s) / len(s))
        errs = sum(int(r["errors"] or 0) for r in rs)
        a = agg[m]
        print(f"| {m} | {a[0]:.2f} ({a[1]:.2f}) | {a[2]:.2f} ({a[3]:.2f}) | {a[4]:.2f} ({a[5]:.2f}) | {len(rs)} | {errs} |")
    t, p = agg["tls"], agg["plain"]
    print(f"| TLS ÷ plaintext | {t[0] / p[0]:.3f}× ({t[1] / p[1]:.3f}×) | {t[2] / p[2]:.3f}× ({t[3] / p[3]:.3f}×) | "
          f"{t[4] / p[4]:.3f}× ({t[5] / p[5]:.3f}×) | | |")
    print()
    print("```sh")
    print(f"DUBBO_BENCH_TLS_CA=ca.pem /usr/bin/time -f '%U %S' taskset -c {core} target/perf/dubbo-bench --target dubbo "
          f"--addr 127.0.0.1:PORT --scenario echo128 --concurrency 32 --rate {rate} --duration {duration}s --warmup 1s --quiet")
    print("```")
    print()
h = {}
for r in csv.DictReader(open(hs)):
    h.setdefault(r["server"], []).append(r)
if h:
    print("### TLS: new handshakes (TLS 1.3, P-256 certificate)")
    print()
    print("h2load, batches of 20 new connections at once, one HTTP/2 request each (`GET /`, a 404 from both). "
          "Rate = connections ÷ wall time of the round (the client's own handshake work included); server CPU "
          "per handshake from /proc/<pid>/stat (the server's background work included). Best (mean) of the rounds:")
    print()
    print("| server | handshakes/s | server CPU µs per handshake | rounds |")
    print("|---|---:|---:|---:|")
    best = {}
    for s, rs in h.items():
        q = [float(r["handshakes_per_s"]) for r in rs]
        c = [float(r["server_cpu_us_per_handshake"]) for r in rs]
        best[s] = (max(q), min(c))
        print(f"| {s} | {max(q):,.0f} ({sum(q) / len(q):,.0f}) | {min(c):.1f} ({sum(c) / len(c):.1f}) | {len(rs)} |")
    if "dubbo-rs" in best and "java" in best:
        a, b = best["dubbo-rs"], best["java"]
        print(f"| dubbo-rs ÷ Java | {a[0] / b[0]:.2f}× | {a[1] / b[1]:.2f}× | |")
    print()
PY
}
