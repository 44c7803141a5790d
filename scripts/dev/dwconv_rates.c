// One core's depthwise convolution time per layer shape of the models, block by block against
// line by line (ck_dwconv_params.line_spans), and the way the layer's geometry picks. Built and run by
// scripts/dev/dwconv-rates against the kernels of the release build.
#include "CKernels.h"
#include "ck_nn.h"
#include "monotonic_clock.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A layer: input height, width and channels, kernel size, stride, and how many the models have.
typedef struct layer {
    size_t h, w, c, k, s, count;
} layer;

int main(void) {
    // The depthwise layers of the hand, palm and pose models with whole pairs of 8-channel blocks
    // (vision-tasks-bench --profile-operators lists them), with their number over all six models.
    const layer layers[] = {
        {24, 24, 128, 5, 1, 11}, {12, 12, 256, 5, 1, 11}, {96, 96, 32, 5, 1, 7},  {6, 6, 256, 5, 1, 7},
        {48, 48, 64, 5, 1, 7},   {14, 14, 672, 5, 1, 4},  {14, 14, 480, 3, 1, 4}, {8, 8, 864, 5, 1, 3},
        {8, 8, 864, 3, 1, 3},    {112, 112, 64, 3, 2, 3}, {96, 96, 32, 5, 2, 2},  {48, 48, 64, 5, 2, 2},
        {24, 24, 128, 5, 2, 2},  {12, 12, 256, 5, 2, 2},  {14, 14, 384, 5, 1, 2}, {16, 16, 528, 5, 1, 2},
        {28, 28, 48, 3, 2, 2},   {14, 14, 288, 3, 2, 2},  {14, 14, 288, 3, 1, 2}, {16, 16, 384, 3, 1, 2},
        {28, 28, 96, 3, 1, 2},   {14, 14, 192, 3, 1, 2},  {56, 56, 144, 5, 2, 2}, {14, 14, 672, 5, 2, 2},
        {28, 28, 240, 5, 1, 2},  {14, 14, 480, 5, 1, 2},  {28, 28, 240, 3, 2, 2}, {56, 56, 144, 3, 1, 2},
        {56, 56, 96, 5, 2, 1},   {7, 7, 672, 5, 1, 1},    {7, 7, 576, 5, 1, 1},   {7, 7, 512, 5, 1, 1},
        {7, 7, 512, 3, 1, 1},    {28, 28, 144, 5, 1, 1},  {32, 32, 192, 5, 1, 1}, {32, 32, 192, 3, 2, 1},
        {128, 128, 64, 3, 2, 1}, {56, 56, 96, 3, 1, 1},   {64, 64, 48, 3, 1, 1},  {64, 64, 144, 3, 1, 1},
        {32, 32, 32, 3, 1, 1},   {16, 16, 384, 5, 1, 1},
    };
    printf("kernel level %d (0 portable, 1 AVX2, 2 NEON, 3 AVX-512); best of 8 x 60 calls each way, taking turns, one thread\n\n",
           (int)ck_active_isa());
    printf("| layer | count | blocks (us) | lines (us) | lines / blocks | picked |\n|---|---|---|---|---|---|\n");
    double total_blocks = 0, total_lines = 0, total_picked = 0;
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        const layer l = layers[i];
        const size_t pad = l.s == 1 ? l.k / 2 : 0;
        const size_t oh = l.s == 1 ? l.h : l.h / 2, ow = l.s == 1 ? l.w : l.w / 2;
        const size_t taps = l.k * l.k;
        float *in = malloc(l.h * l.w * l.c * sizeof(float)), *out = malloc(oh * ow * l.c * sizeof(float));
        float *weights = malloc(taps * l.c * sizeof(float)), *bias = calloc(l.c, sizeof(float));
        float *packed = aligned_alloc(64, (ck_dwconv_packed_size(l.c, taps) * sizeof(float) + 63) / 64 * 64);
        if (in == NULL || out == NULL || weights == NULL || bias == NULL || packed == NULL) return 1;
        for (size_t j = 0; j < l.h * l.w * l.c; j++) in[j] = (float)(j % 7) * 0.1f;
        for (size_t j = 0; j < taps * l.c; j++) weights[j] = (float)(j % 5) * 0.25f;
        ck_dwconv_pack(l.c, taps, weights, bias, packed);
        ck_dwconv_params p;
        memset(&p, 0, sizeof p);
        p.batch = 1, p.in_h = l.h, p.in_w = l.w, p.channels = l.c, p.out_h = oh, p.out_w = ow;
        p.kernel_h = p.kernel_w = l.k, p.stride_h = p.stride_w = l.s, p.dilation_h = p.dilation_w = 1;
        p.pad_top = p.pad_left = pad, p.input = in, p.packed = packed, p.output = out;
        p.out_min = -INFINITY, p.out_max = INFINITY;
        const int picked = ck_dwconv_line_spans(&p);
        double best[2] = {INFINITY, INFINITY};
        for (int turn = 0; turn < 16; turn++) {
            const int lines = turn & 1;
            p.line_spans = lines;
            for (int run = 0; run < 60; run++) {
                const uint64_t start = nanoseconds_now();
                ck_dwconv(&p, NULL);
                const double elapsed = (double)(nanoseconds_now() - start);
                if (elapsed < best[lines]) best[lines] = elapsed;
            }
        }
        printf("| %zux%zux%zu %zux%zu/%zu | %zu | %.2f | %.2f | %.2f | %s |\n", l.h, l.w, l.c, l.k, l.k, l.s, l.count,
               best[0] / 1e3, best[1] / 1e3, best[1] / best[0], picked ? "lines" : "blocks");
        total_blocks += (double)l.count * best[0];
        total_lines += (double)l.count * best[1];
        total_picked += (double)l.count * best[picked];
        free(in), free(out), free(weights), free(bias), free(packed);
    }
    printf("\nAll layers as often as the models have them: blocks %.1f us, lines %.1f us, as picked %.1f us (%.2fx blocks)\n",
           total_blocks / 1e3, total_lines / 1e3, total_picked / 1e3, total_picked / total_blocks);
    return 0;
}
