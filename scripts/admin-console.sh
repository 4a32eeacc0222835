# The admin console and HTTP API (dubbo-admin) against real peers: ZooKeeper, a Java Dubbo 3.3
# provider and a dubbo-rs provider of the interop services, each with its QoS port; curl checks
# of the API, a real Prometheus discovering the instances through the admin, and a headless
# Chromium driven by Selenium. Sourced by scripts/test.sh, which provides step, start_server,
# stop_server, zookeeper_up, free_port, apt_install, daemon_ready, stop_daemon, rust_client,
# python_setup, PY, WORK, ZK_URL, TARGET_DIR and INTEROP_JAVA_DUBBO_JAR;
# `bash scripts/test.sh --only admin` runs these steps. Screenshots go to $ADMIN_LOGS
# (target/test-logs/admin unless set).

ADM_JAVA_DUBBO=22984
ADM_JAVA_TRI=12984
ADM_JAVA_APP=admin-provider-java
ADM_RUST_DUBBO=21984
ADM_RUST_TRI=11984
ADM_RUST_APP=admin-provider-rust
ADM_LOCAL_APP=admin-local-java
ADM_IFACE=org.apache.dubbo.interop.InteropService
ADM_KEY=$ADM_IFACE:1.0.0
ADM_USER=ops
ADM_PASSWORD=
ADMIN_LOGS=${ADMIN_LOGS:-$ROOT/target/test-logs/admin}

admin_build() {
  cargo build --quiet -p dubbo-admin
}

admin_providers_up() {
  ADM_JAVA_QOS=$(free_port)
  ADM_RUST_QOS=$(free_port)
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server admin_java_provider java -Djava.net.preferIPv4Stack=true -cp "$INTEROP_JAVA_DUBBO_JAR" \
    org.apache.dubbo.interop.Provider --dubbo-port $ADM_JAVA_DUBBO --tri-port $ADM_JAVA_TRI \
    --app "$ADM_JAVA_APP" --registry "$ZK_URL" --qos-port "$ADM_JAVA_QOS" || return 1
  start_server admin_rust_provider "$TARGET_DIR/debug/interop-server" --dubbo-port $ADM_RUST_DUBBO \
    --tri-port $ADM_RUST_TRI --registry "$ZK_URL" --app "$ADM_RUST_APP" --qos-port "$ADM_RUST_QOS"
}

# The admin with a read-only and an admin user from a configuration file (the password's
# digest only), its data directory in $WORK.
admin_up() {
  ADM_PORT=$(free_port)
  ADM_PASSWORD=pw-$RANDOM$RANDOM
  cat >"$WORK/admin.yaml" <<YAML
users:
  - name: $ADM_USER
    password-sha256: $(printf %s "$ADM_PASSWORD" | sha256sum | cut -d' ' -f1)
    role: admin
  - name: viewer
    password: viewer-$ADM_PASSWORD
    role: read-only
data-dir: $WORK/admin-data
qos-ports:
  $ADM_JAVA_APP: $ADM_JAVA_QOS
  $ADM_RUST_APP: $ADM_RUST_QOS
YAML
  start_server admin "$TARGET_DIR/debug/dubbo-admin" --registry "$ZK_URL" --port "$ADM_PORT" \
    --config "$WORK/admin.yaml"
}

# With no user configured, the first start makes user admin a password, prints it once and
# keeps its digest; that password logs in; the second start on the same data directory prints
# none and the same password still logs in.
admin_generated_password() {
  local port pw code dir="$WORK/admin-generated"
  port=$(free_port)
  start_server admin_generated "$TARGET_DIR/debug/dubbo-admin" --registry "$ZK_URL" --port "$port" \
    --data-dir "$dir" || return 1
  pw=$(sed -n 's/.*user admin has the generated password \([0-9a-f]*\) .*/\1/p' "$WORK/admin_generated.err")
  [ -n "$pw" ] || { echo "no generated password printed"; cat "$WORK/admin_generated.err"; return 1; }
  stop_server admin_generated || return 1
  start_server admin_generated "$TARGET_DIR/debug/dubbo-admin" --registry "$ZK_URL" --port "$port" \
    --data-dir "$dir" || return 1
  if grep -q "generated password" "$WORK/admin_generated.err"; then
    echo "the password was printed again"; stop_server admin_generated; return 1
  fi
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$pw\"}" "http://127.0.0.1:$port/api/v1/auth/login")
  echo "generated password printed once; login after a restart: HTTP $code"
  stop_server admin_generated || return 1
  [ "$code" = 200 ] && ! grep -rq "$pw" "$dir"
}

# curl with the admin's session cookie jar $1, then curl's arguments.
admin_curl() {
  local jar=$1
  shift
  curl -sS -b "$jar" -c "$jar" "$@"
}

# Without a session the API answers 401; a wrong password does not log in; the configured
# users do, with their roles; the read-only user may not call.
admin_login() {
  local base="http://127.0.0.1:$ADM_PORT" code
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/service")
  [ "$code" = 401 ] || { echo "no session: HTTP $code, expected 401"; return 1; }
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"username\":\"$ADM_USER\",\"password\":\"wrong\"}" "$base/api/v1/auth/login")
  [ "$code" = 401 ] || { echo "wrong password: HTTP $code, expected 401"; return 1; }
  rm -f "$WORK/admin.jar" "$WORK/viewer.jar"
  admin_curl "$WORK/admin.jar" -f -H 'Content-Type: application/json' \
    -d "{\"username\":\"$ADM_USER\",\"password\":\"$ADM_PASSWORD\"}" "$base/api/v1/auth/login" || return 1
  echo
  admin_curl "$WORK/viewer.jar" -f -H 'Content-Type: application/json' \
    -d "{\"username\":\"viewer\",\"password\":\"viewer-$ADM_PASSWORD\"}" "$base/api/v1/auth/login" || return 1
  echo
  code=$(admin_curl "$WORK/viewer.jar" -o "$WORK/admin-forbidden.json" -w '%{http_code}' \
    -H 'Content-Type: application/json' -d "{\"service\":\"$ADM_IFACE\",\"method\":\"sayHello\",\"args\":[\"x\"]}" \
    "$base/api/v1/invoke")
  echo "read-only user calling: HTTP $code $(cat "$WORK/admin-forbidden.json")"
  [ "$code" = 403 ]
}

