// Checks the NEON kernels of CKernels against the portable ones, on random data with tails in
// every dimension. Built for AArch64 and run under qemu by scripts/check-neon (on an x86
// machine) or natively on an ARM one; on any other CPU it checks the detected SIMD level the
// same way. Every comparison allows a relative difference of 1e-5 (max(1, |portable|)), and
// every output buffer has sentinels after it that must stay untouched. Exit status 0 when all
// kernels agree.
#include "CKernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures = 0;
static int g_checks = 0;
static uint64_t g_state = 0x9e3779b97f4a7c15ull;

static float random_float(float lo, float hi) {
    g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)(g_state >> 40) / (float)(1ull << 24);
}

static float *random_floats(size_t count, float lo, float hi) {
    float *p = (float *)malloc((count + 16) * sizeof(float));
    for (size_t i = 0; i < count + 16; i++) p[i] = random_float(lo, hi);
    return p;
}

#define SENTINEL 12345.0f
#define GUARD 16

/// An output buffer of `count` floats followed by GUARD sentinels.
static float *output_buffer(size_t count) {
    float *p = (float *)malloc((count + GUARD) * sizeof(float));
    for (size_t i = 0; i < count + GUARD; i++) p[i] = SENTINEL;
    return p;
}

/// Compares two outputs of `count` floats (and their sentinels); reports the first mismatch.
static void compare(const char *what, const float *simd, const float *portable, size_t count) {
    g_checks++;
    for (size_t i = 0; i < count; i++) {
        float a = simd[i], b = portable[i];
        float scale = fabsf(b) > 1.0f ? fabsf(b) : 1.0f;
        if (!(fabsf(a - b) <= 1e-5f * scale) && !(isnan(a) && isnan(b))) {
            printf("FAIL %s: element %zu: simd %.9g, portable %.9g\n", what, i, a, b);
            g_failures++;
            return;
        }
    }
    for (size_t i = count; i < count + GUARD; i++) {
        if (simd[i] != SENTINEL || portable[i] != SENTINEL) {
            printf("FAIL %s: wrote past the output (element %zu)\n", what, i);
            g_failures++;
            return;
        }
    }
}

static ck_isa g_simd;

static void use(ck_isa isa) {
    if (!ck_set_isa(isa)) {
        printf("FAIL cannot select instruction set %d\n", (int)isa);
        exit(2);
    }
}

// MARK: - GEMM

static void check_gemm(ck_threadpool *pool) {
    static const size_t shapes[][3] = {{1, 1, 1},  {5, 17, 3},  {6, 16, 8},    {7, 33, 29}, {13, 8, 64},
                                       {61, 47, 5}, {100, 130, 33}, {1, 63, 200}, {49, 24, 17}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = random_floats(m * k, -1, 1), *bias = random_floats(n, -1, 1);
        float *w = random_floats(n * k, -1, 1), *slopes = random_floats(n, 0, 0.5f);
        for (size_t i = 0; i < n * k; i++) w[i] = roundf(w[i] * 2048.0f) / 2048.0f; // half-precision values
        float *residual = random_floats(m * n, -3, 3);
        float *packed = (float *)malloc(ck_conv_packed_size(n, 1, k) * sizeof(float));
        ck_conv_pack(n, 1, k, w, bias, packed);
        void *packed16 = malloc(ck_conv_packed_bytes_f16(n, 1, k));
        ck_conv_pack_f16(n, 1, k, w, bias, packed16);
        for (int variant = 0; variant < 4; variant++) {
            float *out[2];
            for (int pass = 0; pass < 2; pass++) {
                use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                out[pass] = output_buffer(m * n);
                ck_gemm_params p;
                memset(&p, 0, sizeof p);
                p.m = m, p.n = n, p.k = k, p.a = a, p.a_stride = k, p.c = out[pass], p.c_stride = n;
                p.packed = variant == 3 ? packed16 : (const void *)packed;
                p.weights_f16 = variant == 3;
                p.out_min = variant == 0 ? -INFINITY : 0.0f;
                p.out_max = variant == 0 ? INFINITY : 6.0f;
                p.sum_min = -INFINITY, p.sum_max = INFINITY;
                if (variant >= 1) p.prelu = slopes;
                if (variant >= 2) {
                    p.residual = residual, p.residual_stride = n, p.sum_min = -2.0f, p.sum_max = 4.0f;
                }
                ck_gemm(&p, pass == 0 ? pool : NULL);
            }
            char what[96];
            snprintf(what, sizeof what, "gemm %zux%zux%zu variant %d", m, n, k, variant);
            compare(what, out[0], out[1], m * n);
            free(out[0]);
            free(out[1]);
        }
        free(a), free(bias), free(w), free(slopes), free(residual), free(packed), free(packed16);
    }
}

