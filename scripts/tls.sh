# TLS on dubbo:// and tri:// against real peers (CONTRACT.md section 5): Rust and Java Dubbo 3.3
# both ways, grpcio and curl; mutual TLS; plaintext, garbage and certificate-less clients refused
# while the server keeps serving; port unification; a certificate replaced under load.
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
TLS_DIR=

# A certificate signed by the test CA, for subject $1 into $2.pem / $2.key (PKCS#8, P-256), with
# 127.0.0.1 and localhost as subject alternative names.
tls_leaf() {
  local cn=$1 out=$2
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out.key" -out "$out.csr" \
    -subj "/CN=$cn" 2>/dev/null || return 1
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >"$out.ext"
  openssl x509 -req -in "$out.csr" -CA "$TLS_DIR/ca.pem" -CAkey "$TLS_DIR/ca.key" -CAcreateserial \
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

  # A certificate replaced on disk while calls run.
  step "rotation: start Rust interop server on certificate files to be replaced" start_server rust_rot_server \
    env RUST_LOG=warn,dubbo_tls=info "$srv" \
    --dubbo-port $ROT_RUST_DUBBO --tri-port $ROT_RUST_TRI --tls-cert "$TLS_DIR/rot/server.pem" --tls-key "$TLS_DIR/rot/server.key"
  step "rotation: certificate replaced under load: 0 failed, new connections see the new one (openssl s_client)" tls_rotate_under_load
  step "rotation: Rust server exits cleanly on SIGTERM" stop_server rust_rot_server

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
