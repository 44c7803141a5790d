// The sparse 1x1 convolution's kernels with AVX-512: a vector holds 16 pixels, so a tile is at
// most 4 vectors and the 4 output channels of a group run side by side (up to 16 independent
// FMA chains); the transposes are 16x16. The same arithmetic as the ck_simd8.h kernels.
#include "spconv_internal.h"

#if defined(CK_HAVE_X86)
/// 16 pixels of a row of xt, or (the last vector of a tile with an odd count of 8-pixel groups)
/// the first 8 with zeros above: masked loads and stores only where needed.
CK_AVX512_INLINE __m512 sp_load_avx512(const float *p, int half) {
    return half ? _mm512_maskz_loadu_ps((__mmask16)0x00ff, p) : _mm512_loadu_ps(p);
}
CK_AVX512_INLINE void sp_store_avx512(float *p, __m512 v, int half) {
    if (half) {
        _mm512_mask_storeu_ps(p, (__mmask16)0x00ff, v);
    } else {
        _mm512_storeu_ps(p, v);
    }
}

/// sp_block_simd8 with 16 pixels per vector (Z = vectors of 16; HALF: the last one holds 8
/// pixels, and lanes past them are neither read nor written), the 4 channels of a group side by
/// side (4 * Z independent FMA chains).
CK_AVX512_INLINE void sp_block_avx512(const int Z, const int HALF, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                      const float *xt, float *yt) {
    const size_t groups = job->l.groups;
    const uint32_t *start = job->start + blk * groups;
    const uint32_t *channels = job->channels + blk * groups * 4;
    const char *x = (const char *)xt;
    for (size_t g = j0 / 4; g < (j1 + 3) / 4; g++) {
        const float *w4 = job->values + start[g];
        const uint8_t *rows = job->rows + start[g];
        const uint32_t length = (start[g + 1] - start[g]) / 4;
        const uint32_t *ch = channels + g * 4;
        __m512 acc[4][4];
#pragma clang loop unroll(full)
        for (int c = 0; c < 4; c++) {
            const float *y = yt + ch[c] * TILE;
            const __m512 bias = _mm512_set1_ps(job->bias[ch[c]]);
#pragma clang loop unroll(full)
            for (int v = 0; v < Z; v++) acc[c][v] = first ? bias : sp_load_avx512(y + v * 16, HALF && v == Z - 1);
        }
        // Two positions per loop iteration: 1.3 % faster over pose_detection's shapes.
#pragma clang loop unroll_count(2)
        for (uint32_t q = 0; q < length; q++, w4 += 4, rows += 4) {
            // The 4 weights in one load, broadcast from the register; the 4 rows in one load.
            const __m512 ws = _mm512_castps128_ps512(_mm_loadu_ps(w4));
            uint32_t r;
            memcpy(&r, rows, sizeof r);
#pragma clang loop unroll(full)
            for (int c = 0; c < 4; c++) {
                const __m512 w = _mm512_permutexvar_ps(_mm512_set1_epi32(c), ws);
                const float *xr = (const float *)(const void *)(x + ((r >> (8 * c)) & 0xff) * (TILE * sizeof(float)));
#pragma clang loop unroll(full)
                for (int v = 0; v < Z; v++) acc[c][v] = _mm512_fmadd_ps(w, sp_load_avx512(xr + v * 16, HALF && v == Z - 1), acc[c][v]);
            }
        }
#pragma clang loop unroll(full)
        for (int c = 0; c < 4; c++) {
            float *y = yt + ch[c] * TILE;
#pragma clang loop unroll(full)
            for (int v = 0; v < Z; v++) sp_store_avx512(y + v * 16, acc[c][v], HALF && v == Z - 1);
        }
    }
}

