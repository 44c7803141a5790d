// Pixel-format conversion and reorientation (see ck_pixels.h). Bodies are written once and
// instantiated for the portable target and for AVX2 (auto-vectorised), chosen at run time.
#include "ck_pixels.h"
#include "CKernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define CK_PIX_X86 1
#define CK_AVX2 __attribute__((target("avx2,fma")))
#endif

#define CK_INLINE static inline __attribute__((always_inline))

CK_INLINE uint8_t clamp_u8(int32_t v) {
    return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

CK_INLINE void packed_row(const uint8_t *s, ck_packed_format format, size_t w, uint8_t *d) {
    switch (format) {
    case CK_PACKED_RGB8:
        memcpy(d, s, 3 * w);
        break;
    case CK_PACKED_RGBA8:
        for (size_t x = 0; x < w; x++) {
            d[3 * x] = s[4 * x];
            d[3 * x + 1] = s[4 * x + 1];
            d[3 * x + 2] = s[4 * x + 2];
        }
        break;
    case CK_PACKED_BGRA8:
        for (size_t x = 0; x < w; x++) {
            d[3 * x] = s[4 * x + 2];
            d[3 * x + 1] = s[4 * x + 1];
            d[3 * x + 2] = s[4 * x];
        }
        break;
    case CK_PACKED_BGR8:
        for (size_t x = 0; x < w; x++) {
            d[3 * x] = s[3 * x + 2];
            d[3 * x + 1] = s[3 * x + 1];
            d[3 * x + 2] = s[3 * x];
        }
        break;
    case CK_PACKED_GRAY8:
        for (size_t x = 0; x < w; x++) d[3 * x] = d[3 * x + 1] = d[3 * x + 2] = s[x];
        break;
    }
}

CK_INLINE void packed_body(const uint8_t *src, ptrdiff_t ss, ck_packed_format format, size_t w,
                           size_t h, uint8_t *dst, ptrdiff_t ds) {
    for (size_t y = 0; y < h; y++) packed_row(src + (ptrdiff_t)y * ss, format, w, dst + (ptrdiff_t)y * ds);
}

static void packed_portable(const uint8_t *src, ptrdiff_t ss, ck_packed_format format, size_t w,
                            size_t h, uint8_t *dst, ptrdiff_t ds) {
    packed_body(src, ss, format, w, h, dst, ds);
}

#if defined(CK_PIX_X86)
CK_AVX2 static void packed_avx2(const uint8_t *src, ptrdiff_t ss, ck_packed_format format,
                                size_t w, size_t h, uint8_t *dst, ptrdiff_t ds) {
    packed_body(src, ss, format, w, h, dst, ds);
}
#endif

void ck_packed_to_rgb8(const uint8_t *src, ptrdiff_t srcStride, ck_packed_format format,
                       size_t width, size_t height, uint8_t *dst, ptrdiff_t dstStride) {
#if defined(CK_PIX_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        packed_avx2(src, srcStride, format, width, height, dst, dstStride);
        return;
    }
#endif
    packed_portable(src, srcStride, format, width, height, dst, dstStride);
}

// BT.601 YCbCr -> RGB in 16.16 fixed point. Full range: R = Y + 1.402 Cr', G = Y - 0.344136 Cb'
// - 0.714136 Cr', B = Y + 1.772 Cb' (Cb' = Cb - 128). Video range first expands Y by 255/219
// after removing 16, and chroma by 255/224.
typedef struct nv12_coefficients {
    int32_t yScale, yOffset, crR, cbG, crG, cbB;
} nv12_coefficients;

static const nv12_coefficients kFullRange = {65536, 0, 91881, 22553, 46802, 116130};
static const nv12_coefficients kVideoRange = {76309, 16, 104597, 25675, 53279, 132201};

