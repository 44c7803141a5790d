// One core's GEMM rate on hot weights, per shape, for the figures in docs/interpreter.md and
// docs/benchmarks.md. Built and run by scripts/dev/gemm-rates against the kernels of
// the release build; `avx2` or `portable` as the first argument forces that kernel level.
#include "kernel_rates.h"
#include "ck_nn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One single-threaded ck_gemm call (for best_call_ns).
static void run_gemm(const void *params) { ck_gemm((const ck_gemm_params *)params, NULL); }

int main(int argc, char **argv) {
    select_kernel_level(argc, argv);
    const layer_shape shapes[] = {
        {784, 16, 96, 0, 0},  {784, 24, 96, 0, 0},  {784, 32, 96, 0, 0},   {12544, 24, 27, 0, 0},
        {784, 32, 96, 0, 1},  {196, 384, 64, 0, 0}, {196, 384, 64, 0, 1},  {49, 672, 112, 0, 0},
        {49, 672, 112, 0, 1}, {49, 112, 672, 0, 0}, {49, 112, 672, 0, 1},
        // Narrow panels (at most 8 live outputs: 12x8 tiles at the AVX2 level) and a residual.
        {1024, 8, 8, 0, 0}, {65536, 8, 8, 1, 0}, {9216, 32, 32, 1, 0},
        // Short sums over many rows: hand_landmark's expansions of 16 channels (112x112, 56x56),
        // its projection 112x112x24 -> 16 and its expansions of 24 channels (28x28).
        {12544, 64, 16, 0, 0}, {3136, 96, 16, 0, 0}, {12544, 16, 24, 0, 0}, {784, 144, 24, 0, 0},
    };
    printf("; best of 3000 calls, one thread\n\n");
    printf("| m x n x k | weights | best (us) | G multiply-adds/s |\n|---|---|---|---|\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
        float *a = malloc(m * k * sizeof(float)), *w = malloc(n * k * sizeof(float));
        float *c = malloc(m * n * sizeof(float)), *bias = calloc(n, sizeof(float));
        const size_t bytes = ck_conv_packed_size(n, 1, k) * sizeof(float);
        void *packed = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (a == NULL || w == NULL || c == NULL || bias == NULL || packed == NULL) return 1;
        // Weights that are exact half-precision values, so either packing holds them.
        for (size_t i = 0; i < m * k; i++) a[i] = (float)(i % 7) * 0.1f;
        for (size_t i = 0; i < n * k; i++) w[i] = (float)(i % 5) * 0.25f;
        if (shapes[s].f16) {
            ck_conv_pack_f16(n, 1, k, w, bias, packed);
        } else {
            ck_conv_pack(n, 1, k, w, bias, packed);
        }
        ck_gemm_params p;
        memset(&p, 0, sizeof p);
        p.m = m, p.n = n, p.k = k, p.a = a, p.a_stride = k, p.packed = packed, p.c = c, p.c_stride = n;
        p.out_min = -INFINITY, p.out_max = INFINITY, p.sum_min = -INFINITY, p.sum_max = INFINITY;
        p.weights_f16 = shapes[s].f16;
        float *residual = NULL;
        if (shapes[s].residual) {
            residual = calloc(m * n, sizeof(float));
            if (residual == NULL) return 1;
            p.residual = residual, p.residual_stride = n;
        }
        const double best = best_call_ns(3000, run_gemm, &p);
        printf("| %zu x %zu x %zu%s | %s | %.1f | %.1f |\n", m, n, k, shapes[s].residual ? " + residual" : "",
               shapes[s].f16 ? "f16" : "f32", best / 1e3,
               (double)(m * n * k) / best);
        free(a), free(w), free(c), free(bias), free(packed), free(residual);
    }
    return 0;
}
