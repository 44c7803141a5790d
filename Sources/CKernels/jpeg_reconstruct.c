// JPEG sample reconstruction (see ck_jpeg.h for the arithmetic and why it is this one).
//
// Each kernel body is written once as an always-inline function and instantiated twice: for
// the portable target and under CK_AVX2 (target "avx2,fma,f16c"), where the compiler
// vectorises the 8-lane loops with 256-bit integer instructions. ck_active_isa() picks one.
// The inverse DCT has an explicit AVX2 version (the same wrapping 32-bit arithmetic on 8
// lanes, with two 8x8 transposes): the compiler's vectorisation of the portable body kept its
// transposes and byte stores scalar.
#include "ck_jpeg.h"
#include "CKernels.h"
#include "nn/ck_internal.h" // ck_parallel_for, ck_pool_for_work

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define CK_JPEG_X86 1 // CK_AVX2 (ck_internal.h) compiles the AVX2 versions
#endif

#define CK_INLINE static inline __attribute__((always_inline))

// 12-bit fixed-point IDCT constants: (int)(c * 4096 + 0.5), i.e. rounded half up and then
// truncated toward zero (so negative constants are one nearer zero than round-to-nearest).
enum {
    K_0_541196100 = 2217,
    K_M1_847759065 = -7567,
    K_0_765366865 = 3135,
    K_1_175875602 = 4816,
    K_0_298631336 = 1223,
    K_2_053119869 = 8410,
    K_3_072711026 = 12586,
    K_1_501321110 = 6149,
    K_M0_899976223 = -3685,
    K_M2_562915447 = -10497,
    K_M1_961570560 = -8034,
    K_M0_390180644 = -1597,
};

// One 1-D inverse DCT over 8 lanes at once: in[k][lane] is frequency k of lane `lane`;
// writes the even-part sums (e0..e3) and odd-part terms (o0..o3) so that the 8 outputs are
// e0+o3, e1+o2, e2+o1, e3+o0, e3-o0, e2-o1, e1-o2, e0-o3 (before descaling).
//
// The arithmetic wraps modulo 2^32 (it is done in uint32_t): a crafted file's coefficients times
// 16-bit quantisation steps overflow 32 bits in the second pass, which is undefined behaviour in
// signed C arithmetic (found by Fuzz/C/fuzz_jpeg_reconstruct.c under UBSan). Where nothing
// overflows, which is every real photo, the results are the same as before, bit for bit.
CK_INLINE void idct_1d_lanes(const int32_t in[8][8], int32_t e[4][8], int32_t o[4][8]) {
    for (int l = 0; l < 8; l++) {
        uint32_t s0 = (uint32_t)in[0][l], s1 = (uint32_t)in[1][l], s2 = (uint32_t)in[2][l];
        uint32_t s3 = (uint32_t)in[3][l], s4 = (uint32_t)in[4][l], s5 = (uint32_t)in[5][l];
        uint32_t s6 = (uint32_t)in[6][l], s7 = (uint32_t)in[7][l];
        // Even part: rotation of (s2, s6), butterflies with (s0, s4).
        uint32_t z = (s2 + s6) * (uint32_t)K_0_541196100;
        uint32_t even2 = z + s6 * (uint32_t)K_M1_847759065;
        uint32_t even3 = z + s2 * (uint32_t)K_0_765366865;
        uint32_t even0 = (s0 + s4) * 4096u;
        uint32_t even1 = (s0 - s4) * 4096u;
        e[0][l] = (int32_t)(even0 + even3);
        e[3][l] = (int32_t)(even0 - even3);
        e[1][l] = (int32_t)(even1 + even2);
        e[2][l] = (int32_t)(even1 - even2);
        // Odd part (inputs s7, s5, s3, s1).
        uint32_t a73 = s7 + s3, a51 = s5 + s1, a71 = s7 + s1, a53 = s5 + s3;
        uint32_t zc = (a73 + a51) * (uint32_t)K_1_175875602;
        uint32_t m71 = zc + a71 * (uint32_t)K_M0_899976223;
        uint32_t m53 = zc + a53 * (uint32_t)K_M2_562915447;
        uint32_t m73 = a73 * (uint32_t)K_M1_961570560;
        uint32_t m51 = a51 * (uint32_t)K_M0_390180644;
        o[0][l] = (int32_t)(s7 * (uint32_t)K_0_298631336 + m71 + m73);
        o[1][l] = (int32_t)(s5 * (uint32_t)K_2_053119869 + m53 + m51);
        o[2][l] = (int32_t)(s3 * (uint32_t)K_3_072711026 + m53 + m73);
        o[3][l] = (int32_t)(s1 * (uint32_t)K_1_501321110 + m71 + m51);
    }
}