# The service search finds InteropService with both applications and both protocols; the
# instance search lists both instances with their QoS addresses (registration is
# asynchronous: read until complete, 15 s at most).
admin_search() {
  local base="http://127.0.0.1:$ADM_PORT" i
  for i in $(seq 1 30); do
    admin_curl "$WORK/admin.jar" -f "$base/api/v1/service?pattern=service&filter=InteropService&page=0&size=10" \
      >"$WORK/admin-search.json" &&
      admin_curl "$WORK/admin.jar" -f "$base/api/v1/instances?size=100" >"$WORK/admin-instances.json" &&
      python3 - "$WORK" "$ADM_JAVA_APP" "$ADM_RUST_APP" "$ADM_JAVA_QOS" "$ADM_RUST_QOS" <<'PY' && return 0
import json, sys
work, japp, rapp, jq, rq = sys.argv[1:6]
page = json.load(open(work + "/admin-search.json"))
inst = json.load(open(work + "/admin-instances.json"))["content"]
s = [x for x in page["content"] if x["serviceKey"] == "org.apache.dubbo.interop.InteropService:1.0.0"]
ok = (len(s) == 1 and set(s[0]["applications"]) >= {japp, rapp} and set(s[0]["protocols"]) == {"dubbo", "tri"}
      and page["totalElements"] >= 1 and page["number"] == 0)
qos = {i["application"]: i["qosAddress"] for i in inst}
ok = ok and qos.get(japp) == "127.0.0.1:" + jq and qos.get(rapp) == "127.0.0.1:" + rq
if ok:
    print("search:", json.dumps(s[0]))
    print("instances:", json.dumps(qos))
sys.exit(0 if ok else 1)
PY
    sleep 0.5
  done
  cat "$WORK/admin-search.json" "$WORK/admin-instances.json"
  return 1
}

