#!/usr/bin/env bash
# One call on a GPU machine: the GPU test tier, compute-sanitizer, the SASS
# check (HGMMA where wgmma is meant), and a benchmark; logs under $OUT (or
# ./gpu-check-out), a short table last.
#   tools/gpu-check.sh [--no-tests] [--no-sanitize] [--no-bench] [--bench "ARGS"]
# KERNELS="v6 auto" limits the tests and the sanitizers to those kernels.
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
{
  for o in "$BUILD"/src/kernels/*.o "$BUILD"/src/family/*.o; do
    s=$(cuobjdump --dump-sass "$o" 2>/dev/null)
    printf '%-28s HGMMA %5d  HMMA %5d  LDL/STL %d\n' "$(basename "$o" .o)" \
      "$(grep -c HGMMA <<<"$s")" "$(grep -c HMMA <<<"$s")" "$(grep -cE '\b(LDL|STL)\b' <<<"$s")"
  done
} | tee -a "$summary"

# The GPU tier, one process per kernel (a trap or a hang in one kernel does
# not take the others down), with the debug build's trapping waits if present.
TEST_BUILD=${TEST_BUILD:-$BUILD/debug}
[ -x "$TEST_BUILD/hg-tests" ] || TEST_BUILD=$BUILD
if [ $tests = 1 ]; then
  : > "$OUT/tests.log"
  for k in ${KERNELS:-$("$BUILD/hopgemm-bench" --list | awk '$1 ~ /^(generic|v[0-9]|sm90_.*)$/ {print $1}') auto}; do
    start=$(date +%s)
    timeout ${TEST_TIMEOUT:-300} "$TEST_BUILD/hg-tests" --gpu-only --kernel "$k" >"$OUT/t.log" 2>&1; rc=$?
    cat "$OUT/t.log" >>"$OUT/tests.log"
    note "tests $k: rc=$rc $(tail -1 "$OUT/t.log") ($(( $(date +%s) - start )) s)"
    grep -E "^(FAIL|    )" "$OUT/t.log" | head -12 | tee -a "$summary"
  done
  rm -f "$OUT/t.log"
fi
if [ $sanitize = 1 ]; then
  timeout 900 bash tools/sanitize.sh "$BUILD" >"$OUT/sanitize-table.txt" 2>&1; rc=$?
  note "sanitizers: rc=$rc"; cat "$OUT/sanitize-table.txt" | tee -a "$summary" | tail -40
fi
if [ $bench = 1 ]; then
  timeout 900 "$BUILD/hopgemm-bench" $bench_args --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>"$OUT/bench.err"; rc=$?
  note "bench ($bench_args): rc=$rc"
  tail -20 "$OUT/bench.log" | tee -a "$summary"
  tail -5 "$OUT/bench.err"
fi
echo "==== summary"; cat "$summary"
