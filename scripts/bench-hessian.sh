#!/usr/bin/env bash
# Hessian 2 codec: Rust (crates/hessian2) against Java's hessian-lite, same cases, same
# method, same machine, same run. Writes the result table into docs/performance-hessian.md
# (between the GENERATED markers; the rest of the file is kept).
#
#   scripts/bench-hessian.sh [--warmup-ms 3000] [--measure-ms 5000] [--rounds 1]
#                            [--only CASE,...] [--cpu N] [--doc FILE | --no-doc]
#
# Steps: build the Java harness (interop/java/build.sh) and the Rust one
# (cargo bench -p dubbo-hessian2 --bench compare --no-run); for each round run Java's
# org.apache.dubbo.interop.hessian.Bench, then crates/hessian2/benches/compare.rs, each
# pinned to CPU N with taskset (default: the last CPU); the Rust side first decodes Java's
# encodings of every case into its own types and checks they equal its values and sizes.
# With several rounds (Java, Rust, Java, Rust, ...) each figure is the median over rounds.
# Progress ("# case op") goes to stderr as each measurement starts.
#
# Cases and method: see Bench.java and benches/compare.rs (warm-up, then 50 ms samples;
# ns/op = median wall time per op, cpu_ns/op = median CPU time of the benchmark thread).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

warmup=3000
measure=5000
rounds=1
only=""
cpu=""
doc="docs/performance-hessian.md"
cmd="scripts/bench-hessian.sh${*:+ $*}"

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --warmup-ms) warmup="$2"; shift 2 ;;
    --measure-ms) measure="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --cpu) cpu="$2"; shift 2 ;;
    --doc) doc="$2"; shift 2 ;;
    --no-doc) doc=""; shift ;;
    -h|--help) usage ;;
    *) echo "unknown option $1" >&2; usage ;;
  esac
done

log() { echo "bench-hessian: $*" >&2; }

ncpu="$(nproc)"
[[ -n "$cpu" ]] || cpu=$((ncpu - 1))
pin=()
if command -v taskset >/dev/null 2>&1; then
  pin=(taskset -c "$cpu")
else
  log "taskset not found: running unpinned"
fi

log "building Java harness (interop/java/build.sh)"
eval "$(bash interop/java/build.sh)"
log "building Rust harness (cargo bench -p dubbo-hessian2 --bench compare --no-run)"
exe="$(cargo bench -p dubbo-hessian2 --bench compare --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*\/compare-[^"]*\)".*/\1/p' | tail -1)"
[[ -x "$exe" ]] || { log "could not find the compare bench executable"; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sel=()
[[ -n "$only" ]] && sel=(--only "$only")

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
date_utc="$(date -u '+%Y-%m-%d %H:%M UTC')"
java_version="$(java -version 2>&1 | head -1)"
rustc_version="$(rustc -V)"

for ((r = 1; r <= rounds; r++)); do
  log "round $r/$rounds: Java hessian-lite (pinned: ${pin[*]:-no})"
  "${pin[@]}" java -cp "$INTEROP_JAVA_GOLDEN_JAR" org.apache.dubbo.interop.hessian.Bench \
    --warmup-ms "$warmup" --measure-ms "$measure" --csv "$tmp/java-$r.csv" \
    --dump "$tmp/java-bytes" "${sel[@]}" | tee "$tmp/java-$r.txt" >&2
  log "round $r/$rounds: Rust dubbo-hessian2 (pinned: ${pin[*]:-no})"
  "${pin[@]}" "$exe" --java-bytes "$tmp/java-bytes" \
    --warmup-ms "$warmup" --measure-ms "$measure" --csv "$tmp/rust-$r.csv" \
    "${sel[@]}" | tee "$tmp/rust-$r.txt" >&2
done
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
hessian_lite="$(sed -n '1s/^hessian-lite \([^,]*\),.*/\1/p' "$tmp/java-1.txt")"

export BH_TMP="$tmp" BH_ROUNDS="$rounds" BH_DOC="$doc" BH_CMD="$cmd" BH_NCPU="$ncpu" BH_CPU="$cpu" \
  BH_PINNED="${pin[*]:-}" BH_LOAD_START="$load_start" BH_LOAD_END="$load_end" BH_DATE="$date_utc" \
  BH_JAVA="$java_version" BH_RUSTC="$rustc_version" BH_HL="$hessian_lite" BH_WARMUP="$warmup" \
  BH_MEASURE="$measure"
python3 - <<'PY'
import csv, os, re, statistics, platform

tmp = os.environ["BH_TMP"]
rounds = int(os.environ["BH_ROUNDS"])

def load(side):
    rows = {}
    for r in range(1, rounds + 1):
        with open(f"{tmp}/{side}-{r}.csv") as f:
            for row in csv.DictReader(f):
                rows.setdefault((row["case"], row["op"]), []).append(row)
    return rows

java, rust = load("java"), load("rust")
cpu_model = "?"
with open("/proc/cpuinfo") as f:
    for line in f:
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break

def med(rows, key):
    return statistics.median(float(r[key]) for r in rows)

def fmt_ns(v):
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.1f} µs"
    return f"{v:.0f} ns"

