#!/usr/bin/env bash
# The SASS check: per kernel object, its tensor-core instructions (HGMMA
# where wgmma is meant; HMMA in the generic kernel and V0) and its local
# memory traffic (LDL/STL: spills), and how many HGMMAs share a wait.
# Needs no GPU, only cuobjdump:
#   tools/sass.sh [BUILD]
# cuobjdump comes with the full CUDA toolkit; where the toolkit has only
# nvcc and ptxas, `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`
# provides it (nvidia/cu13/bin/cuobjdump under the package's site
# directory, nvdisasm beside it; set CUOBJDUMP to its path). Exits 1 when
# a family or V1-V6 object holds no HGMMA, any object spills, or a kernel
# waits after every HGMMA (ptxas's serialized form); 2 when cuobjdump is
# missing or prints no SASS.
set -u
BUILD=${1:-build}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")}
if [ ! -x "$CUOBJDUMP" ]; then
  echo "sass.sh: no cuobjdump (set CUOBJDUMP, or pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)" >&2
  exit 2
fi
# cuobjdump prints SASS through nvdisasm (the full toolkit's, or pip's
# nvidia-cuda-nvdisasm beside pip's cuobjdump); without it, only headers.
probe=$(ls "$BUILD"/src/kernels/*.o 2>/dev/null | head -1)
if [ -n "$probe" ] && ! "$CUOBJDUMP" --dump-sass "$probe" 2>/dev/null | grep -q "Function :"; then
  echo "sass.sh: $CUOBJDUMP printed no SASS for $probe (no nvidia-cuda-nvdisasm beside it?)" >&2
  exit 2
fi
status=0
for o in "$BUILD"/src/kernels/*.o "$BUILD"/src/family/*.o; do
  [ -f "$o" ] || continue
  s=$("$CUOBJDUMP" --dump-sass "$o" 2>/dev/null)
  name=$(basename "$o" .o)
  hgmma=$(grep -c HGMMA <<<"$s"); hmma=$(grep -c HMMA <<<"$s"); spills=$(grep -cE '\b(LDL|STL)\b' <<<"$s")
  # HGMMAs per wait on them, fewest over the object's kernels: a k block's
  # wgmmas share one wait (4 or more here); ptxas's serialized form (its
  # C7515-C7520 warnings) waits after each: 1 (a four-wgmma test kernel with
  # an accumulator written before its wait went from 20 HGMMA / 5 waits to
  # 25 / 25 under C7519).
  per_wait=$(awk '/Function : /{f=$3} /HGMMA/{h[f]++} /WARPGROUP.DEPBAR/{d[f]++}
      END{m=""; for(k in h){r=h[k]/(d[k]?d[k]:1); if(m==""||r<m)m=r}; print (m==""?"-":sprintf("%.1f",m))}' <<<"$s")
  flag=""
  # family.o holds the host-side launch code only; its kernels are in family_<dtype>.o
  case "$name" in v[1-6]_*|family_*) [ "$hgmma" -gt 0 ] || { flag="  <- no HGMMA"; status=1; } ;; esac
  [ "$spills" -eq 0 ] || { flag="$flag  <- local memory"; status=1; }
  if [ "$per_wait" != "-" ] && awk -v r="$per_wait" 'BEGIN{exit !(r < 2)}'; then flag="$flag  <- serialized wgmma?"; status=1; fi
  printf '%-28s HGMMA %5d (per wait >= %3s)  HMMA %5d  LDL/STL %d%s\n' "$name" "$hgmma" "$per_wait" "$hmma" "$spills" "$flag"
done
exit $status
