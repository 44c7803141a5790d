// Eight float lanes as one value, for kernels written once for every SIMD instruction set:
// one __m256 with AVX2/FMA (x86-64), two float32x4_t with NEON (AArch64). A build has at most
// one of the two; CK_SIMD8 says whether it has one. Functions that use ck_v8 carry
// CK_SIMD8_FN (the AVX2 target attribute on x86), and are only called when ck_use_simd8()
// says the CPU runs them.
#ifndef VISIONTASKS_CK_SIMD8_H
#define VISIONTASKS_CK_SIMD8_H

#include "ck_internal.h"

#if defined(CK_HAVE_X86)
#define CK_SIMD8 1
#define CK_SIMD8_FN CK_AVX2
#define CK_SIMD8_INLINE CK_AVX2 static inline __attribute__((always_inline))

typedef __m256 ck_v8;

CK_SIMD8_INLINE ck_v8 v8_load(const float *p) { return _mm256_loadu_ps(p); }
CK_SIMD8_INLINE void v8_store(float *p, ck_v8 v) { _mm256_storeu_ps(p, v); }
CK_SIMD8_INLINE ck_v8 v8_zero(void) { return _mm256_setzero_ps(); }
CK_SIMD8_INLINE ck_v8 v8_set1(float v) { return _mm256_set1_ps(v); }
/// Broadcasts *p (one load).
CK_SIMD8_INLINE ck_v8 v8_broadcast(const float *p) { return _mm256_broadcast_ss(p); }
/// a * b + c, fused (one rounding).
CK_SIMD8_INLINE ck_v8 v8_fma(ck_v8 a, ck_v8 b, ck_v8 c) { return _mm256_fmadd_ps(a, b, c); }
CK_SIMD8_INLINE ck_v8 v8_add(ck_v8 a, ck_v8 b) { return _mm256_add_ps(a, b); }
CK_SIMD8_INLINE ck_v8 v8_sub(ck_v8 a, ck_v8 b) { return _mm256_sub_ps(a, b); }
CK_SIMD8_INLINE ck_v8 v8_mul(ck_v8 a, ck_v8 b) { return _mm256_mul_ps(a, b); }
CK_SIMD8_INLINE ck_v8 v8_div(ck_v8 a, ck_v8 b) { return _mm256_div_ps(a, b); }
/// a > b ? a : b and a < b ? a : b lane by lane, exactly as the portable comparisons (the
/// second operand when they compare false, NaN included).
CK_SIMD8_INLINE ck_v8 v8_greater_of(ck_v8 a, ck_v8 b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ)); }
CK_SIMD8_INLINE ck_v8 v8_lesser_of(ck_v8 a, ck_v8 b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_LT_OQ)); }
/// a >= 0 ? a : a * b lane by lane, as the portable PRELU.
CK_SIMD8_INLINE ck_v8 v8_prelu_ge(ck_v8 a, ck_v8 b) {
    return _mm256_blendv_ps(_mm256_mul_ps(a, b), a, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_GE_OQ));
}
/// e^x: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial to r^7 (relative error
/// about 2e-7), 2^n through the exponent bits. Inputs are clamped to the range where e^x is a
/// finite, normal float.
CK_SIMD8_INLINE ck_v8 v8_exp(ck_v8 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}
CK_SIMD8_INLINE ck_v8 v8_min(ck_v8 a, ck_v8 b) { return _mm256_min_ps(a, b); }
CK_SIMD8_INLINE ck_v8 v8_max(ck_v8 a, ck_v8 b) { return _mm256_max_ps(a, b); }
/// v < 0 ? v * slope : v (negative zero counts as negative; the product is -0 either way).
CK_SIMD8_INLINE ck_v8 v8_prelu(ck_v8 v, ck_v8 slope) {
    return _mm256_blendv_ps(v, _mm256_mul_ps(v, slope), v);
}
/// Eight half-precision values to single precision (F16C).
CK_SIMD8_INLINE ck_v8 v8_load_f16(const uint16_t *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}
/// The first `count` (0...8) lanes from p, the others 0; reads only those lanes.
CK_SIMD8_INLINE ck_v8 v8_load_partial(const float *p, size_t count) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), lane);
    return _mm256_maskload_ps(p, mask);
}
/// Stores the first `count` (0...8) lanes.
CK_SIMD8_INLINE void v8_store_partial(float *p, ck_v8 v, size_t count) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), lane);
    _mm256_maskstore_ps(p, mask, v);
}
/// The sum of the eight lanes (pairwise: (0+4)+(2+6) + (1+5)+(3+7)).
CK_SIMD8_INLINE float v8_sum(ck_v8 v) {
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
    return _mm_cvtss_f32(s4);
}

