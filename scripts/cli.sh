# The `dubbo` command-line tool against real peers: ZooKeeper (scripts/zookeeper.sh), a Java
# Dubbo 3.3 provider and a dubbo-rs provider of the interop services registered there. Sourced by
# scripts/test.sh, which provides step, start_server, stop_server, zookeeper_up, WORK, ZK_URL,
# TARGET_DIR and INTEROP_JAVA_DUBBO_JAR; `bash scripts/test.sh --only cli` runs these steps.

CLI_JAVA_DUBBO=22997
CLI_JAVA_TRI=12997
CLI_JAVA_APP=cli-provider-java
CLI_RUST_DUBBO=21997
CLI_RUST_TRI=11997
CLI_RUST_APP=cli-provider-rust
CLI_IFACE=org.apache.dubbo.interop.InteropService

dubbo_tool() {
  "$TARGET_DIR/debug/dubbo" "$@"
}

cli_providers_up() {
  DUBBO_IP_TO_BIND=::ffff:127.0.0.1 DUBBO_IP_TO_REGISTRY=::ffff:127.0.0.1 \
    start_server cli_java_provider java -Djava.net.preferIPv4Stack=true -Ddubbo.tri.builtin.service.init=true \
    -cp "$INTEROP_JAVA_DUBBO_JAR" \
    org.apache.dubbo.interop.Provider --dubbo-port $CLI_JAVA_DUBBO --tri-port $CLI_JAVA_TRI \
    --app "$CLI_JAVA_APP" --registry "$ZK_URL" || return 1
  start_server cli_rust_provider "$TARGET_DIR/debug/interop-server" --dubbo-port $CLI_RUST_DUBBO \
    --tri-port $CLI_RUST_TRI --registry "$ZK_URL" --app "$CLI_RUST_APP"
}

# `dubbo ls` (services, apps, instances) as JSON lists both applications, the interop services
# over both protocols at the ports they serve, and an instance of each with both endpoints.
# Registration is asynchronous, so the listing is read until it is complete (10 s at most).
cli_ls() {
  local i
  for i in $(seq 1 50); do
    dubbo_tool ls --registry "$ZK_URL" -o json >"$WORK/cli-ls.json" &&
      dubbo_tool ls apps --registry "$ZK_URL" -o json >"$WORK/cli-apps.json" &&
      dubbo_tool ls instances --registry "$ZK_URL" -o json >"$WORK/cli-instances.json" &&
      python3 - "$WORK" "$CLI_JAVA_APP" "$CLI_RUST_APP" "$CLI_JAVA_DUBBO" "$CLI_JAVA_TRI" \
        "$CLI_RUST_DUBBO" "$CLI_RUST_TRI" <<'EOF' && { dubbo_tool ls --registry "$ZK_URL"; dubbo_tool ls instances --registry "$ZK_URL"; return 0; }
import json, sys
work, japp, rapp = sys.argv[1:4]
jd, jt, rd, rt = sys.argv[4:8]
services = json.load(open(work + "/cli-ls.json"))["services"]
have = {(s["application"], s["service"], s["protocol"], s["address"].rsplit(":", 1)[1], s["version"])
        for s in services}
want = set()
for app, d, t in ((japp, jd, jt), (rapp, rd, rt)):
    want |= {(app, "org.apache.dubbo.interop.InteropService", "dubbo", d, "1.0.0"),
             (app, "org.apache.dubbo.interop.InteropService", "tri", t, "1.0.0"),
             (app, "org.apache.dubbo.interop.tri.Greeter", "tri", t, "")}
missing = want - have
apps = {a["application"]: a["instances"] for a in json.load(open(work + "/cli-apps.json"))["applications"]}
instances = {i["application"]: sorted((e["protocol"], str(e["port"])) for e in i["endpoints"])
             for i in json.load(open(work + "/cli-instances.json"))["instances"]}
ok = not missing and apps.get(japp) == 1 and apps.get(rapp) == 1 \
    and instances.get(japp) == [("dubbo", jd), ("tri", jt)] \
    and instances.get(rapp) == [("dubbo", rd), ("tri", rt)]
if not ok:
    print("missing services:", sorted(missing), "apps:", apps, "instances:", instances)
sys.exit(0 if ok else 1)
EOF
    sleep 0.2
  done
  cat "$WORK/cli-ls.json"
  return 1
}

