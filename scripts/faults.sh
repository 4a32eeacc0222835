# Fault injection (sourced by scripts/test.sh; `bash scripts/test.sh --only faults`): consumers
# under load while providers, links and ZooKeeper fail in the ways production sees, with
# target/debug/fault-proxy between the parties where a link must fail. Every step prints the
# calls made, the calls failed, the time to recover and the bound it checks. Rust peers only:
# what is checked is how a dubbo-rs consumer and server behave, and a Java peer adds nothing to
# that but minutes of JVM start-up.
#
# Uses test.sh's step, start_server, stop_server, zookeeper_up, zk_nodes_of_port, rust_client,
# $WORK, $PIDS and $TARGET_DIR.

# Ports, all on 127.0.0.1 and below the ephemeral range: Rust providers (dubbo://, tri://),
# fault proxies and their control ports.
FAULT_DUBBO=(26880 26881 26882 26883)
FAULT_TRI=(16880 16881 16882 16883)
FAULT_PROXY=(26890 26891)
FAULT_CONTROL=(26895 26896)
FAULT_APP=faults-provider
# ZooKeeper with a 4 s session (its least: two ticks of 2 s), so an expiry takes seconds.
FAULT_ZK=
# Recovery bounds, in ms: a new provider in use after its READY (ZooKeeper's notification, the
# consumer's connect and first call, within 2 s), and an expired provider's nodes back and in
# use after its link to ZooKeeper returns (the client's reconnect, a new session, the nodes, the
# notification).
FAULT_NEW_PROVIDER_BOUND_MS=2000
FAULT_SESSION_BOUND_MS=5000
# The server's resident memory under the connection flood, in kB.
FAULT_RSS_BOUND_KB=204800

now_ms() { date +%s%3N; }

# When server $1 printed READY, in ms since the epoch: its stdout's last write (start_server
# polls for READY every 0.2 s, so its return is later).
ready_ms() { stat -c %.3Y "$WORK/$1.out" | tr -d .; }

# Rust provider $1 on its own ports; with $2, registering there as $FAULT_APP.
fault_provider_up() {
  local i=$1 reg=()
  [ -n "${2:-}" ] && reg=(--registry "$2" --app "$FAULT_APP")
  start_server "fault_provider_$i" "$TARGET_DIR/debug/interop-server" \
    --dubbo-port "${FAULT_DUBBO[$i]}" --tri-port "${FAULT_TRI[$i]}" "${reg[@]}"
}

# Proxy $1 (0 or 1) from FAULT_PROXY[$1] to port $2, commands on FAULT_CONTROL[$1].
fault_proxy_up() {
  start_server "fault_proxy_$1" "$TARGET_DIR/debug/fault-proxy" --listen "127.0.0.1:${FAULT_PROXY[$1]}" \
    --target "127.0.0.1:$2" --control "127.0.0.1:${FAULT_CONTROL[$1]}" --max-seconds 300
}

# Sends command $2 to proxy $1; passes on `ok`.
fault_ctl() {
  local reply
  reply=$(bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1; echo "$2" >&3; read -r -t 5 reply <&3; echo "$reply"' \
    _ "${FAULT_CONTROL[$1]}" "$2")
  echo "proxy $1: $2 -> ${reply:-no answer}"
  [ "$reply" = ok ]
}

# A load run in the background: output in $WORK/$1.out, its pid in LOAD_PID.
fault_load() {
  local name=$1
  shift
  rust_client "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  LOAD_PID=$!
  PIDS+=("$LOAD_PID")
}

# Field $3 (first-ms, last-ms, longest-gap-ms, gap-end-ms) of the provider on port $2 in load
# output $1; calls when $3 is "calls".
load_figure() {
  if [ "$3" = calls ]; then
    awk -v p="$2" '$1 == "provider" && $3 == "calls" && $2 ~ (":" p "$") { print $4 }' "$1"
  else
    awk -v p="$2" -v f="$3" '$1 == "provider-times" && $2 ~ (":" p "$") {
      for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$1"
  fi
}

# "calls made N, failed M" of load output $1; sets LOAD_PASSED and LOAD_FAILED.
load_counts() {
  read -r LOAD_PASSED LOAD_FAILED < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n 1)
  LOAD_PASSED=${LOAD_PASSED:-0}
  LOAD_FAILED=${LOAD_FAILED:-0}
  echo "calls made $((LOAD_PASSED + LOAD_FAILED)), failed $LOAD_FAILED"
}

