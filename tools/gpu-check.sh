#!/usr/bin/env bash
# One call on a GPU machine: the SASS check (HGMMA where wgmma is meant), the
# GPU test tier, compute-sanitizer and a benchmark, one after another; logs
# under $OUT (or ./gpu-check-out), a short table last.
#   tools/gpu-check.sh [--no-tests] [--no-sanitize] [--no-bench] [--bench "ARGS"]
# KERNELS="v6 auto" limits the tests and the sanitizers to those kernels;
# TEST_JOBS=N runs N test processes at once (default 4), TEST_TIMEOUT each;
# TEST_PART=gpu/large runs only that part of the tier (hg-tests --test) on each kernel.
set -u
OUT=${OUT:-gpu-check-out}; mkdir -p "$OUT"
BUILD=${BUILD:-build}
tests=1 sanitize=1 bench_args="" bench=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) tests=0 ;;
    --no-sanitize) sanitize=0 ;;
    --no-bench) bench=0 ;;
    --bench) bench_args="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac; shift
done
export PATH=$PATH:/usr/local/cuda/bin
summary="$OUT/summary.txt"; : > "$summary"
note() { echo "$*" | tee -a "$summary"; }

note "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1)"
# Binaries built elsewhere must start here; if not, build here.
if ! "$BUILD/hg-tests" --cpu-only >/dev/null 2>&1; then
  note "prebuilt binaries do not run here ($("$BUILD/hg-tests" --cpu-only 2>&1 | head -2)); rebuilding"
  make -j"$(nproc)" BUILD="$BUILD" all >"$OUT/build.log" 2>&1 || { note "build failed"; tail -30 "$OUT/build.log"; exit 1; }
fi

# SASS: which tensor-core instructions each kernel object holds.
bash tools/sass.sh "$BUILD" | tee -a "$summary"

# The GPU tier, one process per kernel (a trap or a hang in one kernel does
# not take the others down), with the debug build's trapping waits if present;
# TEST_JOBS processes at once (default 4). Then the sanitizers, then the
# bench, each phase alone: a run that had the tier and compute-sanitizer
# side by side left its machine unresponsive, with nothing returned
# (docs/NOTES.md, 2026-12-04), so the phases no longer overlap.
TEST_BUILD=${TEST_BUILD:-$BUILD/debug}
[ -x "$TEST_BUILD/hg-tests" ] || TEST_BUILD=$BUILD
if [ $tests = 1 ]; then
  logs=$(mktemp -d)
  one_kernel() { # kernel: its tier in one process; a line of result, then its failures
    local start rc
    start=$(date +%s)
    timeout -k 30 "${TEST_TIMEOUT:-300}" "$TEST_BUILD/hg-tests" --gpu-only --kernel "$1" ${TEST_PART:+--test "$TEST_PART"} >"$logs/$1.log" 2>&1; rc=$?
    { echo "tests $1: rc=$rc $(tail -1 "$logs/$1.log") ($(( $(date +%s) - start )) s)"
      grep -E "^(FAIL|    )" "$logs/$1.log" | head -12; } >"$logs/$1.result"
  }
  export -f one_kernel; export TEST_BUILD logs TEST_PART
  kernels=${KERNELS:-$("$BUILD/hopgemm-bench" --list | awk '$1 ~ /^(generic|v[0-9]|sm90_.*)$/ {print $1}') auto}
  tr ' ' '\n' <<<"$kernels" | grep . | xargs -P "${TEST_JOBS:-4}" -I{} bash -c 'one_kernel {}'
  : > "$OUT/tests.log"
  for k in $kernels; do
    cat "$logs/$k.log" >>"$OUT/tests.log" 2>/dev/null
    if [ -f "$logs/$k.result" ]; then tee -a "$summary" <"$logs/$k.result"; else note "tests $k: no result"; fi
  done
  rm -rf "$logs"
fi
if [ $sanitize = 1 ]; then
  timeout -k 30 900 bash tools/sanitize.sh "$BUILD" >"$OUT/sanitize-table.txt" 2>&1
  note "sanitizers: rc=$?"; tee -a "$summary" <"$OUT/sanitize-table.txt" | tail -40
fi
if [ $bench = 1 ]; then
  timeout -k 30 900 "$BUILD/hopgemm-bench" $bench_args --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>"$OUT/bench.err"; rc=$?
  note "bench ($bench_args): rc=$rc"
  tail -20 "$OUT/bench.log" | tee -a "$summary"
  tail -5 "$OUT/bench.err"
fi
echo "==== summary"; cat "$summary"