# The catalog follows the registry's pushes: a Rust provider started after the admin read the
# registry (registering both ways) is searchable within 3 s of its READY, and gone within 3 s
# of its stop, while GET /api/v1/catalog shows the catalog live and no whole re-read made
# (fullReads unchanged), only updates from the watches.
# $1, $2, $3: the admin's base URL, its cookie jar and the registry (default: the first admin on
# ZooKeeper); $4 a label for the provider's application.
admin_live() {
  local base=${1:-http://127.0.0.1:$ADM_PORT} jar=${2:-$WORK/admin.jar} reg=${3:-$ZK_URL}
  local app=admin-live-rust${4:+-$4} before after t0 seen gone n
  admin_live_count() {
    admin_curl "$jar" -f "$base/api/v1/service?pattern=application&filter=$app&size=100" |
      python3 -c 'import json,sys; print(sum(sys.argv[1] in s["applications"] for s in json.load(sys.stdin)["content"]))' "$app"
  }
  before=$(admin_curl "$jar" -f "$base/api/v1/catalog") || return 1
  echo "before: $before"
  start_server admin_live_provider "$TARGET_DIR/debug/interop-server" --dubbo-port "$(free_port)" \
    --tri-port "$(free_port)" --registry "$reg" --app "$app" || return 1
  t0=$(date +%s%N)
  for n in $(seq 1 60); do [ "$(admin_live_count)" -gt 0 ] && break; sleep 0.05; done
  seen=$((($(date +%s%N) - t0) / 1000000))
  stop_server admin_live_provider || return 1
  t0=$(date +%s%N)
  for n in $(seq 1 60); do [ "$(admin_live_count)" -eq 0 ] && break; sleep 0.05; done
  gone=$((($(date +%s%N) - t0) / 1000000))
  after=$(admin_curl "$jar" -f "$base/api/v1/catalog") || return 1
  echo "after: $after"
  echo "$app searchable ${seen} ms after READY, gone ${gone} ms after its stop"
  python3 - "$before" "$after" "$seen" "$gone" <<'PY'
import json, sys
before, after = json.loads(sys.argv[1]), json.loads(sys.argv[2])
seen, gone = int(sys.argv[3]), int(sys.argv[4])
sys.exit(0 if before["live"] and after["live"] and after["fullReads"] == before["fullReads"]
         and after["updates"] > before["updates"] and seen <= 3000 and gone <= 3000 else 1)
PY
}

# A Java 3.3 provider registered at application level only (register-mode instance) with its
# metadata kept behind its MetadataService (storage type local, Java's default): nothing of
# it is under /dubbo/*/providers nor in the metadata report's revisions, so the admin shows its
# services only by asking the instance's MetadataService (on its tri:// port). The service
# search and the service detail show both protocols with sources ["application"]; the
# instance has its revision; a call at its dubbo:// address from the admin answers. The
# provider stops afterwards.
admin_local_metadata() {
  local base="http://127.0.0.1:$ADM_PORT" dubbo tri i rc=1
  dubbo=$(free_port) tri=$(free_port)
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server admin_local_provider java -Djava.net.preferIPv4Stack=true -cp "$INTEROP_JAVA_DUBBO_JAR" \
    org.apache.dubbo.interop.Provider --dubbo-port "$dubbo" --tri-port "$tri" \
    --app "$ADM_LOCAL_APP" --registry "$ZK_URL?register-mode=instance" || return 1
  if /usr/share/zookeeper/bin/zkCli.sh -server "${ZK_URL#zookeeper://}" ls "/dubbo/$ADM_IFACE/providers" 2>/dev/null |
    grep -q "$ADM_LOCAL_APP"; then
    echo "$ADM_LOCAL_APP registered at interface level too"
    stop_server admin_local_provider
    return 1
  fi
  for i in $(seq 1 40); do
    admin_curl "$WORK/admin.jar" -f "$base/api/v1/service?pattern=application&filter=$ADM_LOCAL_APP&size=100" \
      >"$WORK/admin-local-search.json" &&
      admin_curl "$WORK/admin.jar" -f "$base/api/v1/service/$ADM_KEY" >"$WORK/admin-local-detail.json" &&
      admin_curl "$WORK/admin.jar" -f "$base/api/v1/instances?filter=$ADM_LOCAL_APP" >"$WORK/admin-local-instances.json" &&
      python3 - "$WORK" "$ADM_LOCAL_APP" "$dubbo" "$tri" <<'PY' && { rc=0; break; }
import json, sys
work, app, dubbo, tri = sys.argv[1:5]
search = json.load(open(work + "/admin-local-search.json"))["content"]
detail = json.load(open(work + "/admin-local-detail.json"))["providers"]
inst = json.load(open(work + "/admin-local-instances.json"))["content"]
keys = {s["serviceKey"] for s in search if app in s["applications"]}
mine = {(p["protocol"], p["address"], tuple(p["sources"])) for p in detail if p["application"] == app}
want = {("dubbo", "127.0.0.1:" + dubbo, ("application",)), ("tri", "127.0.0.1:" + tri, ("application",))}
# Found at application level only: the URL the instance's metadata gives.
urls = {p["url"] for p in detail if p["application"] == app}
want_urls = {f"{proto}://127.0.0.1:{port}/org.apache.dubbo.interop.InteropService" for proto, port in (("dubbo", dubbo), ("tri", tri))}
ok = ({"org.apache.dubbo.interop.InteropService:1.0.0", "org.apache.dubbo.interop.InteropService:2.0.0",
       "org.apache.dubbo.interop.tri.Greeter"} <= keys and mine == want and urls == want_urls
      and len(inst) == 1 and len(inst[0]["revision"]) == 32 and inst[0]["sources"] == ["application"])
if ok:
    print("services of", app, "from its MetadataService:", sorted(keys))
    print("InteropService:1.0.0 providers of", app, ":", sorted(mine))
    print("instance:", json.dumps(inst[0]))
sys.exit(0 if ok else 1)
PY
    sleep 0.5
  done
  if [ $rc -ne 0 ]; then
    cat "$WORK/admin-local-search.json" "$WORK/admin-local-detail.json" "$WORK/admin-local-instances.json"
  else
    admin_invoke "dubbo://127.0.0.1:$dubbo" || rc=1
    admin_cli_local "$dubbo" "$tri" || rc=1
  fi
  stop_server admin_local_provider || rc=1
  return $rc
}

# The same provider through the `dubbo` tool, which shares the admin's reading of
# application-level instances: `ls` lists its services on both protocols with source
# "application" (its MetadataService asked, as nothing is in the registry's /dubbo tree nor in
# the report's revisions), and `describe` without --version finds both versions' definitions
# through the mapping and the instance's metadata.
admin_cli_local() {
  local dubbo=$1 tri=$2
  "$TARGET_DIR/debug/dubbo" ls --registry "$ZK_URL" -o json >"$WORK/admin-cli-local-ls.json" || return 1
  "$TARGET_DIR/debug/dubbo" describe "$ADM_IFACE" --registry "$ZK_URL" --app "$ADM_LOCAL_APP" -o json \
    >"$WORK/admin-cli-local-describe.json" || return 1
  python3 - "$WORK" "$ADM_LOCAL_APP" "$dubbo" "$tri" <<'PY'
import json, sys
work, app, dubbo, tri = sys.argv[1:5]
rows = [r for r in json.load(open(work + "/admin-cli-local-ls.json"))["services"] if r["application"] == app]
mine = {(r["service"], r["version"], r["protocol"], r["address"].rsplit(":", 1)[1], tuple(r["sources"])) for r in rows}
iface, a = "org.apache.dubbo.interop.InteropService", ("application",)
want = {(iface, "1.0.0", "dubbo", dubbo, a), (iface, "1.0.0", "tri", tri, a),
        (iface, "2.0.0", "dubbo", dubbo, a), (iface, "2.0.0", "tri", tri, a)}
defs = {(d["application"], d["version"]) for d in json.load(open(work + "/admin-cli-local-describe.json"))["definitions"]}
print("dubbo ls:", sorted(mine))
print("dubbo describe:", sorted(defs))
sys.exit(0 if want <= mine and all(r["sources"] == ["application"] for r in rows)
         and {(app, "1.0.0"), (app, "2.0.0")} <= defs else 1)
PY
}

# Consumers as Java 3.3 leaves them. A Java consumer registers its consumer URL (under
# /dubbo/IFACE/consumers) for its interface-level invoker only, which APPLICATION_FIRST (its
# default) makes beside application-level discovery; in FORCE_APPLICATION it registers nothing
# (Java's ServiceDiscoveryRegistry registers providers only) and its only trace is its
# reference's parameters in the metadata report (/dubbo/metadata/IFACE/VERSION/consumer/APP),
# which dubbo-rs references write too. Three consumers calling InteropService 1.0.0: Java 3.3 in
# APPLICATION_FIRST and in FORCE_APPLICATION, and a Rust one (interop-client) in
# FORCE_APPLICATION. The service detail (API and console page) lists all three: the first
# found both ways (interface, metadata-report), the other two in the metadata report only, with
# the host their entry names (docs/admin.md, "Consumers").
admin_consumers() {
  local base="http://127.0.0.1:$ADM_PORT" af=admin-consumer-af fa=admin-consumer-fa rfa=admin-consumer-rust-fa
  local pids=() i rc=1 step app
  # A consumer registers its address with no port: with DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1
  # that is dubbo://::ffff:127.0.0.1/IFACE?..., which neither Java's URL parser nor dubbo-url
  # reads (the last ':' starts the port), so the Java consumers register 192.0.2.1 (RFC 5737's
  # documentation address): only data in ZooKeeper, nothing is dialled or bound there.
  for step in "APPLICATION_FIRST:$af" "FORCE_APPLICATION:$fa"; do
    app=${step#*:}
    DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=192.0.2.1 \
      java -Djava.net.preferIPv4Stack=true -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Consumer \
      --registry "$ZK_URL" --migration "${step%%:*}" --app "$app" --load 100000000 --duration 90 \
      --concurrency 1 >"$WORK/$app.out" 2>"$WORK/$app.err" &
    pids+=("$!")
    PIDS+=("$!")
  done
  # The binary itself (not the rust_client function, whose subshell a kill would leave it behind).
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 "$TARGET_DIR/debug/interop-client" --registry "$ZK_URL" --migration FORCE_APPLICATION --app "$rfa" \
    --load 100000000 --duration 90 --concurrency 1 >"$WORK/$rfa.out" 2>"$WORK/$rfa.err" &
  pids+=("$!")
  PIDS+=("$!")
  for i in $(seq 1 60); do
    admin_curl "$WORK/admin.jar" -f "$base/api/v1/service/$ADM_KEY" >"$WORK/admin-consumers.json" &&
      admin_curl "$WORK/admin.jar" -f "$base/service/$ADM_KEY" >"$WORK/admin-consumers.html" &&
      python3 - "$WORK/admin-consumers.json" "$WORK/admin-consumers.html" "$af" "$fa" "$rfa" <<'PY' && { rc=0; break; }
import json, re, sys
path, html, af, fa, rfa = sys.argv[1:6]
consumers = json.load(open(path))["consumers"]
rows = {(c["application"], c["address"], tuple(c["sources"])) for c in consumers}
want = {(af, "192.0.2.1", ("interface", "metadata-report")),
        (fa, "192.0.2.1", ("metadata-report",)),
        (rfa, "127.0.0.1", ("metadata-report",))}
page = {(a, s) for a, s in re.findall(r'<tr class="consumer" data-application="([^"]*)" data-sources="([^"]*)"', open(html).read())}
shown = {(af, "interface,metadata-report"), (fa, "metadata-report"), (rfa, "metadata-report")}
urls = [u for c in consumers if c["application"] == af for u in c["urls"]]
ok = (want <= rows and shown <= page and len(consumers) == len(rows) and urls
      and all("://192.0.2.1/" in u and "application=" + af in u for u in urls))
if ok:
    for r in sorted(rows):
        print("consumer:", r)
    print("console page rows:", sorted(page))
sys.exit(0 if ok else 1)
PY
    sleep 1
  done
  [ $rc -eq 0 ] || { cat "$WORK/admin-consumers.json"; tail -n 5 "$WORK/$af.err" "$WORK/$fa.err" "$WORK/$rfa.err"; }
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  return $rc
}

# What references leave in the metadata report: a Rust consumer (interop-client) calling
# InteropService 1.0.0 through ZooKeeper writes its reference's URL parameters, a JSON object of
# strings, at Java's path (/dubbo/metadata/IFACE/1.0.0/consumer/APP, persistent), as the Java
# 3.3 APPLICATION_FIRST consumer of admin_consumers did at its own: both entries are read from
# ZooKeeper and compared (side, interface, version, application, and the keys they share, pid
# and register.ip among them).
# A second Rust consumer with report-definition=false on its registry URL writes none.
admin_consumer_entry() {
  local zk="${ZK_URL#zookeeper://}" base="/dubbo/metadata/$ADM_IFACE/1.0.0/consumer" app
  for app in "admin-consumer-rust:" "admin-consumer-rust-off:?report-definition=false"; do
    DUBBO_IP_TO_BIND=::ffff:127.0.0.1 rust_client --registry "$ZK_URL${app#*:}" --app "${app%%:*}" \
      --load 20 --duration 2 --concurrency 1 >"$WORK/${app%%:*}.out" 2>"$WORK/${app%%:*}.err" ||
      { tail -n 5 "$WORK/${app%%:*}.out" "$WORK/${app%%:*}.err"; return 1; }
  done
  for app in admin-consumer-af admin-consumer-rust admin-consumer-rust-off; do
    /usr/share/zookeeper/bin/zkCli.sh -server "$zk" get "$base/$app" 2>/dev/null | grep '^{' >"$WORK/entry-$app.json"
  done
  python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
read = lambda app: open(f"{work}/entry-{app}.json").read().strip()
java, rust = json.loads(read("admin-consumer-af")), json.loads(read("admin-consumer-rust"))
ok = True
for app, entry in (("admin-consumer-af", java), ("admin-consumer-rust", rust)):
    fine = (all(isinstance(v, str) for v in entry.values()) and entry.get("side") == "consumer"
            and entry.get("interface") == "org.apache.dubbo.interop.InteropService"
            and entry.get("version") == "1.0.0" and entry.get("application") == app)
    print(app, "entry:", "as expected" if fine else "WRONG", json.dumps(entry, sort_keys=True))
    ok = ok and fine
shared = sorted(set(java) & set(rust))
print("keys both write:", shared)
print("keys only Java's reference writes:", sorted(set(java) - set(rust)))
print("keys only the Rust reference writes:", sorted(set(rust) - set(java)))
off = read("admin-consumer-rust-off")
print("with report-definition=false:", off or "no entry")
want = {"application", "interface", "version", "side", "release", "dubbo", "timestamp", "protocol", "timeout",
        "pid", "register.ip"}
sys.exit(0 if ok and want <= set(shared) and not off else 1)
PY
}

# The service's methods, from the published definitions: the contract methods are there.
admin_methods() {
  local out
  out=$(admin_curl "$WORK/admin.jar" -f "http://127.0.0.1:$ADM_PORT/api/v1/service/$ADM_KEY/methods") ||
    { echo "$out"; return 1; }
  python3 -c '
import json, sys
names = {m["name"] for m in json.loads(sys.argv[1])}
print("methods:", sorted(names))
want = {"sayHello", "addInt", "echoMap", "echoUser", "listUsers", "getAttachment"}
sys.exit(0 if want <= names else 1)' "$out"
}

# POST /api/v1/invoke sayHello at $1 (a provider URL, or "" for through the registry).
admin_invoke() {
  local address=$1 body out
  if [ -n "$address" ]; then
    body="{\"service\":\"$ADM_IFACE\",\"version\":\"1.0.0\",\"method\":\"sayHello\",\"args\":[\"admin\"],\"address\":\"$address\"}"
  else
    body="{\"service\":\"$ADM_IFACE\",\"version\":\"1.0.0\",\"method\":\"sayHello\",\"args\":[\"admin\"]}"
  fi
  out=$(admin_curl "$WORK/admin.jar" -f -H 'Content-Type: application/json' -d "$body" \
    "http://127.0.0.1:$ADM_PORT/api/v1/invoke") || { echo "$out"; return 1; }
  echo "$out"
  python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["result"] == "Hello admin" else 1)' "$out"
}

# Generic calls in the provider's metrics: the admin's call of sayHello at the Rust provider is a
# generic $invoke, which the provider counts under sayHello, as Java 3.3's MetricsFilter does
# (MethodMetric takes RpcUtils.getMethodName: a generic call's first argument): its
# dubbo_provider_requests_total for sayHello goes up by one per call (read from its QoS
# /metrics before and after two calls) and no series is labelled $invoke.
admin_generic_metrics() {
  local before after
  admin_rust_said_hello() {
    curl -sSf "http://127.0.0.1:$ADM_RUST_QOS/metrics" >"$WORK/admin-rust-metrics.txt" || return 1
    python3 - "$WORK/admin-rust-metrics.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
if re.search(r'method="\$invoke', text):
    print("a series is labelled $invoke:", [l for l in text.splitlines() if '$invoke' in l][:3], file=sys.stderr)
    sys.exit(1)
total = sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines()
            if l.startswith("dubbo_provider_requests_total{") and 'method="sayHello"' in l
            and 'interface="org.apache.dubbo.interop.InteropService"' in l)
print(int(total))
PY
  }
  before=$(admin_rust_said_hello) || return 1
  admin_invoke "dubbo://127.0.0.1:$ADM_RUST_DUBBO" >/dev/null || return 1
  admin_invoke "tri://127.0.0.1:$ADM_RUST_TRI" >/dev/null || return 1
  after=$(admin_rust_said_hello) || return 1
  echo "Rust provider's sayHello requests: $before before two generic calls, $after after; no \$invoke series"
  [ $((after - before)) -eq 2 ]
}

