// The depthwise convolution's kernels over ck_simd8.h (AVX2/FMA on x86-64, NEON on arm64): the
// general path (any geometry, one output pixel x 8 channels at a time) and the fast path's span
// (3x3 and 5x5 kernels, strides 1 and 2: up to 8 output pixels of a row x 8 channels, each input
// pixel of a kernel row loaded once, the kernel row's weights in registers).
#include "dwconv_internal.h"

#if defined(CK_SIMD8)

// MARK: - Any geometry

/// Any geometry, one output pixel at a time, `lanes` (1...8) channels of one block.
CK_SIMD8_INLINE void dw_pixel_general_simd8(const ck_dwconv_params *p, const dw_rows *g, size_t ox, size_t c0,
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

CK_SIMD8_FN void dw_row_general_simd8(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    const size_t C = p->channels;
    const dw_rows g = dw_row_geometry(p, row);
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    float *out_row = p->output + row * p->out_w * C;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        for (size_t c0 = c_begin; c0 < c_end; c0 += CB) {
            dw_pixel_general_simd8(p, &g, ox, c0, CK_MIN(CB, c_end - c0), out_row + ox * C + c0, lo, hi);
        }
    }
}

// MARK: - The fast path

/// One kernel row of a span: the K weights of kernel row `wk` (one block) in registers, each of
/// the (W - 1) * S + K input pixels from `row` (channel c0 of column 0) loaded once and multiplied
/// into every output pixel that uses it. CHECKED skips the taps left or right of the input.
CK_SIMD8_INLINE void dw_kernel_row_simd8(const int W, const int K, const int S, const int CHECKED, const float *row,
                                         const float *wk, ptrdiff_t ix0, size_t in_w, size_t C, ck_v8 *acc) {
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

/// A span's W pixels of one block (channels c ... c + 7) through the clamp and PReLU into `out`
/// (the first pixel, channel 0).
CK_SIMD8_INLINE void dw_store_span_simd8(const int W, const ck_v8 *acc, float *out, size_t C, size_t c, ck_v8 lo,
                                         ck_v8 hi, const float *prelu) {
    if (prelu != NULL) {
        const ck_v8 slope = v8_load(prelu + c);
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) v8_store(out + (size_t)j * C + c, v8_prelu(v8_min(v8_max(acc[j], lo), hi), slope));
    } else {
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) v8_store(out + (size_t)j * C + c, v8_min(v8_max(acc[j], lo), hi));
    }
}

/// W output pixels (columns ox ... ox + W - 1 of one row) x channels [c_begin, c_end) (whole
/// blocks of 8) for a K x K kernel with stride S. rows[ky] points at column 0, channel 0 of
/// kernel row ky's input row; kernel rows outside [ky_begin, ky_end) lie outside the input.
/// ix0 is the input column of the first pixel's first tap. CHECKED: some taps fall left or
/// right of the input and are skipped; otherwise all columns are inside. out points at the
/// first pixel, channel 0.
CK_SIMD8_INLINE void dw_span_simd8(const int W, const int K, const int S, const int CHECKED,
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
            dw_kernel_row_simd8(W, K, S, CHECKED, rows[ky] + c0, w + CB + ky * (size_t)K * CB, ix0, in_w, C, acc);
        }
        dw_store_span_simd8(W, acc, out, C, c0, lo, hi, prelu);
    }
}

/// dw_span_simd8 over the two blocks of 8 channels that share a 64-byte cache line (channels
/// c0 ... c0 + 15), W <= 4 output pixels: in each kernel row the first block's input pixels are
/// loaded, then the second block's from the same lines while they are still in the L1 cache. The
/// same arithmetic (bias + one fused multiply-add per tap in (row, column) order), so the result
/// is bit for bit dw_span_simd8's.
///
/// Why: where a pixel's channels span a multiple of 512 bytes (128 or 256 channels, as in
/// palm_detection's 24x24x128 and 12x12x256 layers), the input pixels one span reads map to few
/// L1 sets, more lines than a set holds; the 8-channel span then reads each line twice from L2,
/// once for each of its halves.
CK_SIMD8_INLINE void dw_span_line_simd8(const int W, const int K, const int S, const int CHECKED,
                                        const float *const *rows, size_t ky_begin, size_t ky_end, ptrdiff_t ix0,
                                        size_t in_w, size_t C, size_t c0, const float *packed, float *out, ck_v8 lo,
                                        ck_v8 hi, const float *prelu) {
    const size_t block_floats = CB * (1 + (size_t)K * K);
    const float *w = packed + (c0 / CB) * block_floats;
    ck_v8 acc[2][4];
#pragma clang loop unroll(full)
    for (int b = 0; b < 2; b++) {
        const ck_v8 bias = v8_load(w + (size_t)b * block_floats);
#pragma clang loop unroll(full)
        for (int j = 0; j < W; j++) acc[b][j] = bias;
    }
    for (size_t ky = ky_begin; ky < ky_end; ky++) {
#pragma clang loop unroll(full)
        for (int b = 0; b < 2; b++) {
            dw_kernel_row_simd8(W, K, S, CHECKED, rows[ky] + c0 + (size_t)b * CB,
                                w + (size_t)b * block_floats + CB + ky * (size_t)K * CB, ix0, in_w, C, acc[b]);
        }
    }
#pragma clang loop unroll(full)
    for (int b = 0; b < 2; b++) dw_store_span_simd8(W, acc[b], out, C, c0 + (size_t)b * CB, lo, hi, prelu);
}

/// Channels [c_begin, c_end) (whole pairs of blocks) of a span of W <= 4 pixels, line by line.
CK_SIMD8_INLINE void dw_span_lines_simd8(const int W, const int K, const int S, const int CHECKED,
                                         const float *const *rows, size_t ky_begin, size_t ky_end, ptrdiff_t ix0,
                                         size_t in_w, size_t C, size_t c_begin, size_t c_end, const float *packed,
                                         float *out, ck_v8 lo, ck_v8 hi, const float *prelu) {
    for (size_t c0 = c_begin; c0 + 2 * CB <= c_end; c0 += 2 * CB) {
        dw_span_line_simd8(W, K, S, CHECKED, rows, ky_begin, ky_end, ix0, in_w, C, c0, packed, out, lo, hi, prelu);
    }
}

#define DW_LINE_SPANS dw_span_lines_simd8
#define DW_ISA simd8
#define DW_FN CK_SIMD8_FN
#define DW_INLINE CK_SIMD8_INLINE
#define DW_VECTOR ck_v8
#define DW_SET1 v8_set1
#include "dwconv_fast_row.h"
#endif