// even + bias + odd and even + bias - odd, wrapping like the passes above, then shifted
// arithmetically (as signed).
CK_INLINE int32_t descale_sum(int32_t even, int32_t bias, int32_t odd, int shift) {
    return (int32_t)((uint32_t)even + (uint32_t)bias + (uint32_t)odd) >> shift;
}

CK_INLINE int32_t descale_difference(int32_t even, int32_t bias, int32_t odd, int shift) {
    return (int32_t)((uint32_t)even + (uint32_t)bias - (uint32_t)odd) >> shift;
}

CK_INLINE uint8_t clamp_u8(int32_t v) {
    return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

CK_INLINE void idct_block_body(const int16_t *coef, const uint16_t *quant, uint8_t *out,
                               ptrdiff_t stride) {
    int32_t in[8][8], e[4][8], o[4][8], mid[8][8];
    // Dequantise, truncating to 16 bits like a decoder that stores coefficients in `short`.
    // Columns are the lanes of the first pass: in[k][c] = row k, column c.
    for (int k = 0; k < 8; k++) {
        for (int c = 0; c < 8; c++) {
            in[k][c] = (int16_t)((int32_t)coef[k * 8 + c] * (int32_t)quant[k * 8 + c]);
        }
    }
    idct_1d_lanes(in, e, o);
    // Back to 2 fractional bits: +2^9, >> 10. mid[x][r]: column pass output at row x, column r,
    // stored so that the row pass reads frequency x of every row r as a contiguous lane vector.
    for (int c = 0; c < 8; c++) {
        mid[0][c] = descale_sum(e[0][c], 512, o[3][c], 10);
        mid[7][c] = descale_difference(e[0][c], 512, o[3][c], 10);
        mid[1][c] = descale_sum(e[1][c], 512, o[2][c], 10);
        mid[6][c] = descale_difference(e[1][c], 512, o[2][c], 10);
        mid[2][c] = descale_sum(e[2][c], 512, o[1][c], 10);
        mid[5][c] = descale_difference(e[2][c], 512, o[1][c], 10);
        mid[3][c] = descale_sum(e[3][c], 512, o[0][c], 10);
        mid[4][c] = descale_difference(e[3][c], 512, o[0][c], 10);
    }
    // Transpose so the row pass has rows as lanes: rows[u][r] = mid[r][u].
    int32_t rows[8][8];
    for (int u = 0; u < 8; u++) {
        for (int r = 0; r < 8; r++) rows[u][r] = mid[r][u];
    }
    idct_1d_lanes(rows, e, o);
    // Remove 2^17 (12 + 2 + 3 bits) with rounding, and re-centre on 128.
    const int32_t bias = 65536 + (128 << 17);
    for (int r = 0; r < 8; r++) {
        uint8_t *row = out + r * stride;
        row[0] = clamp_u8(descale_sum(e[0][r], bias, o[3][r], 17));
        row[7] = clamp_u8(descale_difference(e[0][r], bias, o[3][r], 17));
        row[1] = clamp_u8(descale_sum(e[1][r], bias, o[2][r], 17));
        row[6] = clamp_u8(descale_difference(e[1][r], bias, o[2][r], 17));
        row[2] = clamp_u8(descale_sum(e[2][r], bias, o[1][r], 17));
        row[5] = clamp_u8(descale_difference(e[2][r], bias, o[1][r], 17));
        row[3] = clamp_u8(descale_sum(e[3][r], bias, o[0][r], 17));
        row[4] = clamp_u8(descale_difference(e[3][r], bias, o[0][r], 17));
    }
}

CK_INLINE void idct_blocks_body(const int16_t *coef, size_t count, const uint16_t *quant,
                                uint8_t *out, ptrdiff_t stride) {
    for (size_t b = 0; b < count; b++) {
        idct_block_body(coef + 64 * b, quant, out + 8 * b, stride);
    }
}

static void idct_blocks_portable(const int16_t *coef, size_t count, const uint16_t *quant,
                                 uint8_t *out, ptrdiff_t stride) {
    idct_blocks_body(coef, count, quant, out, stride);
}

#if defined(CK_JPEG_X86)
#include <immintrin.h>

/// idct_1d_lanes on 8 vectors of 8 lanes (wrapping 32-bit products and sums, like the uint32
/// arithmetic there).
CK_AVX2 static inline __attribute__((always_inline)) void idct_1d_avx2(const __m256i s[8], __m256i e[4], __m256i o[4]) {
#define K(c) _mm256_set1_epi32(c)
    const __m256i z = _mm256_mullo_epi32(_mm256_add_epi32(s[2], s[6]), K(K_0_541196100));
    const __m256i even2 = _mm256_add_epi32(z, _mm256_mullo_epi32(s[6], K(K_M1_847759065)));
    const __m256i even3 = _mm256_add_epi32(z, _mm256_mullo_epi32(s[2], K(K_0_765366865)));
    const __m256i even0 = _mm256_slli_epi32(_mm256_add_epi32(s[0], s[4]), 12);
    const __m256i even1 = _mm256_slli_epi32(_mm256_sub_epi32(s[0], s[4]), 12);
    e[0] = _mm256_add_epi32(even0, even3);
    e[3] = _mm256_sub_epi32(even0, even3);
    e[1] = _mm256_add_epi32(even1, even2);
    e[2] = _mm256_sub_epi32(even1, even2);
    const __m256i a73 = _mm256_add_epi32(s[7], s[3]), a51 = _mm256_add_epi32(s[5], s[1]);
    const __m256i a71 = _mm256_add_epi32(s[7], s[1]), a53 = _mm256_add_epi32(s[5], s[3]);
    const __m256i zc = _mm256_mullo_epi32(_mm256_add_epi32(a73, a51), K(K_1_175875602));
    const __m256i m71 = _mm256_add_epi32(zc, _mm256_mullo_epi32(a71, K(K_M0_899976223)));
    const __m256i m53 = _mm256_add_epi32(zc, _mm256_mullo_epi32(a53, K(K_M2_562915447)));
    const __m256i m73 = _mm256_mullo_epi32(a73, K(K_M1_961570560));
    const __m256i m51 = _mm256_mullo_epi32(a51, K(K_M0_390180644));
    o[0] = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(s[7], K(K_0_298631336)), m71), m73);
    o[1] = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(s[5], K(K_2_053119869)), m53), m51);
    o[2] = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(s[3], K(K_3_072711026)), m53), m73);
    o[3] = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(s[1], K(K_1_501321110)), m71), m51);
