# Authentication (sourced by scripts/test.sh; `bash scripts/test.sh --only auth`): Java Dubbo's
# access-key signature (dubbo-auth) in both directions with a real Java 3.3 peer carrying the
# dubbo-auth 3.3.1 plugin, the replay window dubbo-rs adds, HTTP Basic on the Triple port's
# HTTP/1.1 JSON form with curl, on HTTP/2 with the Rust client and both protocols with Java's
# BasicAuthenticator (docs/security-auth.md).
#
# Uses test.sh's step, start_server, stop_server, rust_client, $WORK and $TARGET_DIR, and
# $INTEROP_JAVA_AUTH_JAR from build_java.

# Ports, all on 127.0.0.1 and below the ephemeral range.
AUTH_RUST_DUBBO=28880
AUTH_RUST_TRI=18880
AUTH_JAVA_DUBBO=28881
AUTH_JAVA_TRI=18881
AUTH_AK=interop-ak
AUTH_SK=interop-secret-Key-1
AUTH_USER=interop-user
AUTH_PASSWORD='p@ss word:1'

java_auth_consumer() {
  java -cp "$INTEROP_JAVA_AUTH_JAR" org.apache.dubbo.interop.Consumer "$@"
}

# Base64 HMAC-SHA256 of $1 keyed with $2, computed by Python's hmac (not by the code under test).
auth_python_sign() {
  python3 -c 'import sys,hmac,hashlib,base64; print(base64.b64encode(hmac.new(sys.argv[2].encode(), sys.argv[1].encode(), hashlib.sha256).digest()).decode())' "$1" "$2"
}

# POSTs sayHello("world") to the Rust provider's JSON form signed as dubbo-auth signs, with a
# timestamp $1 ms in the past; prints the HTTP status and the body.
auth_json_call_aged() {
  local ts sig
  ts=$(( $(date +%s%3N) - $1 ))
  sig=$(auth_python_sign "org.apache.dubbo.interop.InteropService:1.0.0:#sayHello#$AUTH_SK#$ts" "$AUTH_SK")
  curl -sS -w ' HTTP %{http_code}' -H 'Content-Type: application/json' -H 'rest-service-version: 1.0.0' \
    -H "signature: $sig" -H "timestamp: $ts" -H "ak: $AUTH_AK" -H 'consumer: curl' \
    -d '["world"]' "http://127.0.0.1:$AUTH_RUST_TRI/org.apache.dubbo.interop.InteropService/sayHello"
}

# A call signed now by Python's HMAC is served: the signature format is Java's, computed apart.
auth_json_signed_now_served() {
  local out
  out=$(auth_json_call_aged 0) || return 1
  echo "$out"
  [[ $out == '"Hello world" HTTP 200' ]]
}

# The same call signed 10 minutes ago (a captured call replayed) is refused: 401 naming the window.
auth_json_replay_refused() {
  local out
  out=$(auth_json_call_aged 600000) || return 1
  echo "$out"
  [[ $out == *'HTTP 401' && $out == *'outside auth.timestamp.window=300000 ms'* ]]
}

# No signature at all: 401 with dubbo-auth's message.
auth_json_unsigned_refused() {
  local out
  out=$(curl -sS -w ' HTTP %{http_code}' -H 'Content-Type: application/json' -H 'rest-service-version: 1.0.0' \
    -d '["world"]' "http://127.0.0.1:$AUTH_RUST_TRI/org.apache.dubbo.interop.InteropService/sayHello") || return 1
  echo "$out"
  [[ $out == *'HTTP 401' && $out == *'maybe consumer side did not enable the auth'* ]]
}

# curl against the JSON form under HTTP Basic: $1 = "none", "right" or "wrong"; checks 401 with
# WWW-Authenticate for none and wrong, 200 and the answer for right.
auth_basic_curl() {
  local creds=() out
  case $1 in
    right) creds=(-u "$AUTH_USER:$AUTH_PASSWORD") ;;
    wrong) creds=(-u "$AUTH_USER:not-the-password") ;;
  esac
  out=$(curl -sS -i "${creds[@]}" -H 'Content-Type: application/json' -H 'rest-service-version: 1.0.0' \
    -d '["world"]' "http://127.0.0.1:$AUTH_RUST_TRI/org.apache.dubbo.interop.InteropService/sayHello" | tr -d '\r') || return 1
  echo "$out"
  if [ "$1" = right ]; then
    [[ $out == 'HTTP/1.1 200'* && $out == *'"Hello world"' ]]
  else
    [[ $out == 'HTTP/1.1 401'* && $out == *'www-authenticate: Basic realm="dubbo"'* ]]
  fi
}

