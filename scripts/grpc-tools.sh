# gRPC tooling against the Triple port: grpcurl (Go, from the module proxy) lists, describes and
# calls services through server reflection, and reads grpc.health.v1.Health, also while a
# provider shuts down gracefully. Sourced by scripts/test.sh, which provides step,
# start_server, stop_server, free_port, WORK and TARGET_DIR.

GRPCURL_VERSION=v1.9.3
GRPCURL=

install_grpcurl() {
  local bin
  bin="$(go env GOPATH 2>/dev/null)/bin/grpcurl"
  if [ ! -x "$bin" ]; then
    command -v go >/dev/null || { echo "go is not installed"; return 1; }
    go install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$GRPCURL_VERSION" || return 1
  fi
  GRPCURL=$bin
  "$GRPCURL" -version
}

# Reflection lists every service of the interop server (both contract services, health and
# reflection itself), describes Greeter, and grpcurl calls it with JSON it converts through the
# descriptors the server sent.
grpcurl_reflection() {
  local addr=$1 out rc=0
  out=$("$GRPCURL" -plaintext "$addr" list) || return 1
  echo "$out"
  for s in org.apache.dubbo.interop.InteropService org.apache.dubbo.interop.tri.Greeter \
    grpc.health.v1.Health grpc.reflection.v1.ServerReflection grpc.reflection.v1alpha.ServerReflection; do
    grep -qx "$s" <<<"$out" || { echo "list lacks $s"; rc=1; }
  done
  out=$("$GRPCURL" -plaintext "$addr" describe org.apache.dubbo.interop.tri.Greeter) || return 1
  for m in Greet GreetServerStream GreetClientStream GreetBiStream; do
    grep -q "rpc $m (" <<<"$out" || { echo "describe lacks $m"; rc=1; }
  done
  out=$("$GRPCURL" -plaintext -d '{"name":"grpcurl"}' "$addr" org.apache.dubbo.interop.tri.Greeter/Greet) || return 1
  echo "$out"
  grep -q '"message": "Hello grpcurl"' <<<"$out" || rc=1
  out=$("$GRPCURL" -plaintext -d '{"name":"s"}' "$addr" org.apache.dubbo.interop.tri.Greeter/GreetServerStream) || return 1
  [ "$(grep -c '"message": "Hello s #' <<<"$out")" -eq 10 ] || { echo "server stream: $out"; rc=1; }
  return $rc
}

grpcurl_health() {
  local addr=$1 out rc=0
  out=$("$GRPCURL" -plaintext "$addr" grpc.health.v1.Health/Check) || return 1
  echo "whole server: $out"
  grep -q '"status": "SERVING"' <<<"$out" || rc=1
  out=$("$GRPCURL" -plaintext -d '{"service":"org.apache.dubbo.interop.InteropService"}' "$addr" grpc.health.v1.Health/Check) || return 1
  grep -q '"status": "SERVING"' <<<"$out" || { echo "InteropService: $out"; rc=1; }
  if out=$("$GRPCURL" -plaintext -d '{"service":"no.such.Service"}' "$addr" grpc.health.v1.Health/Check 2>&1); then
    echo "an unknown service was answered: $out"; rc=1
  else
    grep -q "NotFound" <<<"$out" || { echo "unknown service: $out"; rc=1; }
  fi
  return $rc
}

# A provider under SIGTERM: a health watcher sees SERVING, then NOT_SERVING, and the provider
# exits well within its shutdown wait (the watch does not hold the drain).
grpcurl_health_during_shutdown() {
  local dubbo tri pid start out
  dubbo=$(free_port)
  tri=$(free_port)
  start_server health_provider "$TARGET_DIR/debug/interop-server" --dubbo-port "$dubbo" --tri-port "$tri" || return 1
  "$GRPCURL" -plaintext -max-time 30 "127.0.0.1:$tri" grpc.health.v1.Health/Watch >"$WORK/health-watch.out" 2>&1 &
  local watcher=$!
  sleep 1
  pid=$PID_health_provider
  start=$SECONDS
  stop_server health_provider || return 1
  wait "$watcher" 2>/dev/null
  out=$(cat "$WORK/health-watch.out")
  echo "$out"
  echo "provider exited $((SECONDS - start)) s after SIGTERM"
  [ "$(grep -c '"status": "SERVING"' <<<"$out")" -ge 1 ] || return 1
  grep -q '"status": "NOT_SERVING"' <<<"$out" || return 1
  [ $((SECONDS - start)) -lt 8 ] || { echo "the watch held the drain"; return 1; }
  kill -0 "$pid" 2>/dev/null && return 1
  return 0
}
