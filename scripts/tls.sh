# TLS on dubbo:// and tri:// against real peers (CONTRACT.md section 5): Rust and Java Dubbo 3.3
# both ways, grpcio and curl; mutual TLS; plaintext, garbage and certificate-less clients refused
# while the server keeps serving; port unification; a certificate replaced under load; the CA
# (trust collections) and the client certificate replaced under load.
# Certificates are made here with openssl. Sourced by scripts/test.sh, which provides step,
# start_server, stop_server, rust_client, java_consumer, python_setup, PY, WORK and TARGET_DIR.

# Ports, all on 127.0.0.1: Rust TLS, Rust mutual TLS, Rust TLS with plaintext allowed, Rust for
# the certificate rotation, Java TLS, Java mutual TLS.
TLS_RUST_DUBBO=27880
TLS_RUST_TRI=17880
MTLS_RUST_DUBBO=27881
MTLS_RUST_TRI=17881
OPT_RUST_DUBBO=27882
OPT_RUST_TRI=17882
ROT_RUST_DUBBO=27883
ROT_RUST_TRI=17883
TLS_JAVA_DUBBO=27884
TLS_JAVA_TRI=17884
MTLS_JAVA_DUBBO=27885
MTLS_JAVA_TRI=17885
# The CA rotation: the mutual-TLS server whose files change, and one started after the change.
CAROT_RUST_DUBBO=27886
CAROT_RUST_TRI=17886
CAROT_NEW_DUBBO=27887
CAROT_NEW_TRI=17887
TLS_DIR=

# A certificate signed by the test CA ($3.pem / $3.key; default the first CA), for subject $1 into
# $2.pem / $2.key (PKCS#8, P-256), with 127.0.0.1 and localhost as subject alternative names.
tls_leaf() {
  local cn=$1 out=$2 ca=${3:-$TLS_DIR/ca}
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out.key" -out "$out.csr" \
    -subj "/CN=$cn" 2>/dev/null || return 1
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >"$out.ext"
  openssl x509 -req -in "$out.csr" -CA "$ca.pem" -CAkey "$ca.key" -CAcreateserial \
    -days 2 -out "$out.pem" -extfile "$out.ext" 2>/dev/null
}

tls_certs() {
  TLS_DIR="$WORK/tls"
  mkdir -p "$TLS_DIR/rot"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TLS_DIR/ca.key" \
    -out "$TLS_DIR/ca.pem" -days 2 -subj "/CN=dubbo-rs interop CA" 2>/dev/null || return 1
  tls_leaf server "$TLS_DIR/server" && tls_leaf client "$TLS_DIR/client" &&
    tls_leaf rotated-server "$TLS_DIR/server2" || return 1
  cp "$TLS_DIR/server.pem" "$TLS_DIR/rot/server.pem" && cp "$TLS_DIR/server.key" "$TLS_DIR/rot/server.key"
  # A second CA with its own server and client certificates, and the files the CA rotation
  # replaces: the server's (carot/srv) and the client's (carot/cli), first of the first CA.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TLS_DIR/ca2.key" \
    -out "$TLS_DIR/ca2.pem" -days 2 -subj "/CN=dubbo-rs interop CA 2" 2>/dev/null || return 1
  tls_leaf server-ca2 "$TLS_DIR/server-ca2" "$TLS_DIR/ca2" && tls_leaf client-ca2 "$TLS_DIR/client-ca2" "$TLS_DIR/ca2" || return 1
  cat "$TLS_DIR/ca.pem" "$TLS_DIR/ca2.pem" >"$TLS_DIR/both-cas.pem"
  mkdir -p "$TLS_DIR/carot/srv" "$TLS_DIR/carot/cli"
  cp "$TLS_DIR/ca.pem" "$TLS_DIR/carot/srv/trust.pem" && cp "$TLS_DIR/server.pem" "$TLS_DIR/server.key" "$TLS_DIR/carot/srv/" &&
    cp "$TLS_DIR/ca.pem" "$TLS_DIR/carot/cli/trust.pem" && cp "$TLS_DIR/client.pem" "$TLS_DIR/client.key" "$TLS_DIR/carot/cli/" || return 1
  openssl x509 -in "$TLS_DIR/server.pem" -noout -subject -ext subjectAltName
}

