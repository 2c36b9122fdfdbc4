#!/usr/bin/env bash
# The V5 / V6 measurements of docs/v5.md and docs/v6.md in one call on a GPU
# machine: 8192^3 with the V6 ablations, 4096^3, 16384^3, 8192 x 28672 x 8192
# (median of 3 fresh processes each, the tool's default method), bf16 8192^3,
# and one Nsight Compute pass over V6 and cuBLAS at 8192^3. CSVs and logs
# under $OUT (or ./bench-out).   Usage: tools/bench-v5-v6.sh [BUILD]
set -u
BUILD=${1:-build}; OUT=${OUT:-bench-out}; mkdir -p "$OUT"
B="$BUILD/hopgemm-bench"
run() { # name, args...
  local name=$1; shift
  timeout 400 "$B" "$@" --csv "$OUT/$name.csv" >"$OUT/$name.log" 2>"$OUT/$name.err"
  echo "== $name (rc $?): $*"; sed -n '/^kernel /,$p' "$OUT/$name.log"
}
run f16_TN_8192 --kernel v5,v6,v6-no-stream-k,v6-no-multicast,v6-not-persistent,v6-thread-epilogue,auto --fresh 3
run f16_TN_4096 -m 4096 -n 4096 -k 4096 --kernel v5,v6,v6-no-stream-k,auto --fresh 3
run f16_TN_16384 -m 16384 -n 16384 -k 16384 --kernel v5,v6,auto --fresh 3 --repeat 10
run f16_TN_8192x28672x8192 -n 28672 --kernel v5,v6,auto --fresh 3 --repeat 10
run bf16_TN_8192 --dtype bf16 --kernel v5,v6
if [ "${NCU:-1}" = 1 ]; then
  run f16_TN_8192_ncu --kernel v5,v6 --ncu --repeat 5
fi