# A rule that does not parse is refused (400) and nothing is written; a weight rule is written
# at Java's key (read back through `dubbo rules get`), then rolled back to no rule; the
# audit log has the write, the rollback and the calls.
admin_rules() {
  local base="http://127.0.0.1:$ADM_PORT" path code out
  path="$base/api/v1/rules/override/service/$ADM_KEY:"
  code=$(admin_curl "$WORK/admin.jar" -o "$WORK/admin-bad-rule.json" -w '%{http_code}' -X PUT \
    -H 'Content-Type: application/json' -d '{"content":"configVersion: v3.0\nconfigs: [ {side: provider\n"}' "$path")
  echo "broken rule: HTTP $code $(cat "$WORK/admin-bad-rule.json")"
  [ "$code" = 400 ] || return 1
  "$TARGET_DIR/debug/dubbo" rules get --registry "$ZK_URL" "$ADM_KEY:.configurators" >/dev/null 2>&1 &&
    { echo "the refused rule was written"; return 1; }
  out=$(admin_curl "$WORK/admin.jar" -f -X PUT -H 'Content-Type: application/json' \
    -d "{\"weight\":7,\"addresses\":[\"127.0.0.1:$ADM_RUST_DUBBO\"]}" "$base/api/v1/rules/weight/service/$ADM_KEY:") ||
    { echo "$out"; return 1; }
  out=$("$TARGET_DIR/debug/dubbo" rules get --registry "$ZK_URL" "$ADM_KEY:.configurators") || return 1
  echo "written, as stored:"; echo "$out"
  grep -q "weight: 7" <<<"$out" || return 1
  out=$(admin_curl "$WORK/admin.jar" -f -X POST "$base/api/v1/rules/weight/service/$ADM_KEY:/rollback") ||
    { echo "$out"; return 1; }
  echo "rolled back: $out"
  "$TARGET_DIR/debug/dubbo" rules get --registry "$ZK_URL" "$ADM_KEY:.configurators" >/dev/null 2>&1 &&
    { echo "the rule is still there after the rollback"; return 1; }
  out=$(admin_curl "$WORK/admin.jar" -f "$base/api/v1/audit?limit=20") || return 1
  python3 -c '
import json, sys
actions = [(e["user"], e["action"], e["ok"]) for e in json.loads(sys.argv[1])]
print("audit:", actions)
want = [("ops", "rule-put", False), ("ops", "rule-put", True), ("ops", "rule-rollback", True)]
sys.exit(0 if all(w in actions for w in want) and ("ops", "invoke", True) in actions else 1)' "$out"
}