tls_server_args() { echo --tls-cert "$TLS_DIR/server.pem" --tls-key "$TLS_DIR/server.key"; }
tls_client_cert() { echo --tls-cert "$TLS_DIR/client.pem" --tls-key "$TLS_DIR/client.key"; }

# $1 passes; then the server whose stderr is $WORK/$2.err logged a line matching $3.
tls_refused() {
  local name=$1 pattern=$2
  shift 2
  if "$@" >"$WORK/tls-refused.out" 2>&1; then
    tail -n 3 "$WORK/tls-refused.out"
    echo "the call was served; expected it refused"
    return 1
  fi
  grep -m 2 'FAIL' "$WORK/tls-refused.out"
  # The server's log line names the peer and why.
  grep -m 1 -E "$pattern" "$WORK/$name.err" | sed 's/\x1b\[[0-9;]*m//g' ||
    { echo "no log line matching '$pattern' in $name's log"; return 1; }
}

# Garbage on a TLS port: closed at once, logged, and the server keeps serving.
tls_garbage() {
  local port=$1 name=$2
  python3 - "$port" <<'EOF' || return 1
import socket, sys
for junk in (b"\xde\xad\xbe\xef" * 8, b"\x16\x03\x01\x00\x05hello", b"GET / HTTP/1.1\r\n\r\n"):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(junk)
    try:
        data = s.recv(100)
    except ConnectionResetError:
        data = b""  # closed with unread bytes pending: the kernel resets
    s.close()
    # Nothing, or a TLS alert record (0x15), and the close.
    assert data == b"" or data[0] == 0x15, data
    print(f"{junk[:8]!r}...: closed, answered {data[:7]!r}")
EOF
  grep -m 1 'plaintext connection refused' "$WORK/$name.err" | sed 's/\x1b\[[0-9;]*m//g'
}

# A plaintext HTTP/2 client on the TLS-only tri port is told why it is refused: the server's
# preface, then GOAWAY with INADEQUATE_SECURITY and the reason as debug data, which `nghttp -v`
# (Debian's nghttp2-client) prints as opaque_data.
tls_nghttp_refused() {
  local port=$1 out
  apt_install nghttp nghttp2-client || { echo "nghttp2-client did not install"; return 1; }
  # nghttp exits non-zero on the refusal; its output is what is checked.
  out=$(nghttp -v -t 5 "http://127.0.0.1:$port/" 2>&1)
  grep -A1 'recv GOAWAY' <<<"$out" || { echo "$out" | tail -n 5; echo "no GOAWAY received"; return 1; }
  grep -q 'error_code=INADEQUATE_SECURITY(0x0c)' <<<"$out" &&
    grep -q 'opaque_data([0-9]*)=\[connection refused: this port requires TLS' <<<"$out"
}

tls_curl_json() {
  local port=$1 out
  shift
  # --http1.1: the JSON form is HTTP/1.1 (ALPN http/1.1); curl would otherwise pick h2.
  out=$(curl -sS --http1.1 --cacert "$TLS_DIR/ca.pem" "$@" -H 'Content-Type: application/json' -d '["world"]' \
    -H 'tri-service-version: 1.0.0' "https://127.0.0.1:$port/org.apache.dubbo.interop.InteropService/sayHello") || return 1
  echo "sayHello over HTTPS (HTTP/1.1 JSON): $out"
  [ "$out" = '"Hello world"' ]
}