# Waits for the load in LOAD_PID, shows its output $1 and its first errors.
load_done() {
  wait "$LOAD_PID"
  grep -E '^(provider|load-start|[0-9]+ passed)' "$WORK/$1.out"
  head -n 3 "$WORK/$1.err"
}

# 1. Failure storm: the only provider leaves (SIGTERM: it unregisters, the consumer's directory
# empties and every call fails at once with NoProvider, four callers retrying without pause);
# 4 s later another provider registers: the running consumer, on the runtime $@ asks for, must
# call it within FAULT_NEW_PROVIDER_BOUND_MS of its READY.
faults_storm() {
  local ready start first calls recovered
  fault_provider_up 0 "$FAULT_ZK" || return 1
  fault_load storm --registry "$FAULT_ZK" --load 1000000000 --duration 14 --concurrency 4 "$@"
  sleep 2
  stop_server fault_provider_0 || return 1
  echo "provider ${FAULT_DUBBO[0]} stopped (SIGTERM): unregistered, every call now fails at once"
  sleep 4
  fault_provider_up 1 "$FAULT_ZK" || return 1
  ready=$(ready_ms fault_provider_1)
  echo "provider ${FAULT_DUBBO[1]} registered (READY)"
  kill -0 "$LOAD_PID" 2>/dev/null || { echo "the load ended before the new provider registered"; return 1; }
  load_done storm
  stop_server fault_provider_1 >/dev/null 2>&1
  load_counts "$WORK/storm.out"
  start=$(sed -n 's/^load-start unix-ms //p' "$WORK/storm.out")
  calls=$(load_figure "$WORK/storm.out" "${FAULT_DUBBO[1]}" calls)
  first=$(load_figure "$WORK/storm.out" "${FAULT_DUBBO[1]}" first-ms)
  [ "$LOAD_FAILED" -gt 0 ] || { echo "no call failed: the provider's leaving was not seen"; return 1; }
  [ -n "$calls" ] && [ -n "$start" ] && [ -n "$first" ] ||
    { echo "the new provider got 0 calls while the load ran"; return 1; }
  recovered=$((start + first - ready))
  # Negative: answered between its registration and its READY (printed once it is ready).
  echo "new provider: $calls calls, first answer $recovered ms after its READY (bound $FAULT_NEW_PROVIDER_BOUND_MS ms; negative: before READY, right after it registered)"
  [ "$recovered" -le "$FAULT_NEW_PROVIDER_BOUND_MS" ]
}

