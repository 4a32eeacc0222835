#!/usr/bin/env bash
# Runs the interop provider: InteropService over dubbo:// and tri://, Greeter over tri://, and
# the HTTP/1.1 JSON form on the tri port. Prints READY once every port accepts connections and
# exits cleanly on SIGTERM or SIGINT.
#
#   scripts/interop-server.sh [--dubbo-port P] [--tri-port Q] [--registry URL] [--app NAME]
#                             [--token T] [--delay-ms D]
#                             [--auth accesskey --ak ID --sk SECRET | --auth basic --user U --password P]
#                             [--tls-cert FILE --tls-key FILE [--tls-ca FILE] [--tls-optional]]
#                             [--cors KEY=VALUE]... [--swagger-ui KEY=VALUE]...
#
# --cors sets CORS of the REST forms on the tri port under Java's keys
# (dubbo.protocol.triple.rest.cors.KEY: allowed-origins, allowed-methods, allowed-headers,
# exposed-headers, allow-credentials, max-age; lists separated by commas; docs/rest.md), e.g.
# --cors allowed-origins=https://app.example --cors allowed-methods=GET,POST.
# --swagger-ui sets the Swagger UI page (dubbo.protocol.triple.rest.openapi.settings.swagger-ui.KEY:
# cdn, assets, settings.NAME), e.g. --swagger-ui assets=/srv/swagger-ui-dist.
# --auth requires Java dubbo-auth's access-key signature (or HTTP Basic) on every call
# (docs/security-auth.md).
# --delay-ms D makes sayHello wait D ms before it answers (a slow provider).
# --tls-cert/--tls-key serve TLS on both ports (PEM); --tls-ca also requires client certificates
# signed by that CA; --tls-optional serves plaintext beside TLS (docs/security.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p dubbo-interop --bin interop-server >&2
exec target/release/interop-server "$@"