#undef K
}

/// The 8 outputs of a pass, (e + bias +- o) >> shift, in output order.
CK_AVX2 static inline __attribute__((always_inline)) void idct_descale_avx2(const __m256i e[4], const __m256i o[4], int32_t bias,
                                                                            int shift, __m256i out[8]) {
    const __m256i b = _mm256_set1_epi32(bias);
    for (int i = 0; i < 4; i++) {
        const __m256i eb = _mm256_add_epi32(e[i], b);
        out[i] = _mm256_srai_epi32(_mm256_add_epi32(eb, o[3 - i]), shift);
        out[7 - i] = _mm256_srai_epi32(_mm256_sub_epi32(eb, o[3 - i]), shift);
    }
}

/// Transposes the 8x8 matrix of 32-bit lanes whose rows are r[0..7] in place.
CK_AVX2 static inline __attribute__((always_inline)) void idct_transpose_avx2(__m256i r[8]) {
    __m256 v[8];
    for (int i = 0; i < 8; i++) v[i] = _mm256_castsi256_ps(r[i]);
    const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
    const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
    const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
    const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    r[0] = _mm256_castps_si256(_mm256_permute2f128_ps(s0, s4, 0x20));
    r[1] = _mm256_castps_si256(_mm256_permute2f128_ps(s1, s5, 0x20));
    r[2] = _mm256_castps_si256(_mm256_permute2f128_ps(s2, s6, 0x20));
    r[3] = _mm256_castps_si256(_mm256_permute2f128_ps(s3, s7, 0x20));
    r[4] = _mm256_castps_si256(_mm256_permute2f128_ps(s0, s4, 0x31));
    r[5] = _mm256_castps_si256(_mm256_permute2f128_ps(s1, s5, 0x31));
    r[6] = _mm256_castps_si256(_mm256_permute2f128_ps(s2, s6, 0x31));
    r[7] = _mm256_castps_si256(_mm256_permute2f128_ps(s3, s7, 0x31));
}

