#!/usr/bin/env bash
# Issues #10 and #12's figures in one call on a GPU machine, AUTO against
# cuBLAS-best:
#   sweep   the published sweep (SWEEP, default bench/sweep.txt, a copy of
#           ../shared/bench/sweep.txt that the CPU tier compares with it),
#           each product in a fresh process (--fresh 1; SWEEP_FRESH=0 runs the
#           whole file in this one; --fresh 3 over 50 products is past one
#           call's 600 s), --copy-bw, then its geomean and lowest ten;
#   sweep1, sweep2  its first and second half of the products, so that each
#           half fits one call (CSV and log named sweep1, sweep2);
#   i10     #10's products, median of 3 fresh processes (items 1 and 2);
#   decode  #12 item 2: m = 1, 16, 64 at 4096^2 bf16, fresh 3, --copy-bw;
#   picks   the picks AUTO's model is least sure of, fresh 3, each beside the
#           rows it weighed against it (#12 item 3: a row 5% faster than
#           AUTO's pick is a defect).
# CSVs and logs under $OUT (or ./bench-out). Each run gets a timeout, so a
# hang ends one run, not the call; BUD (seconds) stops starting new runs.
#   Usage: tools/bench-issues.sh [BUILD] [PART...]   (default: all four)
#   PLAN_ONLY=1: each command with --plan instead (no GPU needed, nothing
#   timed): the CPU tier runs it so that the tool's options stay in step.
set -u
BUILD=${1:-build}; shift || true
parts=${*:-sweep i10 decode picks}
OUT=${OUT:-bench-out}
SWEEP=${SWEEP:-bench/sweep.txt}
BUD=${BUD:-3600}; T0=$(date +%s)
[ "${PLAN_ONLY:-0}" = 1 ] || mkdir -p "$OUT"
B="$BUILD/hopgemm-bench"
status=0
left() { echo $((BUD - ($(date +%s) - T0))); }
run() { # name, args...
  local name=$1; shift
  if [ "${PLAN_ONLY:-0}" = 1 ]; then
    "$B" "$@" --plan >/dev/null 2>&1 || { echo "$name: the tool refuses: $*"; status=1; }
    return
  fi
  [ "$(left)" -lt 45 ] && { echo "== $name: not run (BUD spent)"; return; }
  rm -f "$OUT/$name.csv" # the tool appends; a rerun in the same OUT starts afresh
  timeout 120 "$B" "$@" --fresh 3 --cooldown 1 --csv "$OUT/$name.csv" >"$OUT/$name.log" 2>"$OUT/$name.err"
  echo "== $name (rc $?): $*"; sed -n '/^kernel /,$p' "$OUT/$name.log"
}
for part in $parts; do case $part in
  sweep|sweep1|sweep2)
    if [ ! -f "$SWEEP" ]; then echo "$part: no $SWEEP (set SWEEP)"; status=1; continue; fi
    # The products, comments and blank lines dropped; a half keeps its share.
    shapes=$(mktemp); grep -v -e '^#' -e '^[[:space:]]*$' "$SWEEP" >"$shapes"
    half=$(( ($(wc -l <"$shapes") + 1) / 2 ))
    case $part in
      sweep1) sed -i "$((half + 1)),\$d" "$shapes" ;;
      sweep2) sed -i "1,${half}d" "$shapes" ;;
    esac
    if [ "${PLAN_ONLY:-0}" = 1 ]; then
      "$B" --shapes "$shapes" --kernel auto --plan >/dev/null 2>&1 || { echo "$part: the tool refuses $SWEEP"; status=1; }
      rm -f "$shapes"; continue
    fi
    rm -f "$OUT/$part.csv"
    timeout $(( $(left) > 60 ? $(left) - 30 : 30 )) "$B" --shapes "$shapes" --kernel auto --cooldown 1 --copy-bw \
      --fresh "${SWEEP_FRESH:-1}" --csv "$OUT/$part.csv" >"$OUT/$part.log" 2>"$OUT/$part.err"
    echo "== $part (rc $?, $(wc -l <"$shapes") products)"; rm -f "$shapes"
    python3 - "$OUT/$part.csv" <<'PY'
import csv, math, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x['kernel'] == 'auto' and x['ratio']]
if r:
    g = math.exp(sum(math.log(float(x['ratio'])) for x in r) / len(r))
    print(f"{sys.argv[1]}: {len(r)} products, AUTO's geomean {g:.4f} of cuBLAS-best; lowest ten:")
    for x in sorted(r, key=lambda x: float(x['ratio']))[:10]:
        print(' ', x['m'], x['n'], x['k'], x['layout'], x['dtype'], 'beta', x['beta'], x['ratio'], x['note'][9:70])
PY
    ;;
  i10)
    run i10_8192 --kernel auto -m 8192 -n 8192 -k 8192
    run i10_6144 --kernel auto -m 6144 -n 6144 -k 6144
    run i10_16384 --kernel auto -m 16384 -n 16384 -k 16384
    run i10_4096x14336 --kernel auto -m 4096 -n 14336 -k 4096
    run i10_8192x28672 --kernel auto -m 8192 -n 28672 -k 8192
    run i10_8192_bf16 --kernel auto -m 8192 -n 8192 -k 8192 --dtype bf16
    run i10_4096 --kernel auto -m 4096 -n 4096 -k 4096
    run i10_8192_beta1 --kernel auto -m 8192 -n 8192 -k 8192 --beta 1
    run i10_4096_beta1 --kernel auto -m 4096 -n 4096 -k 4096 --beta 1 ;;
  decode)
    for m in 1 16 64; do run decode_$m --kernel auto -m $m -n 4096 -k 4096 --dtype bf16 --copy-bw; done ;;
  picks)
    run pick_2048 --kernel auto,sm90_128x256x64_s4_c2x1_tn,sm90_128x256x64_s4_c1x1_tn -m 2048 -n 2048 -k 2048
    run pick_64x4096 --kernel auto,sm90_128x16x64_s12_c1x1_swap_tn,sm90_128x16x64_s6_c1x1_swap_tn,sm90_64x64x64_s12_c1x1_k2_swap_tn \
      -m 64 -n 4096 -k 4096 --dtype bf16
    run pick_1x28672 --kernel auto,sm90_64x8x64_s16_c1x1_k2_swap_tn,sm90_128x16x64_s6_c1x1_swap_tn,sm90_128x8x64_s6_c1x1_swap_tn \
      -m 1 -n 28672 -k 4096 --dtype bf16
    run pick_tn80 --kernel auto,sm90_64x64x64_s12_c1x1_swap_tn,sm90_128x32x64_s10_c1x1_swap_tn -m 80 -n 4096 -k 4096 --dtype bf16 ;;
  *) echo "unknown part $part (sweep, sweep1, sweep2, i10, decode, picks)" >&2; exit 64 ;;
esac; done
exit $status
