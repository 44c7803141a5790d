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

#endif

#if defined(CK_HAVE_X86)
/// P output pixels (input origins `pixel_step` floats apart) x all channels, for pixels whose
/// taps all lie inside the input: tap t of a pixel reads base + offsets[t]. Weights are read
/// once per tap for all P pixels.
CK_AVX2 static inline __attribute__((always_inline)) void
dw_interior_avx2(const int P, const size_t taps, const float *base, const ptrdiff_t *offsets,
                 size_t pixel_step, size_t channels, const float *packed, float *out,
                 __m256 vlo, __m256 vhi, const float *prelu) {
    const size_t tile_size = CT * (1 + taps);
    size_t c0 = 0;
    for (; c0 + CT <= channels; c0 += CT) {
        const float *w = packed + (c0 / CT) * tile_size;
        __m256 acc[4][2];
        for (int q = 0; q < P; q++) {
            acc[q][0] = _mm256_loadu_ps(w);
            acc[q][1] = _mm256_loadu_ps(w + 8);
        }
        for (size_t t = 0; t < taps; t++) {
            const __m256 w0 = _mm256_loadu_ps(w + CT + t * CT), w1 = _mm256_loadu_ps(w + CT + t * CT + 8);
            const float *x = base + offsets[t] + c0;
            for (int q = 0; q < P; q++) {
                acc[q][0] = _mm256_fmadd_ps(_mm256_loadu_ps(x + q * pixel_step), w0, acc[q][0]);
                acc[q][1] = _mm256_fmadd_ps(_mm256_loadu_ps(x + q * pixel_step + 8), w1, acc[q][1]);
            }
        }
        for (int q = 0; q < P; q++) {
            __m256 v0 = _mm256_min_ps(_mm256_max_ps(acc[q][0], vlo), vhi);
            __m256 v1 = _mm256_min_ps(_mm256_max_ps(acc[q][1], vlo), vhi);
            if (prelu != NULL) {
                v0 = _mm256_blendv_ps(v0, _mm256_mul_ps(v0, _mm256_loadu_ps(prelu + c0)), v0);
                v1 = _mm256_blendv_ps(v1, _mm256_mul_ps(v1, _mm256_loadu_ps(prelu + c0 + 8)), v1);
            }
            _mm256_storeu_ps(out + q * channels + c0, v0);
            _mm256_storeu_ps(out + q * channels + c0 + 8, v1);
        }
    }
    // 8 remaining channels: plain loads.
    if (c0 + 8 <= channels) {
        const float *w = packed + (c0 / CT) * tile_size + (c0 % CT);
        __m256 acc[4];
        for (int q = 0; q < P; q++) acc[q] = _mm256_loadu_ps(w);
        for (size_t t = 0; t < taps; t++) {
            const __m256 wt = _mm256_loadu_ps(w + CT + t * CT);
            const float *x = base + offsets[t] + c0;
            for (int q = 0; q < P; q++) acc[q] = _mm256_fmadd_ps(_mm256_loadu_ps(x + q * pixel_step), wt, acc[q]);
        }
        for (int q = 0; q < P; q++) {
            __m256 v = _mm256_min_ps(_mm256_max_ps(acc[q], vlo), vhi);
            if (prelu != NULL) v = _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_loadu_ps(prelu + c0)), v);
            _mm256_storeu_ps(out + q * channels + c0, v);
        }
        c0 += 8;
    }
    // Fewer than 8 remaining channels: masked.
    for (; c0 < channels; c0 += 8) {
        const float *w = packed + (c0 / CT) * tile_size + (c0 % CT);
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(channels - c0)), lane);
        __m256 acc[4];
        for (int q = 0; q < P; q++) acc[q] = _mm256_loadu_ps(w);
        for (size_t t = 0; t < taps; t++) {
            const __m256 wt = _mm256_loadu_ps(w + CT + t * CT);
            const float *x = base + offsets[t] + c0;
            for (int q = 0; q < P; q++) {
                acc[q] = _mm256_fmadd_ps(_mm256_maskload_ps(x + q * pixel_step, mask), wt, acc[q]);
            }
        }
        for (int q = 0; q < P; q++) {
            _mm256_maskstore_ps(out + q * channels + c0, mask,
                                dw_activate(acc[q], vlo, vhi, prelu ? prelu + c0 : NULL, mask));
        }
    }
}