static void check_igemm(void) {
    // A 3x3 stride-2 convolution on a 9x7 image with 5 channels and 19 outputs.
    const size_t h = 9, w = 7, c = 5, oc = 19, kh = 3, kw = 3, stride = 2;
    const size_t oh = (h + 1) / 2, ow = (w + 1) / 2, taps = kh * kw;
    float *image = random_floats(h * w * c, -1, 1), *weights = random_floats(oc * taps * c, -1, 1);
    float *bias = random_floats(oc, -1, 1), zeros[8] = {0};
    float *packed = (float *)malloc(ck_conv_packed_size(oc, taps, c) * sizeof(float));
    ck_conv_pack(oc, taps, c, weights, bias, packed);
    const float **table = (const float **)malloc(oh * ow * taps * sizeof(float *));
    size_t e = 0;
    for (size_t oy = 0; oy < oh; oy++) {
        for (size_t ox = 0; ox < ow; ox++) {
            for (size_t ky = 0; ky < kh; ky++) {
                for (size_t kx = 0; kx < kw; kx++) {
                    long iy = (long)(oy * stride + ky) - 1, ix = (long)(ox * stride + kx) - 1;
                    int inside = iy >= 0 && iy < (long)h && ix >= 0 && ix < (long)w;
                    table[e++] = inside ? image + ((size_t)iy * w + (size_t)ix) * c : zeros;
                }
            }
        }
    }
    float *out[2];
    for (int pass = 0; pass < 2; pass++) {
        use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
        out[pass] = output_buffer(oh * ow * oc);
        ck_igemm_params p;
        memset(&p, 0, sizeof p);
        p.m = oh * ow, p.n = oc, p.k = c, p.taps = taps, p.indirection = table, p.packed = packed;
        p.c = out[pass], p.c_stride = oc, p.out_min = -INFINITY, p.out_max = INFINITY;
        p.sum_min = -INFINITY, p.sum_max = INFINITY;
        ck_igemm(&p, NULL);
    }
    compare("igemm 3x3/2", out[0], out[1], oh * ow * oc);
    free(out[0]), free(out[1]), free(image), free(weights), free(bias), free(packed), free(table);
}

static void check_narrow(void) {
    static const size_t cases[][6] = {// h, w, n, kernel, stride, pad
                                      {9, 13, 1, 3, 1, 1},
                                      {10, 7, 3, 5, 2, 2},
                                      {5, 17, 4, 3, 2, 0},
                                      {3, 3, 2, 5, 1, 2}};
    for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
        const size_t h = cases[s][0], w = cases[s][1], n = cases[s][2], kernel = cases[s][3];
        const size_t stride = cases[s][4], pad = cases[s][5];
        const size_t oh = (h + 2 * pad - kernel) / stride + 1, ow = (w + 2 * pad - kernel) / stride + 1;
        float *image = random_floats(h * w * 8, -1, 1), *weights = random_floats(n * kernel * kernel * 8, -1, 1);
        float *bias = random_floats(n, -1, 1), *slopes = random_floats(n, 0, 0.5f), zeros[8] = {0};
        const float **table = (const float **)malloc(oh * ow * kernel * kernel * sizeof(float *));
        size_t e = 0;
        for (size_t oy = 0; oy < oh; oy++) {
            for (size_t ox = 0; ox < ow; ox++) {
                for (size_t ky = 0; ky < kernel; ky++) {
                    for (size_t kx = 0; kx < kernel; kx++) {
                        long iy = (long)(oy * stride + ky) - (long)pad, ix = (long)(ox * stride + kx) - (long)pad;
                        int inside = iy >= 0 && iy < (long)h && ix >= 0 && ix < (long)w;
                        table[e++] = inside ? image + ((size_t)iy * w + (size_t)ix) * 8 : zeros;
                    }
                }
            }
        }
        float *direct[2], *indirect[2];
        for (int pass = 0; pass < 2; pass++) {
            use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
            direct[pass] = output_buffer(oh * ow * n);
            indirect[pass] = output_buffer(oh * ow * n);
            ck_conv_narrow_direct_params d = {1, h, w, oh, ow, n, kernel, stride, pad, pad, image, weights, bias,
                                              direct[pass], -1.0f, 2.0f, slopes};
            if (!ck_conv_narrow_direct(&d, NULL)) {
                printf("FAIL narrow direct refused a supported geometry\n");
                g_failures++;
            }
            ck_conv_narrow_params q = {oh * ow, n, 8, kernel * kernel, table, weights, bias, indirect[pass], n,
                                       -1.0f, 2.0f, slopes};
            ck_conv_narrow(&q, NULL);
        }
        char what[96];
        snprintf(what, sizeof what, "narrow direct %zux%zu n%zu k%zu s%zu", h, w, n, kernel, stride);
        compare(what, direct[0], direct[1], oh * ow * n);
        snprintf(what, sizeof what, "narrow indirect %zux%zu n%zu k%zu s%zu", h, w, n, kernel, stride);
        compare(what, indirect[0], indirect[1], oh * ow * n);
        for (int pass = 0; pass < 2; pass++) free(direct[pass]), free(indirect[pass]);
        free(image), free(weights), free(bias), free(slopes), free(table);
    }
}

