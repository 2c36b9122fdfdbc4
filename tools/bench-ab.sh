#!/usr/bin/env bash
# An A/B of two builds on one GPU machine: for each argument set, build A's
# tool, then build B's, each the median of 3 fresh processes (--fresh 3),
# ROUNDS times over (default 2), interleaved so that the board's drift and
# power state fall on both alike. The figure is the first kernel the tool
# prints: AUTO, unless --kernel names others (a set without --kernel gets
# --kernel auto; the tool's own default times every kernel). CSVs and logs
# under $OUT (or ./bench-out); last, per round and set: A's and B's ms, B over A, and each
# set over the round's first set of the same build (put the plain product
# first to read an epilogue's cost).
#   Usage: [ROUNDS=2] tools/bench-ab.sh BUILD_A BUILD_B 'ARGS' ['ARGS' ...]
#   e.g.   tools/bench-ab.sh old build '--dtype bf16' '--dtype bf16 --bias --act gelu'
#   PLAN_ONLY=1: each command with --plan instead (no GPU, nothing timed).
set -u
if [ $# -lt 3 ]; then echo "usage: tools/bench-ab.sh BUILD_A BUILD_B 'ARGS' ['ARGS' ...]" >&2; exit 64; fi
A=$1 B=$2; shift 2
OUT=${OUT:-bench-out}
status=0
args_of() { # an argument set as words in argv, with --kernel auto unless it names a kernel
  read -r -a argv <<<"$1"
  [[ " $1 " == *" --kernel "* ]] || argv+=(--kernel auto)
}
if [ "${PLAN_ONLY:-0}" = 1 ]; then
  for args in "$@"; do
    args_of "$args"
    for build in "$A" "$B"; do
      "$build/hopgemm-bench" "${argv[@]}" --plan >/dev/null 2>&1 || { echo "$build: the tool refuses: $args"; status=1; }
    done
  done
  exit $status
fi
mkdir -p "$OUT"
first_ms() { # the first row's ms in a CSV
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ms") c = i } NR == 2 { print $c }' "$1" 2>/dev/null
}
summary=()
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  s=0 a0="" b0=""
  for args in "$@"; do
    s=$((s + 1))
    args_of "$args"
    for side in A B; do
      build=$A; [ $side = B ] && build=$B
      name="$OUT/ab_r${r}_s${s}_$side"
      rm -f "$name.csv" # the tool appends, and the summary reads the first row
      timeout 400 "$build/hopgemm-bench" "${argv[@]}" --fresh 3 --cooldown 1 --csv "$name.csv" >"$name.log" 2>"$name.err"
      echo "== round $r, set $s, $side (rc $?): $build $args"
    done
    a=$(first_ms "$OUT/ab_r${r}_s${s}_A.csv"); b=$(first_ms "$OUT/ab_r${r}_s${s}_B.csv")
    [ $s = 1 ] && a0=$a b0=$b
    if [ -n "$a" ] && [ -n "$b" ] && [ -n "$a0" ] && [ -n "$b0" ]; then
      summary+=("$(awk -v r="$r" -v s="$s" -v a="$a" -v b="$b" -v a0="$a0" -v b0="$b0" -v x="$args" 'BEGIN {
        printf "round %d set %d: A %.4f ms, B %.4f ms, B/A %.3f; over set 1: A %.3f, B %.3f  (%s)", r, s, a, b, b / a, a / a0, b / b0, x }')")
    else
      summary+=("round $r set $s: no figure (see $OUT/ab_r${r}_s${s}_*.err)"); status=1
    fi
  done
done
printf '%s\n' "${summary[@]}"
exit $status
