#!/usr/bin/env bash
# Runs the admin console and its HTTP API (crates/admin), built in release:
#
#   scripts/admin.sh --registry URL [--port P] [--config FILE] [--data-dir DIR] [--qos-port Q] [--qos-port-of APP=PORT]...
#
# Serves http://127.0.0.1:P/ (default 38080) and prints READY. See docs/admin.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p dubbo-admin --bin dubbo-admin >&2
exec "${CARGO_TARGET_DIR:-target}/release/dubbo-admin" "$@"