# `dubbo describe` shows the methods of both providers' definitions (read from the metadata
# report at Java's path), in the table and as JSON.
cli_describe() {
  local app out rc=0
  for app in "$CLI_JAVA_APP" "$CLI_RUST_APP"; do
    out=$(dubbo_tool describe "$CLI_IFACE" --registry "$ZK_URL" --version 1.0.0 --app "$app") || return 1
    echo "$out" | head -n 24
    for m in sayHello addInt echoMap echoUser listUsers getAttachment; do
      grep -q "^$m " <<<"$out" || { echo "$app: no method $m"; rc=1; }
    done
    grep -q "^org.apache.dubbo.interop.User  *tags  *List<String>" <<<"$out" ||
      { echo "$app: User.tags not shown"; rc=1; }
    dubbo_tool describe "$CLI_IFACE" --registry "$ZK_URL" --version 1.0.0 --app "$app" -o json \
      >"$WORK/cli-def-$app.json" || return 1
  done
  return $rc
}

# The differential check: the FullServiceDefinition the Rust provider published against the one
# Java 3.3 published for the same interface, as JSON. Compared: canonicalName, annotations, every
# method's name, parameterTypes and returnType (as a set: Java lists methods in reflection order,
# which the JVM does not fix), every type's type, items, enums and properties (as a set).
# Ignored, because they cannot match: codeSource and uniqueId (the jar vs the Rust crate a service
# comes from), parameters (the exported URL's: pid, timestamp, release, ports), and the methods'
# deprecated `parameters` list (empty on both sides, checked to be empty).
cli_definitions_match() {
  python3 - "$WORK/cli-def-$CLI_JAVA_APP.json" "$WORK/cli-def-$CLI_RUST_APP.json" <<'EOF'
import json, sys
def load(path):
    defs = json.load(open(path))["definitions"]
    assert len(defs) == 1, f"{path}: {len(defs)} definitions"
    return defs[0]["definition"]
java, rust = load(sys.argv[1]), load(sys.argv[2])
def methods(d):
    for m in d["methods"]:
        assert m["parameters"] == [], m
    return {(m["name"], tuple(m["parameterTypes"]), m["returnType"]) for m in d["methods"]}
def types(d):
    return {(t["type"], tuple(t["items"]), tuple(t["enums"]), tuple(sorted(t["properties"].items())))
            for t in d["types"]}
ok = True
for field in ("canonicalName", "annotations"):
    if java[field] != rust[field]:
        print(f"{field}: Java {java[field]!r}, Rust {rust[field]!r}"); ok = False
for name, f in (("methods", methods), ("types", types)):
    j, r = f(java), f(rust)
    if j != r:
        print(f"{name} only in Java: {sorted(j - r)}"); print(f"{name} only in Rust: {sorted(r - j)}"); ok = False
    else:
        print(f"{name}: {len(j)} equal")
print("ignored: codeSource", (java["codeSource"], rust["codeSource"]), "uniqueId, parameters")
sys.exit(0 if ok else 1)
EOF
}

# `dubbo call` $1 (a target) $2 (extra flags...): sayHello("cli") answers "Hello cli".
cli_call_hello() {
  local target=$1 out
  shift
  out=$(dubbo_tool call "$target" "$CLI_IFACE.sayHello" '["cli"]' --version 1.0.0 -o json "$@") ||
    { echo "$out"; return 1; }
  echo "$out"
  python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["result"] == "Hello cli" and d["elapsedMs"] > 0 else 1)' <<<"$out"
}

# Attachments travel: getAttachment("k") with --attachment k=v answers "v"; a typed User goes
# there and back through the registry with the parameter types of the published definition.
cli_call_more() {
  local target=$1 out
  shift
  out=$(dubbo_tool call "$target" "$CLI_IFACE.getAttachment" '["k"]' --version 1.0.0 \
    --attachment k=from-cli -o json "$@") || { echo "$out"; return 1; }
  echo "$out"
  python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["result"] == "from-cli" else 1)' <<<"$out" || return 1
  out=$(dubbo_tool call "$target" "$CLI_IFACE.echoUser" \
    '[{"id": 7, "name": "seven", "age": 27, "tags": ["a"], "attrs": {"k": "v"}}]' --version 1.0.0 -o json "$@") ||
    { echo "$out"; return 1; }
  echo "$out"
  python3 -c '