# Prometheus service discovery lists both instances' QoS addresses.
admin_sd() {
  local out
  out=$(curl -sSf "http://127.0.0.1:$ADM_PORT/api/v1/prometheus/sd") || return 1
  echo "$out"
  python3 -c '
import json, sys
targets = {t for g in json.loads(sys.argv[1]) for t in g["targets"]}
sys.exit(0 if {"127.0.0.1:" + sys.argv[2], "127.0.0.1:" + sys.argv[3]} <= targets else 1)' "$out" "$ADM_JAVA_QOS" "$ADM_RUST_QOS"
}

# A real Prometheus with http_sd_configs pointing at the admin: both instances' QoS addresses
# become its targets and both are scraped; the Rust provider's is up and its InteropService call counter
# arrives. The Java 3.3 provider has no metrics backend on its classpath (no Micrometer), so its
# QoS answers /metrics with a sentence, not Prometheus text: Prometheus scrapes it (the step
# checks a scrape was made) and reports it down with the parse error, which the step prints.
admin_prometheus() {
  apt_install prometheus prometheus || return 1
  ADM_PROM_PORT=$(free_port)
  mkdir -p "$WORK/admin-prometheus-data"
  cat >"$WORK/admin-prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: dubbo-admin-sd
    scrape_interval: 1s
    http_sd_configs:
      - url: http://127.0.0.1:$ADM_PORT/api/v1/prometheus/sd
        refresh_interval: 1s
YAML
  prometheus --config.file="$WORK/admin-prometheus.yml" --storage.tsdb.path="$WORK/admin-prometheus-data" \
    --web.listen-address="127.0.0.1:$ADM_PROM_PORT" >"$WORK/admin_prometheus.out" 2>"$WORK/admin_prometheus.err" &
  PID_admin_prometheus=$!
  PIDS+=("$PID_admin_prometheus")
  daemon_ready admin_prometheus "http://127.0.0.1:$ADM_PROM_PORT/-/ready" || return 1
  local i
  for i in $(seq 1 60); do
    curl -s "http://127.0.0.1:$ADM_PROM_PORT/api/v1/targets" >"$WORK/admin-prom-targets.json"
    curl -s --get --data-urlencode "query=sum(dubbo_provider_requests_total{job=\"dubbo-admin-sd\",application_name=\"$ADM_RUST_APP\",interface=\"org.apache.dubbo.interop.InteropService\"})" \
      "http://127.0.0.1:$ADM_PROM_PORT/api/v1/query" >"$WORK/admin-prom-query.json"
    python3 - "$WORK" "$ADM_JAVA_QOS" "$ADM_RUST_QOS" <<'PY' && return 0
import json, sys
work, jq, rq = sys.argv[1:4]
targets = {t["scrapeUrl"]: t for t in json.load(open(work + "/admin-prom-targets.json"))["data"]["activeTargets"]}
java = targets.get(f"http://127.0.0.1:{jq}/metrics")
rust = targets.get(f"http://127.0.0.1:{rq}/metrics")
calls = json.load(open(work + "/admin-prom-query.json"))["data"]["result"]
scraped = lambda t: t is not None and not t["lastScrape"].startswith("0001")
ok = (scraped(java) and scraped(rust) and rust["health"] == "up" and calls and float(calls[0]["value"][1]) > 0
      and java["labels"]["application"] == "admin-provider-java")
if ok:
    print("targets from the admin:", sorted(targets))
    print("Rust provider: up; InteropService calls scraped:", calls[0]["value"][1])
    print("Java provider: scraped, health", java["health"], "-", java["lastError"] or "no error")
sys.exit(0 if ok else 1)
PY
    sleep 0.5
  done
  cat "$WORK/admin-prom-targets.json"; echo
  return 1
}

