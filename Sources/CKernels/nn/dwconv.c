// Depthwise convolution (depth multiplier 1) with the bias and the activation (clamp, PReLU)
// fused. Channels are processed in blocks of 8 (one AVX2 register, two NEON registers), with
// the weights packed per block at load time.
//
// The fast path (3x3 and 5x5 kernels, strides 1 and 2, no dilation, whole blocks of 8
// channels) computes up to 8 output pixels of a row at once: each input pixel of a kernel row
// is loaded once and multiplied into every output pixel that uses it, with the kernel row's
// weights held in registers. Taps outside the input are skipped. Every output value is
// bias + sum over taps in (row, column) order with one fused multiply-add per tap, the same
// order as the general path, so the result does not depend on the path or on the threads.
//
// With AVX-512 the fast path takes two blocks of 8 channels per zmm register (their packed
// weights joined at load), with the same arithmetic; a last odd block runs with the upper half
// masked off.
#include "ck_internal.h"
#include "ck_simd8.h"

#define CB CK_DWCONV_CHANNEL_TILE

size_t ck_dwconv_packed_size(size_t channels, size_t taps) {
    size_t blocks = (channels + CB - 1) / CB;
    return blocks * CB * (1 + taps);
}

void ck_dwconv_pack(size_t channels, size_t taps, const float *weights, const float *bias,
                    float *packed) {
    size_t blocks = (channels + CB - 1) / CB;
    for (size_t t = 0; t < blocks; t++) {
        float *dst = packed + t * CB * (1 + taps);
        for (size_t j = 0; j < CB; j++) {
            size_t c = t * CB + j;
            dst[j] = (c < channels && bias != NULL) ? bias[c] : 0.0f;
        }
        for (size_t k = 0; k < taps; k++) {
            for (size_t j = 0; j < CB; j++) {
                size_t c = t * CB + j;
                dst[CB + k * CB + j] = c < channels ? weights[k * channels + c] : 0.0f;
            }
        }
    }
}

/// The output row's vertical geometry: input row of kernel row 0 (may be negative) and the
/// kernel rows [ky_begin, ky_end) that fall inside the input.
typedef struct dw_rows {
    const float *image; ///< the batch item's input
    ptrdiff_t iy0;
    size_t ky_begin, ky_end;
} dw_rows;

static inline dw_rows dw_row_geometry(const ck_dwconv_params *p, size_t row) {
    dw_rows r;
    size_t b = row / p->out_h, oy = row % p->out_h;
    r.image = p->input + b * p->in_h * p->in_w * p->channels;
    r.iy0 = (ptrdiff_t)(oy * p->stride_h) - (ptrdiff_t)p->pad_top;
    // Kernel row ky reads input row iy0 + ky * dilation.
    size_t begin = 0, end = 0;
    for (size_t ky = 0; ky < p->kernel_h; ky++) {
        ptrdiff_t iy = r.iy0 + (ptrdiff_t)(ky * p->dilation_h);
        if (iy >= 0 && iy < (ptrdiff_t)p->in_h) {
            if (end == 0) begin = ky;
            end = ky + 1;
        }
    }
    r.ky_begin = begin;
    r.ky_end = end;
    return r;
}

// MARK: - Portable

/// Channels [c_begin, c_end) of one output row, pixel by pixel.
static void dw_row_portable(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    const size_t C = p->channels, taps = p->kernel_h * p->kernel_w;
    const dw_rows g = dw_row_geometry(p, row);
    float *out_row = p->output + row * p->out_w * C;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * p->stride_w) - (ptrdiff_t)p->pad_left;
        for (size_t c0 = c_begin; c0 < c_end; c0 += CB) {
            const size_t n = CK_MIN(CB, c_end - c0);
            const float *w = p->packed + (c0 / CB) * CB * (1 + taps);
            float acc[CB];
            for (size_t j = 0; j < CB; j++) acc[j] = w[j];
            for (size_t ky = g.ky_begin; ky < g.ky_end; ky++) {
                const ptrdiff_t iy = g.iy0 + (ptrdiff_t)(ky * p->dilation_h);
                const float *r = g.image + (size_t)iy * p->in_w * C + c0;
                for (size_t kx = 0; kx < p->kernel_w; kx++) {
                    const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * p->dilation_w);
                    if (ix < 0 || ix >= (ptrdiff_t)p->in_w) continue;
                    const float *x = r + (size_t)ix * C;
                    const float *wk = w + CB + (ky * p->kernel_w + kx) * CB;
                    for (size_t j = 0; j < n; j++) acc[j] += x[j] * wk[j];
                }
            }
            float *out = out_row + ox * C + c0;
            for (size_t j = 0; j < n; j++) out[j] = ck_activate(acc[j], p->out_min, p->out_max, p->prelu, c0 + j);
        }
    }
}

