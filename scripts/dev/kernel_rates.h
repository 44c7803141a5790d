// What the one-core kernel rate tools (gemm_rates.c, spconv_rates.c) share: the shapes they
// list, the kernel level their first argument names, and the best time of repeated calls.
#ifndef VISIONTASKS_DEV_KERNEL_RATES_H
#define VISIONTASKS_DEV_KERNEL_RATES_H

#include "CKernels.h"
#include "monotonic_clock.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/// A 1x1 layer: pixels x output channels x input channels, a residual ADD in the epilogue, and
/// (the GEMM only) half-precision weights.
typedef struct layer_shape {
    size_t m, n, k;
    int residual;
    int f16;
} layer_shape;

/// `avx2` or `portable` as the first argument forces that kernel level; prints the level.
static void select_kernel_level(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "avx2") == 0) ck_set_isa(CK_ISA_AVX2_FMA);
    if (argc > 1 && strcmp(argv[1], "portable") == 0) ck_set_isa(CK_ISA_PORTABLE);
    printf("kernel level %d (0 portable, 1 AVX2, 2 NEON, 3 AVX-512)", (int)ck_active_isa());
}

/// The shortest of `calls` calls of `call(context)`, in nanoseconds.
static double best_call_ns(int calls, void (*call)(const void *context), const void *context) {
    double best = INFINITY;
    for (int i = 0; i < calls; i++) {
        const uint64_t started = nanoseconds_now();
        call(context);
        const double elapsed = (double)(nanoseconds_now() - started);
        if (elapsed < best) best = elapsed;
    }
    return best;
}

#endif
