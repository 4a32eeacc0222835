# REST on the Triple port (CONTRACT.md §5): curl over HTTP/1.1 and h2c, the Rust `rest://`
# client (interop-client), Java's java.net.http and Python `requests` against every row of the
# UserResource table and InteropService's default mapping, YAML bodies and answers; the Rust
# `rest://` client over TLS (https, openssl CA) and against a Java Dubbo 3.3 provider mapped with
# Spring MVC annotations (HTTP/1.1 and h2c); then bad input (malformed JSON and YAML, a wrong
# path variable type, a huge body, an unknown route, a wrong verb) with the server still
# serving, CORS (server, service and method settings), the provider's filters applied to REST
# calls, and the OpenAPI document checked by openapi-spec-validator (answers field by field).
# Sourced by scripts/test.sh, which provides step, start_server, stop_server, free_port,
# python_setup, PY, WORK and TARGET_DIR.

# One request: rest_expect STATUS BODY_REGEX [HEADER_REGEX] -- CURL_ARGS...; checks the status
# and that the body (and, if given, a response header line) match. $REST_BASE is the URL
# prefix and $REST_CURL extra curl flags (--http2-prior-knowledge).
rest_expect() {
  local want=$1 body_re=$2 header_re=
  shift 2
  if [ "$1" != -- ]; then header_re=$1; shift; fi
  shift
  local code
  code=$(curl -sS ${REST_CURL:-} -o "$WORK/rest.body" -D "$WORK/rest.head" -w '%{http_code}' "$@") || return 1
  local body
  body=$(cat "$WORK/rest.body")
  echo "  $* -> $code $body"
  [ "$code" = "$want" ] || { echo "  expected HTTP $want"; return 1; }
  grep -Eq -- "$body_re" <<<"$body" || [ -z "$body_re$body" ] || { echo "  body does not match $body_re"; return 1; }
  if [ -n "$header_re" ]; then
    tr -d '\r' <"$WORK/rest.head" | grep -Eiq -- "$header_re" || { echo "  no header matching $header_re"; return 1; }
  fi
}

# rest_refused_at_start KEY FLAGS...: the provider started with FLAGS must stop at start with
# an error naming the configuration key KEY.
rest_refused_at_start() {
  local key=$1 out
  shift
  out=$(timeout 60 "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" --tri-port "$(free_port)" \
    "$@" 2>&1)
  if [ $? -eq 0 ] || ! grep -qF "$key" <<<"$out"; then
    echo "  $* was not refused at start naming $key: $out"
    return 1
  fi
  echo "  refused at start: $out"
}