import json, sys
d = json.load(sys.stdin)
u = d["result"]
ok = d["parameterTypes"] == ["org.apache.dubbo.interop.User"] and u["id"] == 7 and u["name"] == "seven" \
    and u["tags"] == ["a"] and u["attrs"] == {"k": "v"}
sys.exit(0 if ok else 1)' <<<"$out"
}

# Contract methods with JSON arguments at target $1, their Java types inferred from the JSON
# (direct targets have no definition to read): each answer as CONTRACT.md section 1 says.
cli_call_contract() {
  local target=$1 method args want out rc=0
  while IFS='|' read -r method args want; do
    out=$(dubbo_tool call "$target" "$CLI_IFACE.$method" "$args" --version 1.0.0 -o json) ||
      { echo "$method: $out"; rc=1; continue; }
    if python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["result"] == json.loads(sys.argv[1]) else 1)' \
      "$want" <<<"$out"; then
      echo "$method $args -> $want"
    else
      echo "$method $args: expected $want, got $out"
      rc=1
    fi
  done <<'CASES'
addInt|[2147483647, 1]|-2147483648
echoLong|[5000000000]|5000000000
echoDouble|[1.5]|1.5
echoBool|[true]|true
echoString|["h\u00e9llo \ud83d\ude00"]|"h\u00e9llo \ud83d\ude00"
echoList|[["a", "b"]]|["a", "b"]
echoMap|[{"a": 1, "b": 2}]|{"a": 1, "b": 2}
listUsers|[2]|[{"class": "org.apache.dubbo.interop.User", "id": 0, "name": "user-0", "age": 20, "tags": ["t0"], "attrs": {"k": "v0"}}, {"class": "org.apache.dubbo.interop.User", "id": 1, "name": "user-1", "age": 21, "tags": ["t1"], "attrs": {"k": "v1"}}]
sleep|[10]|"slept 10"
CASES
  return $rc
}

# Waits ($3 rounds of `dubbo ls`, 50 by default: 10 to 20 s) until app $1 applied ($2 = yes) or dropped ($2 = no) the override rule
# timeout=4321, as `dubbo ls -o json` shows it: yes when one of its registered URLs carries it
# (Java 3.3 re-registers some of its URLs, not all: its dubbo:// ones, seldom its tri:// ones of a
# service exported on both), no when none does.
cli_wait_rule_seen() {
  local app=$1 want=$2 i
  for i in $(seq 1 "${3:-50}"); do
    dubbo_tool ls --registry "$ZK_URL" -o json >"$WORK/cli-rule-ls.json" || return 1
    if python3 -c '
import json, sys
app, want = sys.argv[1], sys.argv[2] == "yes"
urls = [s["url"] for s in json.load(open(sys.argv[3]))["services"] if s["application"] == app]
seen = any("timeout=4321" in u for u in urls)
sys.exit(0 if urls and seen == want else 1)' "$app" "$want" "$WORK/cli-rule-ls.json"; then
      echo "$app: timeout=4321 $( [ "$want" = yes ] && echo in || echo out of) its registered URLs"
      return 0
    fi
    sleep 0.2
  done
  echo "$app: the rule was not seen as expected ($want); its URLs:"
  python3 -c '
import json, sys
for s in json.load(open(sys.argv[2]))["services"]:
    if s["application"] == sys.argv[1]:
        print(" ", s["url"][:300])' "$app" "$WORK/cli-rule-ls.json"
  return 1
}

# `dubbo rules set/get/delete` round-trips an override rule (Dubbo Admin's v3.0 format) for each
# provider application: `rules get -o json` reads back what was set, and nothing after the delete
# (exit 1). The Rust provider applies the rule (its registered URLs carry the new timeout) and
# drops it once deleted. The Java 3.3 provider is given the same rule; whether it re-registers is
# reported, not required: a Java 3.3 provider, even alone in ZooKeeper, sometimes never applies an
# application-scope override written while it runs (docs/cli.md, "Proof").
cli_rules_roundtrip() {
  local app rule out
  for app in "$CLI_RUST_APP" "$CLI_JAVA_APP"; do
    rule="$WORK/cli-rule-$app.yaml"
    printf 'configVersion: v3.0\nscope: application\nkey: %s\nenabled: true\nconfigs:\n  - side: provider\n    parameters:\n      timeout: 4321\n' \
      "$app" >"$rule"
    dubbo_tool rules set --registry "$ZK_URL" --app "$app" --kind override --file "$rule" || return 1
    out=$(dubbo_tool rules get --registry "$ZK_URL" --app "$app" --kind override -o json) || return 1
    python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = d["key"] == sys.argv[1] + ".configurators" and d["group"] == "dubbo" and d["content"] == open(sys.argv[2]).read()
sys.exit(0 if ok else 1)' "$app" "$rule" <<<"$out" || { echo "rules get: $out"; return 1; }
    if [ "$app" = "$CLI_RUST_APP" ]; then
      cli_wait_rule_seen "$app" yes || return 1
    else
      cli_wait_rule_seen "$app" yes 15 || echo "(reported only: the Java provider did not apply the rule)"
    fi
    dubbo_tool rules delete --registry "$ZK_URL" --app "$app" --kind override || return 1
    if dubbo_tool rules get --registry "$ZK_URL" --app "$app" --kind override; then
      echo "the rule is still there after delete"
      return 1
    fi
    if [ "$app" = "$CLI_RUST_APP" ]; then
      cli_wait_rule_seen "$app" no || return 1
    fi
  done
}

