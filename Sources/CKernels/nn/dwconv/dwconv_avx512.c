// The depthwise convolution's fast path with AVX-512: spans of up to 8 output pixels x 16 channels
// (two packed blocks of 8, their weights joined at load), with the arithmetic of the ck_simd8.h
// span; a last odd block runs with the upper half masked off. Other geometries run the
// ck_simd8.h kernels at this level.
#include "dwconv_internal.h"

#if defined(CK_HAVE_X86)
/// The packed 8-channel values at `offset` of blocks b and b + 1 as one zmm (b + 1 only when
/// `pair`, else zeros above).
CK_AVX512_INLINE __m512 dw_pair_avx512(const float *block, size_t block_floats, size_t offset, int pair) {
    const __m512 lo = _mm512_castps256_ps512(_mm256_loadu_ps(block + offset));
    return pair ? _mm512_insertf32x8(lo, _mm256_loadu_ps(block + block_floats + offset), 1)
                : _mm512_insertf32x8(lo, _mm256_setzero_ps(), 1);
}

/// dw_span_simd8 with 16 channels (two packed blocks) per vector.
CK_AVX512_INLINE void dw_span_avx512(const int W, const int K, const int S, const int CHECKED,
                                     const float *const *rows, size_t ky_begin, size_t ky_end, ptrdiff_t ix0,
                                     size_t in_w, size_t C, size_t c_begin, size_t c_end, const float *packed,
                                     float *out, __m512 lo, __m512 hi, const float *prelu) {
    const size_t block_floats = CB * (1 + (size_t)K * K);
    for (size_t c0 = c_begin; c0 < c_end; c0 += 2 * CB) {
        const int pair = c0 + CB < c_end;
        const __mmask16 mask = pair ? (__mmask16)0xffff : (__mmask16)0x00ff;
        const float *w = packed + (c0 / CB) * block_floats;
        __m512 acc[8];
        const __m512 bias = dw_pair_avx512(w, block_floats, 0, pair);
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) acc[j] = bias;
        for (size_t ky = ky_begin; ky < ky_end; ky++) {
            const float *row = rows[ky] + c0;
            __m512 wv[5];
#pragma clang loop unroll(full)
            for (int kx = 0; kx < K; kx++) wv[kx] = dw_pair_avx512(w, block_floats, CB + (ky * (size_t)K + (size_t)kx) * CB, pair);
#pragma clang loop unroll(full)
            for (int t = 0; t < (W - 1) * S + K; t++) {
                const ptrdiff_t ix = ix0 + t;
                if (CHECKED && (ix < 0 || ix >= (ptrdiff_t)in_w)) continue;
                const __m512 x = _mm512_maskz_loadu_ps(mask, row + ix * (ptrdiff_t)C);
#pragma clang loop unroll(full)
                for (int j = 0; j < W; j++) {
                    const int kx = t - j * S;
                    if (kx >= 0 && kx < K) acc[j] = _mm512_fmadd_ps(x, wv[kx], acc[j]);
                }
            }
        }
        if (prelu != NULL) {
            const __m512 slope = _mm512_maskz_loadu_ps(mask, prelu + c0), zero = _mm512_setzero_ps();
#pragma clang loop unroll(full)
            for (int j = 0; j < W; j++) {
                const __m512 v = _mm512_min_ps(_mm512_max_ps(acc[j], lo), hi);
                const __m512 o = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, slope);
                _mm512_mask_storeu_ps(out + (size_t)j * C + c0, mask, o);
            }
        } else {
#pragma clang loop unroll(full)
            for (int j = 0; j < W; j++) _mm512_mask_storeu_ps(out + (size_t)j * C + c0, mask, _mm512_min_ps(_mm512_max_ps(acc[j], lo), hi));
        }
    }
}

#define DW_ISA avx512
#define DW_FN CK_AVX512
#define DW_INLINE CK_AVX512_INLINE
#define DW_VECTOR __m512
#define DW_SET1 _mm512_set1_ps
#include "dwconv_fast_row.h"
#endif
