// The depthwise fast path's row kernels, written once for every instruction set with a span
// kernel (dwconv_simd8.c, dwconv_avx512.c): how a row is cut into spans of up to 8 output pixels
// and which spans have every tap inside the input, for 3x3 and 5x5 kernels with strides 1 and 2.
// A file defines its span kernel dw_span_<ISA> (with dw_span_simd8's parameters) and the
// following, then includes this header, which defines the driver dw_row_fast_<ISA>, the row
// kernels dw_row_3x3s1_<ISA> ... dw_row_5x5s2_<ISA> with their table dw_fast_rows_<ISA>
// (dwconv_internal.h), and undefines them:
//   DW_ISA       the instruction set's suffix (simd8, avx512)
//   DW_FN        its kernels' function attribute; DW_INLINE its always-inline one
//   DW_VECTOR    its vector type, and DW_SET1(x), x in every lane
//   DW_LINE_SPANS (optional) its span over whole 64-byte lines (pairs of blocks), up to 4
//                pixels (dw_span_lines_simd8's parameters); then the header also defines the
//                line-by-line row kernels and their table dw_fast_line_rows_<ISA>
// (No include guard: each inclusion defines one instruction set's kernels.)

#define DW_NAME(base) CK_ISA_NAME(base, DW_ISA)

/// One output row, channels [c_begin, c_end) (whole blocks), for a K x K kernel, stride S.
/// Blocks of output pixels outside, channel blocks inside: the input pixels a block of output
/// pixels reads stay in the L1 cache while all their channels are processed.
DW_INLINE void DW_NAME(dw_row_spans)(const int K, const int S, const int LINES, const ck_dwconv_params *p, size_t row,
                                      size_t c_begin, size_t c_end) {
    const size_t C = p->channels, in_w = p->in_w, out_w = p->out_w;
    const dw_rows g = dw_row_geometry(p, row);
    const DW_VECTOR lo = DW_SET1(p->out_min), hi = DW_SET1(p->out_max);
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
        // Line spans: the rest of the row cut into spans as even as possible (14 pixels as
        // 4 + 4 + 3 + 3 rather than 4 + 4 + 4 + 2: a span of 2 pixels is a short dependency chain).
        const int W = LINES ? (int)((left + (left + 3) / 4 - 1) / ((left + 3) / 4)) : (left >= 8 ? 8 : (int)left);
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        float *out = out_row + ox * C;
#if defined(DW_LINE_SPANS)
#define CK_DW_SPAN(WW)                                                                                             \
    if (LINES && WW <= 4) {                                                                                        \
        if (inside) DW_LINE_SPANS(WW <= 4 ? WW : 4, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
        else DW_LINE_SPANS(WW <= 4 ? WW : 4, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    } else if (inside) DW_NAME(dw_span)(WW, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    else DW_NAME(dw_span)(WW, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu);
#else
#define CK_DW_SPAN(WW)                                                                                             \
    if (inside) DW_NAME(dw_span)(WW, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    else DW_NAME(dw_span)(WW, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu);
#endif
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

DW_INLINE void DW_NAME(dw_row_fast)(const int K, const int S, const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    DW_NAME(dw_row_spans)(K, S, 0, p, row, c_begin, c_end);
}

/// The four fast geometries' row kernels over a row driver (DRIVER(K, S, p, row, c_begin, c_end)),
/// named PREFIX_3x3s1_<ISA> ... PREFIX_5x5s2_<ISA>, and their table TABLE_<ISA>.
#define DW_ROW_KERNELS(PREFIX, DRIVER, TABLE)                                                              \
    DW_FN static void DW_NAME(PREFIX##_3x3s1)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) { \
        DW_NAME(DRIVER)(3, 1, p, row, c_begin, c_end);                                                    \
    }                                                                                                     \
    DW_FN static void DW_NAME(PREFIX##_3x3s2)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) { \
        DW_NAME(DRIVER)(3, 2, p, row, c_begin, c_end);                                                    \
    }                                                                                                     \
    DW_FN static void DW_NAME(PREFIX##_5x5s1)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) { \
        DW_NAME(DRIVER)(5, 1, p, row, c_begin, c_end);                                                    \
    }                                                                                                     \
    DW_FN static void DW_NAME(PREFIX##_5x5s2)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) { \
        DW_NAME(DRIVER)(5, 2, p, row, c_begin, c_end);                                                    \
    }                                                                                                     \
    const dw_row_fn DW_NAME(TABLE)[DW_FAST_GEOMETRIES] = {DW_NAME(PREFIX##_3x3s1), DW_NAME(PREFIX##_3x3s2), \
                                                          DW_NAME(PREFIX##_5x5s1), DW_NAME(PREFIX##_5x5s2)};

#if defined(DW_LINE_SPANS)
/// One output row line by line: whole pairs of blocks in spans of up to 4 pixels (DW_LINE_SPANS),
/// then a last odd block in spans of 8.
DW_INLINE void DW_NAME(dw_row_lines)(const int K, const int S, const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    const size_t paired = c_begin + (c_end - c_begin) / (2 * CB) * (2 * CB);
    if (paired > c_begin) DW_NAME(dw_row_spans)(K, S, 1, p, row, c_begin, paired);
    if (paired < c_end) DW_NAME(dw_row_spans)(K, S, 0, p, row, paired, c_end);
}

DW_ROW_KERNELS(dw_lines, dw_row_lines, dw_fast_line_rows)
#endif

DW_ROW_KERNELS(dw_row, dw_row_fast, dw_fast_rows)

#undef DW_NAME
#undef DW_ISA
#undef DW_FN
#undef DW_INLINE
#undef DW_VECTOR
#undef DW_SET1
#undef DW_LINE_SPANS
#undef DW_ROW_KERNELS