# The Rust provider's MetadataService answers getServiceDefinition(interface, version, group)
# with the same definition it published (called with `dubbo call`, as any Dubbo consumer would).
cli_metadata_service_definition() {
  local out
  out=$(dubbo_tool call "dubbo://127.0.0.1:$CLI_RUST_DUBBO" org.apache.dubbo.metadata.MetadataService.getServiceDefinition \
    "[\"$CLI_IFACE\", \"1.0.0\", \"\"]" --group "$CLI_RUST_APP" --version 1.0.0 -o json) || { echo "$out"; return 1; }
  python3 -c '
import json, sys
served = json.loads(json.load(sys.stdin)["result"])
published = json.load(open(sys.argv[1]))["definitions"][0]["definition"]
same = all(served[k] == published[k] for k in ("canonicalName", "methods", "types"))
print("MetadataService definition:", len(served["methods"]), "methods,", "same as published" if same else "DIFFERENT")
sys.exit(0 if same else 1)' "$WORK/cli-def-$CLI_RUST_APP.json" <<<"$out"
}

# Java 3.3's own MetadataService client (interop/java DefinitionCheck) reads the Rust provider's
# definition through getServiceDefinition and compares it, field by field, with the definition
# Java builds from the InteropService interface itself.
# With arguments (--interface NAME), another interface of the contract the provider serves.
cli_java_reads_definition() {
  java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.DefinitionCheck \
    --url "dubbo://127.0.0.1:$CLI_RUST_DUBBO" --app "$CLI_RUST_APP" "$@" 2>&1 | grep -v '^SLF4J'
  [ "${PIPESTATUS[0]}" -eq 0 ]
}

# Without a registry: `dubbo ls --url tri://…` and `dubbo describe --url tri://…` read the Rust
# provider's gRPC reflection (both contract services listed; Greeter's four methods with their
# streaming kinds).
cli_reflection() {
  local addr="tri://127.0.0.1:$CLI_RUST_TRI"
  dubbo_tool ls --url "$addr" || return 1
  dubbo_tool ls --url "$addr" -o json | python3 -c '
import json, sys
names = {s["service"] for s in json.load(sys.stdin)["services"]}
want = {"org.apache.dubbo.interop.InteropService", "org.apache.dubbo.interop.tri.Greeter"}
sys.exit(0 if want <= names else 1)' || { echo "reflection does not list both services"; return 1; }
  dubbo_tool describe org.apache.dubbo.interop.tri.Greeter --url "$addr" || return 1
  dubbo_tool describe org.apache.dubbo.interop.tri.Greeter --url "$addr" -o json | python3 -c '
import json, sys
methods = {m["name"]: (m["clientStreaming"], m["serverStreaming"], m["input"]) for m in json.load(sys.stdin)["methods"]}
req = ".org.apache.dubbo.interop.tri.GreeterRequest"
want = {"Greet": (False, False, req), "GreetServerStream": (False, True, req),
        "GreetClientStream": (True, False, req), "GreetBiStream": (True, True, req)}
sys.exit(0 if methods == want else 1)' || { echo "Greeter is not described as the contract says"; return 1; }
}