// MARK: - Depthwise

static void check_dwconv(ck_threadpool *pool) {
    static const size_t cases[][9] = {// h, w, c, kh, kw, stride, dilation, pad_top, pad_left
                                      {7, 9, 24, 3, 3, 1, 1, 1, 1},   {8, 8, 16, 3, 3, 2, 1, 0, 0},
                                      {11, 6, 40, 5, 5, 1, 1, 2, 2},  {12, 13, 8, 5, 5, 2, 1, 1, 2},
                                      {20, 19, 16, 3, 3, 1, 1, 1, 1}, {7, 7, 64, 5, 5, 1, 1, 2, 2},
                                      {9, 9, 21, 3, 3, 1, 1, 1, 1},   {9, 9, 3, 3, 2, 1, 2, 2, 1},
                                      {4, 4, 1, 1, 1, 1, 1, 0, 0},    {13, 11, 37, 5, 5, 2, 1, 2, 2},
                                      // rows of 5, 3 and 8 + 6 output pixels
                                      {11, 11, 8, 3, 3, 2, 1, 0, 0},  {6, 6, 16, 5, 5, 2, 1, 2, 2},
                                      {14, 14, 8, 3, 3, 1, 1, 1, 1},
                                      // shared among threads (rows, then channel groups)
                                      {16, 15, 40, 5, 5, 1, 1, 2, 2}, {3, 40, 96, 3, 3, 1, 1, 1, 1}};
    for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
        const size_t h = cases[s][0], w = cases[s][1], c = cases[s][2], kh = cases[s][3], kw = cases[s][4];
        const size_t stride = cases[s][5], dil = cases[s][6], pt = cases[s][7], pl = cases[s][8];
        const size_t oh = (h + 2 * pt - ((kh - 1) * dil + 1)) / stride + 1;
        const size_t ow = (w + 2 * pl - ((kw - 1) * dil + 1)) / stride + 1;
        float *input = random_floats(h * w * c, -1, 1), *weights = random_floats(kh * kw * c, -1, 1);
        float *bias = random_floats(c, -1, 1), *slopes = random_floats(c, 0, 0.5f);
        float *packed = (float *)malloc(ck_dwconv_packed_size(c, kh * kw) * sizeof(float));
        ck_dwconv_pack(c, kh * kw, weights, bias, packed);
        for (int variant = 0; variant < 3; variant++) {
            // Passes: SIMD block by block, SIMD line by line (pairs of blocks), portable. The two
            // SIMD ways must give the same bits.
            float *out[3];
            for (int pass = 0; pass < 3; pass++) {
                use(pass < 2 ? g_simd : CK_ISA_PORTABLE);
                out[pass] = output_buffer(oh * ow * c);
                ck_dwconv_params p = {1, h, w, c, oh, ow, kh, kw, stride, stride, dil, dil, pt, pl,
                                      input, packed, NULL, out[pass], -INFINITY, INFINITY, NULL, pass == 1};
                if (variant == 1) p.out_min = 0.0f, p.out_max = 6.0f;
                if (variant == 2) p.prelu = slopes;
                ck_dwconv(&p, pass < 2 ? pool : NULL);
            }
            char what[96];
            snprintf(what, sizeof what, "dwconv %zux%zux%zu %zux%zu/%zu d%zu variant %d", h, w, c, kh, kw, stride, dil, variant);
            compare(what, out[0], out[2], oh * ow * c);
            g_checks++;
            if (memcmp(out[0], out[1], oh * ow * c * sizeof(float)) != 0) {
                printf("FAIL %s: line by line differs from block by block\n", what);
                g_failures++;
            }
            free(out[0]), free(out[1]), free(out[2]);
        }
        free(input), free(weights), free(bias), free(slopes), free(packed);
    }
}

