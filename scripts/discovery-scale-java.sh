#!/usr/bin/env bash
# Java Dubbo 3.3's interface-level consumer on the 100,000-provider push of docs/discovery.md
# ("Java Dubbo 3.3 on the same push"), in-process: builds interop/java/discovery-scale with Maven
# (offline first, then online) and runs it. Extra arguments go to the program
# (--providers N, --reps N, --warmup N, --names-only yes).
#
#   scripts/discovery-scale-java.sh [--reps 5] [--warmup 3]
#
# JVM flags: DISCOVERY_SCALE_JAVA_OPTS (default: fixed 1 GB heap, G1 with 2 parallel / 1
# concurrent GC threads).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pom="$root/interop/java/pom.xml"
jar="$root/interop/java/discovery-scale/target/discovery-scale.jar"

mvn_args=(-q -B -f "$pom" -pl discovery-scale -am package -DskipTests)
if ! mvn -o "${mvn_args[@]}" >&2; then
  echo "discovery-scale: offline build failed, retrying online" >&2
  mvn "${mvn_args[@]}" >&2
fi

opts="${DISCOVERY_SCALE_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseG1GC -XX:ParallelGCThreads=2 -XX:ConcGCThreads=1}"
cd "$root"
# shellcheck disable=SC2086
exec java $opts -jar "$jar" --nodes crates/registry/tests/fixtures/java-3.3/nodes.json "$@"