lines = []
order = []
for key in java:
    if key in rust and key not in order:
        order.append(key)
worst = None
lines.append("| case | op | bytes (Java / Rust) | Java ns/op | Rust ns/op | ratio (wall) | Java CPU ns/op | Rust CPU ns/op | **ratio (CPU)** | ≥ 3× |")
lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|:---:|")
for case, op in order:
    j, r = java[(case, op)], rust[(case, op)]
    jw, rw = med(j, "ns_per_op"), med(r, "ns_per_op")
    jc, rc = med(j, "cpu_ns_per_op"), med(r, "cpu_ns_per_op")
    wall_ratio, cpu_ratio = jw / rw, jc / rc
    ok = "yes" if cpu_ratio >= 3 else "**no**"
    if worst is None or cpu_ratio < worst[0]:
        worst = (cpu_ratio, case, op)
    lines.append(f"| {case} | {op} | {j[0]['bytes']} / {r[0]['bytes']} | {fmt_ns(jw)} | {fmt_ns(rw)} | "
                 f"{wall_ratio:.1f}× | {fmt_ns(jc)} | {fmt_ns(rc)} | **{cpu_ratio:.1f}×** | {ok} |")

env = os.environ
pinned = env["BH_PINNED"] or "not pinned (no taskset)"
out = []
out.append("<!-- BEGIN GENERATED by scripts/bench-hessian.sh: do not edit by hand -->")
out.append("")
out.append(f"Run of {env['BH_DATE']}:")
out.append("")
out.append("```")
out.append(env["BH_CMD"])
out.append("```")
out.append("")
out.append(f"- machine: {env['BH_NCPU']} CPUs (`nproc`), {cpu_model}, Linux {platform.release()}; "
           f"load average {env['BH_LOAD_START']} at the start, {env['BH_LOAD_END']} at the end "
           "(a shared machine: other work was running)")
out.append(f"- each side pinned to one CPU: `{pinned}` (so the JVM sees 1 CPU and picks SerialGC)")
out.append(f"- Java: hessian-lite {env['BH_HL']}, {env['BH_JAVA']}; Rust: {env['BH_RUSTC']}, "
           "`bench` profile (release, codegen-units 4), system allocator (glibc)")
out.append(f"- warm-up {env['BH_WARMUP']} ms, measurement {env['BH_MEASURE']} ms per case and op, "
           f"{rounds} round(s) (Java then Rust each round; figures are medians over rounds)")
out.append("- ratio = Java time / Rust time = Rust throughput / Java throughput; the bar is ≥ 3× on CPU time "
           "(CPU time of the benchmark thread, robust against the other load; Java's excludes GC threads)")
out.append("")
out.extend(lines)
out.append("")
if worst:
    out.append(f"Lowest CPU ratio: {worst[1]} {worst[2]}, {worst[0]:.1f}×.")
    out.append("")
out.append("<!-- END GENERATED -->")
block = "\n".join(out)
print(block)

doc = env["BH_DOC"]
if doc:
    try:
        text = open(doc).read()
    except FileNotFoundError:
        text = "# Hessian 2 codec performance\n\n<!-- BEGIN GENERATED -->\n<!-- END GENERATED -->\n"
    pat = re.compile(r"<!-- BEGIN GENERATED.*?<!-- END GENERATED -->", re.S)
    if pat.search(text):
        text = pat.sub(lambda m: block, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(doc, "w") as f:
        f.write(text)
    print(f"bench-hessian: wrote {doc}", file=__import__("sys").stderr)
PY
