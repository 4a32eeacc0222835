#!/usr/bin/env bash
# Builds the Java interop programs (idempotent) and prints where they are.
#
#   interop/java/build.sh [--force]
#
# stdout: KEY=VALUE lines only, so callers can do  eval "$(interop/java/build.sh)"
#   INTEROP_JAVA_GOLDEN_JAR   java -cp "$INTEROP_JAVA_GOLDEN_JAR" org.apache.dubbo.interop.hessian.Golden write|check DIR
#   INTEROP_JAVA_FASTJSON2_GOLDEN_JAR  java -cp "$INTEROP_JAVA_FASTJSON2_GOLDEN_JAR" org.apache.dubbo.interop.fastjson2.Golden write|check DIR
#                             (fastjson2 2.0.52 JSONB with Java Dubbo 3.2's writer/reader features)
#   INTEROP_JAVA_DUBBO_JAR    java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Provider|Consumer ...
#                             (Consumer/Provider include the Greeter IDL service over tri://;
#                             DefinitionCheck reads a provider's service definition, see README)
#   INTEROP_JAVA_DUBBO32_JAR  the same Provider/Consumer built against Java Dubbo 3.2.16 (no Greeter)
#   INTEROP_JAVA_DUBBO27_JAR  the same Provider/Consumer built against Java Dubbo 2.7.23 (dubbo:// only)
#   INTEROP_JAVA_DUBBO26_JAR  a provider built against com.alibaba:dubbo 2.6.12 (dubbo:// only):
#                             java -cp "$INTEROP_JAVA_DUBBO26_JAR" org.apache.dubbo.interop.Provider26 ...
#   INTEROP_JAVA_ETCD_JAR     the Java Dubbo 3.3 Provider/Consumer with Java's etcd3 registry extension
#                             (org.apache.dubbo.extensions:dubbo-registry-etcd3 3.2.0) on the classpath
#   INTEROP_JAVA_TRACING_JAR  the Java Dubbo 3.3 Consumer with Micrometer Tracing's OpenTelemetry
#                             bridge on the classpath (run with -Ddubbo.tracing.enabled=true)
#   INTEROP_JAVA_AUTH_JAR     the Java Dubbo 3.3 Provider/Consumer with Dubbo's auth plugin
#                             (org.apache.dubbo:dubbo-auth 3.3.1) on the classpath, for --auth
#   INTEROP_JAVA_REST_JAR     java -cp "$INTEROP_JAVA_REST_JAR" org.apache.dubbo.interop.rest.RestProvider --tri-port Q
#                             (CONTRACT.md §5's UserResource with Spring MVC annotations on Dubbo 3.3.6's
#                             triple rest: the all-in-one jar's dubbo-rest-spring + spring-web) or ...rest.RestCheck URL
#                             [--http2] (the REST table checked with java.net.http)
#   INTEROP_JAVA_OLD_OPTS     JVM flags the 3.2, 2.7 and 2.6 jars need on Java 17 (--add-opens: their
#                             javassist and hessian-lite reflect into java.base)
#   INTEROP_JAVA_BENCH_JAR    java -jar "$INTEROP_JAVA_BENCH_JAR" [--dubbo-port P] [--tri-port Q]
#                             (org.apache.dubbo.bench.BenchProvider, the benchmark's Java peer)
# Each jar's manifest Class-Path points at its target/lib/*.jar, so the jar alone is the classpath.
#
# Skips Maven when every jar is newer than every pom/source file, ../proto/*.proto and
# ../../bench/proto/*.proto. Tries an
# offline build first (everything already in ~/.m2 after one online build), then falls back to an
# online one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
golden_jar="$here/hessian-golden/target/hessian-golden.jar"
fastjson2_golden_jar="$here/fastjson2-golden/target/fastjson2-golden.jar"
dubbo_jar="$here/dubbo-interop/target/dubbo-interop.jar"
bench_jar="$here/bench-provider/target/bench-provider.jar"
dubbo32_jar="$here/dubbo-interop-32/target/dubbo-interop-32.jar"
dubbo27_jar="$here/dubbo-interop-27/target/dubbo-interop-27.jar"
dubbo26_jar="$here/dubbo-interop-26/target/dubbo-interop-26.jar"
etcd_jar="$here/dubbo-interop-etcd/target/dubbo-interop-etcd.jar"
tracing_jar="$here/dubbo-interop-tracing/target/dubbo-interop-tracing.jar"
auth_jar="$here/dubbo-interop-auth/target/dubbo-interop-auth.jar"
rest_jar="$here/dubbo-interop-rest/target/dubbo-interop-rest.jar"
proto_dir="$(cd "$here/.." && pwd)/proto"
# BenchService of the benchmark suite (compiled into bench-provider).
bench_proto_dir="$(cd "$here/../.." && pwd)/bench/proto"

force=0
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

log() { echo "interop/java: $*" >&2; }

for tool in java mvn; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool not found on PATH (need Java 17+ and Maven 3.8+)"; exit 1; }
done

