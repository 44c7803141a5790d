// Depthwise convolution (depth multiplier 1): for each output pixel, a pointer per kernel tap
// (to the input pixel, or to a zero buffer outside the image), then channels in tiles of 16
// with the bias and the fused activation applied on the way out.
#include "ck_internal.h"

#define CT CK_DWCONV_CHANNEL_TILE

size_t ck_dwconv_packed_size(size_t channels, size_t taps) {
    size_t tiles = (channels + CT - 1) / CT;
    return tiles * CT * (1 + taps);
}

void ck_dwconv_pack(size_t channels, size_t taps, const float *weights, const float *bias,
                    float *packed) {
    size_t tiles = (channels + CT - 1) / CT;
    for (size_t t = 0; t < tiles; t++) {
        float *dst = packed + t * CT * (1 + taps);
        for (size_t j = 0; j < CT; j++) {
            size_t c = t * CT + j;
            dst[j] = (c < channels && bias != NULL) ? bias[c] : 0.0f;
        }
        for (size_t k = 0; k < taps; k++) {
            for (size_t j = 0; j < CT; j++) {
                size_t c = t * CT + j;
                dst[CT + k * CT + j] = c < channels ? weights[k * channels + c] : 0.0f;
            }
        }
    }
}

typedef void (*dw_pixel_fn)(size_t channels, size_t taps, const float *const *in,
                            const float *w, float *out, float lo, float hi, const float *prelu);

static void dw_pixel_portable(size_t channels, size_t taps, const float *const *in,
                              const float *w, float *out, float lo, float hi,
                              const float *prelu) {
    for (size_t c0 = 0; c0 < channels; c0 += CT) {
        size_t n = CK_MIN(CT, channels - c0);
        float acc[CT];
        for (size_t j = 0; j < CT; j++) acc[j] = w[j];
        const float *wk = w + CT;
        for (size_t k = 0; k < taps; k++) {
            const float *x = in[k] + c0;
            for (size_t j = 0; j < n; j++) acc[j] += x[j] * wk[j];
            wk += CT;
        }
        for (size_t j = 0; j < n; j++) out[c0 + j] = ck_activate(acc[j], lo, hi, prelu, c0 + j);
        w += CT * (1 + taps);
    }
}

#if defined(CK_HAVE_X86)
CK_AVX2 static inline __m256 dw_activate(__m256 v, __m256 lo, __m256 hi, const float *slope,
                                         __m256i mask) {
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    if (slope != NULL) {
        __m256 s = _mm256_maskload_ps(slope, mask);
        v = _mm256_blendv_ps(v, _mm256_mul_ps(v, s), v);
    }
    return v;
}

/// One tile of 16 channels over `taps` taps; the compiler unrolls the tap loop when `taps`
/// is a constant (3x3 and 5x5 kernels below).
CK_AVX2 static inline __attribute__((always_inline)) void
dw_tile_avx2(size_t taps, const float *const *in, size_t c0, const float *w, float *out,
             __m256 vlo, __m256 vhi, const float *prelu) {
    __m256 acc0 = _mm256_loadu_ps(w), acc1 = _mm256_loadu_ps(w + 8);
    const float *wk = w + CT;
    for (size_t k = 0; k < taps; k++) {
        const float *x = in[k] + c0;
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(wk), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8), _mm256_loadu_ps(wk + 8), acc1);
        wk += CT;
    }
    acc0 = _mm256_min_ps(_mm256_max_ps(acc0, vlo), vhi);
    acc1 = _mm256_min_ps(_mm256_max_ps(acc1, vlo), vhi);
    if (prelu != NULL) {
        acc0 = _mm256_blendv_ps(acc0, _mm256_mul_ps(acc0, _mm256_loadu_ps(prelu + c0)), acc0);
        acc1 = _mm256_blendv_ps(acc1, _mm256_mul_ps(acc1, _mm256_loadu_ps(prelu + c0 + 8)), acc1);
    }
    _mm256_storeu_ps(out + c0, acc0);
    _mm256_storeu_ps(out + c0 + 8, acc1);
}

