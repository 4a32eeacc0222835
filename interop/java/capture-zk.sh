#!/usr/bin/env bash
# Captures what a real Java Dubbo 3.3 provider writes into ZooKeeper, as test vectors for the
# Rust registry crate.
#
#   interop/java/capture-zk.sh [OUT_DIR]     (default crates/registry/tests/fixtures/java-3.3)
#
# Starts a throw-away ZooKeeper (scripts/zookeeper.sh) and the interop Provider
# (org.apache.dubbo.interop.Provider --registry ..., app interop-provider-java, dubbo:// on 22980,
# tri:// on 52980, all on 127.0.0.1 registered as [::ffff:127.0.0.1]), then runs
# RegistryTools capture, which writes OUT_DIR/nodes.json (every node under /dubbo and /services
# with its data) and OUT_DIR/metadata-service.json (the provider's MetadataService answer for the
# revision its instance announces). Stops both afterwards. Ports: CAPTURE_DUBBO_PORT,
# CAPTURE_TRI_PORT.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/crates/registry/tests/fixtures/java-3.3}"
dubbo_port=${CAPTURE_DUBBO_PORT:-22980}
tri_port=${CAPTURE_TRI_PORT:-52980}
app=interop-provider-java

eval "$(bash "$here/build.sh")"

work=$(mktemp -d /tmp/capture-zk.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [[ -n $p ]] && kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for a READY line in $1 from process $2.
await_ready() {
  for _ in $(seq 1 600); do
    grep -q '^READY' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "exited before READY:" >&2; tail -n 30 "$1" "${1%.out}.err" >&2; return 1; }
    sleep 0.2
  done
  echo "no READY within 120 s" >&2
  return 1
}

bash "$root/scripts/zookeeper.sh" >"$work/zk.out" 2>"$work/zk.err" &
pids+=($!)
await_ready "$work/zk.out" "${pids[0]}"
registry=$(sed -n 's/^READY //p' "$work/zk.out")
echo "ZooKeeper at $registry" >&2

DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
  java -Djava.net.preferIPv4Stack=true -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Provider \
  --dubbo-port "$dubbo_port" --tri-port "$tri_port" --app "$app" --registry "$registry" \
  >"$work/provider.out" 2>"$work/provider.err" &
pids+=($!)
await_ready "$work/provider.out" "${pids[1]}"
echo "Java provider up" >&2

mkdir -p "$out"
DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 java -Djava.net.preferIPv4Stack=true -cp "$INTEROP_JAVA_DUBBO_JAR" \
  org.apache.dubbo.interop.RegistryTools capture --registry "$registry" --app "$app" --out "$out" \
  2>"$work/capture.err" || { tail -n 30 "$work/capture.err" >&2; exit 1; }
echo "captured into $out" >&2