# The IDL form of `dubbo call`: Greeter's methods at tri:// $1, found through the server's gRPC
# reflection (v1 on dubbo-rs; v1alpha, the only one Java 3.3 serves, when its built-in services
# are on), called with protobuf JSON: each kind of streaming answers as CONTRACT.md section 2
# says, `describe` lists the messages' fields, and a misspelt field is refused before any call.
cli_idl_call() {
  local addr=$1 g=org.apache.dubbo.interop.tri.Greeter out
  dubbo_tool describe "$g" --url "$addr" -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
fields = {m["name"]: [(f["name"], f["type"]) for f in m["fields"]] for m in d["messages"]}
want = {"org.apache.dubbo.interop.tri.GreeterRequest": [("name", "string")],
        "org.apache.dubbo.interop.tri.GreeterReply": [("message", "string")]}
sys.exit(0 if fields == want else 1)' || { echo "describe does not show Greeter's messages"; return 1; }
  dubbo_tool call "$addr" "$g.Greet" '{"name": "idl"}' || return 1
  while IFS='|' read -r method args want; do
    out=$(dubbo_tool call "$addr" "$g.$method" "$args" -o json) || { echo "$method: $out"; return 1; }
    python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = d["result"] == json.loads(sys.argv[1]) and d["parameterTypes"] == ["org.apache.dubbo.interop.tri.GreeterRequest"]
sys.exit(0 if ok else 1)' "$want" <<<"$out" || { echo "$method $args: expected $want, got $out"; return 1; }
    echo "$method $args -> $want"
  done <<'CASES'
Greet|{"name": "idl"}|{"message": "Hello idl"}
GreetServerStream|{"name": "s"}|[{"message": "Hello s #0"}, {"message": "Hello s #1"}, {"message": "Hello s #2"}, {"message": "Hello s #3"}, {"message": "Hello s #4"}, {"message": "Hello s #5"}, {"message": "Hello s #6"}, {"message": "Hello s #7"}, {"message": "Hello s #8"}, {"message": "Hello s #9"}]
GreetClientStream|[{"name": "a"}, {"name": "b"}, {"name": "c"}]|{"message": "Hello a,b,c"}
GreetBiStream|[{"name": "a"}, {"name": "b"}]|[{"message": "Hello a"}, {"message": "Hello b"}]
CASES
  if out=$(dubbo_tool call "$addr" "$g.Greet" '{"nam": "x"}' 2>&1); then
    echo "a misspelt field was accepted: $out"
    return 1
  fi
  grep -q 'CLI_BAD_ARGUMENT.*nam' <<<"$out" || { echo "unexpected refusal: $out"; return 1; }
  echo "misspelt field refused: $out"
}

# `dubbo ls --url dubbo://HOST:PORT --app APP`: provider $2 (listening on dubbo:// port $1 and
# tri:// port $3) lists, through its MetadataService over dubbo://, InteropService 1.0.0 exported
# on both protocols at its ports; without --app the tool says what is missing.
cli_ls_dubbo() {
  local port=$1 app=$2 tri=$3 out
  out=$(dubbo_tool ls --url "dubbo://127.0.0.1:$port" --app "$app" -o json) || { echo "$out"; return 1; }
  python3 -c '
import json, sys
port, app, tri = sys.argv[1:4]
rows = {(s["service"], s["version"], s["protocol"], s["address"].rsplit(":", 1)[1], s["application"])
        for s in json.load(sys.stdin)["services"]}
want = {("org.apache.dubbo.interop.InteropService", "1.0.0", "dubbo", port, app),
        ("org.apache.dubbo.interop.InteropService", "1.0.0", "tri", tri, app)}
print(len(rows), "exported URLs;", "missing:", sorted(want - rows) if want - rows else "none")
sys.exit(0 if want <= rows else 1)' "$port" "$app" "$tri" <<<"$out" || return 1
  dubbo_tool ls --url "dubbo://127.0.0.1:$port" --app "$app" | head -n 5
  if out=$(dubbo_tool ls --url "dubbo://127.0.0.1:$port" 2>&1); then
    echo "listed without --app: $out"
    return 1
  fi
  grep -q 'CLI_BAD_ARGUMENT.*--app' <<<"$out" || { echo "unexpected: $out"; return 1; }
}

