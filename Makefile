# hopgemm: `make` builds the libraries, the tool and the tests;
# `make test` runs the test runner (CPU tier everywhere, GPU tier where a GPU is);
# `make bench` runs the tool's default job (the series against cuBLAS, 8192^3 fp16 TN).

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
CXX       ?= g++
BUILD     ?= build

CFLAGS_WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CFLAGS   := $(CFLAGS_WARN) -O2 -fPIC -Iinclude -Isrc -I$(CUDA_HOME)/include $(EXTRA_CFLAGS)
NVCCARCH := -gencode arch=compute_90a,code=sm_90a
# A spill is a build error (ptxas's warning, made an error), except in the
# debug build (make debug), whose ptxas reports still list them: its trapping
# waits are there to find a hang, and their counters may cost a register
# where a kernel has none to spare (the ping-pong row's consumer).
PTXAS_SPILLS ?= -Xptxas -warn-spills -Xptxas -Werror
NVCCFLAGS := $(NVCCARCH) -std=c++17 -O3 -lineinfo $(PTXAS_SPILLS) \
             -Werror all-warnings -Xcompiler -fPIC,-Wall -Iinclude -Isrc $(EXTRA_NVCCFLAGS)
LDLIBS   := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++ -lm -lpthread
BENCH_LDLIBS := -L$(CUDA_HOME)/lib64 -lcublasLt -lcublas

HOST_SRC := src/hopgemm.c src/validate.c src/tensormap.c src/kernel_table.c src/workspace.c src/context.c \
            src/repack.c src/slices.c