# curl over https with ALPN h2 (curl's choice): the JSON form and a REST resource answer on
# HTTP/2 as on HTTP/1.1.
tls_curl_h2() {
  local port=$1 out user
  shift
  out=$(curl -sS --http2 --cacert "$TLS_DIR/ca.pem" "$@" -w ' %{http_version}' -H 'Content-Type: application/json' \
    -d '["world"]' -H 'tri-service-version: 1.0.0' \
    "https://127.0.0.1:$port/org.apache.dubbo.interop.InteropService/sayHello") || return 1
  echo "sayHello over HTTPS (JSON form), HTTP version: $out"
  [ "$out" = '"Hello world" 2' ] || return 1
  user=$(curl -sS --http2 --cacert "$TLS_DIR/ca.pem" "$@" -w ' %{http_version} %{http_code}' \
    "https://127.0.0.1:$port/users/7") || return 1
  echo "GET /users/7 over HTTPS (REST): $user"
  case "$user" in
    '{"id":7,"name":"user-7",'*' 2 200') ;;
    *) return 1 ;;
  esac
}

tls_grpcio() {
  "$PY" interop/python/greeter_client.py "$@"
}

# The serial of the certificate a new connection to port $1 sees.
tls_serial() {
  openssl s_client -connect "127.0.0.1:$1" -CAfile "$TLS_DIR/ca.pem" </dev/null 2>/dev/null |
    openssl x509 -noout -serial
}

# Replaces the rotation server's certificate files under load: no call fails, open
# connections keep working, new connections get the new certificate (openssl s_client).
tls_rotate_under_load() {
  local before after want rc
  before=$(tls_serial $ROT_RUST_DUBBO)
  want=$(openssl x509 -in "$TLS_DIR/server2.pem" -noout -serial)
  echo "before: $before (tri: $(tls_serial $ROT_RUST_TRI)); the replacement has $want"
  rust_client --url "dubbo://127.0.0.1:$ROT_RUST_DUBBO" --tls-ca "$TLS_DIR/ca.pem" \
    --load 2000000 --concurrency 8 --duration 10 >"$WORK/tls-rotate.out" 2>"$WORK/tls-rotate.err" &
  local client=$!
  sleep 2
  # Written beside and renamed over, as certificate tools do; key first, so for a moment the
  # pair does not match (the server keeps the old pair until both fit).
  cp "$TLS_DIR/server2.key" "$TLS_DIR/rot/server.key.new" && mv "$TLS_DIR/rot/server.key.new" "$TLS_DIR/rot/server.key"
  cp "$TLS_DIR/server2.pem" "$TLS_DIR/rot/server.pem.new" && mv "$TLS_DIR/rot/server.pem.new" "$TLS_DIR/rot/server.pem"
  sleep 6
  after=$(tls_serial $ROT_RUST_DUBBO)
  echo "after: $after (tri: $(tls_serial $ROT_RUST_TRI))"
  wait "$client"
  rc=$?
  tail -n 1 "$WORK/tls-rotate.out"
  [ "$rc" -eq 0 ] && grep -Eq '^[0-9]+ passed, 0 failed$' "$WORK/tls-rotate.out" || { echo "calls failed during the rotation"; return 1; }
  [ "$before" != "$want" ] && [ "$after" = "$want" ] && [ "$(tls_serial $ROT_RUST_TRI)" = "$want" ] ||
    { echo "new connections do not see the new certificate"; return 1; }
  grep -m 1 'server certificate reloaded' "$WORK/rust_rot_server.err" | sed 's/\x1b\[[0-9;]*m//g'
}

# $1 replaced by $2, written beside it and renamed over, as certificate tools do.
tls_replace() {
  cp "$2" "$1.new" && mv "$1.new" "$1"
}

# The serial of the certificate a new connection to port $1 sees, trusting CA file $2.
tls_serial_with() {
  openssl s_client -connect "127.0.0.1:$1" -CAfile "$2" </dev/null 2>/dev/null | openssl x509 -noout -serial
}