/// idct_block_body with explicit AVX2: the same passes on 8 lanes, two transposes, then the
/// rows clamped to 0...255 and stored 8 bytes each.
CK_AVX2 static inline __attribute__((always_inline)) void idct_block_avx2(const int16_t *coef, const uint16_t *quant,
                                                                          uint8_t *out, ptrdiff_t stride) {
    __m256i v[8], e[4], o[4];
    // A block whose 63 AC coefficients are zero (common in flat areas and in chroma) comes out
    // as one value: the passes below with only the DC term, done in scalar.
    __m256i any = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)coef),
                                   _mm256_setr_epi16(0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    any = _mm256_or_si256(any, _mm256_loadu_si256((const __m256i *)(const void *)(coef + 16)));
    any = _mm256_or_si256(any, _mm256_loadu_si256((const __m256i *)(const void *)(coef + 32)));
    any = _mm256_or_si256(any, _mm256_loadu_si256((const __m256i *)(const void *)(coef + 48)));
    if (_mm256_testz_si256(any, any)) {
        const uint32_t dc = (uint32_t)(int32_t)(int16_t)((int32_t)coef[0] * (int32_t)quant[0]);
        const int32_t mid = (int32_t)(dc * 4096u + 512u) >> 10;
        const uint8_t value = clamp_u8((int32_t)((uint32_t)mid * 4096u + (uint32_t)(65536 + (128 << 17))) >> 17);
        const __m128i row = _mm_set1_epi8((char)value);
        for (int r = 0; r < 8; r++) _mm_storel_epi64((__m128i *)(void *)(out + r * stride), row);
        return;
    }
    for (int k = 0; k < 8; k++) {
        // The low 16 bits of coefficient x step, sign-extended: the truncation to `short`.
        const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(coef + 8 * k));
        const __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(quant + 8 * k));
        v[k] = _mm256_cvtepi16_epi32(_mm_mullo_epi16(c, q));
    }
    idct_1d_avx2(v, e, o);
    idct_descale_avx2(e, o, 512, 10, v); // v[x]: column pass output row x, lanes = columns
    idct_transpose_avx2(v);              // v[u]: frequency u of every row, lanes = rows
    idct_1d_avx2(v, e, o);
    idct_descale_avx2(e, o, 65536 + (128 << 17), 17, v); // v[x]: output column x, lanes = rows
    const __m256i zero = _mm256_setzero_si256(), max = _mm256_set1_epi32(255);
    for (int i = 0; i < 8; i++) v[i] = _mm256_min_epi32(_mm256_max_epi32(v[i], zero), max);
    idct_transpose_avx2(v); // v[r]: output row r
    for (int r = 0; r < 8; r += 4) {
        // Rows r, r+1 and r+2, r+3 to 16-bit, then all four to bytes: [r | r+2 | r+1 | r+3].
        const __m256i a = _mm256_permute4x64_epi64(_mm256_packus_epi32(v[r], v[r + 1]), 0xd8);
        const __m256i b = _mm256_permute4x64_epi64(_mm256_packus_epi32(v[r + 2], v[r + 3]), 0xd8);
        const __m256i bytes = _mm256_packus_epi16(a, b);
        const __m128i lo = _mm256_castsi256_si128(bytes), hi = _mm256_extracti128_si256(bytes, 1);
        _mm_storel_epi64((__m128i *)(void *)(out + r * stride), lo);
        _mm_storel_epi64((__m128i *)(void *)(out + (r + 2) * stride), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64((__m128i *)(void *)(out + (r + 1) * stride), hi);
        _mm_storel_epi64((__m128i *)(void *)(out + (r + 3) * stride), _mm_unpackhi_epi64(hi, hi));
    }
}

