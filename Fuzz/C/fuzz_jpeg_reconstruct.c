// libFuzzer target for CKernels' JPEG reconstruction (jpeg_reconstruct.c): inverse DCT of any
// coefficients and quantisation steps, chroma upsampling of any row width and factors 1...4,
// YCbCr/RGB/CMYK row conversion, and the whole-image upsampling and conversion of three planes
// (ck_jpeg_planes_to_rgb). Built with clang's -fsanitize=fuzzer,address,undefined by
// scripts/fuzz: every buffer is allocated at exactly the size the header documents, so a read or
// write past it is an AddressSanitizer report, and any signed overflow a UBSan report. Each kernel
// runs with the portable code and again at every SIMD level the CPU runs (AVX2, AVX-512); the
// outputs must agree. ck_jpeg_planes_to_rgb must also equal the row kernels it is documented to
// combine, and give the same rows shared over two threads.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CKernels.h"

/// Reads input bytes in order; zeros once they run out.
typedef struct {
    const uint8_t *data;
    size_t size, at;
} input;

static uint8_t u8(input *in) { return in->at < in->size ? in->data[in->at++] : 0; }
static uint16_t u16(input *in) { uint16_t lo = u8(in); return (uint16_t)(lo | (u8(in) << 8)); }

static uint8_t *bytes(input *in, size_t n) {
    uint8_t *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = u8(in);
    return p;
}

/// The SIMD levels compared with the portable code, where the CPU runs them (ck_set_isa says).
/// (Comparing only when the detected level was AVX2 stopped comparing anything on an AVX-512
/// machine once CKernels gained that level.)
static const ck_isa simd_levels[] = {CK_ISA_AVX2_FMA, CK_ISA_AVX512};
#define SIMD_LEVEL_COUNT (sizeof simd_levels / sizeof simd_levels[0])

static void same(const uint8_t *a, const uint8_t *b, size_t n, const char *kernel, ck_isa level) {
    if (memcmp(a, b, n) != 0) {
        fprintf(stderr, "%s: the portable version and SIMD level %d disagree\n", kernel, (int)level);
        abort();
    }
}

static void fuzz_idct(input *in) {
    size_t count = 1 + u8(in) % 8;
    ptrdiff_t stride = (ptrdiff_t)(8 * count + u8(in) % 9);
    uint16_t quant[64];
    for (int i = 0; i < 64; i++) quant[i] = u16(in);
    int16_t *coef = malloc(count * 64 * sizeof(int16_t));
    for (size_t i = 0; i < count * 64; i++) coef[i] = (int16_t)u16(in);
    size_t outSize = (size_t)(7 * stride) + 8 * count;
    uint8_t *a = calloc(outSize, 1), *b = calloc(outSize, 1);
    ck_set_isa(CK_ISA_PORTABLE);
    ck_jpeg_idct_blocks(coef, count, quant, a, stride);
    for (size_t l = 0; l < SIMD_LEVEL_COUNT; l++) {
        if (!ck_set_isa(simd_levels[l])) continue;
        memset(b, 0, outSize);
        ck_jpeg_idct_blocks(coef, count, quant, b, stride);
        same(a, b, outSize, "ck_jpeg_idct_blocks", simd_levels[l]);
    }
    free(coef); free(a); free(b);
}

static void fuzz_upsample(input *in) {
    size_t lowWidth = u16(in) % 700;
    int h = 1 + u8(in) % 4, v = 1 + u8(in) % 4;
    uint8_t *near = bytes(in, lowWidth), *far = bytes(in, lowWidth);
    size_t outSize = lowWidth * (size_t)h;
    uint8_t *a = calloc(outSize ? outSize : 1, 1), *b = calloc(outSize ? outSize : 1, 1);
    ck_set_isa(CK_ISA_PORTABLE);
    ck_jpeg_upsample_row(near, far, lowWidth, h, v, a);
    for (size_t l = 0; l < SIMD_LEVEL_COUNT; l++) {
        if (!ck_set_isa(simd_levels[l])) continue;
        memset(b, 0, outSize ? outSize : 1);
        ck_jpeg_upsample_row(near, far, lowWidth, h, v, b);
        same(a, b, outSize, "ck_jpeg_upsample_row", simd_levels[l]);
    }
    free(near); free(far); free(a); free(b);
}

static void colour(int kind, uint8_t *p[3], size_t n, uint8_t *out) {
    if (kind == 0) ck_jpeg_ycbcr_to_rgb_row(p[0], p[1], p[2], n, out);
    if (kind == 1) ck_jpeg_interleave_rgb_row(p[0], p[1], p[2], n, out);
    if (kind == 2) ck_jpeg_cmyk_to_rgb_row(p[0], n, out);
}