/// sp_block_any_simd8 for V vectors of 8 pixels as (V + 1) / 2 vectors of 16.
CK_AVX512_INLINE void sp_block_any_avx512(size_t V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                          const float *xt, float *yt) {
    switch (V) {
    case 1: sp_block_avx512(1, 1, job, blk, first, j0, j1, xt, yt); break;
    case 2: sp_block_avx512(1, 0, job, blk, first, j0, j1, xt, yt); break;
    case 3: sp_block_avx512(2, 1, job, blk, first, j0, j1, xt, yt); break;
    case 4: sp_block_avx512(2, 0, job, blk, first, j0, j1, xt, yt); break;
    case 5: sp_block_avx512(3, 1, job, blk, first, j0, j1, xt, yt); break;
    case 6: sp_block_avx512(3, 0, job, blk, first, j0, j1, xt, yt); break;
    case 7: sp_block_avx512(4, 1, job, blk, first, j0, j1, xt, yt); break;
    default: sp_block_avx512(4, 0, job, blk, first, j0, j1, xt, yt); break;
    }
}

/// v < 0 ? v * slope : v with the sign bit deciding (negative zero included), as v8_prelu.
CK_AVX512_INLINE __m512 sp_prelu_avx512(__m512 v, __m512 slope) {
    return _mm512_mask_mul_ps(v, _mm512_movepi32_mask(_mm512_castps_si512(v)), v, slope);
}