# Every row of the table, and the default mapping of InteropService.
rest_rows() {
  local b=$REST_BASE rc=0
  local user7='^\{"id":7,"name":"user-7","age":27,"tags":\["t7"\],"attrs":\{"k":"v7"\}\}$'
  rest_expect 200 "$user7" '^content-type: application/json' -- "$b/users/7" || rc=1
  rest_expect 200 '^\[\{"id":1,"name":"user-1".*\{"id":10,"name":"user-10".*\{"id":11,"name":"user-11","age":31,"tags":\["t11"\],"attrs":\{"k":"v11"\}\}\]$' -- \
    "$b/users?limit=3&prefix=user-1" || rc=1
  # Defaults: 10 users from user-0.
  rest_expect 200 '^\[\{"id":0,"name":"user-0",.*\},\{"id":9,"name":"user-9","age":29,"tags":\["t9"\],"attrs":\{"k":"v9"\}\}\]$' -- "$b/users" || rc=1
  rest_expect 201 '^\{"id":42,"name":"new","age":33,"tags":\["a"\],"attrs":\{"x":"y"\}\}$' '^location: /users/42$' -- \
    -H 'Content-Type: application/json' -d '{"id":42,"name":"new","age":33,"tags":["a"],"attrs":{"x":"y"}}' "$b/users" || rc=1
  rest_expect 200 '^\{"id":3,"name":"bob","age":40,"tags":null,"attrs":null\}$' -- \
    --data-urlencode id=3 --data-urlencode name=bob --data-urlencode age=40 "$b/users/form" || rc=1
  rest_expect 200 '^Bonjour user-5$' '^content-type: text/plain' -- -H 'Accept-Language: fr' "$b/users/5/greeting" || rc=1
  rest_expect 200 '^Hello user-5$' '^content-type: text/plain' -- "$b/users/5/greeting" || rc=1
  rest_expect 404 '"message":"no user with id -3"' -- "$b/users/-3" || rc=1
  rest_expect 204 '' -- -X DELETE "$b/users/8" || rc=1
  [ -z "$(cat "$WORK/rest.body")" ] || { echo "  204 with a body"; rc=1; }
  local iface=$b/org.apache.dubbo.interop.InteropService
  rest_expect 200 '^"Hello world"$' -- -H 'Content-Type: application/json' -d '["world"]' "$iface/sayHello" || rc=1
  rest_expect 200 '^"Hello world"$' -- "$iface/sayHello?name=world" || rc=1
  # Named parameters in an object body; version chosen by header; text by Accept or ?format=.
  rest_expect 200 '^5$' -- -H 'Content-Type: application/json' -d '{"a":2,"b":3}' "$iface/addInt" || rc=1
  rest_expect 200 '^"Hello v2 world"$' -- -H 'rest-service-version: 2.0.0' "$iface/sayHello?name=world" || rc=1
  rest_expect 200 '^Hello world$' -- -H 'Accept: text/plain' "$iface/sayHello?name=world" || rc=1
  rest_expect 200 '^Hello world$' -- "$iface/sayHello?name=world&format=text" || rc=1
  # YAML bodies (application/yaml) and answers (by Accept or ?format=yaml), field order kept.
  rest_expect 200 '^5$' -- -H 'Content-Type: application/yaml' --data-binary $'a: 2\nb: 3\n' "$iface/addInt" || rc=1
  rest_expect 200 '^\{"id":44,"name":"yaml","age":5,"tags":\["y"\],"attrs":\{"k":"v"\}\}$' -- \
    -H 'Content-Type: application/x-yaml' --data-binary $'- id: 44\n  name: yaml\n  age: 5\n  tags: [y]\n  attrs: {k: v}\n' "$iface/echoUser" || rc=1
  # POST /users consumes JSON only.
  rest_expect 415 '"status":"415"' -- -H 'Content-Type: application/yaml' --data-binary $'id: 44\n' "$b/users" || rc=1
  rest_expect 200 '^name: user-7$' '^content-type: application/yaml' -- -H 'Accept: application/yaml' "$b/users/7" || rc=1
  [ "$(head -n 1 "$WORK/rest.body")" = "id: 7" ] || { echo "  the YAML answer does not start with id: 7"; rc=1; }
  rest_expect 200 '^- t7$' -- "$b/users/7?format=yaml" || rc=1
  grep -q '^  k: v7$' "$WORK/rest.body" || { echo "  attrs not a YAML mapping"; rc=1; }
  return $rc
}

# Bad input, each answered with its status and a JSON body saying why; the server keeps serving.
rest_bad_input() {
  local b=$REST_BASE rc=0
  rest_expect 400 '"message":"malformed JSON body' -- -H 'Content-Type: application/json' -d '{"id":' "$b/users" || rc=1
  rest_expect 400 '"message":"malformed YAML body' -- -H 'Content-Type: application/yaml' --data-binary $'a: [1\n' \
    "$b/org.apache.dubbo.interop.InteropService/addInt" || rc=1
  rest_expect 400 '"message":".*\\"abc\\" is not a long' -- "$b/users/abc" || rc=1
  rest_expect 400 '"message":"missing form parameter \\"age\\""' -- -d 'id=1&name=x' "$b/users/form" || rc=1
  head -c $((9 * 1024 * 1024)) /dev/zero | tr '\0' '1' >"$WORK/rest.huge"
  rest_expect 413 '"message":"request body over' -- -H 'Content-Type: application/json' --data-binary "@$WORK/rest.huge" "$b/users" || rc=1
  rest_expect 404 '"message":"no route for GET /no/such/route' -- "$b/no/such/route" || rc=1
  rest_expect 405 '"message":"PUT is not served at /users/1' '^allow: GET, DELETE$' -- -X PUT "$b/users/1" || rc=1
  rest_expect 415 '"status":"415"' -- -H 'Content-Type: image/png' -d 'x' "$b/users" || rc=1
  rest_expect 406 '"status":"406"' -- -H 'Accept: application/xml' "$b/users/1" || rc=1
  # Still serving, on a new connection.
  rest_expect 200 '"name":"user-1"' -- "$b/users/1" || rc=1
  return $rc
}