# Java 3.3's own IDL service MetadataServiceV2 (protobuf, on its tri:// port, group = the
# application, version 2.0.0), called with protobuf JSON through reflection: GetMetadataInfo with
# the revision the instance registered answers a map of ServiceInfoV2 messages, among them
# InteropService 1.0.0 on dubbo:// at the provider's port.
cli_idl_metadata_v2() {
  local revision out
  revision=$(dubbo_tool ls instances --registry "$ZK_URL" -o json | python3 -c '
import json, sys
print([i["revision"] for i in json.load(sys.stdin)["instances"] if i["application"] == sys.argv[1]][0])' "$CLI_JAVA_APP") ||
    return 1
  out=$(dubbo_tool call "tri://127.0.0.1:$CLI_JAVA_TRI" org.apache.dubbo.metadata.MetadataServiceV2.GetMetadataInfo \
    "{\"revision\": \"$revision\"}" --group "$CLI_JAVA_APP" --version 2.0.0 -o json) || { echo "$out"; return 1; }
  python3 -c '
import json, sys
d = json.load(sys.stdin)["result"]
s = d["services"].get("org.apache.dubbo.interop.InteropService:1.0.0:dubbo", {})
ok = d["app"] == sys.argv[1] and s.get("port") == int(sys.argv[2]) and s.get("params", {}).get("version") == "1.0.0"
print("GetMetadataInfo:", d["app"], len(d["services"]), "services;", "InteropService:1.0.0:dubbo port", s.get("port"))
sys.exit(0 if ok else 1)' "$CLI_JAVA_APP" "$CLI_JAVA_DUBBO" <<<"$out"
}

cli_completions() {
  local out
  out=$(dubbo_tool completions bash) || return 1
  grep -q 'describe' <<<"$out" && grep -q -- '--attachment' <<<"$out" && echo "bash completions: $(wc -l <<<"$out") lines"
}

cli_steps() {
  step "start ZooKeeper (dubbo tool)" zookeeper_up cli-zk
  step "start a Java 3.3 and a Rust provider registering in ZooKeeper" cli_providers_up
  step "dubbo ls (services, apps, instances; -o json): both applications, services and instances" cli_ls
  step "dubbo describe: the methods and types of both providers' service definitions" cli_describe
  step "service definitions: the Rust provider's FullServiceDefinition equals Java 3.3's (methods, types)" \
    cli_definitions_match
  step "Rust MetadataService getServiceDefinition answers the published definition" cli_metadata_service_definition
  step "Java 3.3's MetadataService client reads the Rust provider's definition: equal to Java's own, field by field" \
    cli_java_reads_definition
  step "Java 3.3's MetadataService client reads the Rust provider's StreamingService definition: its StreamObserver methods equal to Java's own, field by field" \
    cli_java_reads_definition --interface org.apache.dubbo.interop.StreamingService
  step "dubbo rules set/get/delete: an override rule round-trips; the Rust provider applies and drops it" \
    cli_rules_roundtrip
  for target in "dubbo://127.0.0.1:$CLI_JAVA_DUBBO" "tri://127.0.0.1:$CLI_JAVA_TRI" \
    "dubbo://127.0.0.1:$CLI_RUST_DUBBO" "tri://127.0.0.1:$CLI_RUST_TRI"; do
    step "dubbo call $target sayHello" cli_call_hello "$target"
  done
  for target in "dubbo://127.0.0.1:$CLI_JAVA_DUBBO" "tri://127.0.0.1:$CLI_JAVA_TRI" \
    "dubbo://127.0.0.1:$CLI_RUST_DUBBO" "tri://127.0.0.1:$CLI_RUST_TRI"; do
    step "dubbo call $target: contract methods with JSON arguments" cli_call_contract "$target"
  done
  step "dubbo call through ZooKeeper, dubbo://: sayHello" cli_call_hello "$ZK_URL"
  step "dubbo call through ZooKeeper, tri://: sayHello" cli_call_hello "$ZK_URL" --protocol tri
  step "dubbo call: attachments, a User through the registry with the definition's types" cli_call_more "$ZK_URL"
  step "dubbo ls / describe --url tri://: the Rust provider's services and Greeter's methods through gRPC reflection" \
    cli_reflection
  step "dubbo call tri:// Greeter with protobuf JSON through reflection (v1): Rust provider, four streaming kinds" \
    cli_idl_call "tri://127.0.0.1:$CLI_RUST_TRI"
  step "dubbo call tri:// Greeter with protobuf JSON through reflection (v1alpha): Java 3.3 provider, four streaming kinds" \
    cli_idl_call "tri://127.0.0.1:$CLI_JAVA_TRI"
  step "dubbo call tri:// Java 3.3 MetadataServiceV2.GetMetadataInfo (IDL, maps and nested messages) with the instance's revision" \
    cli_idl_metadata_v2
  step "dubbo ls --url dubbo:// --app: the Rust provider's exports through its MetadataService" \
    cli_ls_dubbo $CLI_RUST_DUBBO "$CLI_RUST_APP" $CLI_RUST_TRI
  step "dubbo ls/describe/call on the file registry: a Rust provider's services, its definition from the file report, a User typed from it" \
    cli_file
  step "dubbo completions bash" cli_completions
  stop_server cli_rust_provider >/dev/null 2>&1 || true
  stop_server cli_java_provider >/dev/null 2>&1 || true
  step "ZooKeeper exits on SIGTERM" stop_server zookeeper
}

# The `dubbo` tool over TLS (called from tls_steps, which makes the certificates): against the
# Rust interop server at tri:// port $1 and dubbo:// port $2, with the TLS flags that follow
# (--tls-ca, and --tls-cert/--tls-key under mutual TLS): reflection lists and describes Greeter,
# Greet answers through the IDL form, and sayHello through the generic form on both protocols.
cli_tls() {
  local tri=$1 dubbo=$2 out
  shift 2
  dubbo_tool ls --url "tri://127.0.0.1:$tri" "$@" -o json | python3 -c '
import json, sys
names = {s["service"] for s in json.load(sys.stdin)["services"]}
sys.exit(0 if "org.apache.dubbo.interop.tri.Greeter" in names else 1)' || { echo "ls over TLS"; return 1; }
  dubbo_tool describe org.apache.dubbo.interop.tri.Greeter --url "tri://127.0.0.1:$tri" "$@" >/dev/null ||
    { echo "describe over TLS"; return 1; }
  out=$(dubbo_tool call "tri://127.0.0.1:$tri" org.apache.dubbo.interop.tri.Greeter.Greet '{"name": "tls"}' "$@" -o json) ||
    { echo "$out"; return 1; }
  python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["result"] == {"message": "Hello tls"} else 1)' <<<"$out" ||
    { echo "Greet over TLS: $out"; return 1; }
  echo "tri:// Greet (IDL): $(python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])' <<<"$out")"
  for target in "tri://127.0.0.1:$tri" "dubbo://127.0.0.1:$dubbo"; do
    out=$(dubbo_tool call "$target" "$CLI_IFACE.sayHello" '["tls"]' --version 1.0.0 "$@" -o json) ||
      { echo "$out"; return 1; }
    python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["result"] == "Hello tls" else 1)' <<<"$out" ||
      { echo "sayHello over TLS at $target: $out"; return 1; }
    echo "$target sayHello (generic): Hello tls"
  done
}

