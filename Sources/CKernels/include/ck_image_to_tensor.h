// Image-to-tensor kernels: the bilinear warps MediaPipe's CPU preprocessing performs with
// OpenCV, reproduced bit for bit.
//
// MediaPipe's ImageToTensorCalculator (CPU) crops a rotated rectangle out of an 8-bit image
// with cv::warpPerspective (INTER_LINEAR) and converts the 8-bit result to float with
// cv::Mat::convertTo(scale, offset). The OpenCV build inside MediaPipe 1.2.2 uses OpenCV's
// classic fixed-point path for this (verified against MediaPipe's landmarks, see
// docs/pipelines.md): source coordinates are computed in double, rounded to 1/32 pixel, and
// the four neighbours are blended with 15-bit integer weights from a 32x32 table, the sum
// rounded by (sum + 2^14) >> 15. The float conversion is one fused multiply-add per value.
// (With AVX-512 the float warp blends 16 pixels at a time from gathered neighbours and weights,
// the same integer arithmetic lane by lane: bit for bit the scalar result.)
//
// The segmentation mask of the pose landmarker goes back to image space with cv::warpAffine
// on a float image (also the classic path: coordinates in 1/32 pixel through 10-bit fixed
// point, float weights from the same table); ck_warp_affine_f32c1 reproduces that.
#ifndef VISIONTASKS_CK_IMAGE_TO_TENSOR_H
#define VISIONTASKS_CK_IMAGE_TO_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How pixels outside the source image are read.
typedef enum ck_border_mode {
    /// Outside pixels are zero (OpenCV BORDER_CONSTANT with value 0).
    CK_BORDER_ZERO = 0,
    /// Outside pixels repeat the nearest edge pixel (OpenCV BORDER_REPLICATE).
    CK_BORDER_REPLICATE = 1,
} ck_border_mode;

/// Result codes of the kernels.
enum {
    CK_WARP_OK = 0,
    /// A pointer is NULL, a size is not positive, or a row stride is too small.
    CK_WARP_BAD_ARGUMENT = 1,
};

/// Warps an 8-bit image with 3 or 4 channels (only the first 3 are used) into an 8-bit RGB
/// image of dst_width x dst_height (rows of dst_width*3 bytes, packed), exactly as OpenCV's
/// fixed-point cv::warpPerspective with INTER_LINEAR.
///
/// `inverse_matrix` (row-major 3x3) maps a destination pixel (x, y, 1) to source coordinates,
/// i.e. it is the matrix cv::warpPerspective uses after inverting (or the one passed with
/// WARP_INVERSE_MAP).
int ck_warp_perspective_u8(const uint8_t *src, int src_width, int src_height,
                           size_t src_row_bytes, int src_channels,
                           const double inverse_matrix[9], int border_mode,
                           uint8_t *dst, int dst_width, int dst_height);

struct ck_threadpool;

/// The same warp followed by MediaPipe's range conversion: every output value is
/// fmaf(pixel, scale, offset), written as a packed float32 HWC tensor with 3 channels. With
/// `pool` (NULL: the calling thread alone) the pool's threads share the output rows (outputs
/// at most 1024 wide), each writing the rows the model's first layer then reads on that
/// thread; every row is computed the same way on any thread.
int ck_warp_perspective_u8_to_f32(const uint8_t *src, int src_width, int src_height,
                                  size_t src_row_bytes, int src_channels,
                                  const double inverse_matrix[9], int border_mode,
                                  float scale, float offset,
                                  float *dst, int dst_width, int dst_height,
                                  struct ck_threadpool *pool);

/// Warps a single-channel float image exactly as OpenCV's classic cv::warpAffine with
/// INTER_LINEAR | WARP_INVERSE_MAP: `matrix` (row-major 2x3) maps a destination pixel (x, y)
/// to source coordinates. Outside pixels read as `border_value` (CK_BORDER_ZERO) or the edge
/// (CK_BORDER_REPLICATE). src_row_floats and the packed dst are in floats. With `pool` (NULL:
/// the calling thread alone) the pool's threads share the output rows (outputs at most 2048
/// wide); every row is computed the same way on any thread.
int ck_warp_affine_f32c1(const float *src, int src_width, int src_height,
                         size_t src_row_floats, const double matrix[6], int border_mode,
                         float border_value, float *dst, int dst_width, int dst_height,
                         struct ck_threadpool *pool);

/// The 15-bit bilinear weight table OpenCV builds for INTER_LINEAR: entry a (0..1023, with
/// a = 32 * fy + fx for fractions fx, fy in 1/32) holds 4 weights for the neighbours
/// (x, y), (x+1, y), (x, y+1), (x+1, y+1). Exposed for tests.
void ck_bilinear_weights_q15(int index, int32_t weights[4]);

/// The float version of the table (used for float images). Exposed for tests.
void ck_bilinear_weights_f32(int index, float weights[4]);

#ifdef __cplusplus
}
#endif

#endif