# The provider's filters see REST calls: with --token, a call without the token is refused
# (403) and one with it (the `token` header, read as the attachment) answered.
rest_token() {
  local port rc=0
  port=$(free_port)
  start_server rest_token_server "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$port" --token s3cret || return 1
  REST_BASE=http://127.0.0.1:$port rest_expect 403 '"status":"403"' -- "http://127.0.0.1:$port/users/1" || rc=1
  REST_BASE=http://127.0.0.1:$port rest_expect 200 '"name":"user-1"' -- -H 'token: s3cret' "http://127.0.0.1:$port/users/1" || rc=1
  stop_server rest_token_server || rc=1
  return $rc
}

# The default /{interface}/{method} form of a Java Dubbo 3.3 provider (its triple rest) and of
# the Rust provider answer the same requests alike (interop/python/rest_compare.py).
rest_java_default_form() {
  local tri rc=0
  tri=$(free_port)
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server rest_java_provider java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Provider \
    --dubbo-port "$(free_port)" --tri-port "$tri" || return 1
  "$PY" interop/python/rest_compare.py "http://127.0.0.1:$tri" "$REST_BASE" || rc=1
  stop_server rest_java_provider || rc=1
  return $rc
}

# CONTRACT.md §5's table served by a Java Dubbo 3.3 provider whose UserResource carries Spring
# MVC annotations (triple rest, dubbo-rest-spring), called by the Rust rest:// client over
# HTTP/1.1 and h2c.
rest_java_spring_provider() {
  local tri rc=0
  tri=$(free_port)
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server rest_java_spring java -cp "$INTEROP_JAVA_REST_JAR" org.apache.dubbo.interop.rest.RestProvider \
    --tri-port "$tri" || return 1
  rust_client --url "rest://127.0.0.1:$tri" || rc=1
  rust_client --url "rest://127.0.0.1:$tri?client=h2c" || rc=1
  stop_server rest_java_spring || rc=1
  return $rc
}

# The last answer's headers (of rest_expect) include, or lack, a line matching each regex.
rest_headers_have() {
  local re
  for re in "$@"; do
    tr -d '\r' <"$WORK/rest.head" | grep -Eiq -- "$re" || { echo "  no header matching $re"; return 1; }
  done
}
rest_headers_lack() {
  local re
  for re in "$@"; do
    if tr -d '\r' <"$WORK/rest.head" | grep -Eiq -- "$re"; then echo "  unexpected header matching $re"; return 1; fi
  done
}

