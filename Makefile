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
NVCCFLAGS := $(NVCCARCH) -std=c++17 -O3 -lineinfo -Xptxas -warn-spills -Xptxas -Werror \
             -Werror all-warnings -Xcompiler -fPIC,-Wall -Iinclude -Isrc $(EXTRA_NVCCFLAGS)
LDLIBS   := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++ -lm -lpthread
BENCH_LDLIBS := -L$(CUDA_HOME)/lib64 -lcublasLt -lcublas

HOST_SRC := src/hopgemm.c src/validate.c src/tensormap.c src/reference.c src/kernel_table.c src/workspace.c \
            src/context.c
CU_SRC   := $(wildcard src/kernels/*.cu)
HDRS     := include/hopgemm.h src/hg_internal.h src/tiling.h $(wildcard src/kernels/*.cuh)

HOST_OBJ := $(HOST_SRC:%.c=$(BUILD)/%.o)
CU_OBJ   := $(CU_SRC:%.cu=$(BUILD)/%.o)
LIB_A    := $(BUILD)/libhopgemm.a
LIB_SO   := $(BUILD)/libhopgemm.so
BENCH    := $(BUILD)/hopgemm-bench
TESTS    := $(BUILD)/hg-tests

.PHONY: all test bench debug prof clean resources
all: $(LIB_A) $(LIB_SO) $(BENCH) $(TESTS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# ptxas's resource report (registers, spills, shared memory) is kept beside
# each object; the tests read it.
$(BUILD)/%.o: %.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Xptxas -v -c $< -o $@ 2> $(basename $@).ptxas || { cat $(basename $@).ptxas; rm -f $(basename $@).ptxas; exit 1; }
	@grep -vE '^ptxas info|^ *[0-9]+ bytes stack frame' $(basename $@).ptxas >&2 || true

$(LIB_A): $(HOST_OBJ) $(CU_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(HOST_OBJ) $(CU_OBJ)
	$(CXX) -shared -o $@ $^ $(LDLIBS)

$(BENCH): tools/hopgemm-bench.c $(LIB_A) $(HDRS)
	$(CC) $(CFLAGS) -D_POSIX_C_SOURCE=200809L tools/hopgemm-bench.c -o $@ $(LIB_A) $(BENCH_LDLIBS) $(LDLIBS)

$(TESTS): tests/hg_tests.c tests/gpu_tests.c tests/gpu_stream_tests.c tests/gpu_common.h tests/testlib.h $(LIB_A) $(HDRS)
	$(CC) $(CFLAGS) -D_POSIX_C_SOURCE=200809L tests/hg_tests.c tests/gpu_tests.c tests/gpu_stream_tests.c -o $@ $(LIB_A) $(LDLIBS)

test: all
	bash tests/run.sh $(BUILD)

bench: all
	$(BENCH)

# Waits that trap after a bounded number of tries instead of hanging.
debug:
	$(MAKE) BUILD=build/debug EXTRA_NVCCFLAGS="-DHG_DEBUG_WAIT" all

# V6 with cycle counters, and the tool that reads them (tools/v6-profile.c).
prof:
	$(MAKE) BUILD=build/prof EXTRA_NVCCFLAGS="-DHG_V6_PROFILE" EXTRA_CFLAGS="-DHG_V6_PROFILE" all build/prof/v6-profile

$(BUILD)/v6-profile: tools/v6-profile.c $(LIB_A) $(HDRS)
	$(CC) $(CFLAGS) tools/v6-profile.c -o $@ $(LIB_A) $(BENCH_LDLIBS) $(LDLIBS) -ldl

# Registers, shared memory and spills of every kernel, as ptxas reports them.
resources:
	@for f in $(CU_SRC); do echo "== $$f"; \
	  $(NVCC) $(NVCCARCH) -std=c++17 -O3 -Iinclude -Isrc -Xptxas -v -c $$f -o /dev/null 2>&1 \
	  | grep -E "Compiling entry|registers|spill" ; done

clean:
	rm -rf build