// MARK: - SIMD (AVX2 / NEON)

#if defined(CK_SIMD8)

/// Any geometry, one output pixel at a time, `lanes` (1...8) channels of one block.
CK_SIMD8_INLINE void dw_pixel_general(const ck_dwconv_params *p, const dw_rows *g, size_t ox, size_t c0,
                                      size_t lanes, float *out, ck_v8 lo, ck_v8 hi) {
    const size_t C = p->channels, taps = p->kernel_h * p->kernel_w;
    const float *w = p->packed + (c0 / CB) * CB * (1 + taps);
    const ptrdiff_t ix0 = (ptrdiff_t)(ox * p->stride_w) - (ptrdiff_t)p->pad_left;
    ck_v8 acc = v8_load(w);
    for (size_t ky = g->ky_begin; ky < g->ky_end; ky++) {
        const ptrdiff_t iy = g->iy0 + (ptrdiff_t)(ky * p->dilation_h);
        const float *r = g->image + (size_t)iy * p->in_w * C + c0;
        for (size_t kx = 0; kx < p->kernel_w; kx++) {
            const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * p->dilation_w);
            if (ix < 0 || ix >= (ptrdiff_t)p->in_w) continue;
            const float *x = r + (size_t)ix * C;
            const ck_v8 xv = lanes == CB ? v8_load(x) : v8_load_partial(x, lanes);
            acc = v8_fma(xv, v8_load(w + CB + (ky * p->kernel_w + kx) * CB), acc);
        }
    }
    acc = v8_min(v8_max(acc, lo), hi);
    if (p->prelu != NULL) {
        const ck_v8 slope = lanes == CB ? v8_load(p->prelu + c0) : v8_load_partial(p->prelu + c0, lanes);
        acc = v8_prelu(acc, slope);
    }
    if (lanes == CB) {
        v8_store(out, acc);
    } else {
        v8_store_partial(out, acc, lanes);
    }
}

CK_SIMD8_FN static void dw_row_simd_general(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    const size_t C = p->channels;
    const dw_rows g = dw_row_geometry(p, row);
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    float *out_row = p->output + row * p->out_w * C;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        for (size_t c0 = c_begin; c0 < c_end; c0 += CB) {
            dw_pixel_general(p, &g, ox, c0, CK_MIN(CB, c_end - c0), out_row + ox * C + c0, lo, hi);
        }
    }
}

/// W output pixels (columns ox ... ox + W - 1 of one row) x channels [c_begin, c_end) (whole
/// blocks of 8) for a K x K kernel with stride S. rows[ky] points at column 0, channel 0 of
/// kernel row ky's input row; kernel rows outside [ky_begin, ky_end) lie outside the input.
/// ix0 is the input column of the first pixel's first tap. CHECKED: some taps fall left or
/// right of the input and are skipped; otherwise all columns are inside. out points at the
/// first pixel, channel 0.
CK_SIMD8_INLINE void dw_span(const int W, const int K, const int S, const int CHECKED,
                             const float *const *rows, size_t ky_begin, size_t ky_end, ptrdiff_t ix0,
                             size_t in_w, size_t C, size_t c_begin, size_t c_end, const float *packed,
                             float *out, ck_v8 lo, ck_v8 hi, const float *prelu) {
    const size_t block_floats = CB * (1 + (size_t)K * K);
    for (size_t c0 = c_begin; c0 < c_end; c0 += CB) {
        const float *w = packed + (c0 / CB) * block_floats;
        ck_v8 acc[8];
        const ck_v8 bias = v8_load(w);
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) acc[j] = bias;
        for (size_t ky = ky_begin; ky < ky_end; ky++) {
            const float *row = rows[ky] + c0;
            const float *wk = w + CB + ky * (size_t)K * CB;
            ck_v8 wv[5];
#pragma clang loop unroll(full)
            for (int kx = 0; kx < K; kx++) wv[kx] = v8_load(wk + kx * CB);
#pragma clang loop unroll(full)
            for (int t = 0; t < (W - 1) * S + K; t++) {
                const ptrdiff_t ix = ix0 + t;
                if (CHECKED && (ix < 0 || ix >= (ptrdiff_t)in_w)) continue;
                const ck_v8 x = v8_load(row + ix * (ptrdiff_t)C);
#pragma clang loop unroll(full)
                for (int j = 0; j < W; j++) {
                    const int kx = t - j * S;
                    if (kx >= 0 && kx < K) acc[j] = v8_fma(x, wv[kx], acc[j]);
                }
            }
        }
        if (prelu != NULL) {
            const ck_v8 slope = v8_load(prelu + c0);
#pragma clang loop unroll(full)
            for (int j = 0; j < W; j++) v8_store(out + (size_t)j * C + c0, v8_prelu(v8_min(v8_max(acc[j], lo), hi), slope));
        } else {
#pragma clang loop unroll(full)
            for (int j = 0; j < W; j++) v8_store(out + (size_t)j * C + c0, v8_min(v8_max(acc[j], lo), hi));
        }
    }
}