CK_AVX2 static void idct_blocks_avx2(const int16_t *coef, size_t count, const uint16_t *quant,
                                     uint8_t *out, ptrdiff_t stride) {
    for (size_t b = 0; b < count; b++) idct_block_avx2(coef + 64 * b, quant, out + 8 * b, stride);
}
#endif

void ck_jpeg_idct_blocks(const int16_t *coefficients, size_t count, const uint16_t quant[64],
                         uint8_t *out, ptrdiff_t stride) {
#if defined(CK_JPEG_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        idct_blocks_avx2(coefficients, count, quant, out, stride);
        return;
    }
#endif
    idct_blocks_portable(coefficients, count, quant, out, stride);
}

// ---- Upsampling ------------------------------------------------------------------------

// 2x horizontally and vertically: vertical 3:1 mix of near and far, then horizontal 3:1 mix of
// neighbours, all in one rounding (+8, >> 4); the first and last outputs use the vertical mix
// alone (+2, >> 2).
CK_INLINE void upsample_h2v2_body(const uint8_t *near, const uint8_t *far, size_t w,
                                  uint8_t *out) {
    if (w == 1) {
        out[0] = out[1] = (uint8_t)((3 * near[0] + far[0] + 2) >> 2);
        return;
    }
    out[0] = (uint8_t)((3 * near[0] + far[0] + 2) >> 2);
    for (size_t i = 1; i < w; i++) {
        int32_t left = 3 * near[i - 1] + far[i - 1];
        int32_t right = 3 * near[i] + far[i];
        out[2 * i - 1] = (uint8_t)((3 * left + right + 8) >> 4);
        out[2 * i] = (uint8_t)((3 * right + left + 8) >> 4);
    }
    out[2 * w - 1] = (uint8_t)((3 * near[w - 1] + far[w - 1] + 2) >> 2);
}

// 2x horizontally only: each output is 3:1 of its sample and the neighbour on its side;
// the first and last outputs copy the edge samples. The reference decoder weights the
// second-to-last output 3:1 towards sample w-2 instead of w-1; kept, to match it exactly.
CK_INLINE void upsample_h2v1_body(const uint8_t *in, size_t w, uint8_t *out) {
    if (w == 1) {
        out[0] = out[1] = in[0];
        return;
    }
    out[0] = in[0];
    for (size_t i = 0; i + 1 < w; i++) {
        int32_t a = in[i], b = in[i + 1];
        out[2 * i + 1] = (uint8_t)((3 * a + b + 2) >> 2);
        out[2 * i + 2] = (uint8_t)((3 * b + a + 2) >> 2);
    }
    out[2 * w - 2] = (uint8_t)((3 * in[w - 2] + in[w - 1] + 2) >> 2);
    out[2 * w - 1] = in[w - 1];
}

// 2x vertically only.
CK_INLINE void upsample_h1v2_body(const uint8_t *near, const uint8_t *far, size_t w,
                                  uint8_t *out) {
    for (size_t i = 0; i < w; i++) out[i] = (uint8_t)((3 * near[i] + far[i] + 2) >> 2);
}

CK_INLINE void upsample_body(const uint8_t *near, const uint8_t *far, size_t w, int h, int v,
                             uint8_t *out) {
    if (h == 2 && v == 2) {
        upsample_h2v2_body(near, far, w, out);
    } else if (h == 2 && v == 1) {
        upsample_h2v1_body(near, w, out);
    } else if (h == 1 && v == 2) {
        upsample_h1v2_body(near, far, w, out);
    } else if (h == 1 && v == 1) {
        memcpy(out, near, w);
    } else {
        // Other factors: nearest neighbour (replicate each sample h times).
        for (size_t i = 0; i < w; i++) {
            for (int j = 0; j < h; j++) out[i * (size_t)h + (size_t)j] = near[i];
        }
    }
}

static void upsample_portable(const uint8_t *near, const uint8_t *far, size_t w, int h, int v,
                              uint8_t *out) {
    upsample_body(near, far, w, h, v, out);
}

