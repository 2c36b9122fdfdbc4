#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) over each registered
# kernel on small shapes. Usage: tools/sanitize.sh [BUILD]. Exit 0 when clean.
set -u
BUILD=${1:-build}
CS=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
kernels=$("$BUILD/hopgemm-bench" --list | awk '$1 ~ /^(generic|v[0-9])$/ {print $1}')
status=0
printf '%-10s %-10s %s\n' kernel tool result
for k in $kernels; do
  for tool in memcheck racecheck synccheck; do
    log=$(mktemp)
    timeout 300 "$CS" --tool "$tool" --error-exitcode 99 "$BUILD/hg-tests" --gpu-only --quick --kernel "$k" >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -qE '^[1-9][0-9]* passed, 0 failed' "$log"; then
      r=clean
    else r="FAILED (rc $rc)"; status=1; grep -E 'ERROR|Error|FAIL|Invalid|Race|hazard' "$log" | head -8; fi
    printf '%-10s %-10s %s\n' "$k" "$tool" "$r"
    [ -n "${OUT:-}" ] && { echo "=== $k $tool (rc $rc)"; cat "$log"; } >>"$OUT/sanitize.log" 2>/dev/null
    rm -f "$log"
  done
done
exit $status
