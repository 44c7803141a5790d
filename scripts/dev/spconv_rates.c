// One core's sparse 1x1 convolution rate (ck_spconv) on hot weights, for pose_detection's
// sparse layer shapes, with weights of density 0.25 at random positions (a fixed seed, so
// every run packs the same lists). Built and run by scripts/dev/spconv-rates against the
// kernels of the release build; `avx2` or `portable` as the first argument forces that level.
#include "kernel_rates.h"
#include "ck_nn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Zeroed memory on a 64-byte boundary, as the interpreter's arena and buffers are.
static void *aligned_zeros(size_t bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded);
    if (p != NULL) memset(p, 0, rounded);
    return p;
}

/// One single-threaded ck_spconv call (for best_call_ns).
static void run_spconv(const void *params) { ck_spconv((const ck_spconv_params *)params, NULL); }

int main(int argc, char **argv) {
    select_kernel_level(argc, argv);
    // 56x56, 28x28, 14x14 and 7x7 layers; the projections with a residual ADD.
    const layer_shape shapes[] = {
        {3136, 24, 64, 0}, {3136, 24, 144, 1}, {784, 40, 144, 0}, {784, 240, 40, 0}, {784, 40, 240, 1},
        {784, 96, 96, 1},  {196, 80, 240, 0},  {196, 480, 80, 0}, {196, 80, 480, 1}, {196, 112, 480, 0},
        {196, 672, 112, 0}, {196, 112, 672, 1}, {196, 192, 192, 1}, {49, 192, 672, 0}, {49, 1152, 192, 0},
        {49, 192, 1152, 1},
    };
    printf("; best of 2000 calls, one thread\n\n");
    printf("| m x n x k | nonzero weights | best (us) | G multiply-adds/s (nonzero terms) |\n|---|---|---|---|\n");
    unsigned seed = 12345;
    double total = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
        float *a = aligned_zeros(m * k * sizeof(float)), *w = aligned_zeros(n * k * sizeof(float));
        float *c = aligned_zeros(m * n * sizeof(float)), *residual = aligned_zeros(m * n * sizeof(float));
        if (a == NULL || w == NULL || c == NULL || residual == NULL) return 1;
        for (size_t i = 0; i < m * k; i++) a[i] = (float)(i % 7) * 0.1f;
        for (size_t i = 0; i < m * n; i++) residual[i] = 0.5f;
        size_t nonzero = 0;
        for (size_t i = 0; i < n * k; i++) {
            seed = seed * 1103515245u + 12345u;
            if (((seed >> 16) & 3) == 0) {
                w[i] = (float)((seed >> 8) % 5 + 1) * 0.25f;
                nonzero++;
            }
        }
        void *packed = aligned_zeros(ck_spconv_packed_bytes(n, k, w));
        float *scratch = aligned_zeros(ck_spconv_scratch_floats(n, k) * sizeof(float));
        if (packed == NULL || scratch == NULL) return 1;
        ck_spconv_pack(n, k, w, NULL, packed);
        ck_spconv_params p;
        memset(&p, 0, sizeof p);
        p.m = m, p.n = n, p.k = k, p.a = a, p.a_stride = k, p.packed = packed, p.c = c, p.c_stride = n;
        p.out_min = -INFINITY, p.out_max = INFINITY, p.sum_min = -INFINITY, p.sum_max = INFINITY;
        if (shapes[s].residual) p.residual = residual, p.residual_stride = n, p.sum_min = 0.0f, p.sum_max = 6.0f;
        p.scratch = scratch, p.scratch_slots = 1;
        const double best = best_call_ns(2000, run_spconv, &p);
        total += best;
        printf("| %zu x %zu x %zu%s | %zu | %.2f | %.1f |\n", m, n, k, shapes[s].residual ? " (+ADD)" : "", nonzero, best / 1e3,
               (double)(m * nonzero) / best);
        free(a), free(w), free(c), free(residual), free(packed), free(scratch);
    }
    printf("\nall shapes: %.1f us\n", total / 1e3);
    return 0;
}