# Test-only code (the float64 reference, the fp16 / bf16 conversions): in the
# internal archive the tests and the tools link, never in a shipped library.
TESTKIT_SRC := src/reference.c
CU_SRC   := $(wildcard src/kernels/*.cu) $(wildcard src/family/*.cu)
HDRS     := include/hopgemm.h src/hg_internal.h src/tiling.h $(wildcard src/kernels/*.cuh) \
            $(wildcard src/family/*.cuh) src/family/configs.def

HOST_OBJ := $(HOST_SRC:%.c=$(BUILD)/%.o)
TESTKIT_OBJ := $(TESTKIT_SRC:%.c=$(BUILD)/%.o)
CU_OBJ   := $(CU_SRC:%.cu=$(BUILD)/%.o)

VERSION  := $(shell sed -n 's/^\#define HG_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' include/hopgemm.h | paste -sd.)
MAJOR    := $(firstword $(subst ., ,$(VERSION)))
SONAME   := libhopgemm.so.$(MAJOR)
LIB_A    := $(BUILD)/libhopgemm.a
LIB_SO   := $(BUILD)/libhopgemm.so
LIB_SO_REAL := $(BUILD)/libhopgemm.so.$(VERSION)
LIB_INTERNAL := $(BUILD)/internal/libhopgemm-internal.a
EXPORTS  := $(BUILD)/hopgemm.exports
BENCH    := $(BUILD)/hopgemm-bench
TESTS    := $(BUILD)/hg-tests

PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

.PHONY: all test bench debug prof clean resources install
all: $(LIB_A) $(LIB_SO) $(LIB_INTERNAL) $(BENCH) $(TESTS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# ptxas's resource report (registers, spills, shared memory) is kept beside
# each object; the tests read it.
$(BUILD)/%.o: %.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Xptxas -v -c $< -o $@ 2> $(basename $@).ptxas || { cat $(basename $@).ptxas; rm -f $(basename $@).ptxas; exit 1; }
	@grep -vE '^ptxas info|^ *[0-9]+ bytes stack frame' $(basename $@).ptxas >&2 || true

# The public functions: every hg_ name the header declares (comments dropped
# by the preprocessor). Only these leave the shipped libraries.
$(EXPORTS): include/hopgemm.h
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c include/hopgemm.h | grep -oE '\bhg_[a-z0-9_]+ *\(' | tr -d '( ' | sort -u > $@

# Shipped static library: one relocatable object whose only global names are
# the exports (the internals made local), linked against the CUDA runtime by
# its user (hopgemm.pc's Libs.private).
$(LIB_A): $(HOST_OBJ) $(CU_OBJ) $(EXPORTS)
	@rm -f $@ $(BUILD)/hopgemm-all.o
	ld -r -o $(BUILD)/hopgemm-all.o $(HOST_OBJ) $(CU_OBJ)
	objcopy --keep-global-symbols=$(EXPORTS) $(BUILD)/hopgemm-all.o
	ar rcs $@ $(BUILD)/hopgemm-all.o

# Shipped shared library: SONAME libhopgemm.so.MAJOR, the CUDA runtime linked
# in statically (no RUNPATH, no libcudart to find: it needs only the driver,
# which the runtime loads when a device is first asked for), and a version
# script that exports the hg_ API alone.
$(LIB_SO_REAL): $(HOST_OBJ) $(CU_OBJ) $(EXPORTS)
	{ echo '{ global:'; sed 's/$$/;/' $(EXPORTS); echo 'local: *; };'; } > $(BUILD)/hopgemm.map
	$(CXX) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/hopgemm.map -Wl,--no-undefined \
	  -o $@ $(HOST_OBJ) $(CU_OBJ) -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lm

$(LIB_SO): $(LIB_SO_REAL)
	ln -sf $(notdir $(LIB_SO_REAL)) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

# Everything, test-only code included, for the tests and the tools.
$(LIB_INTERNAL): $(HOST_OBJ) $(CU_OBJ) $(TESTKIT_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

# The tool, a folder of files by concern (tools/bench/bench.h says which).
# tools/nvml.c: the board's energy and clock, shared with v6-profile.
BENCH_SRC := $(wildcard tools/bench/*.c) tools/nvml.c
$(BENCH): $(BENCH_SRC) tools/bench/bench.h tools/nvml.h $(LIB_INTERNAL) $(HDRS)
	$(CC) $(CFLAGS) -D_POSIX_C_SOURCE=200809L $(BENCH_SRC) -o $@ $(LIB_INTERNAL) $(BENCH_LDLIBS) $(LDLIBS) -ldl

TEST_SRC := tests/hg_tests.c $(wildcard tests/cpu_*.c) tests/gpu_tests.c tests/gpu_stream_tests.c tests/gpu_batch_tests.c \
            tests/gpu_stagger_tests.c
# gpu/stagger's kernel that holds SMs (the tests' only CUDA code)
TEST_CU_OBJ := $(BUILD)/tests/gpu_occupy.o
$(TESTS): $(TEST_SRC) $(TEST_CU_OBJ) tests/cpu_tests.h tests/gpu_common.h tests/testlib.h $(LIB_INTERNAL) $(HDRS)
	$(CC) $(CFLAGS) -D_POSIX_C_SOURCE=200809L $(TEST_SRC) $(TEST_CU_OBJ) -o $@ $(LIB_INTERNAL) $(LDLIBS)

# make install PREFIX=... [LIBDIR=...] [DESTDIR=...]: the header, both
# libraries (with the SONAME link), hopgemm.pc and the CMake package
# (find_package(hopgemm) gives hopgemm::hopgemm).
install: $(LIB_A) $(LIB_SO)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/hopgemm
	install -m 644 include/hopgemm.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libhopgemm.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@CUDA_LIBDIR@|$(CUDA_HOME)/lib64|g' \
	    packaging/hopgemm.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/hopgemm.pc
	for f in hopgemmConfig hopgemmConfigVersion; do \
	  sed -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' \
	      -e 's|@CUDA_LIBDIR@|$(CUDA_HOME)/lib64|g' \
	      packaging/$$f.cmake.in > $(DESTDIR)$(LIBDIR)/cmake/hopgemm/$$f.cmake; done

test: all
	bash tests/run.sh $(BUILD)

bench: all
	$(BENCH)

# Waits that trap after 30 s of wall time (HG_DEBUG_WAIT_NS) instead of hanging.
debug:
	$(MAKE) BUILD=build/debug EXTRA_NVCCFLAGS="-DHG_DEBUG_WAIT" PTXAS_SPILLS= all

# V6 with cycle counters, and the tool that reads them (tools/v6-profile.c).
prof:
	$(MAKE) BUILD=build/prof EXTRA_NVCCFLAGS="-DHG_V6_PROFILE" EXTRA_CFLAGS="-DHG_V6_PROFILE" all build/prof/v6-profile

$(BUILD)/v6-profile: tools/v6-profile.c tools/nvml.c tools/nvml.h $(LIB_INTERNAL) $(HDRS)
	$(CC) $(CFLAGS) tools/v6-profile.c tools/nvml.c -o $@ $(LIB_INTERNAL) $(BENCH_LDLIBS) $(LDLIBS) -ldl

# Registers, shared memory and spills of every kernel, as ptxas reports them.
resources:
	@for f in $(CU_SRC); do echo "== $$f"; \
	  $(NVCC) $(NVCCARCH) -std=c++17 -O3 -Iinclude -Isrc -Xptxas -v -c $$f -o /dev/null 2>&1 \
	  | grep -E "Compiling entry|registers|spill" ; done

clean:
	rm -rf build