# CORS as Java's triple rest applies it (dubbo.protocol.triple.rest.cors.*, docs/rest.md),
# against a provider started with --cors settings: preflights allowed (204 with the
# Access-Control-Allow-* headers) and refused (403 for an origin, a method or headers not
# allowed), actual requests answered with Access-Control-Allow-Origin/-Expose-Headers/
# -Allow-Credentials or refused (403), nothing but Vary without Origin; the server without
# CORS settings ($REST_BASE) adds no CORS header and refuses preflights; a service's own
# settings (#[cross_origin] on its trait) replace the server's for its routes, and a method's
# (#[cross_origin] on it) the service's and the server's for its route, with or without them; a bad
# setting stops the provider at start naming its full key.
rest_cors() {
  local port b rc=0 out
  port=$(free_port)
  b=http://127.0.0.1:$port
  start_server rest_cors_server "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$port" --cors 'allowed-origins=https://app.example,http://localhost:[*]' \
    --cors allowed-methods=GET,POST --cors allowed-headers=Content-Type,X-Token \
    --cors exposed-headers=Location --cors allow-credentials=true --cors max-age=600 --notes || return 1
  local app=(-H 'Origin: https://app.example')
  local vary='^vary: origin, access-control-request-method, access-control-request-headers$'
  # Preflight allowed (one Access-Control-Request-Headers listing two, as browsers send it).
  rest_expect 204 '' -- -X OPTIONS "${app[@]}" -H 'Access-Control-Request-Method: POST' \
    -H 'Access-Control-Request-Headers: content-type, x-token' "$b/users" || rc=1
  rest_headers_have '^access-control-allow-origin: https://app.example$' \
    '^access-control-allow-methods: GET, POST$' '^access-control-allow-headers: content-type, x-token$' \
    '^access-control-max-age: 600$' '^access-control-allow-credentials: true$' \
    '^access-control-expose-headers: Location$' "$vary" || rc=1
  # Over h2c too, on a path mapped with other verbs only (GET, DELETE), and on the default form.
  REST_CURL=--http2-prior-knowledge rest_expect 204 '' '^access-control-allow-methods: GET, POST$' -- \
    -X OPTIONS "${app[@]}" -H 'Access-Control-Request-Method: GET' "$b/users/7" || rc=1
  rest_expect 204 '' '^access-control-allow-origin: http://localhost:5173$' -- -X OPTIONS -H 'Origin: http://localhost:5173' \
    -H 'Access-Control-Request-Method: POST' "$b/org.apache.dubbo.interop.InteropService/sayHello" || rc=1
  # Preflight refused: an origin, a method, headers not allowed; no Allow-Origin, Vary kept.
  rest_expect 403 '"message":"Invalid CORS request: origin' "$vary" -- -X OPTIONS -H 'Origin: https://evil.example' \
    -H 'Access-Control-Request-Method: GET' "$b/users" || rc=1
  rest_headers_lack '^access-control-allow-origin' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: method' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: DELETE' "$b/users/7" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: none of the requested headers' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: x-other' "$b/users" || rc=1
  rest_expect 404 '' -- -X OPTIONS "${app[@]}" -H 'Access-Control-Request-Method: GET' "$b/no/such/route" || rc=1
  # Actual requests: the answer as usual, with the CORS headers.
  rest_expect 200 '"name":"user-7"' '^access-control-allow-origin: https://app.example$' -- "${app[@]}" "$b/users/7" || rc=1
  rest_headers_have '^access-control-expose-headers: Location$' '^access-control-allow-credentials: true$' "$vary" || rc=1
  rest_headers_lack '^access-control-allow-methods' '^access-control-max-age' || rc=1
  rest_expect 201 '"id":43' '^location: /users/43$' -- "${app[@]}" -H 'Content-Type: application/json' \
    -d '{"id":43,"name":"cors","age":1,"tags":[],"attrs":{}}' "$b/users" || rc=1
  rest_headers_have '^access-control-allow-origin: https://app.example$' || rc=1
  REST_CURL=--http2-prior-knowledge rest_expect 404 '"message":"no user with id -3"' \
    '^access-control-allow-origin: https://app.example$' -- "${app[@]}" "$b/users/-3" || rc=1
  # Actual requests refused before the service is called: an origin, a method not allowed.
  rest_expect 403 '"message":"Invalid CORS request: origin' "$vary" -- -H 'Origin: https://evil.example' "$b/users/7" || rc=1
  rest_headers_lack '^access-control-allow-origin' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: method' -- "${app[@]}" -X DELETE "$b/users/7" || rc=1
  # No Origin (or the server's own): not a CORS request, only Vary.
  rest_expect 200 '"name":"user-7"' "$vary" -- "$b/users/7" || rc=1
  rest_headers_lack '^access-control-' || rc=1
  rest_expect 200 '"name":"user-7"' -- -H "Origin: $b" "$b/users/7" || rc=1
  rest_headers_lack '^access-control-' || rc=1
  # A method's own settings (#[cross_origin] on greeting: its origin, Accept-Language, max-age
  # 60) in place of the server's for its route; the server's methods, exposed headers and
  # credentials kept.
  local greet=(-H 'Origin: https://greet.example')
  rest_expect 204 '' '^access-control-allow-origin: https://greet.example$' -- -X OPTIONS "${greet[@]}" \
    -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: accept-language' "$b/users/5/greeting" || rc=1
  rest_headers_have '^access-control-allow-methods: GET, POST$' '^access-control-allow-headers: accept-language$' \
    '^access-control-max-age: 60$' '^access-control-allow-credentials: true$' '^access-control-expose-headers: Location$' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: GET' "$b/users/5/greeting" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: none of the requested headers' -- -X OPTIONS "${greet[@]}" \
    -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: x-token' "$b/users/5/greeting" || rc=1
  REST_CURL=--http2-prior-knowledge rest_expect 200 '^Hello user-5$' '^access-control-allow-origin: https://greet.example$' -- \
    "${greet[@]}" "$b/users/5/greeting" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- "${app[@]}" "$b/users/5/greeting" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- "${greet[@]}" "$b/users/5" || rc=1
  # A service's own settings (#[cross_origin] on NoteResource's trait: its origin, X-Note,
  # max-age 120) for each of its routes in place of the server's, and a method's (put_note:
  # its origin and PUT) over the service's.
  local notes=(-H 'Origin: https://notes.example') editor=(-H 'Origin: https://editor.example')
  rest_expect 204 '' '^access-control-allow-origin: https://notes.example$' -- -X OPTIONS "${notes[@]}" \
    -H 'Access-Control-Request-Method: GET' -H 'Access-Control-Request-Headers: x-note' "$b/notes/1" || rc=1
  rest_headers_have '^access-control-allow-methods: GET, POST$' '^access-control-allow-headers: x-note$' \
    '^access-control-max-age: 120$' '^access-control-allow-credentials: true$' '^access-control-expose-headers: Location$' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: GET' "$b/notes/1" || rc=1
  REST_CURL=--http2-prior-knowledge rest_expect 200 '^note 1$' '^access-control-allow-origin: https://notes.example$' -- \
    "${notes[@]}" "$b/notes/1" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- "${app[@]}" "$b/notes/1" || rc=1
  rest_expect 204 '' '^access-control-allow-origin: https://editor.example$' -- -X OPTIONS "${editor[@]}" \
    -H 'Access-Control-Request-Method: PUT' -H 'Access-Control-Request-Headers: x-note' "$b/notes/1" || rc=1
  rest_headers_have '^access-control-allow-methods: PUT$' '^access-control-allow-headers: x-note$' '^access-control-max-age: 120$' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- -X OPTIONS "${notes[@]}" \
    -H 'Access-Control-Request-Method: PUT' "$b/notes/1" || rc=1
  rest_expect 200 '^1=hi$' '^access-control-allow-origin: https://editor.example$' -- -X PUT "${editor[@]}" \
    -H 'Content-Type: text/plain' -d hi "$b/notes/1" || rc=1
  # The OpenAPI document under the server's settings, so that a Swagger UI of another origin
  # can load it.
  rest_expect 204 '' '^access-control-allow-origin: https://app.example$' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: GET' "$b/dubbo/openapi/api-docs" || rc=1
  rest_expect 200 '"openapi":"3' '^access-control-allow-origin: https://app.example$' -- "${app[@]}" \
    "$b/dubbo/openapi/api-docs" || rc=1
  rest_expect 403 '"message":"Invalid CORS request: origin' -- -H 'Origin: https://evil.example' \
    "$b/dubbo/openapi/api-docs" || rc=1
  stop_server rest_cors_server || rc=1
  # The server without CORS settings: no CORS headers, preflights refused.
  rest_expect 200 '"name":"user-7"' -- "${app[@]}" "$REST_BASE/users/7" || rc=1
  rest_headers_lack '^access-control-' '^vary' || rc=1
  rest_expect 403 '"message":"Invalid CORS request: CORS is not configured' -- -X OPTIONS "${app[@]}" \
    -H 'Access-Control-Request-Method: GET' "$REST_BASE/users/7" || rc=1
  rest_headers_lack '^access-control-' || rc=1
  # ... except on a route with its own settings (greeting: Java's defaults for the rest, its
  # own verb as the methods).
  rest_expect 204 '' '^access-control-allow-origin: https://greet.example$' -- -X OPTIONS "${greet[@]}" \
    -H 'Access-Control-Request-Method: GET' "$REST_BASE/users/5/greeting" || rc=1
  rest_headers_have '^access-control-allow-methods: GET, HEAD$' '^access-control-max-age: 60$' || rc=1
  rest_headers_lack '^access-control-allow-credentials' '^access-control-expose-headers' || rc=1
  rest_expect 200 '^Hello user-5$' '^access-control-allow-origin: https://greet.example$' -- "${greet[@]}" \
    "$REST_BASE/users/5/greeting" || rc=1
  # ... and on a service with its own settings (NoteResource: every route of it, with the
  # route's verb as the methods, the service's max-age).
  rest_expect 204 '' '^access-control-allow-origin: https://notes.example$' -- -X OPTIONS "${notes[@]}" \
    -H 'Access-Control-Request-Method: GET' "$REST_BASE/notes/1" || rc=1
  rest_headers_have '^access-control-allow-methods: GET, HEAD$' '^access-control-max-age: 120$' || rc=1
  rest_headers_lack '^access-control-allow-credentials' '^access-control-expose-headers' || rc=1
  rest_expect 204 '' '^access-control-allow-methods: PUT$' -- -X OPTIONS "${editor[@]}" \
    -H 'Access-Control-Request-Method: PUT' "$REST_BASE/notes/1" || rc=1
  # A bad setting stops the provider at start, naming the full key.
  rest_refused_at_start dubbo.protocols.tri.triple.rest.cors.allowed-methods \
    --cors allowed-methods=GET,FETCH || rc=1
  return $rc
}