# 1b. ZooKeeper session expiry of the only provider: its link to ZooKeeper (through proxy 0) is
# blackholed until ZooKeeper expires its session (the nodes go, the consumer's calls fail at once,
# a storm on one worker), then passed again: the provider opens a new session and re-creates its
# nodes, and the running consumer calls it again within FAULT_SESSION_BOUND_MS.
faults_session_expiry() {
  local zk_port=${ZK_URL##*:} start t_pass gap_end last recovered n rc=0
  fault_proxy_up 0 "$zk_port" || return 1
  fault_provider_up 2 "zookeeper://127.0.0.1:${FAULT_PROXY[0]}?session=4000" || return 1
  fault_load expiry --registry "$FAULT_ZK" --load 1000000000 --duration 22 --concurrency 4 --worker-threads 1
  sleep 2
  fault_ctl 0 blackhole || rc=1
  sleep 10
  fault_ctl 0 pass || rc=1
  t_pass=$(now_ms)
  for _ in $(seq 1 20); do
    n=$(zk_nodes_of_port "${FAULT_DUBBO[2]}" | wc -l)
    [ "$n" -ge 2 ] && break
    sleep 0.5
  done
  echo "ZooKeeper nodes of the provider after the link returned: $n (at least 2: interface and instance)"
  [ "$n" -ge 2 ] || rc=1
  kill -0 "$LOAD_PID" 2>/dev/null || { echo "the load ended too early"; rc=1; }
  load_done expiry
  stop_server fault_provider_2 >/dev/null 2>&1
  stop_server fault_proxy_0 >/dev/null 2>&1
  load_counts "$WORK/expiry.out"
  start=$(sed -n 's/^load-start unix-ms //p' "$WORK/expiry.out")
  gap_end=$(load_figure "$WORK/expiry.out" "${FAULT_DUBBO[2]}" gap-end-ms)
  last=$(load_figure "$WORK/expiry.out" "${FAULT_DUBBO[2]}" last-ms)
  [ -n "$start" ] && [ -n "$gap_end" ] || { echo "the provider never answered"; return 1; }
  [ "$LOAD_FAILED" -gt 0 ] || { echo "no call failed: the session did not expire"; rc=1; }
  echo "provider out of use for $(load_figure "$WORK/expiry.out" "${FAULT_DUBBO[2]}" longest-gap-ms) ms"
  recovered=$((start + gap_end - t_pass))
  echo "calls again $recovered ms after its link to ZooKeeper returned (bound $FAULT_SESSION_BOUND_MS ms), last answer at $last ms of the load"
  [ "$start" -le $((t_pass)) ] && [ $((start + last)) -gt "$t_pass" ] || { echo "not called after the link returned"; rc=1; }
  [ "$recovered" -ge 0 ] && [ "$recovered" -le "$FAULT_SESSION_BOUND_MS" ] || rc=1
  return $rc
}

# 1c. ZooKeeper session expiry of the consumer: an override rule keeps provider 2 out of use
# (disabled: true) before the load starts; the consumer's link to ZooKeeper (its registry and
# config centre, through proxy 0) is blackholed until ZooKeeper expires its session, and provider
# 1 registers meanwhile. Provider 0 stays up throughout, so no call may fail. Once the link
# passes again the consumer opens a new session and subscribes again: provider 1 is called within
# FAULT_SESSION_BOUND_MS, and provider 2 still gets no call (the rule is read again and still
# applies).
faults_consumer_session_expiry() {
  local zk_port=${ZK_URL##*:} rc=0 t_pass start first calls0 calls1 calls2 recovered
  local rule_key="org.apache.dubbo.interop.InteropService:1.0.0:.configurators"
  fault_provider_up 0 "$FAULT_ZK" || return 1
  fault_provider_up 2 "$FAULT_ZK" || return 1
  printf 'configVersion: v3.0\nscope: service\nkey: org.apache.dubbo.interop.InteropService:1.0.0\nenabled: true\nconfigs:\n  - side: provider\n    addresses: ["[::ffff:127.0.0.1]:%s"]\n    parameters:\n      disabled: true\n' \
    "${FAULT_DUBBO[2]}" | gov_put "$rule_key" || return 1
  echo "override rule written: provider ${FAULT_DUBBO[2]} disabled"
  fault_proxy_up 0 "$zk_port" || return 1
  fault_load cexpiry --registry "zookeeper://127.0.0.1:${FAULT_PROXY[0]}?session=4000" --app faults-consumer \
    --load 1000000000 --duration 24 --concurrency 4 --worker-threads 1
  sleep 3
  fault_ctl 0 blackhole || rc=1
  sleep 2
  fault_provider_up 1 "$FAULT_ZK" || rc=1
  echo "provider ${FAULT_DUBBO[1]} registered while the consumer's link to ZooKeeper is dark"
  sleep 8
  fault_ctl 0 pass || rc=1
  t_pass=$(now_ms)
  kill -0 "$LOAD_PID" 2>/dev/null || { echo "the load ended too early"; rc=1; }
  load_done cexpiry
  for i in 0 1 2; do stop_server "fault_provider_$i" >/dev/null 2>&1; done
  stop_server fault_proxy_0 >/dev/null 2>&1
  gov_delete "$rule_key" >/dev/null 2>&1
  load_counts "$WORK/cexpiry.out"
  start=$(sed -n 's/^load-start unix-ms //p' "$WORK/cexpiry.out")
  calls0=$(load_figure "$WORK/cexpiry.out" "${FAULT_DUBBO[0]}" calls)
  calls1=$(load_figure "$WORK/cexpiry.out" "${FAULT_DUBBO[1]}" calls)
  calls2=$(load_figure "$WORK/cexpiry.out" "${FAULT_DUBBO[2]}" calls)
  first=$(load_figure "$WORK/cexpiry.out" "${FAULT_DUBBO[1]}" first-ms)
  echo "calls: provider 0 ${calls0:-0}, new provider 1 ${calls1:-0}, disabled provider 2 ${calls2:-0}"
  [ "$LOAD_FAILED" -eq 0 ] || { echo "calls failed while provider 0 was up (bound 0)"; rc=1; }
  [ -z "$calls2" ] || { echo "the disabled provider got calls: the rule was lost"; rc=1; }
  [ -n "$calls1" ] && [ -n "$first" ] && [ -n "$start" ] ||
    { echo "the new provider got no call: the consumer did not subscribe again"; return 1; }
  recovered=$((start + first - t_pass))
  echo "new provider first called $recovered ms after the consumer's link returned (bound $FAULT_SESSION_BOUND_MS ms)"
  [ "$recovered" -le "$FAULT_SESSION_BOUND_MS" ] || rc=1
  return $rc
}

# The two direct providers of the checks below, the second one at port $1 (itself or a proxy).
fault_pair_url() {
  echo "dubbo://127.0.0.1:${FAULT_DUBBO[0]};dubbo://127.0.0.1:$1"
}

# Load over two providers (failover, 300 ms timeout) while `$2 start` disturbs the one seen at
# port $1 for 4 s and `$2 end` ends that: 0 failed calls, and that provider answers again.
fault_pair_check() {
  local port=$1 action=$2 start t_end last calls
  fault_load "pair-$action" --url "$(fault_pair_url "$port")" --load 1000000000 --duration 10 --concurrency 4 --timeout 300
  sleep 2
  "$action" start || return 1
  sleep 4
  t_end=$(now_ms)
  "$action" end || return 1
  load_done "pair-$action"
  load_counts "$WORK/pair-$action.out"
  start=$(sed -n 's/^load-start unix-ms //p' "$WORK/pair-$action.out")
  calls=$(load_figure "$WORK/pair-$action.out" "$port" calls)
  last=$(load_figure "$WORK/pair-$action.out" "$port" last-ms)
  [ -n "$start" ] && [ -n "$last" ] || { echo "the disturbed provider never answered"; return 1; }
  echo "disturbed provider: $calls calls, out of use for $(load_figure "$WORK/pair-$action.out" "$port" longest-gap-ms) ms, answered again $((start + $(load_figure "$WORK/pair-$action.out" "$port" gap-end-ms) - t_end)) ms after the fault ended"
  [ "$LOAD_FAILED" -eq 0 ] || { echo "calls failed while the other provider was up (bound 0)"; return 1; }
  [ $((start + last)) -gt "$t_end" ] || { echo "the provider did not answer after the fault ended"; return 1; }
}

fault_sigstop() {
  local pid=${PID_fault_provider_1:-}
  case $1 in
    start) kill -STOP "$pid" && echo "provider ${FAULT_DUBBO[1]} frozen (SIGSTOP)" ;;
    end) kill -CONT "$pid" && echo "provider ${FAULT_DUBBO[1]} thawed (SIGCONT)" ;;
  esac
}
fault_blackhole() {
  case $1 in start) fault_ctl 1 blackhole ;; end) fault_ctl 1 pass ;; esac
}
fault_half_open() {
  case $1 in start) fault_ctl 1 half-open ;; end) fault_ctl 1 pass ;; esac
}

