/* A small test harness: every test is a function; CHECK records a failure with
 * its place and message and lets the test go on; a test may declare itself
 * skipped with a reason. The runner prints one line per test and a closing
 * "N passed, N failed, N skipped". */
#ifndef HG_TESTLIB_H
#define HG_TESTLIB_H

#include <stdio.h>

typedef struct {
    int failures; /* CHECKs failed in the running test */
    int checks;   /* CHECKs evaluated in the running test */
    const char *skip_reason;
} hg_test_state;

extern hg_test_state hg_t;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        hg_t.checks++;                                                                  \
        if (!(cond)) {                                                                  \
            hg_t.failures++;                                                            \
            if (hg_t.failures <= 8) {                                                   \
                printf("    %s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);     \
                printf(__VA_ARGS__);                                                    \
                printf("\n");                                                           \
            }                                                                           \
        }                                                                               \
    } while (0)

#define SKIP(reason)                    \
    do {                                \
        hg_t.skip_reason = (reason);    \
        return;                         \
    } while (0)

typedef struct {
    const char *name;
    void (*fn)(void);
} hg_test_case;

/* The GPU tier: the kernels (tests/gpu_tests.c), then one handle on many
 * streams, graphs, workspaces and GPUs (tests/gpu_stream_tests.c). */
extern const hg_test_case hg_gpu_tests[];
extern const int hg_gpu_test_count;
extern const hg_test_case hg_gpu_stream_tests[];
extern const int hg_gpu_stream_test_count;
/* hg-tests --multi-gpu-probe: the two-GPU checks, in a process of their own;
 * prints "probe: N checks, N failed" last and returns the exit status. */
int hg_multi_gpu_probe(void);
/* Set by main: the GPU tier runs only the small shapes (for compute-sanitizer). */
extern int hg_gpu_quick;
/* Set by main: restrict the GPU tier to one kernel name (NULL: all). */
extern const char *hg_gpu_kernel_filter;

#endif
