#!/usr/bin/env bash
# Calls every method of the interop services and checks each result, one line per case and a
# last line "N passed, N failed"; exits 0 only if none failed.
#
#   scripts/interop-client.sh --url dubbo://HOST:PORT | --url tri://HOST:PORT | --registry URL
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p dubbo-interop --bin interop-client >&2
exec target/release/interop-client "$@"