// MARK: - Element-wise

static void check_elementwise(void) {
    static const size_t lengths[] = {1, 7, 8, 9, 31, 100, 20000};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const size_t n = lengths[l];
        float *a = random_floats(n, -4, 4), *b = random_floats(n, 0.5f, 3), *slopes = random_floats(n, 0, 0.5f);
        for (int op = CK_BINARY_ADD; op <= CK_BINARY_PRELU; op++) {
            for (int shape = 0; shape < 3; shape++) { // same shape, b broadcast, a broadcast
                for (int variant = 0; variant < 3; variant++) {
                    float *out[2];
                    for (int pass = 0; pass < 2; pass++) {
                        use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                        out[pass] = output_buffer(n);
                        ck_binary_params p;
                        memset(&p, 0, sizeof p);
                        p.op = (ck_binary_op)op, p.rank = 1, p.dims[0] = n;
                        p.a_strides[0] = shape == 2 ? 0 : 1, p.b_strides[0] = shape == 1 ? 0 : 1;
                        p.a = a, p.b = b, p.out = out[pass];
                        p.out_min = variant == 1 ? -1.0f : -INFINITY, p.out_max = variant == 1 ? 1.0f : INFINITY;
                        p.prelu = variant == 2 ? slopes : NULL;
                        ck_binary(&p, NULL);
                    }
                    char what[96];
                    snprintf(what, sizeof what, "binary op %d n %zu shape %d variant %d", op, n, shape, variant);
                    compare(what, out[0], out[1], n);
                    free(out[0]), free(out[1]);
                }
            }
        }
        float *out[2];
        for (int pass = 0; pass < 2; pass++) {
            use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
            out[pass] = output_buffer(n);
            ck_unary(CK_UNARY_LOGISTIC, a, out[pass], n, 0, 0);
        }
        char what[64];
        snprintf(what, sizeof what, "logistic n %zu", n);
        compare(what, out[0], out[1], n);
        // SiLU with per-channel scale and shift over n channels (one row) and over rows of 5.
        for (int variant = 0; variant < 2; variant++) {
            const size_t channels = variant == 0 ? n : (n % 5 == 0 ? 5 : n);
            for (int pass = 0; pass < 2; pass++) {
                use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                free(out[pass]);
                out[pass] = output_buffer(n);
                ck_silu(a, b, slopes, out[pass], n, channels);
            }
            snprintf(what, sizeof what, "silu n %zu channels %zu", n, channels);
            compare(what, out[0], out[1], n);
        }
        free(out[0]), free(out[1]), free(a), free(b), free(slopes);
    }
}

// MARK: - Max pooling

static void check_maxpool(void) {
    // 2x2 stride 2 (hand_landmark's), 3x3 stride 2 with padding on every side, and a clamp;
    // channel counts with and without a tail after the blocks of 8.
    static const size_t channels[] = {3, 8, 16, 19};
    for (size_t ci = 0; ci < sizeof channels / sizeof channels[0]; ci++) {
        for (int variant = 0; variant < 2; variant++) {
            const size_t c = channels[ci], h = 9, w = 11, k = variant == 0 ? 2 : 3;
            const size_t pad = variant == 0 ? 0 : 1, oh = (h + 2 * pad - k) / 2 + 1, ow = (w + 2 * pad - k) / 2 + 1;
            float *input = random_floats(h * w * c, -3, 3);
            float *out[2];
            for (int pass = 0; pass < 2; pass++) {
                use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                out[pass] = output_buffer(oh * ow * c);
                ck_pool_params p;
                memset(&p, 0, sizeof p);
                p.batch = 1, p.in_h = h, p.in_w = w, p.channels = c, p.out_h = oh, p.out_w = ow;
                p.filter_h = k, p.filter_w = k, p.stride_h = 2, p.stride_w = 2, p.pad_top = pad, p.pad_left = pad;
                p.input = input, p.output = out[pass];
                p.out_min = variant == 0 ? -INFINITY : -1.0f, p.out_max = variant == 0 ? INFINITY : 1.5f;
                ck_maxpool(&p, NULL);
            }
            char what[64];
            snprintf(what, sizeof what, "max pool %zux%zu c %zu", k, k, c);
            compare(what, out[0], out[1], oh * ow * c);
            free(out[0]), free(out[1]), free(input);
        }
    }
}

// MARK: - Image to tensor