up_to_date() {
  [[ -f "$golden_jar" && -f "$dubbo_jar" && -f "$bench_jar" ]] || return 1
  [[ -f "$dubbo32_jar" && -f "$dubbo27_jar" && -f "$etcd_jar" && -f "$tracing_jar" ]] || return 1
  [[ -f "$dubbo26_jar" && -d "$here/dubbo-interop-26/target/lib" ]] || return 1
  [[ -d "$here/dubbo-interop-tracing/target/lib" ]] || return 1
  [[ -f "$auth_jar" && -d "$here/dubbo-interop-auth/target/lib" ]] || return 1
  [[ -f "$rest_jar" && -d "$here/dubbo-interop-rest/target/lib" ]] || return 1
  [[ -d "$here/dubbo-interop-etcd/target/lib" ]] || return 1
  [[ -d "$here/dubbo-interop-32/target/lib" && -d "$here/dubbo-interop-27/target/lib" ]] || return 1
  [[ -d "$here/hessian-golden/target/lib" && -d "$here/dubbo-interop/target/lib" ]] || return 1
  [[ -d "$here/bench-provider/target/lib" ]] || return 1
  [[ -f "$fastjson2_golden_jar" && -d "$here/fastjson2-golden/target/lib" ]] || return 1
  local oldest="$golden_jar"
  [[ "$dubbo_jar" -ot "$oldest" ]] && oldest="$dubbo_jar"
  [[ "$bench_jar" -ot "$oldest" ]] && oldest="$bench_jar"
  [[ "$dubbo32_jar" -ot "$oldest" ]] && oldest="$dubbo32_jar"
  [[ "$dubbo27_jar" -ot "$oldest" ]] && oldest="$dubbo27_jar"
  [[ "$dubbo26_jar" -ot "$oldest" ]] && oldest="$dubbo26_jar"
  [[ "$etcd_jar" -ot "$oldest" ]] && oldest="$etcd_jar"
  [[ "$tracing_jar" -ot "$oldest" ]] && oldest="$tracing_jar"
  [[ "$auth_jar" -ot "$oldest" ]] && oldest="$auth_jar"
  [[ "$rest_jar" -ot "$oldest" ]] && oldest="$rest_jar"
  [[ "$fastjson2_golden_jar" -ot "$oldest" ]] && oldest="$fastjson2_golden_jar"
  local newer
  newer="$(find "$here" -path '*/target' -prune -o -type f \( -name 'pom.xml' -o -path '*/src/*' \) \
            -newer "$oldest" -print -quit)"
  # The Greeter IDL shared with the Rust and Python sides (compiled into dubbo-interop).
  [[ -z "$newer" && -d "$proto_dir" ]] && newer="$(find "$proto_dir" -type f -name '*.proto' -newer "$oldest" -print -quit)"
  [[ -z "$newer" && -d "$bench_proto_dir" ]] && newer="$(find "$bench_proto_dir" -type f -name '*.proto' -newer "$oldest" -print -quit)"
  [[ -z "$newer" ]]
}

if [[ $force -eq 1 ]] || ! up_to_date; then
  mvn_args=(-q -B -f "$here/pom.xml" package -DskipTests)
  log "building (mvn ${mvn_args[*]})"
  if ! mvn -o "${mvn_args[@]}" >"$here/.build-offline.log" 2>&1; then
    log "offline build failed (first build?), retrying online"
    mvn "${mvn_args[@]}" >&2
  fi
  rm -f "$here/.build-offline.log"
  # maven-jar-plugin may leave an unchanged jar alone; mark both as fresh for the check above.
  touch "$golden_jar" "$dubbo_jar" "$bench_jar" "$dubbo32_jar" "$dubbo27_jar" "$dubbo26_jar" "$etcd_jar" "$tracing_jar" "$auth_jar" \
    "$rest_jar" "$fastjson2_golden_jar"
else
  log "up to date"
fi

echo "INTEROP_JAVA_GOLDEN_JAR=$golden_jar"
echo "INTEROP_JAVA_FASTJSON2_GOLDEN_JAR=$fastjson2_golden_jar"
echo "INTEROP_JAVA_DUBBO_JAR=$dubbo_jar"
echo "INTEROP_JAVA_BENCH_JAR=$bench_jar"
echo "INTEROP_JAVA_DUBBO32_JAR=$dubbo32_jar"
echo "INTEROP_JAVA_DUBBO27_JAR=$dubbo27_jar"
echo "INTEROP_JAVA_DUBBO26_JAR=$dubbo26_jar"
echo "INTEROP_JAVA_ETCD_JAR=$etcd_jar"
echo "INTEROP_JAVA_TRACING_JAR=$tracing_jar"
echo "INTEROP_JAVA_AUTH_JAR=$auth_jar"
echo "INTEROP_JAVA_REST_JAR=$rest_jar"
# Quoted so that eval keeps it one value.
echo "INTEROP_JAVA_OLD_OPTS='--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.math=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED'"