# `dubbo describe` through a registry over TLS (called from tls_steps with the CA): a Rust
# provider serving TLS on both ports registers in a ZooKeeper of its own at application level
# only (register-mode=instance), its metadata behind its MetadataService (local), so which
# versions it provides is known only by asking that service. With --tls-ca describe finds the
# definitions of both versions; then, without it, none (the MetadataService cannot be asked in
# plaintext).
cli_tls_describe() {
  local ca=$1 dubbo tri out rc=1 app=tls-describe-provider
  dubbo=$(free_port) tri=$(free_port)
  zookeeper_up tls-zookeeper-data || return 1
  start_server tls_describe_provider "$TARGET_DIR/debug/interop-server" --dubbo-port "$dubbo" --tri-port "$tri" \
    --registry "$ZK_URL?register-mode=instance" --app "$app" $(tls_server_args) || { stop_server zookeeper; return 1; }
  for _ in $(seq 1 20); do
    dubbo_tool describe "$CLI_IFACE" --registry "$ZK_URL" --tls-ca "$ca" -o json >"$WORK/tls-describe.json" 2>"$WORK/tls-describe.err" &&
      python3 - "$WORK/tls-describe.json" "$app" <<'PY' && { rc=0; break; }
import json, sys
found = {(d["application"], d["version"]) for d in json.load(open(sys.argv[1]))["definitions"]}
print("with --tls-ca:", sorted(found))
sys.exit(0 if {(sys.argv[2], "1.0.0"), (sys.argv[2], "2.0.0")} <= found else 1)
PY
    sleep 0.5
  done
  [ $rc -eq 0 ] || cat "$WORK/tls-describe.err"
  # Then, the provider known to be there, the same without --tls-ca.
  if [ $rc -eq 0 ] && out=$(dubbo_tool describe "$CLI_IFACE" --registry "$ZK_URL" -o json 2>&1); then
    echo "described without --tls-ca: $out"
    rc=1
  elif [ $rc -eq 0 ]; then
    echo "without --tls-ca: $(head -n 1 <<<"$out")"
  fi
  stop_server tls_describe_provider || rc=1
  stop_server zookeeper || rc=1
  return $rc
}