# A CA rotation under load, with the mutual-TLS server (trust carot/srv/trust.pem) and the
# loading client (trust carot/cli/trust.pem, certificate carot/cli/client.*) both reading their
# files every second: both trust collections get both CAs, then both certificates are replaced
# by the second CA's, then the server trusts the second CA alone. No call fails. The loading
# client's URL list also names a second server that is started only after the change, trusting
# the second CA alone and serving its certificate: it answers calls only if the client's new
# connection presents the reloaded certificate and checks with the reloaded trust collection.
# A client with the first CA's certificate is then refused by the first server.
tls_rotate_ca_under_load() {
  local d="$TLS_DIR/carot" rc want after
  want=$(openssl x509 -in "$TLS_DIR/server-ca2.pem" -noout -serial)
  RUST_LOG=warn,dubbo_tls=info rust_client --url "dubbo://127.0.0.1:$CAROT_RUST_DUBBO;dubbo://127.0.0.1:$CAROT_NEW_DUBBO" \
    --tls-ca "$d/cli/trust.pem" --tls-cert "$d/cli/client.pem" --tls-key "$d/cli/client.key" --tls-reload-ms 1000 \
    --param check=false --load 2000000 --concurrency 8 --duration 14 >"$WORK/tls-carot.out" 2>"$WORK/tls-carot.err" &
  local client=$!
  sleep 2
  echo "both trust collections: the first and the second CA"
  tls_replace "$d/srv/trust.pem" "$TLS_DIR/both-cas.pem" && tls_replace "$d/cli/trust.pem" "$TLS_DIR/both-cas.pem" || return 1
  sleep 2
  echo "both certificates: the second CA's (keys first)"
  tls_replace "$d/cli/client.key" "$TLS_DIR/client-ca2.key" && tls_replace "$d/cli/client.pem" "$TLS_DIR/client-ca2.pem" &&
    tls_replace "$d/srv/server.key" "$TLS_DIR/server-ca2.key" && tls_replace "$d/srv/server.pem" "$TLS_DIR/server-ca2.pem" || return 1
  sleep 2
  echo "the server trusts the second CA alone"
  tls_replace "$d/srv/trust.pem" "$TLS_DIR/ca2.pem" || return 1
  sleep 2
  start_server rust_carot_new env RUST_LOG=warn,dubbo_tls=info "$TARGET_DIR/debug/interop-server" \
    --dubbo-port $CAROT_NEW_DUBBO --tri-port $CAROT_NEW_TRI --tls-cert "$TLS_DIR/server-ca2.pem" \
    --tls-key "$TLS_DIR/server-ca2.key" --tls-ca "$TLS_DIR/ca2.pem" || return 1
  wait "$client"
  rc=$?
  grep -E '^provider |passed' "$WORK/tls-carot.out"
  grep -m 4 -E 'reloaded' "$WORK/tls-carot.err" | sed 's/\x1b\[[0-9;]*m//g'
  grep -m 6 -E 'reloaded' "$WORK/rust_carot_server.err" | sed 's/\x1b\[[0-9;]*m//g'
  stop_server rust_carot_new >/dev/null 2>&1 || true
  [ "$rc" -eq 0 ] && grep -Eq '^[0-9]+ passed, 0 failed$' "$WORK/tls-carot.out" || { echo "calls failed during the CA rotation"; return 1; }
  grep -Eq "^provider 127.0.0.1:$CAROT_NEW_DUBBO calls [1-9]" "$WORK/tls-carot.out" ||
    { echo "the server started after the change answered no call: the client did not reload its files"; return 1; }
  after=$(tls_serial_with $CAROT_RUST_DUBBO "$TLS_DIR/ca2.pem")
  echo "new connections to the rotated server see serial $after (the second CA's certificate has $want)"
  [ "$after" = "$want" ] || { echo "new connections do not see the new certificate"; return 1; }
  for pattern in 'client certificate reloaded' 'client trust collection reloaded'; do
    grep -Eq "$pattern" "$WORK/tls-carot.err" || { echo "no '$pattern' in the client's log"; return 1; }
  done
  # "2 CA certificates": the server loaded the collection of both CAs, which was on disk only
  # while the calls ran (its background look, as no new connection came to it then).
  for pattern in 'server certificate reloaded' 'server trust collection reloaded \(2 CA' 'server trust collection reloaded \(1 CA'; do
    grep -Eq "$pattern" "$WORK/rust_carot_server.err" || { echo "no '$pattern' in the server's log"; return 1; }
  done
}