#if defined(CK_JPEG_X86)
CK_AVX2 static void upsample_avx2(const uint8_t *near, const uint8_t *far, size_t w, int h,
                                  int v, uint8_t *out) {
    upsample_body(near, far, w, h, v, out);
}
#endif

void ck_jpeg_upsample_row(const uint8_t *near, const uint8_t *far, size_t lowWidth, int h,
                          int v, uint8_t *out) {
    if (lowWidth == 0) return;
#if defined(CK_JPEG_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        upsample_avx2(near, far, lowWidth, h, v, out);
        return;
    }
#endif
    upsample_portable(near, far, lowWidth, h, v, out);
}

// ---- Colour ----------------------------------------------------------------------------

// JFIF YCbCr -> RGB: 20-bit fixed point, coefficients rounded to 12 bits (shifted by 8);
// the Cb contribution to green is truncated to a multiple of 2^16 first.
enum {
    C_CR_R = 5743 << 8,  // 1.402
    C_CR_G = 2925 << 8,  // 0.71414
    C_CB_G = 1410 << 8,  // 0.34414
    C_CB_B = 7258 << 8,  // 1.772
};

CK_INLINE void ycbcr_body(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, size_t n,
                          uint8_t *rgb) {
    for (size_t i = 0; i < n; i++) {
        int32_t luma = ((int32_t)y[i] << 20) + (1 << 19);
        int32_t dr = (int32_t)cr[i] - 128;
        int32_t db = (int32_t)cb[i] - 128;
        int32_t cbg = (int32_t)((uint32_t)(db * -C_CB_G) & 0xFFFF0000u);
        int32_t r = (luma + dr * C_CR_R) >> 20;
        int32_t g = (luma - dr * C_CR_G + cbg) >> 20;
        int32_t b = (luma + db * C_CB_B) >> 20;
        rgb[3 * i] = clamp_u8(r);
        rgb[3 * i + 1] = clamp_u8(g);
        rgb[3 * i + 2] = clamp_u8(b);
    }
}

static void ycbcr_portable(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, size_t n,
                           uint8_t *rgb) {
    ycbcr_body(y, cb, cr, n, rgb);
}

#if defined(CK_JPEG_X86)
CK_AVX2 static void ycbcr_avx2(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, size_t n,
                               uint8_t *rgb) {
    ycbcr_body(y, cb, cr, n, rgb);
}
#endif

void ck_jpeg_ycbcr_to_rgb_row(const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                              size_t count, uint8_t *rgb) {
#if defined(CK_JPEG_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        ycbcr_avx2(y, cb, cr, count, rgb);
        return;
    }
#endif
    ycbcr_portable(y, cb, cr, count, rgb);
}

void ck_jpeg_interleave_rgb_row(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                size_t count, uint8_t *rgb) {
    for (size_t i = 0; i < count; i++) {
        rgb[3 * i] = r[i];
        rgb[3 * i + 1] = g[i];
        rgb[3 * i + 2] = b[i];
    }
}

/// One reconstruction's arguments for its rows on any thread (ck_jpeg_idct_rows).
typedef struct idct_job {
    const int16_t *const *rows;
    size_t blocks_wide;
    const uint16_t *quant;
    uint8_t *out;
    ptrdiff_t stride;
} idct_job;

static void idct_range(void *context, size_t begin, size_t end) {
    const idct_job *job = (const idct_job *)context;
    for (size_t r = begin; r < end; r++) {
        ck_jpeg_idct_blocks(job->rows[r], job->blocks_wide, job->quant, job->out + (ptrdiff_t)r * 8 * job->stride,
                            job->stride);
    }
}

void ck_jpeg_idct_rows(const int16_t *const *rows, size_t row_count, size_t blocks_wide,
                       const uint16_t quant[64], uint8_t *out, ptrdiff_t stride,
                       struct ck_threadpool *pool) {
    idct_job job = {.rows = rows, .blocks_wide = blocks_wide, .quant = quant, .out = out, .stride = stride};
    // A block's inverse DCT is two passes of 8 one-dimensional transforms over 64 values: about
    // 16 operations a sample, counted as the other kernels count work.
    ck_parallel_for(ck_pool_for_work(pool, row_count * blocks_wide * 64 * 16), row_count, idct_range, &job);
}

