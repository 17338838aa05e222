#!/usr/bin/env bash
# Builds the libFuzzer targets (preset "fuzz": clang, ASan + UBSan, in
# build-fuzz/) and runs each for a bounded time on its seed corpus plus what
# earlier runs found (build-fuzz/corpus/<target>/). Exits non-zero on any
# finding: a crash, a sanitizer report, a leak, a timeout, running out of
# memory, an exception other than flowlens::Error or a failed round-trip check.
# The reproducer lands in build-fuzz/findings/<target>/; rerun it with
#   build-fuzz/bin/fuzz_<target> build-fuzz/findings/<target>/crash-...
#
# Usage: tests/fuzz/run-fuzzers.sh [--seconds N | --runs N] [--no-build | --build-only] [target...]
#   --seconds N  time per target (default: $FUZZ_SECONDS, else 25)
#   --runs N     stop each target after N executions instead
#   --build-only build the targets, run none (CI times the two apart)
#   targets: graphdef_text graphdef_binary onnx cluster_json wire_decoder npy graph_exec (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${FUZZ_SECONDS:-25}"
runs=""
build=1
run=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --build-only) run=0; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(graphdef_text graphdef_binary onnx cluster_json wire_decoder npy graph_exec checkpoint saved_model)

if [ "$build" = 1 ]; then
  [ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz
  cmake --build --preset fuzz -j "${JOBS:-$(nproc)}"
fi
[ "$run" = 1 ] || exit 0

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
limit=(-max_total_time="$seconds")
[ -n "$runs" ] && limit=(-runs="$runs")

failed=()
for target in "${targets[@]}"; do
  binary="build-fuzz/bin/fuzz_$target"
  seeds="tests/fuzz/corpus/$target"
  [ -x "$binary" ] || { echo "run-fuzzers: no $binary (unknown target?)" >&2; exit 2; }
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/findings/$target"
  log="build-fuzz/findings/$target/last-run.log"
  # -timeout: one input taking 10 s is a finding (a hang); -rss_limit_mb also
  # bounds single allocations, so a few bytes asking for gigabytes is one too.
  status=0
  "$binary" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$target/" \
    "build-fuzz/corpus/$target" "$seeds" >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^stat::.*\(\) *//; s/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
  if [ "$status" -ne 0 ]; then
    echo "fuzz_$target: FINDING after ${execs:-?} executions (exit $status); log: $log"
    grep -m 5 -E "ERROR|SUMMARY|fuzz property|terminate|Test unit written" "$log" | sed 's/^/  /' || true
    failed+=("$target")
  else
    echo "fuzz_$target: ${execs:-?} executions${secs:+ in ${secs} s}, no finding"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run-fuzzers: findings in: ${failed[*]}" >&2
  exit 1
fi