java_tls_provider_up() {
  local name=$1 dubbo=$2 tri=$3
  shift 3
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server "$name" java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Provider \
    --dubbo-port "$dubbo" --tri-port "$tri" $(tls_server_args) "$@"
}

tls_steps() {
  local srv="$TARGET_DIR/debug/interop-server" ca="$TLS_DIR/ca.pem" s
  step "TLS: make a CA, server and client certificates (openssl)" tls_certs
  ca="$TLS_DIR/ca.pem"
  step "install grpcio (PyPI)" python_setup

  # TLS, no client certificate asked for.
  step "TLS: start Rust interop server with --tls-cert/--tls-key" start_server rust_tls_server "$srv" \
    --dubbo-port $TLS_RUST_DUBBO --tri-port $TLS_RUST_TRI $(tls_server_args)
  for s in dubbo tri; do
    local port=$TLS_RUST_DUBBO
    [ $s = tri ] && port=$TLS_RUST_TRI
    step "TLS: Rust client -> Rust provider, $s://" rust_client --url "$s://127.0.0.1:$port" --tls-ca "$ca"
    step "TLS: Java 3.3 consumer -> Rust provider, $s://" java_consumer --url "$s://127.0.0.1:$port" --tls-ca "$ca" $(tls_client_cert)
  done
  step "TLS: grpcio -> Rust provider (Greeter)" tls_grpcio "127.0.0.1:$TLS_RUST_TRI" --ca "$ca"
  step "TLS: dubbo tool --tls-ca -> Rust provider: ls/describe through reflection, call Greet (IDL) and sayHello on both protocols" \
    cli_tls $TLS_RUST_TRI $TLS_RUST_DUBBO --tls-ca "$ca"
  step "TLS: curl https -> Rust provider, JSON form (ALPN http/1.1)" tls_curl_json $TLS_RUST_TRI
  step "TLS: curl https -> Rust provider, JSON form and REST GET /users/7 over HTTP/2 (ALPN h2)" tls_curl_h2 $TLS_RUST_TRI
  step "TLS: plaintext Rust client refused (dubbo://), logged" tls_refused rust_tls_server 'plaintext connection refused' \
    rust_client --url "dubbo://127.0.0.1:$TLS_RUST_DUBBO" --timeout 1000 --param retries=0
  step "TLS: nghttp (plaintext HTTP/2) -> Rust tri port: GOAWAY INADEQUATE_SECURITY with the reason as debug data" \
    tls_nghttp_refused $TLS_RUST_TRI
  step "TLS: garbage on both ports closed and logged" eval "tls_garbage $TLS_RUST_DUBBO rust_tls_server && tls_garbage $TLS_RUST_TRI rust_tls_server"
  step "TLS: Rust provider still serves after the refusals" rust_client --url "tri://127.0.0.1:$TLS_RUST_TRI" --tls-ca "$ca"
  step "TLS: Rust server exits cleanly on SIGTERM" stop_server rust_tls_server

  # Mutual TLS.
  step "mTLS: start Rust interop server with --tls-ca" start_server rust_mtls_server "$srv" \
    --dubbo-port $MTLS_RUST_DUBBO --tri-port $MTLS_RUST_TRI $(tls_server_args) --tls-ca "$ca"
  for s in dubbo tri; do
    local port=$MTLS_RUST_DUBBO
    [ $s = tri ] && port=$MTLS_RUST_TRI
    step "mTLS: Rust client with a certificate -> Rust provider, $s://" rust_client --url "$s://127.0.0.1:$port" --tls-ca "$ca" $(tls_client_cert)
    step "mTLS: Java 3.3 consumer with a certificate -> Rust provider, $s://" java_consumer --url "$s://127.0.0.1:$port" --tls-ca "$ca" $(tls_client_cert)
  done
  step "mTLS: grpcio with a certificate -> Rust provider" tls_grpcio "127.0.0.1:$MTLS_RUST_TRI" --ca "$ca" \
    --cert "$TLS_DIR/client.pem" --key "$TLS_DIR/client.key"
  step "mTLS: dubbo tool --tls-ca --tls-cert --tls-key -> Rust provider: ls/describe, Greet (IDL), sayHello on both protocols" \
    cli_tls $MTLS_RUST_TRI $MTLS_RUST_DUBBO --tls-ca "$ca" $(tls_client_cert)
  step "mTLS: dubbo tool without a client certificate refused, tri://" cli_tls_refused "tri://127.0.0.1:$MTLS_RUST_TRI" --tls-ca "$ca"
  step "mTLS: curl https with a certificate -> Rust provider, JSON form" tls_curl_json $MTLS_RUST_TRI \
    --cert "$TLS_DIR/client.pem" --key "$TLS_DIR/client.key"
  step "mTLS: Rust client without a certificate refused (dubbo://), logged" tls_refused rust_mtls_server 'TLS handshake failed.*client certificate' \
    rust_client --url "dubbo://127.0.0.1:$MTLS_RUST_DUBBO" --tls-ca "$ca" --timeout 1000 --param retries=0
  step "mTLS: grpcio without a certificate refused" tls_refused rust_mtls_server 'TLS handshake failed' \
    tls_grpcio "127.0.0.1:$MTLS_RUST_TRI" --ca "$ca"
  step "mTLS: Java consumer without a certificate (plaintext) refused, logged" tls_refused rust_mtls_server 'plaintext connection refused' \
    java_consumer --url "dubbo://127.0.0.1:$MTLS_RUST_DUBBO" --only sayHello --timeout 2000
  step "mTLS: Rust provider still serves after the refusals" rust_client --url "dubbo://127.0.0.1:$MTLS_RUST_DUBBO" --tls-ca "$ca" $(tls_client_cert)
  step "mTLS: Rust server exits cleanly on SIGTERM" stop_server rust_mtls_server

  # Port unification with plaintext allowed.
  step "TLS optional: start Rust interop server with --tls-optional" start_server rust_opt_server "$srv" \
    --dubbo-port $OPT_RUST_DUBBO --tri-port $OPT_RUST_TRI $(tls_server_args) --tls-optional
  step "TLS optional: plaintext Rust client, dubbo://" rust_client --url "dubbo://127.0.0.1:$OPT_RUST_DUBBO"
  step "TLS optional: TLS Rust client on the same port, dubbo://" rust_client --url "dubbo://127.0.0.1:$OPT_RUST_DUBBO" --tls-ca "$ca"
  step "TLS optional: plaintext and TLS grpcio on the tri port" eval "tls_grpcio 127.0.0.1:$OPT_RUST_TRI && tls_grpcio 127.0.0.1:$OPT_RUST_TRI --ca $ca"
  step "TLS optional: Rust server exits cleanly on SIGTERM" stop_server rust_opt_server
  step "TLS: dubbo describe through ZooKeeper asks an application-level TLS provider's MetadataService with --tls-ca (nothing found without it)" \
    cli_tls_describe "$ca"
  step "TLS: dubbo-admin with tls-ca reads an application-level TLS provider's services from its MetadataService and calls it (none shown without it)" \
    admin_tls "$ca"

  # A certificate replaced on disk while calls run.
  step "rotation: start Rust interop server on certificate files to be replaced" start_server rust_rot_server \
    env RUST_LOG=warn,dubbo_tls=info "$srv" \
    --dubbo-port $ROT_RUST_DUBBO --tri-port $ROT_RUST_TRI --tls-cert "$TLS_DIR/rot/server.pem" --tls-key "$TLS_DIR/rot/server.key"
  step "rotation: certificate replaced under load: 0 failed, new connections see the new one (openssl s_client)" tls_rotate_under_load
  step "rotation: Rust server exits cleanly on SIGTERM" stop_server rust_rot_server

  # The CA, the trust collections and the client certificate replaced on disk while calls run.
  step "CA rotation: start Rust mutual-TLS server on files to be replaced (--tls-reload-ms 1000)" start_server rust_carot_server \
    env RUST_LOG=warn,dubbo_tls=info "$srv" --dubbo-port $CAROT_RUST_DUBBO --tri-port $CAROT_RUST_TRI \
    --tls-cert "$TLS_DIR/carot/srv/server.pem" --tls-key "$TLS_DIR/carot/srv/server.key" \
    --tls-ca "$TLS_DIR/carot/srv/trust.pem" --tls-reload-ms 1000
  step "CA rotation: trust collections and both certificates moved to a new CA under load: 0 failed, the client's new connections use its new files" tls_rotate_ca_under_load
  step "CA rotation: a client with the old CA's certificate is now refused, logged" tls_refused rust_carot_server 'TLS handshake failed.*client certificate' \
    rust_client --url "dubbo://127.0.0.1:$CAROT_RUST_DUBBO" --tls-ca "$TLS_DIR/both-cas.pem" $(tls_client_cert) --timeout 1000 --param retries=0
  step "CA rotation: Rust server exits cleanly on SIGTERM" stop_server rust_carot_server

  # Java Dubbo 3.3 providers with dubbo.ssl. Java builds its server SSL context for each new
  # connection, and the first handshakes of a fresh JVM take seconds on a busy machine: the
  # TLS handshake counts against the connect timeout (3 s by default), so give it 15 s here.
  step "TLS: start Java 3.3 provider with dubbo.ssl" java_tls_provider_up java_tls_provider $TLS_JAVA_DUBBO $TLS_JAVA_TRI
  step "TLS: Rust client -> Java provider, dubbo://" rust_client --url "dubbo://127.0.0.1:$TLS_JAVA_DUBBO" --param connect.timeout=15000 --tls-ca "$ca"
  step "TLS: Rust client -> Java provider, tri://" rust_client --url "tri://127.0.0.1:$TLS_JAVA_TRI" --param connect.timeout=15000 --tls-ca "$ca"
  stop_server java_tls_provider >/dev/null 2>&1 || true
  step "mTLS: start Java 3.3 provider with dubbo.ssl and a trust collection" java_tls_provider_up java_mtls_provider \
    $MTLS_JAVA_DUBBO $MTLS_JAVA_TRI --tls-ca "$ca"
  step "mTLS: Rust client with a certificate -> Java provider, dubbo://" rust_client --url "dubbo://127.0.0.1:$MTLS_JAVA_DUBBO" --param connect.timeout=15000 --tls-ca "$ca" $(tls_client_cert)
  step "mTLS: Rust client with a certificate -> Java provider, tri://" rust_client --url "tri://127.0.0.1:$MTLS_JAVA_TRI" --param connect.timeout=15000 --tls-ca "$ca" $(tls_client_cert)
  step "mTLS: Rust client without a certificate refused by the Java provider" tls_refused java_mtls_provider 'SSLHandshakeException|TLS negotiation failed|certificate_required|Empty client certificate chain' \
    rust_client --url "dubbo://127.0.0.1:$MTLS_JAVA_DUBBO" --param connect.timeout=15000 --tls-ca "$ca" --timeout 1000 --param retries=0
  stop_server java_mtls_provider >/dev/null 2>&1 || true
}