/// Transposes the 16x16 matrix whose rows are r[0..15] in place (row i becomes column i):
/// 32-bit and 64-bit interleaves within 128-bit lanes, then two rounds of lane shuffles.
CK_AVX512_INLINE void sp_transpose16_avx512(__m512 r[16]) {
    __m512 t[16];
#pragma clang loop unroll(full)
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    __m512 x[16]; // x[4g + e], lane L: rows 4g ... 4g + 3 at column 4L + e
#pragma clang loop unroll(full)
    for (int g = 0; g < 4; g++) {
        const __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
        x[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        x[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        x[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        x[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
#pragma clang loop unroll(full)
    for (int e = 0; e < 4; e++) {
        const __m512 a = _mm512_shuffle_f32x4(x[e], x[4 + e], 0x88), b = _mm512_shuffle_f32x4(x[e], x[4 + e], 0xdd);
        const __m512 c = _mm512_shuffle_f32x4(x[8 + e], x[12 + e], 0x88), d = _mm512_shuffle_f32x4(x[8 + e], x[12 + e], 0xdd);
        r[e] = _mm512_shuffle_f32x4(a, c, 0x88);
        r[8 + e] = _mm512_shuffle_f32x4(a, c, 0xdd);
        r[4 + e] = _mm512_shuffle_f32x4(b, d, 0x88);
        r[12 + e] = _mm512_shuffle_f32x4(b, d, 0xdd);
    }
}

/// sp_load_block_simd8 with 16x16 transposes: xt rows [0, k1 - k0) for the pixels
/// [i0, i0 + 8 * V) (pixels past m repeat pixel m - 1; a tile with an odd V also fills the next 8
/// pixels of its last 16, which nothing reads).
CK_AVX512_INLINE void sp_load_block_avx512(const ck_spconv_params *p, size_t i0, size_t V, size_t k0, size_t k1, float *xt) {
    const size_t m = p->m;
    for (size_t g = 0; g < (V + 1) / 2; g++) {
        const float *rows[16];
        for (size_t r = 0; r < 16; r++) rows[r] = p->a + CK_MIN(i0 + g * 16 + r, m - 1) * p->a_stride;
        for (size_t c = k0; c < k1; c += 16) {
            const size_t lanes = CK_MIN((size_t)16, k1 - c);
            __m512 v[16];
            if (lanes == 16) {
                for (size_t r = 0; r < 16; r++) v[r] = _mm512_loadu_ps(rows[r] + c);
            } else {
                const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
                for (size_t r = 0; r < 16; r++) v[r] = _mm512_maskz_loadu_ps(mask, rows[r] + c);
            }
            sp_transpose16_avx512(v);
            float *dst = xt + (c - k0) * TILE + g * 16;
            for (size_t q = 0; q < lanes; q++) _mm512_storeu_ps(dst + q * TILE, v[q]);
        }
    }
}

/// One 16x16 block of the store: v[q] holds pixel row0 + q's channels [c, c + lanes); the
/// epilogue with (RES) or without a residual ADD and (PRELU) or without PReLU. Everything it
/// reads from the parameters is in locals, so the compiler need not reload it after each store.
CK_AVX512_INLINE void sp_store_rows_avx512(const int RES, const int PRELU, const __m512 *v, size_t pixels, size_t lanes, float *out,
                                           size_t c_stride, const float *res, size_t res_stride, __m512 slopes, __m512 lo,
                                           __m512 hi, __m512 lo2, __m512 hi2) {
    if (lanes == 16) {
        for (size_t q = 0; q < pixels; q++) {
            __m512 o = _mm512_min_ps(_mm512_max_ps(v[q], lo), hi);
            if (RES) o = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(o, _mm512_loadu_ps(res + q * res_stride)), lo2), hi2);
            if (PRELU) o = sp_prelu_avx512(o, slopes);
            _mm512_storeu_ps(out + q * c_stride, o);
        }
    } else {
        const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
        for (size_t q = 0; q < pixels; q++) {
            __m512 o = _mm512_min_ps(_mm512_max_ps(v[q], lo), hi);
            if (RES) o = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(o, _mm512_maskz_loadu_ps(mask, res + q * res_stride)), lo2), hi2);
            if (PRELU) o = sp_prelu_avx512(o, slopes);
            _mm512_mask_storeu_ps(out + q * c_stride, mask, o);
        }
    }
}

/// sp_store_block_simd8 with 16x16 transposes: yt rows [j0, j1) back to NHWC for the pixels
/// [i0, min(m, i0 + 8 * V)), through the epilogue. yt holds rows up to round8(n).
CK_AVX512_INLINE void sp_store_block_avx512(const ck_spconv_params *p, size_t i0, size_t V, size_t j0, size_t j1,
                                            const float *yt) {
    const __m512 lo = _mm512_set1_ps(p->out_min), hi = _mm512_set1_ps(p->out_max);
    const __m512 lo2 = _mm512_set1_ps(p->sum_min), hi2 = _mm512_set1_ps(p->sum_max);
    const size_t pixels_total = CK_MIN(p->m - i0, 8 * V);
    const size_t rows_available = round8(p->n), n = p->n, c_stride = p->c_stride, res_stride = p->residual_stride;
    const float *residual = p->residual, *prelu = p->prelu;
    float *c_base = p->c;
    for (size_t g = 0; g < (pixels_total + 15) / 16; g++) {
        const size_t pixels = CK_MIN((size_t)16, pixels_total - g * 16), row0 = i0 + g * 16;
        for (size_t c = j0; c < j1; c += 16) {
            const size_t lanes = CK_MIN((size_t)16, n - c);
            const size_t rows = CK_MIN((size_t)16, rows_available - c);
            __m512 v[16];
            for (size_t r = 0; r < 16; r++) {
                v[r] = r < rows ? _mm512_loadu_ps(yt + (c + r) * TILE + g * 16) : _mm512_setzero_ps();
            }
            sp_transpose16_avx512(v);
            const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
            __m512 slopes = _mm512_setzero_ps();
            if (prelu != NULL) slopes = lanes == 16 ? _mm512_loadu_ps(prelu + c) : _mm512_maskz_loadu_ps(mask, prelu + c);
            float *out = c_base + row0 * c_stride + c;
            const float *res = residual != NULL ? residual + row0 * res_stride + c : NULL;
            if (res != NULL) {
                if (prelu != NULL) {
                    sp_store_rows_avx512(1, 1, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
                } else {
                    sp_store_rows_avx512(1, 0, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
                }
            } else if (prelu != NULL) {
                sp_store_rows_avx512(0, 1, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
            } else {
                sp_store_rows_avx512(0, 0, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
            }
        }
    }
}

#define SP_ISA avx512
#define SP_FN CK_AVX512
#include "spconv_tile.h"
#endif
