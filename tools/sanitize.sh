#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) over each registered
# kernel on small shapes, the runs in parallel (they check correctness, not
# speed). Usage: tools/sanitize.sh [BUILD]. Exit 0 when every run is clean.
set -u
BUILD=${1:-build}
CS=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
# auto's cases reach what no one kernel's do: the copies of a ragged A or B.
kernels="$("$BUILD/hopgemm-bench" --list | awk '$1 ~ /^(generic|v[0-9]|sm90_.*)$/ {print $1}') auto"
[ -n "${KERNELS:-}" ] && kernels=$(tr ' ' '\n' <<<"$KERNELS" | grep -E '^(auto|generic|v[0-9]|sm90_.*)$')
logs=$(mktemp -d)
one() { # kernel tool
  timeout -k 30 600 "$CS" --tool "$2" --error-exitcode 99 "$BUILD/hg-tests" --gpu-only --quick --kernel "$1" \
    >"$logs/$1-$2.log" 2>&1
  echo $? >"$logs/$1-$2.rc"
}
export -f one; export CS BUILD logs
for k in $kernels; do for t in memcheck racecheck synccheck; do echo "$k $t"; done; done |
  xargs -P "${SANITIZE_JOBS:-8}" -n 2 bash -c 'one "$0" "$1"'
status=0
printf '%-30s %-10s %s\n' kernel tool result
for k in $kernels; do
  for t in memcheck racecheck synccheck; do
    log="$logs/$k-$t.log"; rc=$(cat "$logs/$k-$t.rc" 2>/dev/null || echo none)
    if [ "$rc" = 0 ] && grep -qE '^[1-9][0-9]* passed, 0 failed' "$log"; then r=clean
    else r="FAILED (rc $rc)"; status=1; grep -E 'ERROR|Error|FAIL|Invalid|Race|hazard' "$log" | head -6; fi
    printf '%-30s %-10s %s   %s\n' "$k" "$t" "$r" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -1)"
    [ -n "${OUT:-}" ] && { echo "=== $k $t (rc $rc)"; cat "$log"; } >>"$OUT/sanitize.log" 2>/dev/null
  done
done
rm -rf "$logs"
exit $status