/// Transposes the 8x8 matrix whose rows are r[0..7] in place (row i becomes column i).
CK_SIMD8_INLINE void v8_transpose8(ck_v8 r[8]) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

#elif defined(__aarch64__)
#include <arm_neon.h>
#define CK_SIMD8 1
#define CK_SIMD8_FN
#define CK_SIMD8_INLINE static inline __attribute__((always_inline))

typedef struct ck_v8 {
    float32x4_t lo, hi;
} ck_v8;

CK_SIMD8_INLINE ck_v8 v8_make(float32x4_t lo, float32x4_t hi) {
    ck_v8 v;
    v.lo = lo;
    v.hi = hi;
    return v;
}
CK_SIMD8_INLINE ck_v8 v8_load(const float *p) { return v8_make(vld1q_f32(p), vld1q_f32(p + 4)); }
CK_SIMD8_INLINE void v8_store(float *p, ck_v8 v) {
    vst1q_f32(p, v.lo);
    vst1q_f32(p + 4, v.hi);
}
CK_SIMD8_INLINE ck_v8 v8_zero(void) { return v8_make(vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)); }
CK_SIMD8_INLINE ck_v8 v8_set1(float v) { return v8_make(vdupq_n_f32(v), vdupq_n_f32(v)); }
CK_SIMD8_INLINE ck_v8 v8_broadcast(const float *p) {
    float32x4_t v = vld1q_dup_f32(p);
    return v8_make(v, v);
}
CK_SIMD8_INLINE ck_v8 v8_fma(ck_v8 a, ck_v8 b, ck_v8 c) {
    return v8_make(vfmaq_f32(c.lo, a.lo, b.lo), vfmaq_f32(c.hi, a.hi, b.hi));
}
CK_SIMD8_INLINE ck_v8 v8_add(ck_v8 a, ck_v8 b) { return v8_make(vaddq_f32(a.lo, b.lo), vaddq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE ck_v8 v8_sub(ck_v8 a, ck_v8 b) { return v8_make(vsubq_f32(a.lo, b.lo), vsubq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE ck_v8 v8_mul(ck_v8 a, ck_v8 b) { return v8_make(vmulq_f32(a.lo, b.lo), vmulq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE ck_v8 v8_div(ck_v8 a, ck_v8 b) { return v8_make(vdivq_f32(a.lo, b.lo), vdivq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE ck_v8 v8_greater_of(ck_v8 a, ck_v8 b) {
    return v8_make(vbslq_f32(vcgtq_f32(a.lo, b.lo), a.lo, b.lo), vbslq_f32(vcgtq_f32(a.hi, b.hi), a.hi, b.hi));
}
CK_SIMD8_INLINE ck_v8 v8_lesser_of(ck_v8 a, ck_v8 b) {
    return v8_make(vbslq_f32(vcltq_f32(a.lo, b.lo), a.lo, b.lo), vbslq_f32(vcltq_f32(a.hi, b.hi), a.hi, b.hi));
}
CK_SIMD8_INLINE float32x4_t v4_prelu_ge(float32x4_t a, float32x4_t b) {
    return vbslq_f32(vcgezq_f32(a), a, vmulq_f32(a, b));
}
CK_SIMD8_INLINE ck_v8 v8_prelu_ge(ck_v8 a, ck_v8 b) { return v8_make(v4_prelu_ge(a.lo, b.lo), v4_prelu_ge(a.hi, b.hi)); }
/// e^x with the same steps as the AVX2 version.
CK_SIMD8_INLINE float32x4_t v4_exp(float32x4_t x) {
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.0f)), vdupq_n_f32(88.0f));
    const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    float32x4_t p = vdupq_n_f32(1.0f / 5040.0f);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 720.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 120.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 24.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f / 6.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(0.5f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    const int32x4_t scale = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vmulq_f32(p, vreinterpretq_f32_s32(scale));
}
CK_SIMD8_INLINE ck_v8 v8_exp(ck_v8 x) { return v8_make(v4_exp(x.lo), v4_exp(x.hi)); }
// vminq/vmaxq return NaN for NaN inputs, like the portable comparisons do for a NaN operand
// in the second position; clamps only meet NaN on broken models.
CK_SIMD8_INLINE ck_v8 v8_min(ck_v8 a, ck_v8 b) { return v8_make(vminq_f32(a.lo, b.lo), vminq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE ck_v8 v8_max(ck_v8 a, ck_v8 b) { return v8_make(vmaxq_f32(a.lo, b.lo), vmaxq_f32(a.hi, b.hi)); }
CK_SIMD8_INLINE float32x4_t v4_prelu(float32x4_t v, float32x4_t slope) {
    uint32x4_t negative = vcltzq_s32(vreinterpretq_s32_f32(v)); // sign bit set (like blendv)
    return vbslq_f32(negative, vmulq_f32(v, slope), v);
}
CK_SIMD8_INLINE ck_v8 v8_prelu(ck_v8 v, ck_v8 slope) {
    return v8_make(v4_prelu(v.lo, slope.lo), v4_prelu(v.hi, slope.hi));
}
CK_SIMD8_INLINE ck_v8 v8_load_f16(const uint16_t *p) {
    float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(p));
    return v8_make(vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h));
}
CK_SIMD8_INLINE ck_v8 v8_load_partial(const float *p, size_t count) {
    float tmp[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < count && i < 8; i++) tmp[i] = p[i];
    return v8_load(tmp);
}
CK_SIMD8_INLINE void v8_store_partial(float *p, ck_v8 v, size_t count) {
    float tmp[8];
    v8_store(tmp, v);
    for (size_t i = 0; i < count && i < 8; i++) p[i] = tmp[i];
}
CK_SIMD8_INLINE float v8_sum(ck_v8 v) {
    // The same pairing as the AVX2 version: lanes i and i+4 first.
    float32x4_t s = vaddq_f32(v.lo, v.hi);
    float32x2_t t = vadd_f32(vget_low_f32(s), vget_high_f32(s));
    return vget_lane_f32(t, 0) + vget_lane_f32(t, 1);
}
/// Transposes the 4x4 matrix with rows a, b, c, d in place.
CK_SIMD8_INLINE void v4_transpose4(float32x4_t *a, float32x4_t *b, float32x4_t *c, float32x4_t *d) {
    const float64x2_t t0 = vreinterpretq_f64_f32(vtrn1q_f32(*a, *b)), t1 = vreinterpretq_f64_f32(vtrn2q_f32(*a, *b));
    const float64x2_t t2 = vreinterpretq_f64_f32(vtrn1q_f32(*c, *d)), t3 = vreinterpretq_f64_f32(vtrn2q_f32(*c, *d));
    *a = vreinterpretq_f32_f64(vtrn1q_f64(t0, t2));
    *b = vreinterpretq_f32_f64(vtrn1q_f64(t1, t3));
    *c = vreinterpretq_f32_f64(vtrn2q_f64(t0, t2));
    *d = vreinterpretq_f32_f64(vtrn2q_f64(t1, t3));
}
/// Transposes the 8x8 matrix whose rows are r[0..7] in place: four 4x4 quadrants, the two
/// off the diagonal swapped.
CK_SIMD8_INLINE void v8_transpose8(ck_v8 r[8]) {
    v4_transpose4(&r[0].lo, &r[1].lo, &r[2].lo, &r[3].lo);
    v4_transpose4(&r[4].lo, &r[5].lo, &r[6].lo, &r[7].lo);
    v4_transpose4(&r[0].hi, &r[1].hi, &r[2].hi, &r[3].hi);
    v4_transpose4(&r[4].hi, &r[5].hi, &r[6].hi, &r[7].hi);
    for (int i = 0; i < 4; i++) {
        const float32x4_t upper_right = r[i].hi;
        r[i].hi = r[i + 4].lo;
        r[i + 4].lo = upper_right;
    }
}
#endif

/// Whether the kernels written with ck_v8 run on this CPU at the current dispatch level (on x86
/// at AVX2 and at AVX-512, where the kernels without an AVX-512 version run them).
static inline int ck_use_simd8(void) {
#if defined(CK_HAVE_X86)
    return ck_isa_has_avx2(ck_active_isa());
#elif defined(__aarch64__)
    return ck_active_isa() == CK_ISA_NEON;
#else
    return 0;
#endif
}

#endif
