#!/usr/bin/env bash
# The main job: a provider and a consumer talking over dubbo:// and Triple on 127.0.0.1, with no
# external server.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
exec cargo run --quiet --release -p dubbo-rs --example quickstart
