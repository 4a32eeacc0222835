#!/usr/bin/env bash
# Runs the workspace's fuzz targets (every crates/*/fuzz directory) with cargo-fuzz (libFuzzer)
# for a fixed time each, then prints a table; fails if any target crashes or does not build.
#
#   bash scripts/fuzz.sh [--seconds N] [TARGET...]
#
# TARGET is CRATE/NAME as the table prints it (hessian2/decode_value), or a bare NAME, which
# selects every crate's target of that name; none: all of them. --seconds N: how long each
# target runs (default 60). --list: print the targets and stop.
#
# Needs the nightly toolchain (rustup toolchain install nightly); installs cargo-fuzz from
# crates.io when it is missing. Everything it writes stays out of the source tree, under
# $FUZZ_WORK (default target/fuzz): the build (target/fuzz/build), and per target its corpus
# (target/fuzz/corpus/CRATE/NAME, kept between runs, so each run goes on from the last one),
# the crashing inputs (target/fuzz/artifacts/CRATE/NAME) and libFuzzer's log
# (target/fuzz/logs/CRATE-NAME.log). A target's checked-in seeds (crates/CRATE/fuzz/seeds/NAME)
# are read, never written.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
SECONDS_EACH=60
LIST=0
WANTED=()
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds)
      SECONDS_EACH=${2:-}
      case "$SECONDS_EACH" in '' | *[!0-9]* | 0) echo "--seconds needs a positive whole number" >&2; exit 2 ;; esac
      shift 2
      ;;
    --list) LIST=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    *) WANTED+=("$1"); shift ;;
  esac
done

WORK=${FUZZ_WORK:-$ROOT/target/fuzz}
mkdir -p "$WORK/logs" "$WORK/corpus" "$WORK/artifacts"
# One build directory for every fuzz crate: they share most dependencies. A fresh fuzz build
# gains nothing from incremental state, which would cost gigabytes.
export CARGO_INCREMENTAL=0

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "the nightly toolchain is needed (libFuzzer's instrumentation): rustup toolchain install nightly" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is missing; installing it from crates.io (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked || { echo "could not install cargo-fuzz" >&2; exit 2; }
fi

# Every target as CRATE/NAME with its fuzz directory.
ALL=()
declare -A DIR_OF
for dir in crates/*/fuzz; do
  [ -f "$dir/Cargo.toml" ] || continue
  crate=$(basename "$(dirname "$dir")")
  for name in $(cargo +nightly fuzz list --fuzz-dir "$dir" 2>/dev/null); do
    ALL+=("$crate/$name")
    DIR_OF["$crate/$name"]=$dir
  done
done
if [ ${#ALL[@]} -eq 0 ]; then
  echo "no fuzz targets found under crates/*/fuzz" >&2
  exit 2
fi
if [ "$LIST" -eq 1 ]; then
  printf '%s\n' "${ALL[@]}"
  exit 0
fi
SELECTED=()
if [ ${#WANTED[@]} -eq 0 ]; then
  SELECTED=("${ALL[@]}")
else
  for w in "${WANTED[@]}"; do
    found=0
    for t in "${ALL[@]}"; do
      if [ "$t" = "$w" ] || [ "${t#*/}" = "$w" ]; then
        SELECTED+=("$t")
        found=1
      fi
    done
    [ "$found" -eq 1 ] || { echo "no fuzz target $w; there are: ${ALL[*]}" >&2; exit 2; }
  done
fi

echo "fuzzing ${#SELECTED[@]} target(s), $SECONDS_EACH s each; corpora, crashes and logs under $WORK"
ROWS=()
CRASHES=()
i=0
for t in "${SELECTED[@]}"; do
  i=$((i + 1))
  dir=${DIR_OF[$t]}
  name=${t#*/}
  log="$WORK/logs/${t/\//-}.log"
  corpus="$WORK/corpus/$t"
  artifacts="$WORK/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  echo
  echo "[$i/${#SELECTED[@]}] $t: building"
  start=$SECONDS
  if ! cargo +nightly fuzz build --fuzz-dir "$dir" --target-dir "$WORK/build" "$name" >"$log" 2>&1; then
    tail -n 20 "$log"
    echo "[$i/${#SELECTED[@]}] $t: BUILD FAILED (log: $log)"
    ROWS+=("$t|-|-|-|-|build failed")
    CRASHES+=("$t: does not build, see $log")
    continue
  fi
  echo "[$i/${#SELECTED[@]}] $t: built in $((SECONDS - start)) s; running for $SECONDS_EACH s"
  seeds=()
  [ -d "$dir/seeds/$name" ] && seeds=("$dir/seeds/$name")
  before=$(find "$artifacts" -type f | wc -l)
  # The first corpus directory receives new inputs; the seeds are only read.
  cargo +nightly fuzz run --fuzz-dir "$dir" --target-dir "$WORK/build" "$name" "$corpus" "${seeds[@]}" -- \
    -max_total_time="$SECONDS_EACH" -print_final_stats=1 -artifact_prefix="$artifacts/" >>"$log" 2>&1 &
  pid=$!
  # A line of progress every 15 s: libFuzzer's latest status.
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | tr -s '\t ' ' ' | cut -c1-100)
      echo "    ${status:-starting}"
    fi
  done
  wait "$pid"
  rc=$?
  runs=$(grep -E '^stat::number_of_executed_units:' "$log" | tail -n 1 | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 | sed -E 's/.*cov: ([0-9]+).*/\1/')
  corp=$(find "$corpus" -type f | wc -l)
  after=$(find "$artifacts" -type f | wc -l)
  if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
    result=ok
  else
    newest=$(ls -t "$artifacts" 2>/dev/null | head -n 1)
    result="CRASH ($artifacts/$newest)"
    grep -m 3 -E 'panicked at|ERROR: libFuzzer|SUMMARY' "$log"
    CRASHES+=("$t: $artifacts/$newest; replay: cargo +nightly fuzz run --fuzz-dir $dir --target-dir $WORK/build $name $artifacts/$newest")
  fi
  echo "[$i/${#SELECTED[@]}] $t: $result, ${runs:-?} runs"
  ROWS+=("$t|$SECONDS_EACH|${runs:-?}|${cov:-?}|$corp|$result")
done

echo
printf '%-34s %8s %12s %8s %8s  %s\n' target seconds runs cov corpus result
for r in "${ROWS[@]}"; do
  IFS='|' read -r t s runs cov corp result <<<"$r"
  printf '%-34s %8s %12s %8s %8s  %s\n' "$t" "$s" "$runs" "$cov" "$corp" "$result"
done
if [ ${#CRASHES[@]} -gt 0 ]; then
  echo
  echo "FAILED:"
  printf '  %s\n' "${CRASHES[@]}"
  exit 1
fi
echo
echo "no crash in ${#SELECTED[@]} target(s)"