static void check_image_to_tensor(void) {
    const int sw = 37, sh = 29;
    uint8_t *src = (uint8_t *)malloc((size_t)sw * sh * 4);
    for (int i = 0; i < sw * sh * 4; i++) src[i] = (uint8_t)(random_float(0, 256));
    // A rotated, scaled crop that reaches outside the image.
    const double angle = 0.4, s = 1.3;
    const double m[9] = {s * cos(angle), -s * sin(angle), 5.5, s * sin(angle), s * cos(angle), -3.25, 0, 0, 1};
    for (int border = 0; border < 2; border++) {
        for (int channels = 3; channels <= 4; channels++) {
            const int dw = 23, dh = 19;
            float *out[2];
            for (int pass = 0; pass < 2; pass++) {
                use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                out[pass] = output_buffer((size_t)dw * dh * 3);
                ck_warp_perspective_u8_to_f32(src, sw, sh, (size_t)sw * 4, channels, m, border, 1.0f / 255.0f, 0.0f,
                                              out[pass], dw, dh, NULL);
            }
            char what[64];
            snprintf(what, sizeof what, "warp perspective border %d channels %d", border, channels);
            compare(what, out[0], out[1], (size_t)dw * dh * 3);
            free(out[0]), free(out[1]);
        }
    }
    free(src);
}

// MARK: - Sparse 1x1 convolutions

/// Weights with about `density` of them nonzero (the rest exactly zero).
static float *sparse_weights(size_t count, float density) {
    float *w = random_floats(count, -1, 1);
    for (size_t i = 0; i < count; i++) {
        if (random_float(0, 1) >= density) w[i] = 0.0f;
    }
    return w;
}

static void check_spconv(ck_threadpool *pool) {
    // m with pixel tails, n and k not multiples of 8, k over one channel block.
    static const size_t shapes[][3] = {{1, 9, 20}, {49, 24, 100}, {67, 13, 300}, {200, 40, 37}, {9, 130, 129}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        float *a = random_floats(m * k, -1, 1), *bias = random_floats(n, -1, 1);
        float *w = sparse_weights(n * k, 0.3f), *slopes = random_floats(n, 0, 0.5f);
        float *residual = random_floats(m * n, -3, 3);
        void *packed = malloc(ck_spconv_packed_bytes(n, k, w));
        ck_spconv_pack(n, k, w, bias, packed);
        float *scratch = (float *)malloc(2 * ck_spconv_scratch_floats(n, k) * sizeof(float));
        for (int variant = 0; variant < 3; variant++) {
            float *out[2];
            for (int pass = 0; pass < 2; pass++) {
                use(pass == 0 ? g_simd : CK_ISA_PORTABLE);
                out[pass] = output_buffer(m * n);
                ck_spconv_params p;
                memset(&p, 0, sizeof p);
                p.m = m, p.n = n, p.k = k, p.a = a, p.a_stride = k, p.packed = packed, p.c = out[pass], p.c_stride = n;
                p.out_min = variant == 0 ? -INFINITY : 0.0f;
                p.out_max = variant == 0 ? INFINITY : 6.0f;
                p.sum_min = -INFINITY, p.sum_max = INFINITY;
                p.scratch = scratch, p.scratch_slots = 2;
                if (variant >= 1) p.prelu = slopes;
                if (variant >= 2) {
                    p.residual = residual, p.residual_stride = n, p.sum_min = -2.0f, p.sum_max = 4.0f;
                }
                ck_spconv(&p, pass == 0 ? pool : NULL);
            }
            char what[96];
            snprintf(what, sizeof what, "spconv %zux%zux%zu variant %d", m, n, k, variant);
            compare(what, out[0], out[1], m * n);
            free(out[0]);
            free(out[1]);
        }
        free(a), free(bias), free(w), free(slopes), free(residual), free(packed), free(scratch);
    }
}

int main(void) {
    g_simd = ck_detected_isa();
    const char *name = g_simd == CK_ISA_NEON ? "NEON" : g_simd == CK_ISA_AVX2_FMA ? "AVX2/FMA" : "portable";
    if (g_simd == CK_ISA_PORTABLE) {
        printf("no SIMD instruction set detected: nothing to compare\n");
        return 0;
    }
    ck_threadpool *pool = ck_threadpool_create(2);
    check_gemm(pool);
    check_spconv(pool);
    check_igemm();
    check_narrow();
    check_dwconv(pool);
    check_elementwise();
    check_maxpool();
    check_image_to_tensor();
    ck_threadpool_destroy(pool);
    printf("%s against portable: %d comparisons, %d failures\n", name, g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