# Over tri:// a Java 3.3 provider with dubbo-auth refuses generic ($invoke) calls signed as its
# own consumer signs them ("No Auth."; its Triple header filter checks the signature before the
# call is resolved to the real method). Runs client $1 ("rust" or "java") against the Java
# provider's tri port with the right key and passes when every case passes but exactly the two
# generic ones, refused that way.
auth_tri_to_java_all_but_generic() {
  local out expect
  if [ "$1" = rust ]; then
    out=$(rust_client --url "tri://127.0.0.1:$AUTH_JAVA_TRI" --auth accesskey --ak "$AUTH_AK" --sk "$AUTH_SK" 2>&1)
    expect='^FAIL \$invoke (sayHello|echoUser).*No Auth\.'
  else
    out=$(java_auth_consumer --url "tri://127.0.0.1:$AUTH_JAVA_TRI" --auth accesskey --ak "$AUTH_AK" --sk "$AUTH_SK" 2>/dev/null)
    expect='^FAIL generic_(sayHello|echoUser):.*No Auth\.'
  fi
  echo "$out" | grep -v '^PASS'
  local fails generic
  fails=$(echo "$out" | grep -c '^FAIL')
  generic=$(echo "$out" | grep -cE "$expect")
  [ "$fails" -eq 2 ] && [ "$generic" -eq 2 ] && echo "$out" | grep -qE '^[0-9]+ passed, 2 failed$'
}

auth_java_provider_up() {
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server auth_java_provider java -cp "$INTEROP_JAVA_AUTH_JAR" org.apache.dubbo.interop.Provider \
    --dubbo-port $AUTH_JAVA_DUBBO --tri-port $AUTH_JAVA_TRI --auth accesskey --ak "$AUTH_AK" --sk "$AUTH_SK"
}

auth_steps() {
  local u ak=(--auth accesskey --ak "$AUTH_AK")
  step "start Rust interop server with --auth accesskey" start_server auth_rust_server \
    "$TARGET_DIR/debug/interop-server" --dubbo-port $AUTH_RUST_DUBBO --tri-port $AUTH_RUST_TRI "${ak[@]}" --sk "$AUTH_SK"
  for u in "dubbo://127.0.0.1:$AUTH_RUST_DUBBO" "tri://127.0.0.1:$AUTH_RUST_TRI"; do
    step "Java 3.3 consumer (dubbo-auth) -> Rust provider, ${u%%:*}://, signed calls served" \
      java_auth_consumer --url "$u" "${ak[@]}" --sk "$AUTH_SK"
    step "Java 3.3 consumer (dubbo-auth) -> Rust provider, ${u%%:*}://, wrong secret refused" \
      java_auth_consumer --url "$u" "${ak[@]}" --sk wrong-secret --expect-forbidden
  done
  step "curl JSON signed by Python's HMAC now -> Rust provider: served" auth_json_signed_now_served
  step "curl JSON, the same call signed 10 min ago (replay) -> Rust provider: refused" auth_json_replay_refused
  step "curl JSON without a signature -> Rust provider: refused" auth_json_unsigned_refused
  step "Rust server with --auth accesskey exits cleanly on SIGTERM" stop_server auth_rust_server
  step "start Java 3.3 provider (dubbo-auth) with --auth accesskey" auth_java_provider_up
  step "Rust client -> Java 3.3 provider (dubbo-auth), dubbo://, signed calls served" \
    rust_client --url "dubbo://127.0.0.1:$AUTH_JAVA_DUBBO" "${ak[@]}" --sk "$AUTH_SK"
  step "Rust client -> Java 3.3 provider (dubbo-auth), tri://, signed calls served but generic ones (as Java's own consumer)" \
    auth_tri_to_java_all_but_generic rust
  step "Java 3.3 consumer (dubbo-auth) -> Java 3.3 provider (dubbo-auth), tri://: the same two generic calls refused" \
    auth_tri_to_java_all_but_generic java
  for u in "dubbo://127.0.0.1:$AUTH_JAVA_DUBBO" "tri://127.0.0.1:$AUTH_JAVA_TRI"; do
    step "Rust client -> Java 3.3 provider (dubbo-auth), ${u%%:*}://, wrong secret refused" \
      rust_client --url "$u" "${ak[@]}" --sk wrong-secret --expect-forbidden
  done
  stop_server auth_java_provider >/dev/null 2>&1 || true
  step "start Rust interop server with --auth basic" start_server auth_basic_server \
    "$TARGET_DIR/debug/interop-server" --dubbo-port $AUTH_RUST_DUBBO --tri-port $AUTH_RUST_TRI \
    --auth basic --user "$AUTH_USER" --password "$AUTH_PASSWORD"
  step "curl JSON without -u -> Rust provider (basic): 401 with WWW-Authenticate" auth_basic_curl none
  step "curl JSON with a wrong password -> Rust provider (basic): 401" auth_basic_curl wrong
  step "curl JSON with -u user:password -> Rust provider (basic): 200" auth_basic_curl right
  step "Rust client -> Rust provider (basic), tri:// (authorization header on HTTP/2): served" \
    rust_client --url "tri://127.0.0.1:$AUTH_RUST_TRI" --auth basic --user "$AUTH_USER" --password "$AUTH_PASSWORD"
  step "Java 3.3 consumer (dubbo-auth, basic) -> Rust provider (basic), dubbo://: served" \
    java_auth_consumer --url "dubbo://127.0.0.1:$AUTH_RUST_DUBBO" --auth basic --user "$AUTH_USER" --password "$AUTH_PASSWORD"
  step "Java 3.3 consumer (dubbo-auth, basic) -> Rust provider (basic), tri://, wrong password refused" \
    java_auth_consumer --url "tri://127.0.0.1:$AUTH_RUST_TRI" --auth basic --user "$AUTH_USER" --password wrong --expect-forbidden
  step "Rust server with --auth basic exits cleanly on SIGTERM" stop_server auth_basic_server
}
