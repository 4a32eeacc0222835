#!/usr/bin/env bash
# Calls every method of the interop services and checks each result, one line per case and a
# last line "N passed, N failed"; exits 0 only if none failed.
#
#   scripts/interop-client.sh --url dubbo://HOST:PORT | --url tri://HOST:PORT | --url "URL1;URL2" | --registry URL
#                             [--auth accesskey --ak ID --sk SECRET | --auth basic --user U --password P]
#   scripts/interop-client.sh --url rest://HOST:PORT[?client=h2c][;rest://...]   CONTRACT.md §5 REST table
#   scripts/interop-client.sh --url "URL1;URL2;..." --load N [--concurrency C] [--loadbalance NAME]
#                             [--cluster NAME] [--retries R]
#   ... [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]   dial TLS (with a client certificate)
#
# Load mode calls sayHello("load") N times from C callers (default 8), prints
# "provider HOST:PORT calls K" per provider that answered, then "N passed, N failed" (calls).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p dubbo-interop --bin interop-client >&2
exec target/release/interop-client "$@"