CK_INLINE void nv12_body(const uint8_t *yp, ptrdiff_t ys, const uint8_t *cp, ptrdiff_t cs,
                         size_t w, size_t h, const nv12_coefficients *k, uint8_t *dst,
                         ptrdiff_t ds) {
    const int32_t yScale = k->yScale, yOffset = k->yOffset;
    const int32_t crR = k->crR, cbG = k->cbG, crG = k->crG, cbB = k->cbB;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *yr = yp + (ptrdiff_t)y * ys;
        const uint8_t *cr = cp + (ptrdiff_t)(y / 2) * cs;
        uint8_t *d = dst + (ptrdiff_t)y * ds;
        for (size_t x = 0; x < w; x++) {
            int32_t luma = ((int32_t)yr[x] - yOffset) * yScale + 32768;
            int32_t cb = (int32_t)cr[2 * (x / 2)] - 128;
            int32_t crv = (int32_t)cr[2 * (x / 2) + 1] - 128;
            d[3 * x] = clamp_u8((luma + crR * crv) >> 16);
            d[3 * x + 1] = clamp_u8((luma - cbG * cb - crG * crv) >> 16);
            d[3 * x + 2] = clamp_u8((luma + cbB * cb) >> 16);
        }
    }
}

static void nv12_portable(const uint8_t *yp, ptrdiff_t ys, const uint8_t *cp, ptrdiff_t cs,
                          size_t w, size_t h, const nv12_coefficients *k, uint8_t *dst,
                          ptrdiff_t ds) {
    nv12_body(yp, ys, cp, cs, w, h, k, dst, ds);
}

#if defined(CK_PIX_X86)
CK_AVX2 static void nv12_avx2(const uint8_t *yp, ptrdiff_t ys, const uint8_t *cp, ptrdiff_t cs,
                              size_t w, size_t h, const nv12_coefficients *k, uint8_t *dst,
                              ptrdiff_t ds) {
    nv12_body(yp, ys, cp, cs, w, h, k, dst, ds);
}
#endif

void ck_nv12_to_rgb8(const uint8_t *yPlane, ptrdiff_t yStride, const uint8_t *cbcrPlane,
                     ptrdiff_t cbcrStride, size_t width, size_t height, int videoRange,
                     uint8_t *dst, ptrdiff_t dstStride) {
    const nv12_coefficients *k = videoRange ? &kVideoRange : &kFullRange;
#if defined(CK_PIX_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        nv12_avx2(yPlane, yStride, cbcrPlane, cbcrStride, width, height, k, dst, dstStride);
        return;
    }
#endif
    nv12_portable(yPlane, yStride, cbcrPlane, cbcrStride, width, height, k, dst, dstStride);
}

// Destination pixel (x, y) reads source pixel (x0 + x*dxx + y*dxy, y0 + x*dyx + y*dyy).
void ck_reorient(const uint8_t *src, ptrdiff_t srcStride, size_t width, size_t height,
                 size_t channels, int exifOrientation, uint8_t *dst, ptrdiff_t dstStride) {
    ptrdiff_t W = (ptrdiff_t)width, H = (ptrdiff_t)height;
    ptrdiff_t x0 = 0, y0 = 0, dxx = 1, dxy = 0, dyx = 0, dyy = 1;
    switch (exifOrientation) {
    case 2: x0 = W - 1; dxx = -1; break;
    case 3: x0 = W - 1; y0 = H - 1; dxx = -1; dyy = -1; break;
    case 4: y0 = H - 1; dyy = -1; break;
    case 5: dxx = 0; dxy = 1; dyx = 1; dyy = 0; break;
    case 6: y0 = H - 1; dxx = 0; dxy = 1; dyx = -1; dyy = 0; break;
    case 7: x0 = W - 1; y0 = H - 1; dxx = 0; dxy = -1; dyx = -1; dyy = 0; break;
    case 8: x0 = W - 1; dxx = 0; dxy = -1; dyx = 1; dyy = 0; break;
    default: break;
    }
    int swapped = exifOrientation >= 5 && exifOrientation <= 8;
    size_t outW = swapped ? height : width, outH = swapped ? width : height;
    ptrdiff_t c = (ptrdiff_t)channels;
    // Step in source bytes when moving one destination pixel right.
    ptrdiff_t step = dxx * c + dyx * srcStride;
    for (size_t y = 0; y < outH; y++) {
        ptrdiff_t sx = x0 + (ptrdiff_t)y * dxy, sy = y0 + (ptrdiff_t)y * dyy;
        const uint8_t *s = src + sy * srcStride + sx * c;
        uint8_t *d = dst + (ptrdiff_t)y * dstStride;
        if (step == c) {
            memcpy(d, s, outW * channels);
            continue;
        }
        for (size_t x = 0; x < outW; x++, s += step, d += c) {
            for (ptrdiff_t k = 0; k < c; k++) d[k] = s[k];
        }
    }
}