/// One output row, channels [c_begin, c_end) (whole blocks), for a K x K kernel, stride S.
/// Blocks of output pixels outside, channel blocks inside: the input pixels a block of output
/// pixels reads stay in the L1 cache while all their channels are processed.
CK_SIMD8_INLINE void dw_row_fast(const int K, const int S, const ck_dwconv_params *p, size_t row,
                                 size_t c_begin, size_t c_end) {
    const size_t C = p->channels, in_w = p->in_w, out_w = p->out_w;
    const dw_rows g = dw_row_geometry(p, row);
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    float *out_row = p->output + row * out_w * C;
    // Output columns [x_lo, x_hi) have every tap inside the input.
    const size_t x_lo = (p->pad_left + S - 1) / S;
    size_t x_hi = in_w + p->pad_left >= (size_t)K ? (in_w + p->pad_left - K) / S + 1 : 0;
    if (x_hi > out_w) x_hi = out_w;
    const float *rows[5] = {0, 0, 0, 0, 0};
    for (size_t ky = g.ky_begin; ky < g.ky_end; ky++) {
        rows[ky] = g.image + (size_t)(g.iy0 + (ptrdiff_t)ky) * in_w * C;
    }
    size_t ox = 0;
    while (ox < out_w) {
        const size_t left = out_w - ox;
        // The rest of the row in one span when it has 8 pixels or fewer (a 7-pixel row as one
        // span instead of 4 + 2 + 1, each of which loads the weights again).
        const int W = left >= 8 ? 8 : (int)left;
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        float *out = out_row + ox * C;
#define CK_DW_SPAN(WW)                                                                                             \
    if (inside) dw_span(WW, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    else dw_span(WW, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu);
        switch (W) {
        case 8: CK_DW_SPAN(8) break;
        case 7: CK_DW_SPAN(7) break;
        case 6: CK_DW_SPAN(6) break;
        case 5: CK_DW_SPAN(5) break;
        case 4: CK_DW_SPAN(4) break;
        case 3: CK_DW_SPAN(3) break;
        case 2: CK_DW_SPAN(2) break;
        default: CK_DW_SPAN(1) break;
        }
#undef CK_DW_SPAN
        ox += (size_t)W;
    }
}

CK_SIMD8_FN static void dw_row_3x3s1(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast(3, 1, p, row, c_begin, c_end);
}
CK_SIMD8_FN static void dw_row_3x3s2(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast(3, 2, p, row, c_begin, c_end);
}
CK_SIMD8_FN static void dw_row_5x5s1(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast(5, 1, p, row, c_begin, c_end);
}
CK_SIMD8_FN static void dw_row_5x5s2(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast(5, 2, p, row, c_begin, c_end);
}
#endif

// MARK: - AVX-512

#if defined(CK_HAVE_X86)
/// The packed 8-channel values at `offset` of blocks b and b + 1 as one zmm (b + 1 only when
/// `pair`, else zeros above).
CK_AVX512_INLINE __m512 z_pair(const float *block, size_t block_floats, size_t offset, int pair) {
    const __m512 lo = _mm512_castps256_ps512(_mm256_loadu_ps(block + offset));
    return pair ? _mm512_insertf32x8(lo, _mm256_loadu_ps(block + block_floats + offset), 1)
                : _mm512_insertf32x8(lo, _mm256_setzero_ps(), 1);
}

/// dw_span with 16 channels (two packed blocks) per vector.
CK_AVX512_INLINE void dw_span_z(const int W, const int K, const int S, const int CHECKED,
                                const float *const *rows, size_t ky_begin, size_t ky_end, ptrdiff_t ix0,
                                size_t in_w, size_t C, size_t c_begin, size_t c_end, const float *packed,
                                float *out, __m512 lo, __m512 hi, const float *prelu) {
    const size_t block_floats = CB * (1 + (size_t)K * K);
    for (size_t c0 = c_begin; c0 < c_end; c0 += 2 * CB) {
        const int pair = c0 + CB < c_end;
        const __mmask16 mask = pair ? (__mmask16)0xffff : (__mmask16)0x00ff;
        const float *w = packed + (c0 / CB) * block_floats;
        __m512 acc[8];
        const __m512 bias = z_pair(w, block_floats, 0, pair);
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) acc[j] = bias;
        for (size_t ky = ky_begin; ky < ky_end; ky++) {
            const float *row = rows[ky] + c0;
            __m512 wv[5];
#pragma clang loop unroll(full)
            for (int kx = 0; kx < K; kx++) wv[kx] = z_pair(w, block_floats, CB + (ky * (size_t)K + (size_t)kx) * CB, pair);
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

/// dw_row_fast with dw_span_z.
CK_AVX512_INLINE void dw_row_fast_z(const int K, const int S, const ck_dwconv_params *p, size_t row,
                                    size_t c_begin, size_t c_end) {
    const size_t C = p->channels, in_w = p->in_w, out_w = p->out_w;
    const dw_rows g = dw_row_geometry(p, row);
    const __m512 lo = _mm512_set1_ps(p->out_min), hi = _mm512_set1_ps(p->out_max);
    float *out_row = p->output + row * out_w * C;
    const size_t x_lo = (p->pad_left + S - 1) / S;
    size_t x_hi = in_w + p->pad_left >= (size_t)K ? (in_w + p->pad_left - K) / S + 1 : 0;
    if (x_hi > out_w) x_hi = out_w;
    const float *rows[5] = {0, 0, 0, 0, 0};
    for (size_t ky = g.ky_begin; ky < g.ky_end; ky++) {
        rows[ky] = g.image + (size_t)(g.iy0 + (ptrdiff_t)ky) * in_w * C;
    }
    size_t ox = 0;
    while (ox < out_w) {
        const size_t left = out_w - ox;
        const int W = left >= 8 ? 8 : (int)left;
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        float *out = out_row + ox * C;
#define CK_DW_SPAN_Z(WW)                                                                                             \
    if (inside) dw_span_z(WW, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    else dw_span_z(WW, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu);
        switch (W) {
        case 8: CK_DW_SPAN_Z(8) break;
        case 7: CK_DW_SPAN_Z(7) break;
        case 6: CK_DW_SPAN_Z(6) break;
        case 5: CK_DW_SPAN_Z(5) break;
        case 4: CK_DW_SPAN_Z(4) break;
        case 3: CK_DW_SPAN_Z(3) break;
        case 2: CK_DW_SPAN_Z(2) break;
        default: CK_DW_SPAN_Z(1) break;
        }
#undef CK_DW_SPAN_Z
        ox += (size_t)W;
    }
}

CK_AVX512 static void dw_row_3x3s1_z(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast_z(3, 1, p, row, c_begin, c_end);
}
CK_AVX512 static void dw_row_3x3s2_z(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast_z(3, 2, p, row, c_begin, c_end);
}
CK_AVX512 static void dw_row_5x5s1_z(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast_z(5, 1, p, row, c_begin, c_end);
}
CK_AVX512 static void dw_row_5x5s2_z(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    dw_row_fast_z(5, 2, p, row, c_begin, c_end);
}
#endif

typedef void (*dw_row_fn)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end);

/// The row kernel for this geometry at the current dispatch level.
static dw_row_fn dw_select(const ck_dwconv_params *p) {
#if defined(CK_HAVE_X86)
    if (ck_use_avx512()) {
        const int fast = p->kernel_h == p->kernel_w && p->stride_h == p->stride_w && p->dilation_h == 1 &&
                         p->dilation_w == 1 && p->channels % CB == 0;
        if (fast && p->kernel_h == 3 && p->stride_h == 1) return dw_row_3x3s1_z;
        if (fast && p->kernel_h == 3 && p->stride_h == 2) return dw_row_3x3s2_z;
        if (fast && p->kernel_h == 5 && p->stride_h == 1) return dw_row_5x5s1_z;
        if (fast && p->kernel_h == 5 && p->stride_h == 2) return dw_row_5x5s2_z;
    }
#endif
#if defined(CK_SIMD8)
    if (ck_use_simd8()) {
        const int fast = p->kernel_h == p->kernel_w && p->stride_h == p->stride_w && p->dilation_h == 1 &&
                         p->dilation_w == 1 && p->channels % CB == 0;
        if (fast && p->kernel_h == 3 && p->stride_h == 1) return dw_row_3x3s1;
        if (fast && p->kernel_h == 3 && p->stride_h == 2) return dw_row_3x3s2;
        if (fast && p->kernel_h == 5 && p->stride_h == 1) return dw_row_5x5s1;
        if (fast && p->kernel_h == 5 && p->stride_h == 2) return dw_row_5x5s2;
        return dw_row_simd_general;
    }
#endif
    return dw_row_portable;
}

typedef struct dw_job {
    const ck_dwconv_params *p;
    dw_row_fn row;
    /// Work units are (row, channel group) pairs; groups split the channels when there are too
    /// few rows to share among the threads.
    size_t groups, group_size;
    /// Units in channel-group-major order (all rows of a group, then the next group) instead
    /// of row-major; `rows` is the number of output rows.
    int channel_major;
    size_t rows;
} dw_job;

static void dw_rows_range(void *context, size_t begin, size_t end) {
    const dw_job *job = (const dw_job *)context;
    for (size_t unit = begin; unit < end; unit++) {
        const size_t row = job->channel_major ? unit % job->rows : unit / job->groups;
        const size_t group = job->channel_major ? unit / job->rows : unit % job->groups;
        size_t c_begin = group * job->group_size;
        size_t c_end = CK_MIN(job->p->channels, c_begin + job->group_size);
        job->row(job->p, row, c_begin, c_end);
    }
}

void ck_dwconv(const ck_dwconv_params *p, ck_threadpool *pool) {
    size_t taps = p->kernel_h * p->kernel_w;
    if (taps == 0 || taps > CK_DWCONV_MAX_TAPS || p->channels == 0 || p->out_w == 0) return;
    dw_job job;
    job.p = p;
    job.row = dw_select(p);
    const size_t rows = p->batch * p->out_h;
    pool = ck_pool_for_work(pool, rows * p->out_w * p->channels * taps);
    const size_t threads = (size_t)ck_threadpool_thread_count(pool);
    // Channel groups of whole vectors: 8 channels, or 16 with AVX-512.
    const size_t vector = ck_use_avx512() ? 2 * CB : CB;
    const size_t blocks = (p->channels + vector - 1) / vector;
    size_t groups = 1;
    job.channel_major = 0;
    job.rows = rows;
    if (threads > 1 && rows <= 4 * threads) {
        // So few rows that a thread's share plus the rows its kernel reaches beyond it is most
        // of the image (7x7 at 2 threads): the threads split the channels instead, in about
        // three groups each, taken group by group. The expansion before such a layer splits
        // its output channels the same way (the caller from the first, the workers from the
        // last), so each thread mostly reads what it wrote: hand_landmark_lite's five 7x7
        // layers took 42.3 and 41.9 µs in all at 2 threads with rows shared out, 40.2 and 36.3
        // with channels (best of 400 runs each, two alternations).
        groups = CK_MIN(blocks, 3 * threads);
        job.channel_major = 1;
    } else if (threads > 1 && rows < 8 * threads) {
        groups = CK_MIN(blocks, (8 * threads + rows - 1) / rows);
    }
    job.group_size = (blocks + groups - 1) / groups * vector;
    job.groups = (p->channels + job.group_size - 1) / job.group_size;
    ck_parallel_for(pool, rows * job.groups, dw_rows_range, &job);
}
