// libFuzzer target for CKernels' JPEG reconstruction (jpeg_reconstruct.c): inverse DCT of any
// coefficients and quantisation steps, chroma upsampling of any row width and factors 1...4,
// YCbCr/RGB/CMYK row conversion. Built with clang's -fsanitize=fuzzer,address,undefined by
// scripts/fuzz: every buffer is allocated at exactly the size the header documents, so a read or
// write past it is an AddressSanitizer report, and any signed overflow a UBSan report. Each kernel
// runs with the portable code and, when the CPU has it, the AVX2 build; their outputs must agree.
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

static int has_avx2(void) { return ck_detected_isa() == CK_ISA_AVX2_FMA; }

static void same(const uint8_t *a, const uint8_t *b, size_t n, const char *kernel) {
    if (memcmp(a, b, n) != 0) {
        fprintf(stderr, "%s: the AVX2 and portable versions disagree\n", kernel);
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
    if (has_avx2()) {
        ck_set_isa(CK_ISA_AVX2_FMA);
        ck_jpeg_idct_blocks(coef, count, quant, b, stride);
        same(a, b, outSize, "ck_jpeg_idct_blocks");
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
    if (has_avx2()) {
        ck_set_isa(CK_ISA_AVX2_FMA);
        ck_jpeg_upsample_row(near, far, lowWidth, h, v, b);
        same(a, b, outSize, "ck_jpeg_upsample_row");
    }
    free(near); free(far); free(a); free(b);
}

static void fuzz_colour(input *in, int kind) {
    size_t n = u16(in) % 1000;
    size_t planes = kind == 2 ? 1 : 3, width = kind == 2 ? 4 * n : n;
    uint8_t *p[3] = {0};
    for (size_t i = 0; i < planes; i++) p[i] = bytes(in, width);
    uint8_t *a = calloc(3 * n + 1, 1), *b = calloc(3 * n + 1, 1);
    ck_set_isa(CK_ISA_PORTABLE);
    if (kind == 0) ck_jpeg_ycbcr_to_rgb_row(p[0], p[1], p[2], n, a);
    if (kind == 1) ck_jpeg_interleave_rgb_row(p[0], p[1], p[2], n, a);
    if (kind == 2) ck_jpeg_cmyk_to_rgb_row(p[0], n, a);
    if (kind == 0 && has_avx2()) {
        ck_set_isa(CK_ISA_AVX2_FMA);
        ck_jpeg_ycbcr_to_rgb_row(p[0], p[1], p[2], n, b);
        same(a, b, 3 * n, "ck_jpeg_ycbcr_to_rgb_row");
    }
    for (size_t i = 0; i < planes; i++) free(p[i]);
    free(a); free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size, 0};
    switch (u8(&in) % 5) {
    case 0: fuzz_idct(&in); break;
    case 1: fuzz_upsample(&in); break;
    default: fuzz_colour(&in, (int)(data[0] % 5) - 2); break;
    }
    return 0;
}
