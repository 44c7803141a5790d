// JPEG sample reconstruction: inverse DCT, chroma upsampling and YCbCr -> RGB.
//
// The entropy decoding (Huffman/arithmetic, progressive refinement, restart markers) is done
// by libjpeg-turbo; these kernels turn its quantised coefficients into pixels with the same
// integer arithmetic as the stb_image decoder that MediaPipe's `Image.create_from_file` uses,
// so that our decoded pixels equal MediaPipe's bit for bit:
//   - dequantisation truncated to 16 bits, as that decoder stores coefficients in `short`;
//   - the "islow" (Loeffler-Ligtenberg-Moschytz) inverse DCT with 12-bit constants
//     (`round_half_up(c * 4096)` truncated toward zero), 2 extra bits kept after the column
//     pass, rounding by +2^9 and +2^16 before the shifts;
//   - "fancy" (triangle filter) chroma upsampling with a constant +8 (2x2) or +2 (2x1, 1x2) bias,
//     nearest neighbour for other factors;
//   - YCbCr -> RGB in 20-bit fixed point with 12-bit coefficients (JFIF / BT.601 full range).
#ifndef VISIONTASKS_CK_JPEG_H
#define VISIONTASKS_CK_JPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ck_threadpool;

/// Reconstructs `count` consecutive 8x8 blocks of one block row.
/// `coefficients`: count * 64 quantised coefficients, natural (row-major) order, as libjpeg's
/// JBLOCK. `quant`: the 64 quantisation steps in natural order. Block `b` is written to
/// `out + 8 * b` (8 rows of 8 samples, `stride` bytes apart).
void ck_jpeg_idct_blocks(const int16_t *coefficients, size_t count, const uint16_t quant[64],
                         uint8_t *out, ptrdiff_t stride);

/// Reconstructs a whole component: `row_count` block rows of `blocks_wide` blocks each, block
/// row `r` (blocks_wide * 64 coefficients at `rows[r]`) to `out + r * 8 * stride`, exactly as
/// ck_jpeg_idct_blocks does row by row. With a `pool` (NULL: the calling thread alone) the
/// rows are shared over its threads when there are enough of them to be worth waking a thread.
void ck_jpeg_idct_rows(const int16_t *const *rows, size_t row_count, size_t blocks_wide,
                       const uint16_t quant[64], uint8_t *out, ptrdiff_t stride,
                       struct ck_threadpool *pool);

/// Upsamples one row of a subsampled component to full width.
/// `near` is the low-resolution row nearest to the output row, `far` the one on the other side
/// (equal to `near` at the image's top and bottom edges). `lowWidth` low-resolution samples in,
/// `lowWidth * h` out (`out` must hold that many; callers read the first `width`).
/// `h` and `v` are the horizontal and vertical upsampling factors (1...4).
void ck_jpeg_upsample_row(const uint8_t *near, const uint8_t *far, size_t lowWidth,
                          int h, int v, uint8_t *out);

/// Converts a row of full-resolution Y, Cb, Cr samples to interleaved RGB (3 bytes a pixel).
void ck_jpeg_ycbcr_to_rgb_row(const uint8_t *y, const uint8_t *cb, const uint8_t *cr,
                              size_t count, uint8_t *rgb);

/// Interleaves three full-resolution planes (R, G, B components of an RGB-coded JPEG) into RGB.
void ck_jpeg_interleave_rgb_row(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                size_t count, uint8_t *rgb);

/// One reconstructed component for ck_jpeg_planes_to_rgb: `samples` holds `low_height` rows
/// of at least `low_width` samples, `stride` bytes apart; `h` and `v` are its upsampling
/// factors (1...4) to full resolution.
typedef struct ck_jpeg_plane {
    const uint8_t *samples;
    size_t stride;
    size_t low_width, low_height;
    int h, v;
} ck_jpeg_plane;

/// Upsamples three components to `width` x `height` and converts them to packed RGB (or, when
/// `is_rgb`, interleaves them as R, G, B): for each output row y exactly what
/// ck_jpeg_upsample_row (rows y / 2 and its neighbour on y's side for v = 2, row y / v
/// otherwise) and ck_jpeg_ycbcr_to_rgb_row do, in one call without copies for full-resolution
/// components. With a `pool` (NULL: the calling thread alone) the output rows are shared over
/// its threads; every row is computed the same way on any thread. Returns 0, or 1 when its row
/// buffers cannot be allocated.
int ck_jpeg_planes_to_rgb(const ck_jpeg_plane planes[3], int is_rgb, size_t width, size_t height,
                          uint8_t *rgb, struct ck_threadpool *pool);

/// Converts a row of (Adobe, inverted) CMYK samples, 4 bytes a pixel, to RGB:
/// each of C, M, Y is multiplied by K with rounding (x * k / 255).
void ck_jpeg_cmyk_to_rgb_row(const uint8_t *cmyk, size_t count, uint8_t *rgb);

#ifdef __cplusplus
}
#endif

#endif