static void fuzz_colour(input *in, int kind) {
    size_t n = u16(in) % 1000;
    size_t planes = kind == 2 ? 1 : 3, width = kind == 2 ? 4 * n : n;
    uint8_t *p[3] = {0};
    for (size_t i = 0; i < planes; i++) p[i] = bytes(in, width);
    uint8_t *a = calloc(3 * n + 1, 1), *b = calloc(3 * n + 1, 1);
    ck_set_isa(CK_ISA_PORTABLE);
    colour(kind, p, n, a);
    for (size_t l = 0; l < SIMD_LEVEL_COUNT; l++) {
        if (!ck_set_isa(simd_levels[l])) continue;
        memset(b, 0, 3 * n + 1);
        colour(kind, p, n, b);
        same(a, b, 3 * n, "ck_jpeg_*_row", simd_levels[l]);
    }
    for (size_t i = 0; i < planes; i++) free(p[i]);
    free(a); free(b);
}

/// ck_jpeg_planes_to_rgb on three planes of any geometry its header allows: `width` x `height`
/// output, each plane with factors h, v in 1...4, at least ceil(width / h) x ceil(height / v)
/// samples, rows `stride` apart; the last row is allocated only `low_width` long.
static void fuzz_planes(input *in) {
    size_t width = 1 + u8(in) % 97, height = 1 + u8(in) % 41;
    int is_rgb = u8(in) & 1;
    ck_jpeg_plane planes[3];
    uint8_t *samples[3];
    for (int c = 0; c < 3; c++) {
        int h = 1 + u8(in) % 4, v = 1 + u8(in) % 4;
        size_t low_width = (width + (size_t)h - 1) / (size_t)h + u8(in) % 3;
        size_t low_height = (height + (size_t)v - 1) / (size_t)v + u8(in) % 2;
        size_t stride = low_width + u8(in) % 9;
        samples[c] = bytes(in, stride * (low_height - 1) + low_width);
        planes[c] = (ck_jpeg_plane){samples[c], stride, low_width, low_height, h, v};
    }
    size_t outSize = width * height * 3;
    uint8_t *a = malloc(outSize), *b = malloc(outSize), *expected = malloc(outSize);

    // The row kernels, row by row, as the header describes the combination.
    uint8_t *rows[3];
    for (int c = 0; c < 3; c++) rows[c] = malloc(planes[c].low_width * (size_t)planes[c].h);
    ck_set_isa(CK_ISA_PORTABLE);
    for (size_t y = 0; y < height; y++) {
        for (int c = 0; c < 3; c++) {
            const ck_jpeg_plane *p = &planes[c];
            size_t near, far;
            if (p->v == 2) {
                near = y / 2;
                far = y % 2 == 0 ? (near > 0 ? near - 1 : 0) : (near + 1 < p->low_height ? near + 1 : p->low_height - 1);
            } else {
                near = y / (size_t)p->v;
                if (near >= p->low_height) near = p->low_height - 1;
                far = near;
            }
            ck_jpeg_upsample_row(p->samples + near * p->stride, p->samples + far * p->stride, p->low_width, p->h, p->v, rows[c]);
        }
        uint8_t *line = expected + y * width * 3;
        if (is_rgb) ck_jpeg_interleave_rgb_row(rows[0], rows[1], rows[2], width, line);
        else ck_jpeg_ycbcr_to_rgb_row(rows[0], rows[1], rows[2], width, line);
    }

    if (ck_jpeg_planes_to_rgb(planes, is_rgb, width, height, a, NULL) == 0) {
        same(expected, a, outSize, "ck_jpeg_planes_to_rgb (against the row kernels)", CK_ISA_PORTABLE);
        // The rows shared over two threads (the larger images: the smaller stay on the caller).
        static ck_threadpool *pool;
        if (pool == NULL) pool = ck_threadpool_create(2);
        if (pool != NULL && ck_jpeg_planes_to_rgb(planes, is_rgb, width, height, b, pool) == 0) {
            same(a, b, outSize, "ck_jpeg_planes_to_rgb on two threads", CK_ISA_PORTABLE);
        }
        for (size_t l = 0; l < SIMD_LEVEL_COUNT; l++) {
            if (!ck_set_isa(simd_levels[l])) continue;
            if (ck_jpeg_planes_to_rgb(planes, is_rgb, width, height, b, NULL) == 0) {
                same(a, b, outSize, "ck_jpeg_planes_to_rgb", simd_levels[l]);
            }
        }
    }
    for (int c = 0; c < 3; c++) { free(samples[c]); free(rows[c]); }
    free(a); free(b); free(expected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size, 0};
    switch (u8(&in) % 6) {
    case 0: fuzz_idct(&in); break;
    case 1: fuzz_upsample(&in); break;
    case 5: fuzz_planes(&in); break;
    default: fuzz_colour(&in, (int)(data[0] % 6) - 2); break;
    }
    return 0;
}
