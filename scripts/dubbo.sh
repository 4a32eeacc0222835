#!/usr/bin/env bash
# Runs the `dubbo` command-line tool (crates/cli), built in release:
#
#   scripts/dubbo.sh ls [services|apps|instances] --registry URL [-o json]
#   scripts/dubbo.sh describe SERVICE --registry URL [--version V] [--group G] [--app A]
#   scripts/dubbo.sh ls --url tri://HOST:PORT | --url dubbo://HOST:PORT --app APP
#   scripts/dubbo.sh call TARGET SERVICE.METHOD '[JSON args]' [--attachment K=V]... [--version V]
#   scripts/dubbo.sh call tri://HOST:PORT pkg.Service.Method '{protobuf JSON}'   (IDL, through reflection)
#   (ls, describe, call: --tls-ca FILE [--tls-cert FILE --tls-key FILE])
#   scripts/dubbo.sh rules get|set|delete|watch --registry URL KEY | --app A --kind K
#   scripts/dubbo.sh completions bash|zsh|fish
#
# See the README ("The dubbo command-line tool") for every flag.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p dubbo-cli --bin dubbo >&2
exec "${CARGO_TARGET_DIR:-target}/release/dubbo" "$@"