# The same server refuses the tool without TLS flags: the call fails (exit 1) with an error.
cli_tls_refused() {
  local out
  if out=$(dubbo_tool call "$@" "$CLI_IFACE.sayHello" '["tls"]' --version 1.0.0 --timeout 2000 2>&1); then
    echo "served without a certificate: $out"
    return 1
  fi
  echo "$out" | head -n 2
  grep -q 'dubbo: error \[' <<<"$out"
}

# The `dubbo` tool on an etcd registry (called from the etcd group, with the Rust providers of
# $REG_RUST_APP and the Java provider of $ETCD_JAVA_APP registered there): `ls` lists the whole
# registry (InteropService 1.0.0 from both applications), `describe` reads the Rust provider's
# service definition from etcd's metadata report, and `call` through etcd sends a User typed
# from that definition.
cli_etcd() {
  local out i
  for i in $(seq 1 50); do
    out=$(dubbo_tool ls --registry "$ETCD_URL" -o json) || { echo "$out"; return 1; }
    python3 -c '
import json, sys
apps = {s["application"] for s in json.load(sys.stdin)["services"]
        if s["service"] == "org.apache.dubbo.interop.InteropService" and s["version"] == "1.0.0"}
sys.exit(0 if set(sys.argv[1:]) <= apps else 1)' "$REG_RUST_APP" "$ETCD_JAVA_APP" <<<"$out" && break
    [ "$i" = 50 ] && { echo "ls does not list both applications: $out"; return 1; }
    sleep 0.2
  done
  dubbo_tool ls --registry "$ETCD_URL" | grep InteropService
  out=$(dubbo_tool describe "$CLI_IFACE" --registry "$ETCD_URL" --app "$REG_RUST_APP" --version 1.0.0 -o json) ||
    { echo "$out"; return 1; }
  python3 -c '
import json, sys
d = json.load(sys.stdin)["definitions"][0]["definition"]
names = {m["name"] for m in d["methods"]}
print("definition from etcd:", d["canonicalName"], len(d["methods"]), "methods")
sys.exit(0 if "echoUser" in names and "sayHello" in names else 1)' <<<"$out" || return 1
  cli_call_more "$ETCD_URL"
}

# The `dubbo` tool on the embedded file registry: a Rust provider registering in a directory;
# `ls` lists its services there, `describe` reads its definition from the file report, and
# `call` through the directory sends a User typed from it.
CLI_FILE_DUBBO=21998
CLI_FILE_TRI=11998
cli_file() {
  local reg="file://$WORK/cli-file-registry" out i rc=0
  start_server cli_file_provider "$TARGET_DIR/debug/interop-server" --dubbo-port $CLI_FILE_DUBBO \
    --tri-port $CLI_FILE_TRI --registry "$reg" --app cli-provider-file || return 1
  for i in $(seq 1 50); do
    out=$(dubbo_tool ls --registry "$reg" -o json) &&
      python3 -c '
import json, sys
rows = {(s["service"], s["version"], s["protocol"], s["application"]) for s in json.load(sys.stdin)["services"]}
want = {("org.apache.dubbo.interop.InteropService", "1.0.0", p, "cli-provider-file") for p in ("dubbo", "tri")}
sys.exit(0 if want <= rows else 1)' <<<"$out" && break
    [ "$i" = 50 ] && { echo "ls of the file registry: $out"; rc=1; }
    sleep 0.2
  done
  if [ $rc = 0 ]; then
    dubbo_tool ls --registry "$reg" | grep -c InteropService
    out=$(dubbo_tool describe "$CLI_IFACE" --registry "$reg" --version 1.0.0 -o json) &&
      python3 -c '
import json, sys
d = json.load(sys.stdin)["definitions"][0]
print("definition from the file report:", d["application"], len(d["definition"]["methods"]), "methods")
sys.exit(0 if d["application"] == "cli-provider-file" and len(d["definition"]["methods"]) == 16 else 1)' <<<"$out" &&
      cli_call_more "$reg" >/dev/null || rc=1
  fi
  stop_server cli_file_provider >/dev/null 2>&1 || true
  return $rc
}