# Swagger UI (docs/rest.md, "Swagger UI"): swagger-ui-dist 5.18.2 from npm (the version Java
# Dubbo 3.3 loads by default), served by a provider started with --swagger-ui assets=DIR:
# curl checks of the redirect, the page, swagger-config, a file served byte for byte, a name
# outside the package refused; a headless Chromium (Selenium) sees the operations of the REST
# table and calls GET /users/{id} from the page; an assets directory without Swagger UI stops
# the provider at start naming its full key.
rest_swagger_ui() {
  local dist=$ROOT/target/test-cache/swagger-ui-dist-5.18.2 port b rc=0 out
  if [ ! -f "$dist/swagger-ui-bundle.js" ]; then
    command -v npm >/dev/null || { echo "  npm missing: it fetches swagger-ui-dist"; return 1; }
    mkdir -p "$dist.tmp" &&
      (cd "$dist.tmp" && npm pack --silent swagger-ui-dist@5.18.2 >/dev/null && tar xzf swagger-ui-dist-5.18.2.tgz) ||
      { echo "  npm pack swagger-ui-dist@5.18.2 failed"; return 1; }
    rm -rf "$dist" && mv "$dist.tmp/package" "$dist" && rm -rf "$dist.tmp"
  fi
  apt_install chromium chromium || return 1
  apt_install chromedriver chromium-driver || return 1
  port=$(free_port)
  b=http://127.0.0.1:$port
  start_server rest_swagger_server "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$port" --swagger-ui "assets=$dist" --swagger-ui settings.filter=true || return 1
  rest_expect 302 '' '^location: /dubbo/openapi/swagger-ui/index.html$' -- "$b/dubbo/openapi/swagger-ui/" || rc=1
  rest_expect 200 'src="./assets/swagger-ui-bundle.js"' '^content-type: text/html' -- \
    "$b/dubbo/openapi/swagger-ui/index.html" || rc=1
  grep -q '"filter": true' "$WORK/rest.body" || { echo "  settings.filter missing from the page"; rc=1; }
  rest_expect 200 '"url":"../api-docs"' -- "$b/dubbo/openapi/swagger-ui/swagger-config" || rc=1
  curl -sS -o "$WORK/bundle.js" "$b/dubbo/openapi/swagger-ui/assets/swagger-ui-bundle.js" &&
    cmp -s "$WORK/bundle.js" "$dist/swagger-ui-bundle.js" && echo "  swagger-ui-bundle.js served byte for byte" ||
    { echo "  swagger-ui-bundle.js not served as in the package"; rc=1; }
  out=$(curl -sS --http2-prior-knowledge -o "$WORK/swagger.css" -w '%{http_code} %{content_type}' \
    "$b/dubbo/openapi/swagger-ui/assets/swagger-ui.css")
  echo "  h2c swagger-ui.css -> $out"
  [[ $out == "200 text/css"* ]] && cmp -s "$WORK/swagger.css" "$dist/swagger-ui.css" || rc=1
  rest_expect 404 '"message":"no Swagger UI file' -- --path-as-is "$b/dubbo/openapi/swagger-ui/assets/../../../../etc/passwd" || rc=1
  rest_expect 404 '"message":"no Swagger UI file' -- "$b/dubbo/openapi/swagger-ui/assets/package.json" || rc=1
  rest_expect 405 '' -- -X POST "$b/dubbo/openapi/swagger-ui/index.html" || rc=1
  "$PY" interop/python/swagger_ui.py --base "$b" --screenshots "$ROOT/target/test-logs/swagger-ui" || rc=1
  stop_server rest_swagger_server || rc=1
  # Without settings the page loads Swagger UI from Java's default CDN.
  rest_expect 200 'src="https://unpkg.com/swagger-ui-dist@5.18.2/swagger-ui-bundle.js"' -- \
    "$REST_BASE/dubbo/openapi/swagger-ui/index.html" || rc=1
  rest_refused_at_start dubbo.protocols.tri.triple.rest.openapi.settings.swagger-ui.assets \
    --swagger-ui "assets=$WORK" || rc=1
  return $rc
}

