// SiLU (swish, x * logistic(x)) with an optional per-channel scale and shift first: the chain
// MUL (by a constant), ADD (a constant), LOGISTIC, MUL that models write for a batch
// normalisation followed by SiLU, done in one pass. Each step is rounded as the separate
// operators round it (no fused multiply-add), so the result equals running them one by one.
#include "ck_internal.h"
#include "ck_simd8.h"

#include <math.h>

static void silu_portable(const float *input, const float *scale, const float *shift, float *output,
                          size_t count, size_t channels) {
    for (size_t i = 0; i < count; i++) {
        const size_t c = i % channels;
        float y = input[i];
        if (scale != NULL) y = y * scale[c];
        if (shift != NULL) y = y + shift[c];
        const float s = 1.0f / (1.0f + expf(-y));
        output[i] = y * s;
    }
}

#if defined(CK_SIMD8)
CK_SIMD8_FN static void silu_simd8(const float *input, const float *scale, const float *shift, float *output,
                                   size_t count, size_t channels) {
    const ck_v8 one = v8_set1(1.0f), zero = v8_zero();
    for (size_t row = 0; row < count; row += channels) {
        const float *x = input + row;
        float *out = output + row;
        for (size_t c = 0; c < channels; c += 8) {
            const size_t lanes = CK_MIN((size_t)8, channels - c);
            ck_v8 y = lanes == 8 ? v8_load(x + c) : v8_load_partial(x + c, lanes);
            if (scale != NULL) y = v8_mul(y, lanes == 8 ? v8_load(scale + c) : v8_load_partial(scale + c, lanes));
            if (shift != NULL) y = v8_add(y, lanes == 8 ? v8_load(shift + c) : v8_load_partial(shift + c, lanes));
            const ck_v8 s = v8_div(one, v8_add(one, v8_exp(v8_sub(zero, y))));
            y = v8_mul(y, s);
            if (lanes == 8) {
                v8_store(out + c, y);
            } else {
                v8_store_partial(out + c, y, lanes);
            }
        }
    }
}
#endif

#if defined(CK_HAVE_X86)
/// e^x for 16 lanes: v8_exp's steps (clamp, n = round(x log2 e), r by two fused steps, the same
/// polynomial, 2^n through the exponent bits) on 16 lanes, so each lane is bit for bit the
/// AVX2 result.
CK_AVX512_INLINE __m512 exp_avx512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const __m512i scale = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(scale));
}

/// silu_simd8 on 16 lanes (the last vector of a row masked), the same arithmetic lane by lane.
CK_AVX512 static void silu_avx512(const float *input, const float *scale, const float *shift, float *output,
                                  size_t count, size_t channels) {
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    for (size_t row = 0; row < count; row += channels) {
        const float *x = input + row;
        float *out = output + row;
        for (size_t c = 0; c < channels; c += 16) {
            const size_t lanes = CK_MIN((size_t)16, channels - c);
            const __mmask16 m = (__mmask16)(lanes == 16 ? 0xffffu : (1u << lanes) - 1u);
            __m512 y = _mm512_maskz_loadu_ps(m, x + c);
            if (scale != NULL) y = _mm512_mul_ps(y, _mm512_maskz_loadu_ps(m, scale + c));
            if (shift != NULL) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m, shift + c));
            const __m512 s = _mm512_div_ps(one, _mm512_add_ps(one, exp_avx512(_mm512_sub_ps(zero, y))));
            _mm512_mask_storeu_ps(out + c, m, _mm512_mul_ps(y, s));
        }
    }
}
#endif

void ck_silu(const float *input, const float *scale, const float *shift, float *output, size_t count,
             size_t channels) {
    if (count == 0 || channels == 0 || count % channels != 0) return;
#if defined(CK_HAVE_X86)
    if (ck_use_avx512()) {
        silu_avx512(input, scale, shift, output, count, channels);
        return;
    }
#endif
#if defined(CK_SIMD8)
    if (ck_use_simd8()) {
        silu_simd8(input, scale, shift, output, count, channels);
        return;
    }
#endif
    silu_portable(input, scale, shift, output, count, channels);
}
