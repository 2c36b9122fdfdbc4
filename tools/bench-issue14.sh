#!/usr/bin/env bash
# Issue #14's figures in one call on a GPU machine, each the median of 3 fresh
# processes (the tool's --fresh 3), AUTO against cuBLAS-best:
#   1. the three strided batches (cuBLAS-best: cuBLASLt's best with the batch);
#   2. the fused epilogues at 8192^3, fp16 and bf16: plain, bias, ReLU, GELU,
#      bias + GELU, and fp32 C plain and with bias + GELU (cuBLAS-best runs
#      cuBLASLt's own epilogue, e.g. CUBLASLT_EPILOGUE_GELU_BIAS; every run
#      checks against float64);
#   3. fp16 accumulation at 8192^3 against CUBLAS_COMPUTE_16F, its error
#      beside fp32 accumulation's.
# CSVs and logs under $OUT (or ./bench-out); last, each epilogue's time over
# the plain product's of the same dtype and C type (#14 asks at most 1.03).
#   Usage: [DTYPES="f16 bf16"] tools/bench-issue14.sh [BUILD] [PART...]
#   PART: batches, epilogues (7 runs a dtype), compute.
#   PLAN_ONLY=1: each command with --plan instead (no GPU needed, nothing
#   timed): the CPU tier runs it so that the tool's options stay in step.
set -u
BUILD=${1:-build}; shift || true
parts=${*:-batches epilogues compute}
OUT=${OUT:-bench-out}
[ "${PLAN_ONLY:-0}" = 1 ] || mkdir -p "$OUT"
B="$BUILD/hopgemm-bench"
status=0
run() { # name, args...
  local name=$1; shift
  if [ "${PLAN_ONLY:-0}" = 1 ]; then
    "$B" "$@" --plan >/dev/null 2>&1 || { echo "$name: the tool refuses: $*"; status=1; }
    return
  fi
  timeout 400 "$B" "$@" --fresh 3 --cooldown 1 --csv "$OUT/$name.csv" >"$OUT/$name.log" 2>"$OUT/$name.err"
  echo "== $name (rc $?): $*"; sed -n '/^kernel /,$p' "$OUT/$name.log"
}
for part in $parts; do case $part in
  batches)
    run batch_tn_bf16 --kernel auto --batch 512 -m 2048 -n 2048 -k 128 --layout TN --dtype bf16
    run batch_tt_bf16 --kernel auto --batch 512 -m 2048 -n 128 -k 2048 --layout TT --dtype bf16
    run batch64_f16 --kernel auto --batch 64 -m 4096 -n 4096 -k 4096 --dtype f16 ;;
  epilogues)
    for dt in ${DTYPES:-f16 bf16}; do
      run epi_${dt}_plain --kernel auto --dtype $dt
      run epi_${dt}_bias --kernel auto --dtype $dt --bias
      run epi_${dt}_relu --kernel auto --dtype $dt --act relu
      run epi_${dt}_gelu --kernel auto --dtype $dt --act gelu
      run epi_${dt}_bias_gelu --kernel auto --dtype $dt --bias --act gelu
      run epi_${dt}_f32_plain --kernel auto --dtype $dt --c-type f32
      run epi_${dt}_f32_bias_gelu --kernel auto --dtype $dt --c-type f32 --bias --act gelu
    done ;;
  compute)
    run compute_16f --kernel auto --compute 16f
    run compute_32f --kernel auto ;;
  *) echo "unknown part $part (batches, epilogues, compute)" >&2; exit 64 ;;
esac; done
[ "${PLAN_ONLY:-0}" = 1 ] && exit $status
# AUTO's median ms of each epilogue run over its plain twin's (same dtype, same C type).
auto_ms() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ms") c = i } $3 == "auto" { print $c }' "$1" 2>/dev/null; }
for dt in f16 bf16; do
  for e in bias relu gelu bias_gelu f32_bias_gelu; do
    f="$OUT/epi_${dt}_$e.csv"; [ -f "$f" ] || continue
    case $e in f32_*) base="$OUT/epi_${dt}_f32_plain.csv" ;; *) base="$OUT/epi_${dt}_plain.csv" ;; esac
    a=$(auto_ms "$f"); p=$(auto_ms "$base")
    [ -n "$a" ] && [ -n "$p" ] && awk -v n="$dt $e" -v a="$a" -v p="$p" \
      'BEGIN { printf "epilogue %-20s %.4f ms over plain %.4f: %.3f\n", n, a, p, a / p }'
  done
done