# The rest:// client over TLS (https, dubbo.ssl client keys from --tls-ca) against the Rust
# provider serving TLS with a CA made by openssl (tls.sh's tls_certs): every row of the table
# over HTTP/1.1 (ALPN http/1.1) and HTTP/2 (client=h2c: ALPN h2); then mutual TLS with a
# client certificate; refused with a CA that did not sign the server's certificate, and
# without a client certificate under mutual TLS.
rest_tls() {
  local port mport rc=0 out
  [ -n "$TLS_DIR" ] || tls_certs >/dev/null || return 1
  port=$(free_port)
  start_server rest_tls_server "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$port" $(tls_server_args) || return 1
  rust_client --url "rest://127.0.0.1:$port" --tls-ca "$TLS_DIR/ca.pem" || rc=1
  rust_client --url "rest://127.0.0.1:$port?client=h2c" --tls-ca "$TLS_DIR/ca.pem" || rc=1
  # The server's certificate is not signed by the CA the client trusts: refused, nothing sent.
  out=$(rust_client --url "rest://127.0.0.1:$port" --tls-ca "$TLS_DIR/ca2.pem" 2>&1)
  if [ $? -eq 0 ] || ! grep -q 'UnknownIssuer' <<<"$out"; then
    echo "  a server certificate of another CA was not refused with UnknownIssuer:"; tail -n 5 <<<"$out"; rc=1
  else
    echo "  wrong CA refused: $(grep -m 1 -o 'TLS handshake with [^)"]*UnknownIssuer' <<<"$out")"
  fi
  # Plain http:// to the TLS port is refused by the server too.
  out=$(rust_client --url "rest://127.0.0.1:$port" 2>&1) && { echo "  plaintext to a TLS port answered"; rc=1; }
  stop_server rest_tls_server || rc=1
  mport=$(free_port)
  start_server rest_mtls_server "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$mport" $(tls_server_args) --tls-ca "$TLS_DIR/ca.pem" || return 1
  rust_client --url "rest://127.0.0.1:$mport" --tls-ca "$TLS_DIR/ca.pem" $(tls_client_cert) || rc=1
  out=$(rust_client --url "rest://127.0.0.1:$mport" --tls-ca "$TLS_DIR/ca.pem" 2>&1) &&
    { echo "  mutual TLS answered a client without a certificate"; rc=1; }
  stop_server rest_mtls_server || rc=1
  return $rc
}