/// One output row: border pixels through per-tap pointers, interior pixels 4 at a time.
CK_AVX2 static inline __attribute__((always_inline)) void
dw_row_avx2_body(const ck_dwconv_params *p, size_t row, const size_t taps, const ptrdiff_t *offsets) {
    const size_t c = p->channels;
    const __m256 vlo = _mm256_set1_ps(p->out_min), vhi = _mm256_set1_ps(p->out_max);
    size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * p->in_w * c;
    float *out = p->output + row * p->out_w * c;
    // Vertical: are all kernel rows inside the image?
    size_t iy_plus = oy * p->stride_h;
    int rows_inside = iy_plus >= p->pad_top &&
                      iy_plus - p->pad_top + (p->kernel_h - 1) * p->dilation_h < p->in_h;
    // Horizontal interior range [x_lo, x_hi) of output columns.
    size_t x_lo = (p->pad_left + p->stride_w - 1) / p->stride_w;
    size_t span = (p->kernel_w - 1) * p->dilation_w;
    size_t x_hi = 0;
    if (p->in_w + p->pad_left >= span + 1) {
        x_hi = (p->in_w + p->pad_left - span - 1) / p->stride_w + 1;
        if (x_hi > p->out_w) x_hi = p->out_w;
    }
    if (!rows_inside || x_lo >= x_hi) {
        x_lo = 0;
        x_hi = 0;
    }
    const float *ptrs[CK_DWCONV_MAX_TAPS];
    const size_t pixel_step = p->stride_w * c;
    size_t ox = 0;
    while (ox < p->out_w) {
        if (ox >= x_lo && ox < x_hi) {
            const float *base = image + ((iy_plus - p->pad_top) * p->in_w + (ox * p->stride_w - p->pad_left)) * c;
            if (ox + 4 <= x_hi) {
                dw_interior_avx2(4, taps, base, offsets, pixel_step, c, p->packed, out + ox * c, vlo, vhi, p->prelu);
                ox += 4;
            } else {
                dw_interior_avx2(1, taps, base, offsets, pixel_step, c, p->packed, out + ox * c, vlo, vhi, p->prelu);
                ox += 1;
            }
            continue;
        }
        size_t k = 0;
        for (size_t ky = 0; ky < p->kernel_h; ky++) {
            size_t yy = iy_plus + ky * p->dilation_h;
            int row_ok = yy >= p->pad_top && yy - p->pad_top < p->in_h;
            for (size_t kx = 0; kx < p->kernel_w; kx++, k++) {
                size_t xx = ox * p->stride_w + kx * p->dilation_w;
                int ok = row_ok && xx >= p->pad_left && xx - p->pad_left < p->in_w;
                ptrs[k] = ok ? image + ((yy - p->pad_top) * p->in_w + (xx - p->pad_left)) * c : p->zero;
            }
        }
        dw_pixel_avx2_body(c, taps, ptrs, p->packed, out + ox * c, p->out_min, p->out_max, p->prelu);
        ox++;
    }
}

CK_AVX2 static void dw_row_avx2_9(const ck_dwconv_params *p, size_t row, const ptrdiff_t *offsets) {
    dw_row_avx2_body(p, row, 9, offsets);
}
CK_AVX2 static void dw_row_avx2_25(const ck_dwconv_params *p, size_t row, const ptrdiff_t *offsets) {
    dw_row_avx2_body(p, row, 25, offsets);
}
CK_AVX2 static void dw_row_avx2_any(const ck_dwconv_params *p, size_t row, const ptrdiff_t *offsets) {
    dw_row_avx2_body(p, row, p->kernel_h * p->kernel_w, offsets);
}
#endif

typedef void (*dw_row_fn)(const ck_dwconv_params *p, size_t row, const ptrdiff_t *offsets);

static void dw_row_portable(const ck_dwconv_params *p, size_t row, const ptrdiff_t *offsets) {
    (void)offsets;
    const size_t taps = p->kernel_h * p->kernel_w;
    const size_t c = p->channels;
    const float *ptrs[CK_DWCONV_MAX_TAPS];
    size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * p->in_w * c;
    float *out = p->output + row * p->out_w * c;
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
        dw_pixel_portable(c, taps, ptrs, p->packed, out + ox * c, p->out_min, p->out_max, p->prelu);
    }
}

typedef struct dw_job {
    const ck_dwconv_params *p;
    dw_row_fn row;
    ptrdiff_t offsets[CK_DWCONV_MAX_TAPS];
} dw_job;

static void dw_rows(void *context, size_t begin, size_t end) {
    const dw_job *job = (const dw_job *)context;
    for (size_t row = begin; row < end; row++) job->row(job->p, row, job->offsets);
}

void ck_dwconv(const ck_dwconv_params *p, ck_threadpool *pool) {
    size_t taps = p->kernel_h * p->kernel_w;
    if (taps == 0 || taps > CK_DWCONV_MAX_TAPS || p->channels == 0) return;
    dw_job job;
    job.p = p;
    job.row = dw_row_portable;
    size_t k = 0;
    for (size_t ky = 0; ky < p->kernel_h; ky++) {
        for (size_t kx = 0; kx < p->kernel_w; kx++, k++) {
            job.offsets[k] = (ptrdiff_t)((ky * p->dilation_h * p->in_w + kx * p->dilation_w) * p->channels);
        }
    }
#if defined(CK_HAVE_X86)
    if (ck_use_avx2()) job.row = taps == 9 ? dw_row_avx2_9 : taps == 25 ? dw_row_avx2_25 : dw_row_avx2_any;
#endif
    ck_parallel_for(pool, p->batch * p->out_h, dw_rows, &job);
}
