// The depthwise fast path's row driver, written once for every instruction set with a span
// kernel (dwconv_simd8.c, dwconv_avx512.c): how a row is cut into spans of up to 8 output pixels
// and which spans have every tap inside the input. A file defines the following, then includes
// this header, which defines the driver and undefines them:
//   DW_FAST_ROW  the driver's name: DW_FAST_ROW(K, S, p, row, c_begin, c_end), K and S constants
//   DW_INLINE    the instruction set's always-inline function attribute
//   DW_VECTOR    its vector type, and DW_SET1(x), x in every lane
//   DW_SPAN      its span kernel: DW_SPAN(W, K, S, CHECKED, rows, ky_begin, ky_end, ix0, in_w, C,
//                c_begin, c_end, packed, out, lo, hi, prelu), as dw_span_simd8 describes
// (No include guard: each inclusion defines one driver.)

/// One output row, channels [c_begin, c_end) (whole blocks), for a K x K kernel, stride S.
/// Blocks of output pixels outside, channel blocks inside: the input pixels a block of output
/// pixels reads stay in the L1 cache while all their channels are processed.
DW_INLINE void DW_FAST_ROW(const int K, const int S, const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
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
        const int W = left >= 8 ? 8 : (int)left;
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        float *out = out_row + ox * C;
#define CK_DW_SPAN(WW)                                                                                             \
    if (inside) DW_SPAN(WW, K, S, 0, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu); \
    else DW_SPAN(WW, K, S, 1, rows, g.ky_begin, g.ky_end, ix0, in_w, C, c_begin, c_end, p->packed, out, lo, hi, p->prelu);
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

#undef DW_FAST_ROW
#undef DW_INLINE
#undef DW_VECTOR
#undef DW_SET1
#undef DW_SPAN