rest_steps() {
  local port
  port=$(free_port)
  step "Python venv with requests and openapi-spec-validator (PyPI)" python_setup
  step "start Rust interop server (REST)" start_server rest_server "$TARGET_DIR/debug/interop-server" \
    --dubbo-port "$(free_port)" --tri-port "$port" --notes
  REST_BASE=http://127.0.0.1:$port
  REST_CURL= step "curl HTTP/1.1 -> Rust provider: every row of the REST table, the default mapping" rest_rows
  REST_CURL=--http2-prior-knowledge step "curl h2c -> Rust provider: every row of the REST table, the default mapping" rest_rows
  step "Rust REST client (rest://, HTTP/1.1) -> Rust provider: every row of the REST table, the default mapping" \
    rust_client --url "rest://127.0.0.1:$port"
  step "Rust REST client (rest://, h2c) -> Rust provider: every row of the REST table, the default mapping" \
    rust_client --url "rest://127.0.0.1:$port?client=h2c"
  step "Java java.net.http client -> Rust provider: every row of the REST table, the default mapping" \
    java -cp "$INTEROP_JAVA_REST_JAR" org.apache.dubbo.interop.rest.RestCheck "$REST_BASE"
  step "Rust REST client (rest:// over TLS, https with an openssl CA; HTTP/1.1 and HTTP/2 by ALPN; mutual TLS) -> Rust provider: every row; another CA refused (UnknownIssuer)" \
    rest_tls
  step "Rust REST client (rest://, HTTP/1.1 and h2c) -> Java Dubbo 3.3 provider with Spring MVC annotations: every row of the REST table" \
    rest_java_spring_provider
  step "Python requests -> Rust provider: every row of the REST table, the default mapping" \
    "$PY" interop/python/rest_client.py "$REST_BASE"
  step "OpenAPI document: openapi-spec-validator (PyPI) accepts it (JSON and ?format=yaml), every row documented, answers fit its schemas" \
    "$PY" interop/python/openapi_check.py "$REST_BASE"
  REST_CURL= step "REST bad input over HTTP/1.1: 400 malformed JSON and YAML, 400 wrong path type, 413, 404, 405, 415, 406; still serving" rest_bad_input
  REST_CURL=--http2-prior-knowledge step "REST bad input over h2c: the same answers; still serving" rest_bad_input
  step "the default form, Java Dubbo 3.3 provider and Rust provider: the same requests get the same answers" \
    rest_java_default_form
  step "CORS (--cors, Java's dubbo.protocol.triple.rest.cors.*, a service's and a method's #[cross_origin]; the OpenAPI document too): preflight 204/403, actual requests' Access-Control-* headers or 403, none without Origin or settings; a bad key refused at start" \
    rest_cors
  step "Swagger UI (swagger-ui-dist from npm served with --swagger-ui assets=DIR): redirect, page, swagger-config, files byte for byte, names outside the package refused; headless Chromium lists the operations and calls GET /users/{id} from the page; a bad assets directory refused at start" \
    rest_swagger_ui
  step "Rust interop server (REST) exits cleanly on SIGTERM" stop_server rest_server
  step "REST calls pass the provider's filters: token refused (403) without it, answered with it" rest_token
}
