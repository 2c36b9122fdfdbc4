#!/usr/bin/env bash
# hopgemm's one test runner (make test). Shell-level checks first (the header
# as C11 and C++, the build's resource reports, the link), then the test
# binary's CPU tier and, where a GPU is found, its GPU tier and the
# compute-sanitizer pass. Ends with "N passed, N failed, N skipped".
set -u
BUILD=${1:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
pass=0 fail=0 skip=0
ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -20 | sed 's/^/    /'; }
skipped() { skip=$((skip + 1)); echo "skip $1: $2"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The public header stands alone: C11 and C++, no CUDA include path given.
printf '#include "hopgemm.h"\nint main(void) { hg_handle h = 0; (void)h; return (int)HG_STATUS_SUCCESS; }\n' > "$tmp/h.c"
if out=$(gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude -c "$tmp/h.c" -o "$tmp/h.o" 2>&1); then
  ok "header/c11"; else bad "header/c11" "$out"; fi
cp "$tmp/h.c" "$tmp/h.cpp"
if out=$(g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -c "$tmp/h.cpp" -o "$tmp/hpp.o" 2>&1); then
  ok "header/c++"; else bad "header/c++" "$out"; fi
if grep -nE '#include *[<"](cuda|cuda_runtime|cuda_runtime_api)' include/hopgemm.h >/dev/null; then
  bad "header/no-cuda-include" "$(grep -n '#include' include/hopgemm.h)"; else ok "header/no-cuda-include"; fi

# Every .cu file built for sm_90a, and ptxas reported no spills for any entry.
missing="" spills=""
for cu in src/kernels/*.cu src/family/*.cu; do
  log="$BUILD/${cu%.cu}.ptxas"
  if [ ! -s "$log" ]; then missing="$missing $cu"; continue; fi
  # (a file of host code only, such as family.cu, has no entry to report)
  grep -q "Compiling entry" "$log" && ! grep -q "for 'sm_90a'" "$log" && missing="$missing $cu(not-sm_90a)"
  if grep -E "bytes spill (stores|loads)" "$log" | grep -vqE "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads|[^0-9]0 bytes spill stores, 0 bytes spill loads"; then
    spills="$spills $cu"; fi
done
[ -z "$missing" ] && ok "build/every-cu-for-sm_90a" || bad "build/every-cu-for-sm_90a" "no ptxas report for:$missing"
[ -z "$spills" ] && ok "build/no-register-spills" || bad "build/no-register-spills" "spills in:$spills"
# ptxas reports serialized wgmma (C7510, C7512: "Potential Performance Loss") and
# an ignored setmaxnreg (C7508) as info lines, which -Werror does not catch.
slow=$(grep -lE "Potential Performance Loss|C7508|C751[0-9]" "$BUILD"/src/kernels/*.ptxas "$BUILD"/src/family/*.ptxas 2>/dev/null)
[ -z "$slow" ] && ok "build/no-wgmma-serialization" || bad "build/no-wgmma-serialization" "$(grep -hE "Potential Performance Loss|C75" $slow | head -4)"
# The same in the SASS, where cuobjdump is found (the full toolkit, or pip's
# nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm with CUOBJDUMP set): HGMMA
# in V1-V6 and the family, no local memory, no kernel that waits after every
# HGMMA.
if out=$(bash tools/sass.sh "$BUILD" 2>&1); then ok "build/sass"
elif [ $? = 2 ]; then skipped "build/sass" "${out#sass.sh: }"
else bad "build/sass" "$out"; fi

# The profiling build's V6 (make prof: cycle counters) and its reader still
# compile, through the Makefile's own rules and flags (spills are errors), so
# the instrument does not rot between uses.
prof_objs=""
for cu in src/kernels/v6_persistent.cu src/family/*.cu; do prof_objs="$prof_objs $tmp/prof/${cu%.cu}.o"; done
if out=$(make -s -j"$(nproc)" BUILD="$tmp/prof" CUDA_HOME="$CUDA_HOME" EXTRA_NVCCFLAGS=-DHG_V6_PROFILE \
           EXTRA_CFLAGS=-DHG_V6_PROFILE $prof_objs 2>&1) &&
   out=$(gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude -Isrc -I"$CUDA_HOME/include" -DHG_V6_PROFILE \
           -fsyntax-only tools/v6-profile.c 2>&1); then
  ok "build/v6-profiling-variant"; else bad "build/v6-profiling-variant" "$out"; fi

# The library links the CUDA runtime only: no libcuda, so it loads without a driver.
if [ -f "$BUILD/libhopgemm.so" ]; then
  if readelf -d "$BUILD/libhopgemm.so" | grep NEEDED | grep -q 'libcuda\.so'; then
    bad "link/no-libcuda" "$(readelf -d "$BUILD/libhopgemm.so" | grep NEEDED)"; else ok "link/no-libcuda"; fi
else bad "link/no-libcuda" "no $BUILD/libhopgemm.so"; fi

# The shipped libraries export the header's functions and nothing else (no
# hg__ internals, no CPU reference); the shared one has its SONAME and no
# RUNPATH. Then an install into a scratch prefix, and examples/hello.c built
# against it with pkg-config (shared and static) and with CMake, and run.
exports="$BUILD/hopgemm.exports"
so_syms=$(nm -D --defined-only "$BUILD/libhopgemm.so" 2>/dev/null | awk '$2 ~ /[TDBRVW]/ {print $3}' | sort -u)
a_syms=$(nm "$BUILD/libhopgemm.a" 2>/dev/null | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
if [ -s "$exports" ] && [ "$so_syms" = "$(cat "$exports")" ] && [ "$a_syms" = "$(cat "$exports")" ]; then
  ok "link/exports-only-the-api"
else bad "link/exports-only-the-api" "$(diff <(cat "$exports") <(echo "$so_syms") | head; diff <(cat "$exports") <(echo "$a_syms") | head)"; fi
if nm "$BUILD/libhopgemm.a" "$BUILD/libhopgemm.so" 2>/dev/null | grep -qE 'hg__(ref_|f16_to|f32_to|bf16_to|to_f32|from_f32)'; then
  bad "link/no-test-code-shipped" "$(nm "$BUILD/libhopgemm.a" | grep -E 'hg__(ref_|f16_to)' | head -3)"
else ok "link/no-test-code-shipped"; fi
dyn=$(readelf -d "$BUILD/libhopgemm.so" 2>/dev/null)
if grep -q 'SONAME.*\[libhopgemm.so.0\]' <<<"$dyn" && ! grep -qE 'RUNPATH|RPATH' <<<"$dyn"; then ok "link/soname-no-runpath"
else bad "link/soname-no-runpath" "$(grep -E 'SONAME|RUNPATH|RPATH' <<<"$dyn")"; fi
prefix="$tmp/prefix"
if out=$(make -s BUILD="$BUILD" CUDA_HOME="$CUDA_HOME" PREFIX="$prefix" install 2>&1) &&
   [ -f "$prefix/include/hopgemm.h" ] && [ -f "$prefix/lib/libhopgemm.a" ] &&
   [ "$(readlink "$prefix/lib/libhopgemm.so")" = libhopgemm.so.0 ] &&
   [ -f "$prefix/lib/$(readlink "$prefix/lib/libhopgemm.so.0")" ] &&
   [ -f "$prefix/lib/pkgconfig/hopgemm.pc" ] && [ -f "$prefix/lib/cmake/hopgemm/hopgemmConfig.cmake" ]; then
  ok "install/files"; else bad "install/files" "$out$(find "$prefix" | head -20)"; fi
# Runs a built example: the installed library's version, then either the
# product or the no-GPU sentence.
run_hello() { # name binary
  local out; out=$("$2" 2>&1); local rc=$?
  if [ $rc = 0 ] && grep -q "^hopgemm 0\." <<<"$out" && grep -qE "no GPU|: ok$" <<<"$out"; then ok "$1"
  else bad "$1" "rc=$rc: $out"; fi
}
cuda_flags="-I$CUDA_HOME/include -L$CUDA_HOME/lib64 -Wl,-rpath,$CUDA_HOME/lib64 -lcudart"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
if ! command -v pkg-config >/dev/null 2>&1; then skipped "install/pkg-config-shared" "pkg-config not installed"
elif out=$(gcc -std=c11 -Wall -Werror examples/hello.c $(pkg-config --cflags --libs hopgemm) \
             -Wl,-rpath,"$prefix/lib" $cuda_flags -o "$tmp/hello_pc" 2>&1); then run_hello "install/pkg-config-shared" "$tmp/hello_pc"
else bad "install/pkg-config-shared" "$out"; fi
if ! command -v pkg-config >/dev/null 2>&1; then skipped "install/pkg-config-static" "pkg-config not installed"
elif out=$(gcc -std=c11 -Wall -Werror examples/hello.c $(pkg-config --cflags hopgemm) "$prefix/lib/libhopgemm.a" \
             $(pkg-config --static --libs-only-L --libs-only-other hopgemm) \
             $(pkg-config --static --libs-only-l hopgemm | sed 's/-lhopgemm//') $cuda_flags -o "$tmp/hello_static" 2>&1)
then run_hello "install/pkg-config-static" "$tmp/hello_static"
else bad "install/pkg-config-static" "$out"; fi
if ! command -v cmake >/dev/null 2>&1; then skipped "install/cmake" "cmake not installed"
elif out=$(cmake -S examples -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCUDAToolkit_ROOT="$CUDA_HOME" 2>&1 &&
           cmake --build "$tmp/cmake" 2>&1); then run_hello "install/cmake" "$tmp/cmake/hello"
else bad "install/cmake" "$(tail -15 <<<"$out")"; fi

# The tool: --list works anywhere; without a GPU it says so and exits non-zero.
if out=$("$BUILD/hopgemm-bench" --list 2>&1) && echo "$out" | grep -q generic; then
  ok "bench/list"; else bad "bench/list" "$out"; fi

# --plan needs no GPU either: AUTO's model names the family's 128 x 192
# configuration for 3072^3 TN (82.8 us against 128 x 256's 94.3 on the
# H200), the 128 x 256 NT configuration for NT, the same on a copy of A
# for NT with an odd lda, and each kernel's refusal.
out=$("$BUILD/hopgemm-bench" --plan -m 3072 -n 3072 -k 3072 2>&1); rc=$?
if grep -q ARCH_MISMATCH <<<"$out"; then skipped "bench/plan" "this machine's GPU is not sm_90"
elif [ $rc = 0 ] && grep -qE '^sm90_128x192x64_s4_c2x1_tn +[0-9.]+ +<- auto' <<<"$out" &&
     out2=$("$BUILD/hopgemm-bench" --plan --layout NT -m 256 -n 256 -k 256 2>&1) &&
     grep -qE '^sm90_128x256x64_s4_c2x1_nt +[0-9.]+ +<- auto' <<<"$out2" &&
     grep -q 'cannot serve: serves the TN layout only' <<<"$out2" &&
     out3=$("$BUILD/hopgemm-bench" --plan --layout NT -m 256 -n 256 -k 256 --lda 257 2>&1) &&
     grep -qE '^sm90_128x256x64_s4_c2x1_nt +[0-9.]+ +<- auto \(on a copy of A\)' <<<"$out3"; then
  ok "bench/plan"; else bad "bench/plan" "rc=$rc: $out ${out2:-} ${out3:-}"; fi

# The bytes #12's copy-bandwidth figure divides by (the same rule as
# --copy-bw's of_copy column): 1 x 4096 x 4096 bf16 moves A 8 KiB, B 32 MiB, C
# 8 KiB; with beta = 1 C counts twice, and a batch of 2 doubles it all.
if out=$("$BUILD/hopgemm-bench" --plan -m 1 -n 4096 -k 4096 --dtype bf16 2>&1) &&
   grep -q '^bytes:   33.6 MB moved' <<<"$out" &&
   out2=$("$BUILD/hopgemm-bench" --plan -m 1 -n 4096 -k 4096 --dtype bf16 --beta 1 --batch 2 2>&1) &&
   grep -q '^bytes:   67.2 MB moved' <<<"$out2" && "$BUILD/hopgemm-bench" --help 2>&1 | grep -q -- "--copy-bw"; then
  ok "bench/bytes-moved"; else bad "bench/bytes-moved" "$out ${out2:-}"; fi

# --act takes none, relu or gelu, and says so when given anything else;
# --plan with an epilogue plans it (hg_matmul_plan): 256 x 128 does not fuse.
if ! out=$("$BUILD/hopgemm-bench" --act tanh -m 64 -n 64 -k 64 2>&1) && grep -q "bad activation 'tanh'" <<<"$out" &&
   "$BUILD/hopgemm-bench" --help 2>&1 | grep -q -- "--act relu|gelu" &&
   { out=$("$BUILD/hopgemm-bench" --plan --bias --act gelu -m 4096 -n 4096 -k 4096 2>&1); grep -q ARCH_MISMATCH <<<"$out" ||
     { grep -qE '^sm90_256x128x64_s4_c1x2_tn +- +cannot serve: no fused epilogue' <<<"$out" &&
       grep -q '<- auto' <<<"$out"; }; }; then
  ok "bench/epilogue-options"; else bad "bench/epilogue-options" "$out"; fi

# --walk takes rule, static or dynamic, and says so when given anything else.
if ! out=$("$BUILD/hopgemm-bench" --walk sideways -m 64 -n 64 -k 64 2>&1) && grep -q "bad --walk 'sideways'" <<<"$out" &&
   "$BUILD/hopgemm-bench" --help 2>&1 | grep -q -- "--walk rule|static|dynamic" &&
   { out=$("$BUILD/hopgemm-bench" --plan --walk static -m 4096 -n 4096 -k 4096 2>&1); grep -q ARCH_MISMATCH <<<"$out" ||
     grep -q '<- auto' <<<"$out"; }; then
  ok "bench/walk-option"; else bad "bench/walk-option"; fi

# --stride-a and --stride-b: a batch whose B products are 8 elements apart
# (overlapping along k) plans a family row; the options need --batch, and
# are refused beside --share of the same operand (its stride is 0).
if ! out=$("$BUILD/hopgemm-bench" --stride-a 8 -m 64 -n 64 -k 64 2>&1) && grep -q "take --batch" <<<"$out" &&
   ! out=$("$BUILD/hopgemm-bench" --batch 4 --share ab --stride-b 8 -m 64 -n 64 -k 64 2>&1) &&
   grep -q "stride-b beside --share ab" <<<"$out" && "$BUILD/hopgemm-bench" --help 2>&1 | grep -q -- "--stride-a N" &&
   { out=$("$BUILD/hopgemm-bench" --plan --batch 64 --stride-b 8 -m 4096 -n 4096 -k 4096 2>&1); grep -q ARCH_MISMATCH <<<"$out" ||
     grep -qE '^sm90_[0-9a-z_]+ +[0-9.]+ +<- auto' <<<"$out"; }; then
  ok "bench/stride-option"; else bad "bench/stride-option" "$out"; fi

# tools/auto_check.py (#12's rule: AUTO's pick within 5% of the fastest kernel
# measured on the product): it flags a made-up product where AUTO is 10%
# slower (exit 1) and passes one where it is 2% slower (exit 0).
hdr="kernel,dtype,layout,m,n,k,lda,ldb,ldc,beta,ms,status,note"
printf '%s\n%s\n%s\n' "$hdr" "auto,f16,TN,64,64,64,64,64,64,0,1.10,ok,auto runs x" \
  "sm90_a,f16,TN,64,64,64,64,64,64,0,1.00,ok," >"$tmp/over.csv"
printf '%s\n%s\n%s\n' "$hdr" "auto,f16,TN,64,64,64,64,64,64,0,1.02,ok,auto runs x" \
  "sm90_a,f16,TN,64,64,64,64,64,64,0,1.00,ok," >"$tmp/within.csv"
if out=$(python3 tools/auto_check.py "$tmp/within.csv" 2>&1) && ! out2=$(python3 tools/auto_check.py "$tmp/over.csv" 2>&1) &&
   grep -q '^OVER ' <<<"$out2"; then ok "tools/auto_check"; else bad "tools/auto_check" "$out ${out2:-}"; fi
# --since: a row measured before the date is no bar (the kernel 10% faster than
# AUTO was timed the day before).
hdr3="date,kernel,dtype,layout,m,n,k,lda,ldb,ldc,beta,ms,status,note"
printf '%s\n%s\n%s\n%s\n' "$hdr3" "2026-12-03T10:00:00Z,auto,f16,TN,64,64,64,64,64,64,0,1.10,ok,auto runs x" \
  "2026-12-02T10:00:00Z,sm90_a,f16,TN,64,64,64,64,64,64,0,1.00,ok," \
  "2026-12-03T10:00:00Z,sm90_b,f16,TN,64,64,64,64,64,64,0,1.08,ok," >"$tmp/since.csv"
if ! python3 tools/auto_check.py "$tmp/since.csv" >/dev/null 2>&1 &&
   out=$(python3 tools/auto_check.py "$tmp/since.csv" --since 2026-12-03 2>&1) && grep -q '^ok .*fastest sm90_b' <<<"$out"; then
  ok "tools/auto_check --since"; else bad "tools/auto_check --since" "${out:-}"; fi
# Rows of different calls on one product (here C's type) are not compared: an
# fp32-C kernel's time is no bar for AUTO with a 16-bit C.
hdr2="kernel,dtype,layout,m,n,k,lda,ldb,ldc,beta,ms,status,c_type,note"
printf '%s\n%s\n%s\n%s\n' "$hdr2" "auto,f16,TN,64,64,64,64,64,64,0,1.10,ok,inputs,auto runs x" \
  "sm90_a,f16,TN,64,64,64,64,64,64,0,1.00,ok,f32," "sm90_b,f16,TN,64,64,64,64,64,64,0,1.09,ok,inputs," >"$tmp/ctype.csv"
if out=$(python3 tools/auto_check.py "$tmp/ctype.csv" 2>&1) && ! grep -q '^OVER ' <<<"$out" &&
   grep -q '^1 products' <<<"$out"; then ok "tools/auto_check c_type"; else bad "tools/auto_check c_type" "$out"; fi
# --replan takes the pick from the tool's model (1 x 8192 x 8192: the one-
# consumer 64 x 8 swapped row, its 128 tiles one whole wave), not from the
# CSV's auto row.
printf '%s\n%s\n%s\n%s\n' "$hdr" "auto,f16,TN,1,8192,8192,8192,8192,8192,0,1.50,ok,auto runs x" \
  "sm90_64x8x64_s8_c1x1_swap_tn,f16,TN,1,8192,8192,8192,8192,8192,0,1.00,ok," \
  "sm90_128x16x64_s6_c1x1_swap_tn,f16,TN,1,8192,8192,8192,8192,8192,0,1.05,ok," >"$tmp/replan.csv"
if [ ! -x "$BUILD/hopgemm-bench" ]; then skipped "tools/auto_check --replan" "$BUILD/hopgemm-bench not built"
elif out=$(python3 tools/auto_check.py "$tmp/replan.csv" --replan "$BUILD/hopgemm-bench" 2>&1) &&
     grep -q '^ok   1x8192x8192 TN f16 *plan picks sm90_64x8x64_s8_c1x1_swap_tn' <<<"$out"; then
  ok "tools/auto_check --replan"; else bad "tools/auto_check --replan" "$out"; fi
# tools/bench-issue14.sh's commands are ones the tool takes (PLAN_ONLY=1: each
# with --plan, nothing timed), and a copy with a misspelt option is refused.
sed 's/--act gelu$/--act gelux/' tools/bench-issue14.sh >"$tmp/issue14-bad.sh"
if [ ! -x "$BUILD/hopgemm-bench" ]; then skipped "tools/bench-issue14" "$BUILD/hopgemm-bench not built"
elif out=$(PLAN_ONLY=1 bash tools/bench-issue14.sh "$BUILD" 2>&1) &&
     ! PLAN_ONLY=1 bash "$tmp/issue14-bad.sh" "$BUILD" >/dev/null 2>&1; then
  ok "tools/bench-issue14"; else bad "tools/bench-issue14" "${out:-the misspelt copy passed}"; fi

# tools/bench-issues.sh's commands (#10's and #12's figures) are ones the tool
# takes, its kernel names included (the sweep's products too, whole and in
# halves), and a copy naming a row that does not exist is refused.
sed 's/sm90_128x32x64_s10_c1x1_swap_tn -m 80/sm90_128x32x64_s11_c1x1_swap_tn -m 80/' tools/bench-issues.sh >"$tmp/issues-bad.sh"
if [ ! -x "$BUILD/hopgemm-bench" ]; then skipped "tools/bench-issues" "$BUILD/hopgemm-bench not built"
elif ! grep -q 's11_c1x1_swap_tn -m 80' "$tmp/issues-bad.sh"; then bad "tools/bench-issues" "the misspelling did not apply"
elif out=$(PLAN_ONLY=1 bash tools/bench-issues.sh "$BUILD" sweep sweep1 sweep2 i10 decode picks 2>&1) &&
     ! PLAN_ONLY=1 bash "$tmp/issues-bad.sh" "$BUILD" picks >/dev/null 2>&1; then
  ok "tools/bench-issues"; else bad "tools/bench-issues" "${out:-the misspelt copy passed}"; fi

# bench/sweep.txt is the published sweep's copy (the device machines' tree has
# no ../shared): the same bytes wherever the published one is at hand, and its
# halves (bench-issues.sh's sweep1, sweep2) share out all its products.
if [ ! -f ../shared/bench/sweep.txt ]; then skipped "bench/sweep-copy" "no ../shared/bench/sweep.txt to compare with"
elif cmp -s bench/sweep.txt ../shared/bench/sweep.txt; then ok "bench/sweep-copy"
else bad "bench/sweep-copy" "bench/sweep.txt differs from ../shared/bench/sweep.txt: copy it again"; fi
mkdir -p "$tmp/sweep-stub"
printf '#!/bin/sh\n[ "$1" = --shapes ] && cat "$2" >"%s.$(ls %s.* 2>/dev/null | wc -l)"\n' "$tmp/sweep-seen" "$tmp/sweep-seen" >"$tmp/sweep-stub/hopgemm-bench"
chmod +x "$tmp/sweep-stub/hopgemm-bench"
PLAN_ONLY=1 bash tools/bench-issues.sh "$tmp/sweep-stub" sweep1 sweep2 >/dev/null 2>&1
products=$(grep -v -e '^#' -e '^[[:space:]]*$' bench/sweep.txt)
n1=$(wc -l <"$tmp/sweep-seen.0" 2>/dev/null || echo 0); n2=$(wc -l <"$tmp/sweep-seen.1" 2>/dev/null || echo 0)
if [ "$(cat "$tmp/sweep-seen.0" "$tmp/sweep-seen.1" 2>/dev/null)" = "$products" ] && [ "$n1" -gt 0 ] &&
   [ "$n1" -ge "$n2" ] && [ "$n1" -le $((n2 + 1)) ]; then
  ok "tools/bench-issues sweep1+sweep2"
else bad "tools/bench-issues sweep1+sweep2" "the halves ($n1 and $n2 lines) are not the sweep's products, in order, split in two"; fi

# tools/bench-ab.sh hands each argument set to both builds' tools (PLAN_ONLY=1:
# --plan, nothing timed), and says so when a tool refuses one.
if [ ! -x "$BUILD/hopgemm-bench" ]; then skipped "tools/bench-ab" "$BUILD/hopgemm-bench not built"
elif out=$(PLAN_ONLY=1 bash tools/bench-ab.sh "$BUILD" "$BUILD" '--dtype bf16' '--dtype bf16 --bias --act gelu' 2>&1) &&
     ! PLAN_ONLY=1 bash tools/bench-ab.sh "$BUILD" "$BUILD" '--dtype bf16 --act gelux' >/dev/null 2>&1; then
  ok "tools/bench-ab"; else bad "tools/bench-ab" "${out:-a misspelt option passed}"; fi
# ... and gives a set that names no kernel --kernel auto (the tool's default
# times every kernel), one that names one as it is: a stub tool records them.
mkdir -p "$tmp/ab-stub"
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/ab-args" >"$tmp/ab-stub/hopgemm-bench"
chmod +x "$tmp/ab-stub/hopgemm-bench"
PLAN_ONLY=1 bash tools/bench-ab.sh "$tmp/ab-stub" "$tmp/ab-stub" '--dtype bf16' '--kernel v6' >/dev/null 2>&1
if [ "$(cat "$tmp/ab-args" 2>/dev/null)" = "$(printf '%s\n' '--dtype bf16 --kernel auto --plan' '--dtype bf16 --kernel auto --plan' '--kernel v6 --plan' '--kernel v6 --plan')" ]; then
  ok "tools/bench-ab --kernel"; else bad "tools/bench-ab --kernel" "the stub saw: $(tr '\n' '|' <"$tmp/ab-args" 2>/dev/null)"; fi

# The test binary: CPU tier, then GPU tier (skipped with the reason where no GPU).
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then gpu=1; fi
if [ $gpu = 0 ]; then
  out=$("$BUILD/hopgemm-bench" 2>&1); rc=$?
  if [ $rc -ne 0 ] && echo "$out" | grep -qi "no CUDA GPU"; then ok "bench/no-gpu-sentence"; else
    bad "bench/no-gpu-sentence" "rc=$rc: $out"; fi
fi
TIMEOUT=${HG_TEST_TIMEOUT:-1200}
timeout "$TIMEOUT" "$BUILD/hg-tests" | tee "$tmp/tests.log"
rc=${PIPESTATUS[0]}
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$tmp/tests.log" | tail -1)
if [ -z "$line" ]; then
  bad "hg-tests" "exited with $rc without its closing line (timeout or crash)"
else
  set -- $line
  pass=$((pass + $1)); fail=$((fail + $3)); skip=$((skip + $5))
  [ $rc -ne 0 ] && [ "$3" = 0 ] && bad "hg-tests/exit" "exit status $rc"
fi

# The Python package's tests (python/tests), against this build's library,
# where Python has torch and pytest; they skip themselves without a GPU.
if python3 -c "import torch, pytest" >/dev/null 2>&1; then
  lib=$(realpath "$BUILD/libhopgemm.so")
  out=$(cd python && HOPGEMM_LIBRARY="$lib" timeout 1200 python3 -m pytest -q -p no:cacheprovider tests 2>&1)
  rc=$?; summary=$(tail -1 <<<"$out")
  if [ $rc = 0 ]; then ok "python/pytest ($summary)"; else bad "python/pytest" "$(tail -30 <<<"$out")"; fi
else
  skipped "python/pytest" "python3 lacks torch or pytest"
fi

# The package's ctypes copy of hg_matmul_desc matches the header's, field for
# field (a mismatch would pass wrong values, not fail); no torch needed.
fields="size opA opB m n k alpha beta A lda B ldb C ldc dtype bias activation batch_count stride_a stride_b stride_c stride_bias compute"
{ echo '#include <stddef.h>'; echo '#include <stdio.h>'; echo '#include "hopgemm.h"'
  echo 'int main(void) {'; echo 'printf("%zu", sizeof(hg_matmul_desc));'
  for f in $fields; do echo "printf(\" $f:%zu\", offsetof(hg_matmul_desc, $f));"; done
  echo 'putchar(10); return 0; }'; } > "$tmp/desc.c"
py_layout='import importlib.util, sys, ctypes
spec = importlib.util.spec_from_file_location("_lib", "python/hopgemm/_lib.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
D = m.MatmulDesc
assert D().size == ctypes.sizeof(D) and D().alpha == 1.0 and D().batch_count == 1
print(str(ctypes.sizeof(D)) + "".join(" %s:%d" % (f, getattr(D, f).offset) for f in sys.argv[1:]))'
if ! command -v python3 >/dev/null 2>&1; then skipped "python/desc-layout" "no python3"
elif out=$(gcc -std=c11 -Wall -Werror -Iinclude "$tmp/desc.c" -o "$tmp/desc" 2>&1) && c_layout=$("$tmp/desc") &&
     py=$(HOPGEMM_LIBRARY=$(realpath "$BUILD/libhopgemm.so") python3 -c "$py_layout" $fields 2>&1) &&
     [ "$c_layout" = "$py" ]; then ok "python/desc-layout"
else bad "python/desc-layout" "C: ${c_layout:-$out}
Python: ${py:-}"; fi

# compute-sanitizer over each kernel on small shapes (GPU tier).
if [ $gpu = 1 ]; then
  if command -v compute-sanitizer >/dev/null 2>&1 || [ -x "$CUDA_HOME/bin/compute-sanitizer" ]; then
    if out=$(bash tools/sanitize.sh "$BUILD" 2>&1); then ok "gpu/compute-sanitizer"; echo "$out" | tail -12 | sed 's/^/    /'
    else bad "gpu/compute-sanitizer" "$out"; fi
  else skipped "gpu/compute-sanitizer" "compute-sanitizer not found"; fi
else
  skipped "gpu/compute-sanitizer" "no GPU"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