# Metrics over time from Prometheus: a second admin started with --prometheus at the Prometheus
# of admin_prometheus answers GET /api/v1/instance/ID/metrics/range for the Rust provider with
# Prometheus's query_range series: sayHello's requests/s positive while the admin calls it, and
# the same methods as Prometheus's own answer to the same query; the first admin, with no
# Prometheus configured, answers 404.
admin_prometheus_range() {
  local port jar="$WORK/admin-prom.jar" id code i rc=1 base
  port=$(free_port)
  start_server admin_prom "$TARGET_DIR/debug/dubbo-admin" --registry "$ZK_URL" --port "$port" \
    --config "$WORK/admin.yaml" --data-dir "$WORK/admin-prom-data" \
    --prometheus "http://127.0.0.1:$ADM_PROM_PORT" || return 1
  base="http://127.0.0.1:$port"
  rm -f "$jar"
  admin_curl "$jar" -f -H 'Content-Type: application/json' \
    -d "{\"username\":\"$ADM_USER\",\"password\":\"$ADM_PASSWORD\"}" "$base/api/v1/auth/login" >/dev/null ||
    { stop_server admin_prom; return 1; }
  id=$(admin_curl "$jar" -f "$base/api/v1/instances?filter=$ADM_RUST_APP" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["content"][0]["id"])')
  code=$(admin_curl "$WORK/admin.jar" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ADM_PORT/api/v1/instance/$id/metrics/range")
  echo "without Prometheus configured: HTTP $code"
  for i in $(seq 1 40); do
    admin_invoke "dubbo://127.0.0.1:$ADM_RUST_DUBBO" >/dev/null
    admin_curl "$jar" -f "$base/api/v1/instance/$id/metrics/range?minutes=5" >"$WORK/admin-range.json" &&
      curl -s --get --data-urlencode "query=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["query"])' "$WORK/admin-range.json")" \
        "http://127.0.0.1:$ADM_PROM_PORT/api/v1/query" >"$WORK/admin-range-prom.json" &&
      python3 - "$WORK" "$code" <<'PY' && { rc=0; break; }
import json, sys
work, code = sys.argv[1:3]
r = json.load(open(work + "/admin-range.json"))
own = {s["metric"].get("method") for s in json.load(open(work + "/admin-range-prom.json"))["data"]["result"]}
series = {s["method"]: s["points"] for s in r["series"]}
hello = series.get("sayHello", [])
ok = (code == "404" and r["source"] == "prometheus" and hello and hello[-1][1] > 0 and set(series) == own)
if ok:
    print("query:", r["query"], "step", r["step"], "s")
    print("sayHello requests/s, last points:", [round(p[1], 3) for p in hello[-5:]])
    print("methods from the admin:", sorted(series), "= Prometheus's own answer")
sys.exit(0 if ok else 1)
PY
    sleep 1
  done
  [ $rc -eq 0 ] || cat "$WORK/admin-range.json" "$WORK/admin-range-prom.json"
  [ $rc -eq 0 ] && { admin_service_range "$base" "$jar" || rc=1; }
  stop_server admin_prom || rc=1
  return $rc
}

# The service page's charts from the same Prometheus (called by admin_prometheus_range with the
# second admin's base URL and cookie jar): GET /api/v1/service/KEY/metrics/range answers 404 on
# the admin without Prometheus, and on the one with it requests/s, failed requests/s and the
# average response time of InteropService 1.0.0 summed over its providers while the Rust
# provider is called (sayHello, and fail, which throws): requests/s and failed requests/s are
# above 0 and equal to Prometheus's own answer to the same query, the response time has
# points; the console's service page has the charts' box only on the admin with Prometheus.
admin_service_range() {
  local base=$1 jar=$2 code i rc=1 fail
  fail="{\"service\":\"$ADM_IFACE\",\"version\":\"1.0.0\",\"method\":\"fail\",\"args\":[\"admin\"],\"address\":\"dubbo://127.0.0.1:$ADM_RUST_DUBBO\"}"
  code=$(admin_curl "$WORK/admin.jar" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ADM_PORT/api/v1/service/$ADM_KEY/metrics/range")
  echo "service charts without Prometheus configured: HTTP $code"
  [ "$code" = 404 ] || return 1
  admin_curl "$WORK/admin.jar" -f "http://127.0.0.1:$ADM_PORT/service/$ADM_KEY" >"$WORK/admin-service-noprom.html" &&
    admin_curl "$jar" -f "$base/service/$ADM_KEY" >"$WORK/admin-service-prom.html" || return 1
  grep -q 'id="service-range"' "$WORK/admin-service-noprom.html" &&
    { echo "the service page has a Prometheus chart without Prometheus"; return 1; }
  grep -q "id=\"service-range\" data-key=\"$ADM_KEY\"" "$WORK/admin-service-prom.html" ||
    { echo "no chart box on the service page with Prometheus"; return 1; }
  for i in $(seq 1 40); do
    admin_invoke "dubbo://127.0.0.1:$ADM_RUST_DUBBO" >/dev/null
    admin_curl "$jar" -s -H 'Content-Type: application/json' -d "$fail" "$base/api/v1/invoke" >/dev/null
    admin_curl "$jar" -f "$base/api/v1/service/$ADM_KEY/metrics/range?minutes=5" >"$WORK/admin-service-range.json" || break
    for n in 0 1; do
      curl -s --get --data-urlencode "query=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["charts"][int(sys.argv[2])]["query"])' "$WORK/admin-service-range.json" $n)" \
        "http://127.0.0.1:$ADM_PROM_PORT/api/v1/query_range?start=$(date -d '-5 min' +%s)&end=$(date +%s)&step=1" \
        >"$WORK/admin-service-range-prom-$n.json"
    done
    python3 - "$WORK" <<'PY' && { rc=0; break; }
import json, sys
work = sys.argv[1]
r = json.load(open(work + "/admin-service-range.json"))
charts = {c["name"]: c for c in r["charts"]}
own = [json.load(open(f"{work}/admin-service-range-prom-{n}.json"))["data"]["result"] for n in (0, 1)]
rps, failed, rt = (charts.get(n, {}).get("points", []) for n in ("requests/s", "failed requests/s", "average response time (ms)"))
def matches(points, result):
    # Points of the last seconds may still change as scrapes land: the settled ones compared.
    theirs = {round(t): float(v) for t, v in result[0]["values"]} if result else {}
    shared = [p for p in points if round(p[0]) in theirs and p[0] < r["end"] - 5]
    return shared and all(abs(p[1] - theirs[round(p[0])]) < 1e-9 for p in shared)
ok = (r["source"] == "prometheus" and r["providers"] >= 2 and rps and rps[-1][1] > 0 and failed
      and failed[-1][1] > 0 and rt and matches(rps, own[0]) and matches(failed, own[1]))
if ok:
    print("service", r["serviceKey"], "over", r["providers"], "providers, step", r["step"], "s")
    for name, c in charts.items():
        print(f"  {name}: {c['query']}\n    last points:", [round(p[1], 3) for p in c["points"][-4:]])
    print("requests/s and failed requests/s = Prometheus's own answer to the same queries at the same times")
sys.exit(0 if ok else 1)
PY
    sleep 1
  done
  [ $rc -eq 0 ] || cat "$WORK/admin-service-range.json"
  return $rc
}

# The API checks on another registry ($1: a label, $2: the registry URL): a Rust provider
# registering there (both ways, its definitions in that registry's metadata report) as
# admin-provider-rust-$1, and a second admin on that registry. The service search finds it with
# both protocols; the service detail lists its dubbo:// and tri:// providers found both ways;
# the instance has its revision, both ports and its QoS address; the methods come from the
# report; sayHello called through that registry answers; a provider started and stopped after
# the admin read the registry shows and goes within 3 s through that registry's watches
# (admin_live).
admin_other_registry() {
  local label=$1 reg=$2 app="admin-provider-rust-$1" dubbo tri qos port jar="$WORK/admin-$1.jar" i rc=1
  dubbo=$(free_port) tri=$(free_port) qos=$(free_port) port=$(free_port)
  start_server "admin_${label}_provider" "$TARGET_DIR/debug/interop-server" --dubbo-port "$dubbo" \
    --tri-port "$tri" --registry "$reg" --app "$app" --qos-port "$qos" || return 1
  cat >"$WORK/admin-$label.yaml" <<YAML
users:
  - name: $ADM_USER
    password-sha256: $(printf %s "$ADM_PASSWORD" | sha256sum | cut -d' ' -f1)
    role: admin
data-dir: $WORK/admin-$label-data
qos-ports:
  $app: $qos
YAML
  start_server "admin_$label" "$TARGET_DIR/debug/dubbo-admin" --registry "$reg" --port "$port" \
    --config "$WORK/admin-$label.yaml" || { stop_server "admin_${label}_provider"; return 1; }
  local base="http://127.0.0.1:$port"
  rm -f "$jar"
  if admin_curl "$jar" -f -H 'Content-Type: application/json' \
    -d "{\"username\":\"$ADM_USER\",\"password\":\"$ADM_PASSWORD\"}" "$base/api/v1/auth/login" >/dev/null; then
    for i in $(seq 1 40); do
      admin_curl "$jar" -f "$base/api/v1/service?pattern=service&filter=InteropService" >"$WORK/admin-$label-search.json" &&
        admin_curl "$jar" -f "$base/api/v1/service/$ADM_KEY" >"$WORK/admin-$label-detail.json" &&
        admin_curl "$jar" -f "$base/api/v1/instances?filter=$app" >"$WORK/admin-$label-instances.json" &&
        admin_curl "$jar" -f "$base/api/v1/service/$ADM_KEY/methods" >"$WORK/admin-$label-methods.json" &&
        python3 - "$WORK" "$label" "$app" "$dubbo" "$tri" "$qos" <<'PY' && { rc=0; break; }
import json, sys
work, label, app, dubbo, tri, qos = sys.argv[1:7]
read = lambda what: json.load(open(f"{work}/admin-{label}-{what}.json"))
search = [s for s in read("search")["content"] if s["serviceKey"] == "org.apache.dubbo.interop.InteropService:1.0.0"]
providers = {(p["protocol"], p["address"], tuple(p["sources"])) for p in read("detail")["providers"]
             if p["application"] == app}
# Registered at interface level too: the URL as registered, looked up when the detail is asked.
registered = all(p["url"].startswith(p["protocol"] + "://")
                 and (":" + p["address"].rsplit(":", 1)[1] + "/org.apache.dubbo.interop.InteropService?") in p["url"]
                 and "interface=org.apache.dubbo.interop.InteropService" in p["url"]
                 and f"application={app}" in p["url"] and "side=provider" in p["url"]
                 for p in read("detail")["providers"] if p["application"] == app)
inst = read("instances")["content"]
methods = {m["name"] for m in read("methods")}
both = ("application", "interface")
ok = (len(search) == 1 and search[0]["applications"] == [app] and set(search[0]["protocols"]) == {"dubbo", "tri"}
      and providers == {("dubbo", "127.0.0.1:" + dubbo, both), ("tri", "127.0.0.1:" + tri, both)} and registered
      and len(inst) == 1 and inst[0]["ports"] == {"dubbo": int(dubbo), "tri": int(tri)}
      and len(inst[0]["revision"]) == 32 and inst[0]["qosAddress"] == "127.0.0.1:" + qos
      and {"sayHello", "echoUser", "listUsers"} <= methods)
if ok:
    print(f"{label}: search:", json.dumps(search[0]))
    print(f"{label}: providers:", sorted(providers))
    print(f"{label}: instance:", json.dumps(inst[0]))
    print(f"{label}: {len(methods)} methods from the report")
sys.exit(0 if ok else 1)
PY
      sleep 0.5
    done
  fi
  if [ $rc -ne 0 ]; then
    cat "$WORK/admin-$label-search.json" "$WORK/admin-$label-detail.json" "$WORK/admin-$label-instances.json" \
      "$WORK/admin-$label-methods.json" 2>/dev/null
  else
    local out
    out=$(admin_curl "$jar" -f -H 'Content-Type: application/json' \
      -d "{\"service\":\"$ADM_IFACE\",\"version\":\"1.0.0\",\"method\":\"sayHello\",\"args\":[\"$label\"]}" \
      "$base/api/v1/invoke") || rc=1
    echo "$label: invoke through the registry: $out"
    python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["result"] == "Hello " + sys.argv[2] else 1)' \
      "$out" "$label" || rc=1
    echo "$label: a provider started and stopped after the admin read the registry, through its watches:"
    admin_live "$base" "$jar" "$reg" "$label" || rc=1
  fi
  stop_server "admin_$label" || rc=1
  stop_server "admin_${label}_provider" || rc=1
  return $rc
}

admin_etcd_up() {
  install_etcd || return 1
  start_server admin_etcd bash scripts/etcd.sh || return 1
  ADM_ETCD_URL=$(sed -n 's/^READY //p' "$WORK/admin_etcd.out")
  echo "etcd at $ADM_ETCD_URL"
  [ -n "$ADM_ETCD_URL" ]
}

admin_browser_setup() {
  apt_install chromium chromium || return 1
  apt_install chromedriver chromium-driver || return 1
  python_setup
}

# Selenium drives headless Chromium through the console while a Rust consumer loads both
# providers through ZooKeeper: log in, find the service with both applications, call sayHello
# from the test form at each provider, write a weight rule (weight 0 on the Rust provider) and
# see its requests/s drop to 0 on the instance page (read from its QoS /metrics), roll it back
# and see them return. Screenshots in $ADMIN_LOGS.
admin_browser() {
  local pid out="$WORK/admin-load.out" rc
  rm -f "$ADMIN_LOGS"/*.png
  mkdir -p "$ADMIN_LOGS"
  # The binary itself, so the kill below stops it (not only the rust_client function's subshell).
  "$TARGET_DIR/debug/interop-client" --registry "$ZK_URL" --app admin-load-consumer --load 100000000 \
    --duration 90 --concurrency 2 >"$out" 2>"$WORK/admin-load.err" &
  pid=$!
  "$PY" interop/python/admin_console.py --base "http://127.0.0.1:$ADM_PORT" --user "$ADM_USER" \
    --password "$ADM_PASSWORD" --service "$ADM_KEY" --rust-app "$ADM_RUST_APP" --java-app "$ADM_JAVA_APP" \
    --rust-address "127.0.0.1:$ADM_RUST_DUBBO" --screenshots "$ADMIN_LOGS"
  rc=$?
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  ls "$ADMIN_LOGS"
  return $rc
}

admin_steps() {
  step "build dubbo-admin" admin_build
  step "start ZooKeeper (admin)" zookeeper_up admin-zk
  step "start a Java 3.3 and a Rust provider with QoS ports, registering in ZooKeeper" admin_providers_up
  step "start dubbo-admin (scripts/admin.sh's binary) with users from a configuration file" admin_up
  step "dubbo-admin without users: a generated admin password, printed once, logs in after a restart" \
    admin_generated_password
  step "admin API: 401 without a session, wrong password refused, read-only user may not call" admin_login
  step "admin API: service search finds both providers' applications; instances with QoS addresses" admin_search
  step "admin API: a provider started and stopped after the admin read the registry is shown and withdrawn within 3 s through the watches (no whole re-read)" \
    admin_live
  step "admin API and dubbo ls/describe: a Java 3.3 provider registered at application level only, metadata behind its MetadataService (local): its services, providers and instance shown, a call answers" \
    admin_local_metadata
  step "admin API and console: consumers: Java 3.3 in APPLICATION_FIRST (registered and in the metadata report), Java 3.3 and Rust in FORCE_APPLICATION (registered nowhere, in the metadata report) all listed" \
    admin_consumers
  step "consumer entries in the metadata report: a Rust reference writes its URL parameters at Java's path, as the Java 3.3 consumer does (compared); none with report-definition=false" \
    admin_consumer_entry
  step "admin API: methods of InteropService from the published definitions" admin_methods
  step "admin API: invoke sayHello at the Java provider (dubbo://)" admin_invoke "dubbo://127.0.0.1:$ADM_JAVA_DUBBO"
  step "admin API: invoke sayHello at the Rust provider (tri://)" admin_invoke "tri://127.0.0.1:$ADM_RUST_TRI"
  step "admin API: invoke sayHello through ZooKeeper" admin_invoke ""
  step "Rust provider's metrics count the admin's generic calls under sayHello (as Java's MetricsFilter), not \$invoke" \
    admin_generic_metrics
  step "admin API: a broken rule is refused; a weight rule is written and rolled back; the audit log has them" admin_rules
  step "admin API: Prometheus service discovery lists both instances' QoS addresses" admin_sd
  step "Prometheus with http_sd_configs at the admin: both instances discovered and scraped, the Rust one up with its calls" admin_prometheus
  step "metrics over time from Prometheus (query_range) for an instance and a service (requests/s, failed requests/s, response time over its providers) through a second admin with --prometheus" \
    admin_prometheus_range
  stop_daemon admin_prometheus >/dev/null 2>&1 || true
  step "start etcd (Debian etcd-server, scripts/etcd.sh) for the admin" admin_etcd_up
  step "admin API on etcd: search, service detail (both ways), instance, methods from the report, invoke through etcd, a provider shown and withdrawn through etcd's watches" \
    admin_other_registry etcd "$ADM_ETCD_URL"
  step "etcd (admin) exits on SIGTERM" stop_server admin_etcd
  step "admin API on the embedded file registry: search, service detail (both ways), instance, methods from the report, invoke through it, a provider shown and withdrawn through its notifications" \
    admin_other_registry file "file://$WORK/admin-file-registry"
  step "install Chromium, chromedriver (Debian) and Selenium (PyPI)" admin_browser_setup
  step "console in headless Chromium: log in, search, call sayHello, weight rule changes the traffic share, roll back" \
    admin_browser
  step "dubbo-admin exits on SIGTERM" stop_server admin
  stop_server admin_rust_provider >/dev/null 2>&1 || true
  stop_server admin_java_provider >/dev/null 2>&1 || true
  stop_server zookeeper >/dev/null 2>&1 || true
}

# dubbo-admin dialling instances with TLS (from tls_steps, with the CA): a Rust provider serving
# TLS on both ports registers at application level only in a ZooKeeper of its own, its metadata
# behind its MetadataService (local), so its services are known only by asking that service.
# An admin with `tls-ca` in its configuration shows them and calls sayHello at the provider's
# tri:// port; one without it shows the instance but none of its services.
admin_tls() {
  local ca=$1 dubbo tri port rc=1 app=tls-admin-provider base
  local jar="$WORK/admin-tls.jar" conf="$WORK/admin-tls.yaml"
  cargo build --quiet -p dubbo-admin || return 1
  dubbo=$(free_port) tri=$(free_port)
  zookeeper_up tls-admin-zookeeper-data || return 1
  start_server tls_admin_provider "$TARGET_DIR/debug/interop-server" --dubbo-port "$dubbo" --tri-port "$tri" \
    --registry "$ZK_URL?register-mode=instance" --app "$app" $(tls_server_args) || { stop_server zookeeper; return 1; }
  for tls in with without; do
    cat >"$conf" <<YAML
users:
  - name: tls-admin
    password: tls-admin-password
    role: admin
data-dir: $WORK/admin-tls-data
YAML
    [ "$tls" = with ] && echo "tls-ca: $ca" >>"$conf"
    port=$(free_port) base="http://127.0.0.1:$port"
    start_server admin_tls "$TARGET_DIR/debug/dubbo-admin" --registry "$ZK_URL" --port "$port" --config "$conf" ||
      break
    rm -f "$jar"
    admin_curl "$jar" -f -H 'Content-Type: application/json' \
      -d '{"username":"tls-admin","password":"tls-admin-password"}' "$base/api/v1/auth/login" >/dev/null || break
    rc=1
    for _ in $(seq 1 40); do
      admin_curl "$jar" -f "$base/api/v1/instances?filter=$app" >"$WORK/admin-tls-instances.json" &&
        admin_curl "$jar" -f "$base/api/v1/service?pattern=application&filter=$app&size=100" \
          >"$WORK/admin-tls-search.json" &&
        python3 - "$WORK" "$app" "$tls" <<'PY' && { rc=0; break; }
import json, sys
work, app, tls = sys.argv[1:4]
instances = json.load(open(work + "/admin-tls-instances.json"))["content"]
keys = sorted(s["serviceKey"] for s in json.load(open(work + "/admin-tls-search.json"))["content"])
want = "org.apache.dubbo.interop.InteropService:1.0.0"
ok = len(instances) == 1 and ((want in keys) if tls == "with" else keys == [])
if ok:
    print(f"{tls} tls-ca: instance {instances[0]['id']}, services {keys}")
sys.exit(0 if ok else 1)
PY
      sleep 0.5
    done
    if [ $rc -eq 0 ] && [ "$tls" = with ]; then
      admin_curl "$jar" -f -H 'Content-Type: application/json' \
        -d "{\"service\":\"org.apache.dubbo.interop.InteropService\",\"method\":\"sayHello\",\"args\":[\"tls admin\"],\"version\":\"1.0.0\",\"address\":\"tri://127.0.0.1:$tri\"}" \
        "$base/api/v1/invoke" >"$WORK/admin-tls-invoke.json" &&
        grep -q 'Hello tls admin' "$WORK/admin-tls-invoke.json" && echo "invoke over TLS: $(cat "$WORK/admin-tls-invoke.json")" ||
        { echo "invoke over TLS failed: $(cat "$WORK/admin-tls-invoke.json")"; rc=1; }
    fi
    [ $rc -eq 0 ] || cat "$WORK/admin-tls-instances.json" "$WORK/admin-tls-search.json"
    stop_server admin_tls || rc=1
    [ $rc -eq 0 ] || break
  done
  stop_server tls_admin_provider || rc=1
  stop_server zookeeper || rc=1
  return $rc
}