CK_AVX2 static inline __attribute__((always_inline)) void
dw_pixel_avx2_body(size_t channels, size_t taps, const float *const *in, const float *w,
                   float *out, float lo, float hi, const float *prelu) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    size_t full = channels / CT * CT;
    size_t c0 = 0;
    for (; c0 < full; c0 += CT) {
        dw_tile_avx2(taps, in, c0, w, out, vlo, vhi, prelu);
        w += CT * (1 + taps);
    }
    if (c0 < channels) {
        // Tail tile: masked loads and stores keep every access inside the tensors.
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        int rest = (int)(channels - c0);
        const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(rest), lane);
        const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(rest - 8), lane);
        __m256 acc0 = _mm256_loadu_ps(w), acc1 = _mm256_loadu_ps(w + 8);
        const float *wk = w + CT;
        for (size_t k = 0; k < taps; k++) {
            const float *x = in[k] + c0;
            acc0 = _mm256_fmadd_ps(_mm256_maskload_ps(x, m0), _mm256_loadu_ps(wk), acc0);
            acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(x + 8, m1), _mm256_loadu_ps(wk + 8), acc1);
            wk += CT;
        }
        _mm256_maskstore_ps(out + c0, m0, dw_activate(acc0, vlo, vhi, prelu ? prelu + c0 : NULL, m0));
        _mm256_maskstore_ps(out + c0 + 8, m1,
                            dw_activate(acc1, vlo, vhi, prelu ? prelu + c0 + 8 : NULL, m1));
    }
}

CK_AVX2 static void dw_pixel_avx2_9(size_t channels, size_t taps, const float *const *in,
                                    const float *w, float *out, float lo, float hi,
                                    const float *prelu) {
    (void)taps;
    dw_pixel_avx2_body(channels, 9, in, w, out, lo, hi, prelu);
}

CK_AVX2 static void dw_pixel_avx2_25(size_t channels, size_t taps, const float *const *in,
                                     const float *w, float *out, float lo, float hi,
                                     const float *prelu) {
    (void)taps;
    dw_pixel_avx2_body(channels, 25, in, w, out, lo, hi, prelu);
}

CK_AVX2 static void dw_pixel_avx2_any(size_t channels, size_t taps, const float *const *in,
                                      const float *w, float *out, float lo, float hi,
                                      const float *prelu) {
    dw_pixel_avx2_body(channels, taps, in, w, out, lo, hi, prelu);
}
#endif

typedef struct dw_job {
    const ck_dwconv_params *p;
    dw_pixel_fn pixel;
} dw_job;

static void dw_rows(void *context, size_t begin, size_t end) {
    const dw_job *job = (const dw_job *)context;
    const ck_dwconv_params *p = job->p;
    const size_t taps = p->kernel_h * p->kernel_w;
    const size_t c = p->channels;
    const float *ptrs[CK_DWCONV_MAX_TAPS];
    for (size_t row = begin; row < end; row++) {
        size_t b = row / p->out_h, oy = row % p->out_h;
        const float *image = p->input + b * p->in_h * p->in_w * c;
        float *out = p->output + (b * p->out_h + oy) * p->out_w * c;
        for (size_t ox = 0; ox < p->out_w; ox++) {
            size_t k = 0;
            for (size_t ky = 0; ky < p->kernel_h; ky++) {
                // iy = oy * stride + ky * dilation - pad_top, computed without going negative.
                size_t iy_plus = oy * p->stride_h + ky * p->dilation_h;
                int row_ok = iy_plus >= p->pad_top && iy_plus - p->pad_top < p->in_h;
                size_t iy = iy_plus - p->pad_top;
                for (size_t kx = 0; kx < p->kernel_w; kx++, k++) {
                    size_t ix_plus = ox * p->stride_w + kx * p->dilation_w;
                    int ok = row_ok && ix_plus >= p->pad_left && ix_plus - p->pad_left < p->in_w;
                    ptrs[k] = ok ? image + (iy * p->in_w + (ix_plus - p->pad_left)) * c : p->zero;
                }
            }
            job->pixel(c, taps, ptrs, p->packed, out + ox * c, p->out_min, p->out_max, p->prelu);
        }
    }
}

void ck_dwconv(const ck_dwconv_params *p, ck_threadpool *pool) {
    size_t taps = p->kernel_h * p->kernel_w;
    if (taps == 0 || taps > CK_DWCONV_MAX_TAPS || p->channels == 0) return;
    dw_job job = {p, dw_pixel_portable};
#if defined(CK_HAVE_X86)
    if (ck_use_avx2()) {
        job.pixel = taps == 9 ? dw_pixel_avx2_9 : taps == 25 ? dw_pixel_avx2_25 : dw_pixel_avx2_any;
    }
#endif
    ck_parallel_for(pool, p->batch * p->out_h, dw_rows, &job);
}