/// One conversion's arguments for its rows on any thread (ck_jpeg_planes_to_rgb).
typedef struct rgb_job {
    const ck_jpeg_plane *planes;
    int is_rgb;
    size_t width;
    uint8_t *rgb;
    _Atomic int failed;
} rgb_job;

/// Output rows [begin, end), the subsampled components upsampled into the running thread's own
/// row buffer (ck_thread_buffer: kept from call to call, so no allocation per range).
static void rgb_range(void *context, size_t begin, size_t end) {
    rgb_job *job = (rgb_job *)context;
    const ck_jpeg_plane *planes = job->planes;
    size_t offsets[3], bytes = 0;
    for (int c = 0; c < 3; c++) {
        offsets[c] = bytes;
        if (planes[c].h == 1 && planes[c].v == 1) continue; // rows are read in place
        bytes += planes[c].low_width * (size_t)planes[c].h + 8;
    }
    uint8_t *buffer = NULL;
    if (bytes > 0) {
        buffer = (uint8_t *)ck_thread_buffer(CK_BUFFER_UPSAMPLED_ROWS, (bytes + sizeof(float) - 1) / sizeof(float), NULL);
        if (buffer == NULL) {
            atomic_store(&job->failed, 1);
            return;
        }
    }
    uint8_t *scratch[3] = {NULL, NULL, NULL};
    for (int c = 0; c < 3; c++) {
        if (!(planes[c].h == 1 && planes[c].v == 1)) scratch[c] = buffer + offsets[c];
    }
    const size_t width = job->width;
    for (size_t y = begin; y < end; y++) {
        const uint8_t *row[3];
        for (int c = 0; c < 3; c++) {
            const ck_jpeg_plane *pl = &planes[c];
            size_t near, far;
            if (pl->v == 2) {
                near = y / 2;
                far = y % 2 == 0 ? (near > 0 ? near - 1 : 0) : (near + 1 < pl->low_height ? near + 1 : pl->low_height - 1);
            } else {
                near = y / (size_t)pl->v;
                if (near >= pl->low_height) near = pl->low_height - 1;
                far = near;
            }
            if (scratch[c] == NULL) {
                row[c] = pl->samples + near * pl->stride;
            } else {
                ck_jpeg_upsample_row(pl->samples + near * pl->stride, pl->samples + far * pl->stride, pl->low_width,
                                     pl->h, pl->v, scratch[c]);
                row[c] = scratch[c];
            }
        }
        if (job->is_rgb) {
            ck_jpeg_interleave_rgb_row(row[0], row[1], row[2], width, job->rgb + y * width * 3);
        } else {
            ck_jpeg_ycbcr_to_rgb_row(row[0], row[1], row[2], width, job->rgb + y * width * 3);
        }
    }
}

int ck_jpeg_planes_to_rgb(const ck_jpeg_plane planes[3], int is_rgb, size_t width, size_t height,
                          uint8_t *rgb, struct ck_threadpool *pool) {
    rgb_job job = {.planes = planes, .is_rgb = is_rgb, .width = width, .rgb = rgb};
    atomic_init(&job.failed, 0);
    // Upsampling and the colour conversion take about 8 operations an output byte.
    ck_parallel_for(ck_pool_for_work(pool, width * height * 3 * 8), height, rgb_range, &job);
    return atomic_load(&job.failed) ? 1 : 0;
}

// x * k / 255 with rounding, as t = x*k + 128; (t + (t >> 8)) >> 8.
CK_INLINE uint8_t mul_255(uint32_t x, uint32_t k) {
    uint32_t t = x * k + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

void ck_jpeg_cmyk_to_rgb_row(const uint8_t *cmyk, size_t count, uint8_t *rgb) {
    for (size_t i = 0; i < count; i++) {
        uint32_t k = cmyk[4 * i + 3];
        rgb[3 * i] = mul_255(cmyk[4 * i], k);
        rgb[3 * i + 1] = mul_255(cmyk[4 * i + 1], k);
        rgb[3 * i + 2] = mul_255(cmyk[4 * i + 2], k);
    }
}