faults_frozen() { fault_pair_check "${FAULT_DUBBO[1]}" fault_sigstop; }
faults_blackhole() { fault_pair_check "${FAULT_PROXY[1]}" fault_blackhole; }
faults_half_open() { fault_pair_check "${FAULT_PROXY[1]}" fault_half_open; }

# 3. A slowloris client and a connection flood against one Rust server: 150 connections each to
# its dubbo:// and tri:// ports sending a partial dubbo header (then body) or a partial HTTP/2
# preface one byte a second, and 1000 connections each opened and held; meanwhile the case runs
# over dubbo:// and tri:// pass, and the server's VmRSS stays under FAULT_RSS_BOUND_KB.
fault_flood_client() {
  cat >"$WORK/flood.py" <<'PY'
import socket, sys, time
dubbo, tri, slow_each, held_each, secs = (int(a) for a in sys.argv[1:6])
# A dubbo request header announcing a 1000-byte body, and HTTP/2's client preface.
dubbo_bytes = bytes([0xda, 0xbb, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x03, 0xe8]) + b"x" * 1000
tri_bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
def dial(port):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s
slow = [(dial(dubbo), dubbo_bytes) for _ in range(slow_each)] + [(dial(tri), tri_bytes) for _ in range(slow_each)]
held = [dial(dubbo) for _ in range(held_each)] + [dial(tri) for _ in range(held_each)]
slow = [(s, b) for s, b in slow if s is not None]
held = [s for s in held if s is not None]
print(f"open: {len(slow)} slow, {len(held)} held", flush=True)
closed = set()
for i in range(secs):
    for s, b in slow:
        if s in closed:
            continue
        try:
            s.send(b[i % len(b):i % len(b) + 1])
        except OSError:
            closed.add(s)
    time.sleep(1)
def alive(s):
    try:
        return s.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
print(f"after {secs} s: {sum(1 for s, _ in slow if s not in closed and alive(s))} slow and "
      f"{sum(1 for s in held if alive(s))} held connections still open", flush=True)
PY
}

