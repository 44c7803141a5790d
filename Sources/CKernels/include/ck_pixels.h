// Pixel-format conversion and reorientation loops for images handed over by cameras, decoders
// and other libraries. All sizes are in pixels, strides in bytes; callers check that buffers
// are large enough (these kernels trust their arguments).
#ifndef VISIONTASKS_CK_PIXELS_H
#define VISIONTASKS_CK_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Packed source layouts for ck_packed_to_rgb8.
typedef enum ck_packed_format {
    CK_PACKED_RGB8 = 0,
    CK_PACKED_RGBA8 = 1,
    CK_PACKED_BGRA8 = 2,
    CK_PACKED_GRAY8 = 3,
    CK_PACKED_BGR8 = 4,
} ck_packed_format;

/// Converts a packed image to RGB8 (alpha is dropped, grey is replicated).
void ck_packed_to_rgb8(const uint8_t *src, ptrdiff_t srcStride, ck_packed_format format,
                       size_t width, size_t height, uint8_t *dst, ptrdiff_t dstStride);

/// Converts 4:2:0 bi-planar YCbCr (NV12: a Y plane, then a plane of interleaved Cb, Cr at half
/// resolution in both directions) to RGB8 with the BT.601 matrix. `videoRange` nonzero: Y in
/// 16...235 and CbCr in 16...240 (iOS 420YpCbCr8BiPlanarVideoRange); zero: full 0...255
/// (420YpCbCr8BiPlanarFullRange). Each chroma sample covers a 2x2 block (nearest neighbour).
void ck_nv12_to_rgb8(const uint8_t *yPlane, ptrdiff_t yStride, const uint8_t *cbcrPlane,
                     ptrdiff_t cbcrStride, size_t width, size_t height, int videoRange,
                     uint8_t *dst, ptrdiff_t dstStride);

/// Copies an image with `channels` bytes a pixel into its displayed orientation, given the
/// EXIF orientation code (1 = as stored, 2 = mirrored left-right, 3 = rotated 180,
/// 4 = mirrored top-bottom, 5 = transposed, 6 = rotate 90 clockwise to display,
/// 7 = transverse, 8 = rotate 90 counter-clockwise to display). For 5...8 the destination is
/// `height` pixels wide and `width` high. Codes outside 1...8 copy as 1.
void ck_reorient(const uint8_t *src, ptrdiff_t srcStride, size_t width, size_t height,
                 size_t channels, int exifOrientation, uint8_t *dst, ptrdiff_t dstStride);

#ifdef __cplusplus
}
#endif

#endif
