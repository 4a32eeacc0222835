#!/usr/bin/env bash
# The main job: a provider and a consumer, started as two separate programs, find each other
# through the embedded file registry (no external server) and talk over dubbo:// on 127.0.0.1.
# Then the in-process quickstart shows both protocols, dubbo:// and Triple, side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
cargo build --quiet --release -p dubbo-rs --example greeter_provider --example greeter_consumer --example quickstart

# A registry directory of our own, removed afterwards.
registry_dir=$(mktemp -d /tmp/dubbo-rs-quickstart.XXXXXX)
export DUBBO_REGISTRY="file://$registry_dir"
out=$(mktemp)
target/release/examples/greeter_provider >"$out" &
provider=$!
cleanup() {
  kill "$provider" 2>/dev/null || true
  wait "$provider" 2>/dev/null || true
  rm -rf "$registry_dir" "$out"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  grep -q 'ready' "$out" && break
  kill -0 "$provider" 2>/dev/null || { cat "$out"; exit 1; }
  sleep 0.1
done
cat "$out"
target/release/examples/greeter_consumer
kill -TERM "$provider"
wait "$provider" || true
tail -n 1 "$out"
echo
exec target/release/examples/quickstart