faults_flood() {
  local pid=${PID_fault_provider_3:-} flood rss max=0 rc=0 out proto port
  [ -n "$pid" ] || return 1
  fault_flood_client
  python3 "$WORK/flood.py" "${FAULT_DUBBO[3]}" "${FAULT_TRI[3]}" 150 1000 20 >"$WORK/flood.out" 2>&1 &
  flood=$!
  PIDS+=("$flood")
  for _ in $(seq 1 50); do grep -q '^open' "$WORK/flood.out" && break; sleep 0.2; done
  cat "$WORK/flood.out"
  echo "server connections: $(ss -tanH state established "( sport = :${FAULT_DUBBO[3]} or sport = :${FAULT_TRI[3]} )" | wc -l)"
  while kill -0 "$flood" 2>/dev/null; do
    for proto in dubbo tri; do
      [ $proto = dubbo ] && port=${FAULT_DUBBO[3]} || port=${FAULT_TRI[3]}
      out=$(rust_client --url "$proto://127.0.0.1:$port" --timeout 3000 2>&1)
      echo "$proto:// case run during the flood: $(echo "$out" | tail -n 1)"
      echo "$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed$' || rc=1
    done
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
    [ "${rss:-0}" -gt "$max" ] && max=$rss
    sleep 1
  done
  wait "$flood"
  cat "$WORK/flood.out"
  echo "server VmRSS at most $max kB during the flood (bound $FAULT_RSS_BOUND_KB kB)"
  [ "$max" -gt 0 ] && [ "$max" -le "$FAULT_RSS_BOUND_KB" ] || rc=1
  return $rc
}

faults_steps() {
  step "start ZooKeeper (faults)" zookeeper_up faults-zk
  FAULT_ZK="$ZK_URL?session=4000"
  step "failure storm, one-worker consumer: the only provider leaves (every call fails at once), a new one registers 4 s later and is called within ${FAULT_NEW_PROVIDER_BOUND_MS} ms of its READY" \
    faults_storm --worker-threads 1
  step "failure storm, current-thread consumer: the same" \
    faults_storm --current-thread
  step "ZooKeeper session expiry of the only provider (its link blackholed 10 s): nodes re-created in a new session, the one-worker consumer under storm load calls it again within ${FAULT_SESSION_BOUND_MS} ms" \
    faults_session_expiry
  step "ZooKeeper session expiry of a one-worker consumer (its link blackholed 10 s) while a provider registers: new session, subscriptions restored (the new provider called within ${FAULT_SESSION_BOUND_MS} ms), an override rule still applied, 0 failed" \
    faults_consumer_session_expiry
  step "start two direct Rust providers and a proxy to the second" \
    eval 'fault_provider_up 0 && fault_provider_up 1 && fault_proxy_up 1 "${FAULT_DUBBO[1]}"'
  step "provider frozen 4 s by SIGSTOP, load with failover and a 300 ms timeout: 0 failed, it answers again after SIGCONT" \
    faults_frozen
  step "link to a provider blackholed 4 s: 0 failed, the provider answers again after pass" \
    faults_blackhole
  step "link to a provider half-open 4 s (silence, never closed): 0 failed, the provider answers again after pass" \
    faults_half_open
  for i in 0 1; do stop_server "fault_provider_$i" >/dev/null 2>&1 || true; done
  stop_server fault_proxy_1 >/dev/null 2>&1 || true
  step "start a Rust provider for the connection flood" fault_provider_up 3
  step "slowloris (300 connections, a byte a second) and 2000 idle connections on dubbo:// and tri://: case runs keep passing, server memory bounded" \
    faults_flood
  step "Rust provider exits cleanly on SIGTERM after the flood" stop_server fault_provider_3
  step "ZooKeeper exits on SIGTERM" stop_server zookeeper
}
