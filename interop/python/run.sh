#!/usr/bin/env bash
# Triple interop with Python grpcio, both directions, plus curl against the HTTP/1.1 JSON form.
# Run from anywhere:  bash interop/python/run.sh
# Env: PYTHON (default python3), VENV (default interop/python/.venv), CARGO_PROFILE (dev|release).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-$HERE/.venv}"
PROFILE="${CARGO_PROFILE:-dev}"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q -r "$HERE/requirements.txt"

cd "$ROOT"
cargo build -q -p dubbo-triple-greeter --bins --profile "$PROFILE"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if [ "$PROFILE" = "dev" ]; then BIN="$TARGET_DIR/debug"; else BIN="$TARGET_DIR/$PROFILE"; fi

free_port() { "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_ready() { # file
  for _ in $(seq 1 100); do
    grep -q READY "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "server did not print READY:"; cat "$1"; return 1
}

PASSED=0; FAILED=0
count() { # output file of a client run
  local p f
  p=$(grep -c '^PASS' "$1" || true); f=$(grep -c '^FAIL' "$1" || true)
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
}

LOG="$(mktemp -d)"

# 1. grpcio client -> dubbo-rs server
RS_PORT=$(free_port)
"$BIN/triple-greeter-server" --port "$RS_PORT" > "$LOG/rs-server.log" 2>&1 &
PIDS+=($!)
wait_ready "$LOG/rs-server.log"
echo "== grpcio client -> dubbo-rs server (127.0.0.1:$RS_PORT)"
(cd "$HERE" && "$VENV/bin/python" greeter_client.py "127.0.0.1:$RS_PORT") | tee "$LOG/py-client.out" || true
count "$LOG/py-client.out"

# 2. curl -> dubbo-rs server, HTTP/1.1 JSON form of InteropService
echo "== curl (HTTP/1.1 JSON) -> dubbo-rs server"
curl_case() { # name path body expected-substring [expected-status]
  local out code
  out=$(curl -s -w '\n%{http_code}' -H 'Content-Type: application/json' -d "$3" "http://127.0.0.1:$RS_PORT$2" || true)
  code="${out##*$'\n'}"; out="${out%$'\n'*}"
  if [[ "$out" == *"$4"* && "$code" == "${5:-200}" ]]; then
    echo "PASS json.$1"; PASSED=$((PASSED + 1))
  else
    echo "FAIL json.$1: HTTP $code body $out"; FAILED=$((FAILED + 1))
  fi
}
if command -v curl >/dev/null; then
  curl_case sayHello /org.apache.dubbo.interop.InteropService/sayHello '["world"]' '"Hello world"'
  curl_case addInt /org.apache.dubbo.interop.InteropService/addInt '[2147483647, 1]' '-2147483648'
  curl_case echoList /org.apache.dubbo.interop.InteropService/echoList '[["a","b"]]' '["a","b"]'
  curl_case fail /org.apache.dubbo.interop.InteropService/fail '["boom"]' 'boom' 500
  curl_case unknownMethod /org.apache.dubbo.interop.InteropService/nope '[]' '"status"' 404
else
  echo "FAIL json.curl: curl not installed"; FAILED=$((FAILED + 1))
fi

# 3. dubbo-rs client -> grpcio server
PY_PORT=$(free_port)
(cd "$HERE" && exec "$VENV/bin/python" greeter_server.py --port "$PY_PORT") > "$LOG/py-server.log" 2>&1 &
PIDS+=($!)
wait_ready "$LOG/py-server.log"
echo "== dubbo-rs client -> grpcio server (127.0.0.1:$PY_PORT)"
"$BIN/triple-greeter-client" "127.0.0.1:$PY_PORT" | tee "$LOG/rs-client.out" || true
count "$LOG/rs-client.out"

echo "interop-python: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
