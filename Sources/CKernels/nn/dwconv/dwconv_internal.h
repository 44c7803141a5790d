// What the depthwise convolution's driver (dwconv.c) and its row kernels share.
#ifndef VISIONTASKS_CK_DWCONV_INTERNAL_H
#define VISIONTASKS_CK_DWCONV_INTERNAL_H

#include "../ck_internal.h"
#include "../ck_simd8.h"

/// Channels per packed block (8 biases, then 8 weights per tap).
#define CB CK_DWCONV_CHANNEL_TILE

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

/// Computes channels [c_begin, c_end) of output row `row` (over the batch: row = b * out_h + y).
typedef void (*dw_row_fn)(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end);

/// Channels [c_begin, c_end) of every output row on the calling thread, with the row kernel
/// ck_dwconv picks for this layer (so the same bits); c_begin a multiple of 16 (the channel
/// groups ck_dwconv shares out).
void dwconv_channels(const ck_dwconv_params *p, size_t c_begin, size_t c_end);

/// The fast path's geometries, in the order of each instruction set's table of row kernels:
/// 3x3 stride 1, 3x3 stride 2, 5x5 stride 1, 5x5 stride 2.
#define DW_FAST_GEOMETRIES 4

/// Any geometry, pixel by pixel (dwconv_portable.c).
void dw_row_portable(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end);

#if defined(CK_SIMD8)
/// Any geometry, one pixel and 8 channels at a time (dwconv_simd8.c).
CK_SIMD8_FN void dw_row_general_simd8(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end);
/// The fast path's row kernels with 8 channels per vector (dwconv_fast_row.h in dwconv_simd8.c).
extern const dw_row_fn dw_fast_rows_simd8[DW_FAST_GEOMETRIES];
/// The same, line by line: pairs of blocks (one 64-byte line) in spans of up to 4 pixels.
extern const dw_row_fn dw_fast_line_rows_simd8[DW_FAST_GEOMETRIES];
#endif

#if defined(CK_HAVE_X86)
/// The fast path's row kernels with 16 channels per vector (dwconv_fast_row.h in dwconv_avx512.c).
extern const dw_row_fn dw_fast_rows_avx512[DW_FAST_GEOMETRIES];
#endif

#endif
