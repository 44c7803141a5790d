// OpenCV's classic fixed-point bilinear warps, as MediaPipe's CPU image preprocessing runs
// them. See include/ck_image_to_tensor.h and docs/pipelines.md for the arithmetic.
//
// Bit-exactness depends on doing every floating-point operation in the same order and
// precision as OpenCV, with no fused multiply-adds except where OpenCV fuses too (the final
// convertTo). Hence the pragma: the compiler must not contract a*b+c on its own.
#pragma STDC FP_CONTRACT OFF

#include "ck_image_to_tensor.h"
#include "CKernels.h"
#include "nn/ck_internal.h" // ck_pool_for_work

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define CK_WARP_X86 1
#include <immintrin.h>
#endif

// 1/32-pixel coordinates, 15-bit weights (OpenCV's INTER_BITS and INTER_REMAP_COEF_BITS).
enum { kInterBits = 5, kInterTabSize = 1 << kInterBits, kCoefBits = 15 };

// ---------------------------------------------------------------------------------------
// Weight tables, built once exactly as OpenCV's initInterTab2D(INTER_LINEAR) builds them.

static int32_t g_weights_q15[kInterTabSize * kInterTabSize][4];
static float g_weights_f32[kInterTabSize * kInterTabSize][4];
static pthread_once_t g_tables_once = PTHREAD_ONCE_INIT;

static short saturate_short_from_float(float v) {
    // cvRound (round half to even) then saturate to int16.
    double r = rint((double)v);
    if (r > 32767.0) return 32767;
    if (r < -32768.0) return -32768;
    return (short)r;
}

static void build_tables(void) {
    float one_d[kInterTabSize][2];
    const float step = 1.f / kInterTabSize;
    for (int i = 0; i < kInterTabSize; i++) {
        float x = (float)i * step;
        one_d[i][0] = 1.f - x;
        one_d[i][1] = x;
    }
    // OpenCV writes the 2x2 kernels one after another into one array and, when a kernel's
    // integer weights do not sum to 2^15, corrects the largest or smallest weight found
    // among positions [3..6] counted from the kernel's start (it scans a 2x2 window at
    // offset ksize/2, which for ksize = 2 reaches into the next, not yet written, kernel).
    // Only the first kernel (weights 1, 0, 0, 0, where 32768 saturates to 32767) needs a
    // correction; the scan then finds all zeros and adds 1 to its 4th weight.
    short flat[kInterTabSize * kInterTabSize * 4 + 4];
    memset(flat, 0, sizeof(flat));
    for (int i = 0; i < kInterTabSize; i++) {
        for (int j = 0; j < kInterTabSize; j++) {
            int idx = i * kInterTabSize + j;
            short *k = flat + idx * 4;
            int sum = 0;
            for (int k1 = 0; k1 < 2; k1++) {
                float vy = one_d[i][k1];
                for (int k2 = 0; k2 < 2; k2++) {
                    float v = vy * one_d[j][k2];
                    g_weights_f32[idx][k1 * 2 + k2] = v;
                    k[k1 * 2 + k2] = saturate_short_from_float(v * (float)(1 << kCoefBits));
                    sum += k[k1 * 2 + k2];
                }
            }
            if (sum != (1 << kCoefBits)) {
                int diff = sum - (1 << kCoefBits);
                int big = 3, small = 3;
                for (int k1 = 1; k1 < 3; k1++) {
                    for (int k2 = 1; k2 < 3; k2++) {
                        int p = k1 * 2 + k2;
                        if (k[p] < k[small]) small = p;
                        else if (k[p] > k[big]) big = p;
                    }
                }
                if (diff < 0) k[big] = (short)(k[big] - diff);
                else k[small] = (short)(k[small] - diff);
            }
        }
    }
    for (int idx = 0; idx < kInterTabSize * kInterTabSize; idx++) {
        for (int w = 0; w < 4; w++) g_weights_q15[idx][w] = flat[idx * 4 + w];
    }
}

static void ensure_tables(void) { pthread_once(&g_tables_once, build_tables); }

void ck_bilinear_weights_q15(int index, int32_t weights[4]) {
    ensure_tables();
    if (index < 0 || index >= kInterTabSize * kInterTabSize || !weights) return;
    for (int w = 0; w < 4; w++) weights[w] = g_weights_q15[index][w];
}

void ck_bilinear_weights_f32(int index, float weights[4]) {
    ensure_tables();
    if (index < 0 || index >= kInterTabSize * kInterTabSize || !weights) return;
    for (int w = 0; w < 4; w++) weights[w] = g_weights_f32[index][w];
}

// ---------------------------------------------------------------------------------------
// Perspective coordinates. OpenCV's WarpPerspectiveInvoker walks the output in blocks of
// bh0 rows x bw0 columns and evaluates, per block row, X0 = M0*xb + M1*y + M2 at the block's
// first column xb, then (X0 + M0*x1) * (32 / (W0 + M6*x1)) for the column offset x1. The
// block start enters the rounding, so it is reproduced here.

static inline double clamp_to_int_range(double v) {
    // std::max((double)INT_MIN, std::min((double)INT_MAX, v)), NaN included.
    double t = (v < (double)INT_MAX) ? v : (double)INT_MAX;
    return ((double)INT_MIN < t) ? t : (double)INT_MIN;
}

/// One destination pixel's source coordinates in 1/32 pixels: column `x1` of a block whose
/// first column's homogeneous coordinates are (X0, Y0, W0), as cv::warpPerspective computes it.
static inline void perspective_pixel(const double *M, double X0, double Y0, double W0, int x1, int32_t *X,
                                     int32_t *Y) {
    double W = W0 + M[6] * x1;
    W = (W != 0) ? (double)kInterTabSize / W : 0;
    *X = (int32_t)lrint(clamp_to_int_range((X0 + M[0] * x1) * W));
    *Y = (int32_t)lrint(clamp_to_int_range((Y0 + M[3] * x1) * W));
}

static int perspective_block_width(int dst_width, int dst_height) {
    const int block = 32;
    int bh0 = block / 2 < dst_height ? block / 2 : dst_height;
    int bw0 = block * block / bh0;
    return bw0 < dst_width ? bw0 : dst_width;
}

static void perspective_row_portable(const double *M, int y, int width, int bw0, int32_t *X,
                                     int32_t *Y) {
    for (int xb = 0; xb < width; xb += bw0) {
        int bw = width - xb < bw0 ? width - xb : bw0;
        double X0 = M[0] * xb + M[1] * y + M[2];
        double Y0 = M[3] * xb + M[4] * y + M[5];
        double W0 = M[6] * xb + M[7] * y + M[8];
        for (int x1 = 0; x1 < bw; x1++) {
            perspective_pixel(M, X0, Y0, W0, x1, X + xb + x1, Y + xb + x1);
        }
    }
}

#if defined(CK_WARP_X86)
__attribute__((target("avx2,fma")))
static void perspective_row_avx2(const double *M, int y, int width, int bw0, int32_t *X,
                                 int32_t *Y) {
    const __m256d m0 = _mm256_set1_pd(M[0]), m3 = _mm256_set1_pd(M[3]), m6 = _mm256_set1_pd(M[6]);
    const __m256d tab = _mm256_set1_pd((double)kInterTabSize), zero = _mm256_setzero_pd();
    const __m256d lo = _mm256_set1_pd((double)INT_MIN), hi = _mm256_set1_pd((double)INT_MAX);
    const __m256d step = _mm256_set1_pd(4.0);
    for (int xb = 0; xb < width; xb += bw0) {
        int bw = width - xb < bw0 ? width - xb : bw0;
        double X0 = M[0] * xb + M[1] * y + M[2];
        double Y0 = M[3] * xb + M[4] * y + M[5];
        double W0 = M[6] * xb + M[7] * y + M[8];
        const __m256d x0v = _mm256_set1_pd(X0), y0v = _mm256_set1_pd(Y0), w0v = _mm256_set1_pd(W0);
        __m256d xv = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
        int x1 = 0;
        for (; x1 + 4 <= bw; x1 += 4) {
            __m256d w = _mm256_add_pd(w0v, _mm256_mul_pd(m6, xv));
            __m256d nonzero = _mm256_cmp_pd(w, zero, _CMP_NEQ_UQ);
            __m256d q = _mm256_and_pd(_mm256_div_pd(tab, w), nonzero);
            __m256d fx = _mm256_mul_pd(_mm256_add_pd(x0v, _mm256_mul_pd(m0, xv)), q);
            __m256d fy = _mm256_mul_pd(_mm256_add_pd(y0v, _mm256_mul_pd(m3, xv)), q);
            // min(fx, hi) returns hi for NaN, then max(., lo): the same as the scalar clamp.
            fx = _mm256_max_pd(_mm256_min_pd(fx, hi), lo);
            fy = _mm256_max_pd(_mm256_min_pd(fy, hi), lo);
            _mm_storeu_si128((__m128i *)(X + xb + x1), _mm256_cvtpd_epi32(fx));
            _mm_storeu_si128((__m128i *)(Y + xb + x1), _mm256_cvtpd_epi32(fy));
            xv = _mm256_add_pd(xv, step);
        }
        for (; x1 < bw; x1++) {
            perspective_pixel(M, X0, Y0, W0, x1, X + xb + x1, Y + xb + x1);
        }
    }
}
#endif

static void perspective_row(const double *M, int y, int width, int bw0, int32_t *X, int32_t *Y) {
#if defined(CK_WARP_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        perspective_row_avx2(M, y, width, bw0, X, Y);
        return;
    }
#endif
    perspective_row_portable(M, y, width, bw0, X, Y);
}

// ---------------------------------------------------------------------------------------
// Fixed-point bilinear blend of one output row (OpenCV remapBilinear with FixedPtCast).

static inline int saturate_short_int(int v) {
    return v < -32768 ? -32768 : (v > 32767 ? 32767 : v);
}

static inline uint8_t blend_q15(int v) {
    int r = (v + (1 << (kCoefBits - 1))) >> kCoefBits;
    return (uint8_t)(r < 0 ? 0 : (r > 255 ? 255 : r));
}

static void blend_row_u8(const uint8_t *src, int sw, int sh, size_t stride, int cn, int border,
                         const int32_t *X, const int32_t *Y, int n, uint8_t *out) {
    const unsigned width1 = (unsigned)(sw > 1 ? sw - 1 : 0);
    const unsigned height1 = (unsigned)(sh > 1 ? sh - 1 : 0);
    for (int i = 0; i < n; i++, out += 3) {
        const int sx = saturate_short_int(X[i] >> kInterBits);
        const int sy = saturate_short_int(Y[i] >> kInterBits);
        const int32_t *w = g_weights_q15[((Y[i] & (kInterTabSize - 1)) << kInterBits) +
                                         (X[i] & (kInterTabSize - 1))];
        if ((unsigned)sx < width1 && (unsigned)sy < height1) {
            const uint8_t *p0 = src + (size_t)sy * stride + (size_t)sx * (size_t)cn;
            const uint8_t *p1 = p0 + stride;
            for (int c = 0; c < 3; c++) {
                out[c] = blend_q15(p0[c] * w[0] + p0[c + cn] * w[1] + p1[c] * w[2] +
                                   p1[c + cn] * w[3]);
            }
            continue;
        }
        if (border == CK_BORDER_ZERO &&
            (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0)) {
            out[0] = out[1] = out[2] = 0;
            continue;
        }
        // Partly outside: each of the 4 neighbours is read through the border rule.
        int xs[2] = {sx, sx + 1}, ys[2] = {sy, sy + 1};
        const uint8_t *rows[2];
        int valid_x[2], valid_y[2];
        for (int k = 0; k < 2; k++) {
            if (border == CK_BORDER_REPLICATE) {
                xs[k] = xs[k] < 0 ? 0 : (xs[k] >= sw ? sw - 1 : xs[k]);
                ys[k] = ys[k] < 0 ? 0 : (ys[k] >= sh ? sh - 1 : ys[k]);
                valid_x[k] = valid_y[k] = 1;
            } else {
                valid_x[k] = xs[k] >= 0 && xs[k] < sw;
                valid_y[k] = ys[k] >= 0 && ys[k] < sh;
            }
            rows[k] = valid_y[k] ? src + (size_t)ys[k] * stride : NULL;
        }
        for (int c = 0; c < 3; c++) {
            int v[4];
            for (int ky = 0; ky < 2; ky++) {
                for (int kx = 0; kx < 2; kx++) {
                    v[ky * 2 + kx] = (valid_y[ky] && valid_x[kx])
                                         ? rows[ky][(size_t)xs[kx] * (size_t)cn + (size_t)c]
                                         : 0;
                }
            }
            out[c] = blend_q15(v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// u8 -> float conversion: fmaf(v, scale, offset), as OpenCV's convertTo does with FMA.

static void convert_row_portable(const uint8_t *in, int n, float scale, float offset, float *out) {
    for (int i = 0; i < n; i++) out[i] = fmaf((float)in[i], scale, offset);
}

#if defined(CK_WARP_X86)
__attribute__((target("avx2,fma")))
static void convert_row_avx2(const uint8_t *in, int n, float scale, float offset, float *out) {
    const __m256 s = _mm256_set1_ps(scale), o = _mm256_set1_ps(offset);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i bytes = _mm_loadl_epi64((const __m128i *)(in + i));
        __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
        _mm256_storeu_ps(out + i, _mm256_fmadd_ps(v, s, o));
    }
    for (; i < n; i++) out[i] = fmaf((float)in[i], scale, offset);
}
#endif

static void convert_row(const uint8_t *in, int n, float scale, float offset, float *out) {
#if defined(CK_WARP_X86)
    if (ck_isa_has_avx2(ck_active_isa())) {
        convert_row_avx2(in, n, scale, offset, out);
        return;
    }
#endif
    convert_row_portable(in, n, scale, offset, out);
}

// ---------------------------------------------------------------------------------------
// AVX-512: 16 output pixels at a time, straight to float. Each pixel's four neighbours are
// gathered as 32-bit words (their first 3 bytes are the channels): clamped to the edge for a
// replicated border, left out (as zeros) where outside for a zero border, as the scalar path
// reads them. The table's four weights are gathered too, and the blend, rounding, clamp and
// fmaf are the scalar ones lane by lane, so the result is bit for bit the scalar path's. Only
// groups whose 4-byte reads could pass the end of the image take the scalar path.

#if defined(CK_WARP_X86)
#define CK_WARP_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")))

/// round((p00 w0 + p01 w1 + p10 w2 + p11 w3) / 2^15) clamped to 0...255, for channel byte `shift`.
CK_WARP_AVX512 static inline __m512i blend_channel_avx512(__m512i a, __m512i b, __m512i c, __m512i d, __m512i w0,
                                                          __m512i w1, __m512i w2, __m512i w3, int shift) {
    const __m512i mask = _mm512_set1_epi32(0xff);
    __m512i v = _mm512_mullo_epi32(_mm512_and_si512(_mm512_srli_epi32(a, (unsigned)shift), mask), w0);
    v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_and_si512(_mm512_srli_epi32(b, (unsigned)shift), mask), w1));
    v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_and_si512(_mm512_srli_epi32(c, (unsigned)shift), mask), w2));
    v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_and_si512(_mm512_srli_epi32(d, (unsigned)shift), mask), w3));
    v = _mm512_srai_epi32(_mm512_add_epi32(v, _mm512_set1_epi32(1 << (kCoefBits - 1))), kCoefBits);
    return _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), _mm512_set1_epi32(255));
}

/// One row of n pixels to float (fmaf(value, scale, offset) per channel), 16 pixels at a time
/// where all 16 lie inside; `row` is scratch for the scalar groups.
CK_WARP_AVX512 static void blend_row_f32_avx512(const uint8_t *src, int sw, int sh, size_t stride, int cn, int border,
                                                const int32_t *X, const int32_t *Y, int n, float scale, float offset,
                                                uint8_t *row, float *out) {
    const __m512i width1 = _mm512_set1_epi32(sw > 1 ? sw - 1 : 0), height1 = _mm512_set1_epi32(sh > 1 ? sh - 1 : 0);
    const __m512i vstride = _mm512_set1_epi32((int)stride), vcn = _mm512_set1_epi32(cn);
    // The last offset a 4-byte read may start at.
    const __m512i last = _mm512_set1_epi32((int)((size_t)(sh - 1) * stride + (size_t)sw * (size_t)cn - 4));
    const __m512i lo16 = _mm512_set1_epi32(-32768), hi16 = _mm512_set1_epi32(32767);
    const __m512i tab_mask = _mm512_set1_epi32(kInterTabSize - 1);
    const __m512i vsw = _mm512_set1_epi32(sw), vsh = _mm512_set1_epi32(sh);
    const __m512 vscale = _mm512_set1_ps(scale), voffset = _mm512_set1_ps(offset);
    // Interleave R, G, B vectors into 48 floats: first R and G, then B placed in between.
    const __m512i rg0 = _mm512_setr_epi32(0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5);
    const __m512i b0 = _mm512_setr_epi32(0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15);
    const __m512i rg1 = _mm512_setr_epi32(21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26);
    const __m512i b1 = _mm512_setr_epi32(0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15);
    const __m512i rg2 = _mm512_setr_epi32(0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0);
    const __m512i b2 = _mm512_setr_epi32(26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31);
    const __m512i zero_i = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i xs = _mm512_loadu_si512((const void *)(X + i)), ys = _mm512_loadu_si512((const void *)(Y + i));
        const __m512i sx = _mm512_min_epi32(_mm512_max_epi32(_mm512_srai_epi32(xs, kInterBits), lo16), hi16);
        const __m512i sy = _mm512_min_epi32(_mm512_max_epi32(_mm512_srai_epi32(ys, kInterBits), lo16), hi16);
        const __mmask16 inside = _mm512_cmplt_epu32_mask(sx, width1) & _mm512_cmplt_epu32_mask(sy, height1);
        // The four neighbours' columns and rows, and which of them are read: inside the image
        // for a zero border (the others count as 0), all of them clamped to the edge otherwise.
        __m512i x0 = sx, x1 = _mm512_add_epi32(sx, one), y0 = sy, y1 = _mm512_add_epi32(sy, one);
        __mmask16 m00 = 0xffff, m01 = 0xffff, m10 = 0xffff, m11 = 0xffff;
        if (inside != 0xffff) {
            if (border == CK_BORDER_ZERO) {
                const __mmask16 vx0 = _mm512_cmplt_epu32_mask(x0, vsw), vx1 = _mm512_cmplt_epu32_mask(x1, vsw);
                const __mmask16 vy0 = _mm512_cmplt_epu32_mask(y0, vsh), vy1 = _mm512_cmplt_epu32_mask(y1, vsh);
                m00 = vx0 & vy0;
                m01 = vx1 & vy0;
                m10 = vx0 & vy1;
                m11 = vx1 & vy1;
                if ((m00 | m01 | m10 | m11) == 0) {
                    // All 16 pixels and their neighbours outside: zeros (letterbox bands).
                    const __m512 zero = _mm512_fmadd_ps(_mm512_setzero_ps(), vscale, voffset);
                    float *o = out + (size_t)i * 3;
                    _mm512_storeu_ps(o, zero);
                    _mm512_storeu_ps(o + 16, zero);
                    _mm512_storeu_ps(o + 32, zero);
                    continue;
                }
            } else {
                const __m512i right = _mm512_set1_epi32(sw - 1), bottom = _mm512_set1_epi32(sh - 1);
                x0 = _mm512_min_epi32(_mm512_max_epi32(x0, zero_i), right);
                x1 = _mm512_min_epi32(_mm512_max_epi32(x1, zero_i), right);
                y0 = _mm512_min_epi32(_mm512_max_epi32(y0, zero_i), bottom);
                y1 = _mm512_min_epi32(_mm512_max_epi32(y1, zero_i), bottom);
            }
        }
        // Offsets of the neighbours read (lanes not read may hold anything).
        const __m512i row0 = _mm512_mullo_epi32(y0, vstride), row1 = _mm512_mullo_epi32(y1, vstride);
        const __m512i col0 = _mm512_mullo_epi32(x0, vcn), col1 = _mm512_mullo_epi32(x1, vcn);
        const __m512i o00 = _mm512_add_epi32(row0, col0), o01 = _mm512_add_epi32(row0, col1);
        const __m512i o10 = _mm512_add_epi32(row1, col0), o11 = _mm512_add_epi32(row1, col1);
        // 4-byte reads of 3-byte pixels may not start past `last` (only the image's very last
        // pixel is that close to the end): such groups take the scalar path.
        if ((_mm512_mask_cmpgt_epi32_mask(m00, o00, last) | _mm512_mask_cmpgt_epi32_mask(m01, o01, last) |
             _mm512_mask_cmpgt_epi32_mask(m10, o10, last) | _mm512_mask_cmpgt_epi32_mask(m11, o11, last)) != 0) {
            blend_row_u8(src, sw, sh, stride, cn, border, X + i, Y + i, 16, row);
            convert_row(row, 48, scale, offset, out + (size_t)i * 3);
            continue;
        }
        const __m512i a = _mm512_mask_i32gather_epi32(zero_i, m00, o00, (const void *)src, 1);
        const __m512i b = _mm512_mask_i32gather_epi32(zero_i, m01, o01, (const void *)src, 1);
        const __m512i c = _mm512_mask_i32gather_epi32(zero_i, m10, o10, (const void *)src, 1);
        const __m512i d = _mm512_mask_i32gather_epi32(zero_i, m11, o11, (const void *)src, 1);
        const __m512i idx = _mm512_slli_epi32(
            _mm512_add_epi32(_mm512_slli_epi32(_mm512_and_si512(ys, tab_mask), kInterBits), _mm512_and_si512(xs, tab_mask)), 2);
        const int32_t *table = &g_weights_q15[0][0];
        const __m512i w0 = _mm512_i32gather_epi32(idx, (const void *)table, 4);
        const __m512i w1 = _mm512_i32gather_epi32(_mm512_add_epi32(idx, _mm512_set1_epi32(1)), (const void *)table, 4);
        const __m512i w2 = _mm512_i32gather_epi32(_mm512_add_epi32(idx, _mm512_set1_epi32(2)), (const void *)table, 4);
        const __m512i w3 = _mm512_i32gather_epi32(_mm512_add_epi32(idx, _mm512_set1_epi32(3)), (const void *)table, 4);
        const __m512 r = _mm512_fmadd_ps(_mm512_cvtepi32_ps(blend_channel_avx512(a, b, c, d, w0, w1, w2, w3, 0)), vscale, voffset);
        const __m512 g = _mm512_fmadd_ps(_mm512_cvtepi32_ps(blend_channel_avx512(a, b, c, d, w0, w1, w2, w3, 8)), vscale, voffset);
        const __m512 bl = _mm512_fmadd_ps(_mm512_cvtepi32_ps(blend_channel_avx512(a, b, c, d, w0, w1, w2, w3, 16)), vscale, voffset);
        float *o = out + (size_t)i * 3;
        _mm512_storeu_ps(o, _mm512_permutex2var_ps(_mm512_permutex2var_ps(r, rg0, g), b0, bl));
        _mm512_storeu_ps(o + 16, _mm512_permutex2var_ps(_mm512_permutex2var_ps(r, rg1, g), b1, bl));
        _mm512_storeu_ps(o + 32, _mm512_permutex2var_ps(_mm512_permutex2var_ps(r, rg2, g), b2, bl));
    }
    if (i < n) {
        blend_row_u8(src, sw, sh, stride, cn, border, X + i, Y + i, n - i, row);
        convert_row(row, (n - i) * 3, scale, offset, out + (size_t)i * 3);
    }
}
#endif

// ---------------------------------------------------------------------------------------
// Entry points.

static int check_u8_args(const uint8_t *src, int sw, int sh, size_t stride, int cn,
                         const double *m, int border, const void *dst, int dw, int dh) {
    if (!src || !m || !dst) return 0;
    if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0) return 0;
    if (cn != 3 && cn != 4) return 0;
    if (border != CK_BORDER_ZERO && border != CK_BORDER_REPLICATE) return 0;
    // Coordinates are 16-bit in OpenCV's remap; larger images are not supported there either.
    if (sw > 32767 || sh > 32767 || dw > 32767 || dh > 32767) return 0;
    if (stride < (size_t)sw * (size_t)cn) return 0;
    return 1;
}

/// Outputs at most this wide (every model input) keep their row buffers on the stack, so a
/// crop into a model allocates nothing.
#define CK_WARP_STACK_WIDTH 1024

/// One warp's arguments, for its rows on any thread.
typedef struct warp_job {
    const uint8_t *src;
    int sw, sh, cn, border, dw, dh, bw0, gathers;
    size_t stride;
    const double *m;
    uint8_t *dst_u8;
    float *dst_f32;
    float scale, offset;
} warp_job;

/// Output rows [y0, y1) through `coords` (2 * dw) and, for float outputs, `row` (3 * dw).
static void warp_rows(const warp_job *job, int y0, int y1, int32_t *coords, uint8_t *row) {
    const int dw = job->dw;
    int32_t *X = coords, *Y = coords + dw;
    for (int y = y0; y < y1; y++) {
        perspective_row(job->m, y, dw, job->bw0, X, Y);
        if (job->dst_u8) {
            blend_row_u8(job->src, job->sw, job->sh, job->stride, job->cn, job->border, X, Y, dw,
                         job->dst_u8 + (size_t)y * (size_t)dw * 3);
#if defined(CK_WARP_X86)
        } else if (job->gathers) {
            blend_row_f32_avx512(job->src, job->sw, job->sh, job->stride, job->cn, job->border, X, Y, dw,
                                 job->scale, job->offset, row, job->dst_f32 + (size_t)y * (size_t)dw * 3);
#endif
        } else {
            blend_row_u8(job->src, job->sw, job->sh, job->stride, job->cn, job->border, X, Y, dw, row);
            convert_row(row, dw * 3, job->scale, job->offset, job->dst_f32 + (size_t)y * (size_t)dw * 3);
        }
    }
}

/// Rows [begin, end) on the running thread, with its buffers on the stack (the pool runs
/// outputs at most CK_WARP_STACK_WIDTH wide only).
static void warp_range(void *context, size_t begin, size_t end) {
    int32_t coords[2 * CK_WARP_STACK_WIDTH];
    uint8_t row[3 * CK_WARP_STACK_WIDTH];
    warp_rows((const warp_job *)context, (int)begin, (int)end, coords, row);
}

static int warp_perspective(const uint8_t *src, int sw, int sh, size_t stride, int cn,
                            const double *m, int border, uint8_t *dst_u8, float *dst_f32,
                            float scale, float offset, int dw, int dh, ck_threadpool *pool) {
    ensure_tables();
    warp_job job = {.src = src, .sw = sw, .sh = sh, .cn = cn, .border = border, .dw = dw, .dh = dh,
                    .bw0 = perspective_block_width(dw, dh), .stride = stride, .m = m,
                    .dst_u8 = dst_u8, .dst_f32 = dst_f32, .scale = scale, .offset = offset};
#if defined(CK_WARP_X86)
    // The gathers take 32-bit offsets: images up to 2 GB.
    job.gathers = ck_active_isa() == CK_ISA_AVX512 && (size_t)sh * stride < ((size_t)1 << 31);
#endif
    if (dw <= CK_WARP_STACK_WIDTH) {
        // Each output value blends four source pixels: work as the other kernels count it.
        ck_parallel_for(ck_pool_for_work(pool, (size_t)dw * (size_t)dh * 3 * 4), (size_t)dh, warp_range, &job);
        return CK_WARP_OK;
    }
    int32_t *coords = (int32_t *)malloc(sizeof(int32_t) * 2 * (size_t)dw);
    uint8_t *row = dst_f32 ? (uint8_t *)malloc((size_t)dw * 3) : NULL;
    if (!coords || (dst_f32 && !row)) {
        free(coords);
        free(row);
        return CK_WARP_BAD_ARGUMENT;
    }
    warp_rows(&job, 0, dh, coords, row);
    free(coords);
    free(row);
    return CK_WARP_OK;
}

int ck_warp_perspective_u8(const uint8_t *src, int src_width, int src_height,
                           size_t src_row_bytes, int src_channels,
                           const double inverse_matrix[9], int border_mode,
                           uint8_t *dst, int dst_width, int dst_height) {
    if (!check_u8_args(src, src_width, src_height, src_row_bytes, src_channels, inverse_matrix,
                       border_mode, dst, dst_width, dst_height)) {
        return CK_WARP_BAD_ARGUMENT;
    }
    return warp_perspective(src, src_width, src_height, src_row_bytes, src_channels,
                            inverse_matrix, border_mode, dst, NULL, 0, 0, dst_width, dst_height, NULL);
}

int ck_warp_perspective_u8_to_f32(const uint8_t *src, int src_width, int src_height,
                                  size_t src_row_bytes, int src_channels,
                                  const double inverse_matrix[9], int border_mode,
                                  float scale, float offset,
                                  float *dst, int dst_width, int dst_height,
                                  struct ck_threadpool *pool) {
    if (!check_u8_args(src, src_width, src_height, src_row_bytes, src_channels, inverse_matrix,
                       border_mode, dst, dst_width, dst_height)) {
        return CK_WARP_BAD_ARGUMENT;
    }
    return warp_perspective(src, src_width, src_height, src_row_bytes, src_channels,
                            inverse_matrix, border_mode, NULL, dst, scale, offset, dst_width,
                            dst_height, pool);
}

// ---------------------------------------------------------------------------------------
// Float affine warp (OpenCV WarpAffineInvoker + remapBilinear<float>).

enum { kAffineBits = 10 };

static inline int round_to_int(double v) {
    // saturate_cast<int>(double) is cvRound: cvtsd2si, which yields INT_MIN ("integer
    // indefinite") for NaN and for values outside the int range.
    double r = rint(v);
    if (!(r >= (double)INT_MIN && r <= (double)INT_MAX)) return INT_MIN;
    return (int)r;
}

static inline int wrapping_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }

/// One affine warp's arguments and its per-column offsets, for its rows on any thread.
typedef struct affine_job {
    const float *src;
    int sw, sh, border_mode, dw;
    unsigned width1, height1;
    size_t stride;
    const double *matrix;
    float border_value;
    float *dst;
    const int *adelta, *bdelta;
} affine_job;

/// Output rows [begin, end).
static void affine_rows(void *context, size_t begin, size_t end) {
    const affine_job *job = (const affine_job *)context;
    const double ab_scale = (double)(1 << kAffineBits);
    const int round_delta = (1 << kAffineBits) / kInterTabSize / 2;
    const int sw = job->sw, sh = job->sh, dw = job->dw, border_mode = job->border_mode;
    const size_t stride = job->stride;
    const float *src = job->src;
    const double *matrix = job->matrix;
    for (int y = (int)begin; y < (int)end; y++) {
        const int X0 = wrapping_add(round_to_int((matrix[1] * y + matrix[2]) * ab_scale), round_delta);
        const int Y0 = wrapping_add(round_to_int((matrix[4] * y + matrix[5]) * ab_scale), round_delta);
        float *out = job->dst + (size_t)y * (size_t)dw;
        for (int x = 0; x < dw; x++) {
            const int X = wrapping_add(X0, job->adelta[x]) >> (kAffineBits - kInterBits);
            const int Y = wrapping_add(Y0, job->bdelta[x]) >> (kAffineBits - kInterBits);
            const int sx = saturate_short_int(X >> kInterBits);
            const int sy = saturate_short_int(Y >> kInterBits);
            const float *w = g_weights_f32[((Y & (kInterTabSize - 1)) << kInterBits) +
                                           (X & (kInterTabSize - 1))];
            if ((unsigned)sx < job->width1 && (unsigned)sy < job->height1) {
                const float *p = src + (size_t)sy * stride + (size_t)sx;
                out[x] = p[0] * w[0] + p[1] * w[1] + p[stride] * w[2] + p[stride + 1] * w[3];
                continue;
            }
            if (border_mode == CK_BORDER_ZERO &&
                (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0)) {
                out[x] = job->border_value;
                continue;
            }
            float v[4];
            for (int k = 0; k < 4; k++) {
                int xx = sx + (k & 1), yy = sy + (k >> 1);
                if (border_mode == CK_BORDER_REPLICATE) {
                    xx = xx < 0 ? 0 : (xx >= sw ? sw - 1 : xx);
                    yy = yy < 0 ? 0 : (yy >= sh ? sh - 1 : yy);
                    v[k] = src[(size_t)yy * stride + (size_t)xx];
                } else {
                    v[k] = (xx >= 0 && xx < sw && yy >= 0 && yy < sh)
                               ? src[(size_t)yy * stride + (size_t)xx]
                               : job->border_value;
                }
            }
            out[x] = v[0] * w[0] + v[1] * w[1] + v[2] * w[2] + v[3] * w[3];
        }
    }
}

int ck_warp_affine_f32c1(const float *src, int src_width, int src_height,
                         size_t src_row_floats, const double matrix[6], int border_mode,
                         float border_value, float *dst, int dst_width, int dst_height,
                         struct ck_threadpool *pool) {
    if (!src || !matrix || !dst || src_width <= 0 || src_height <= 0 || dst_width <= 0 ||
        dst_height <= 0 || src_width > 32767 || src_height > 32767 || dst_width > 32767 ||
        dst_height > 32767 || src_row_floats < (size_t)src_width ||
        (border_mode != CK_BORDER_ZERO && border_mode != CK_BORDER_REPLICATE)) {
        return CK_WARP_BAD_ARGUMENT;
    }
    ensure_tables();
    int delta_stack[2 * 2048];
    const int on_stack = dst_width <= 2048;
    int *delta = on_stack ? delta_stack : (int *)malloc(sizeof(int) * 2 * (size_t)dst_width);
    if (!delta) return CK_WARP_BAD_ARGUMENT;
    int *adelta = delta, *bdelta = delta + dst_width;
    const double ab_scale = (double)(1 << kAffineBits);
    for (int x = 0; x < dst_width; x++) {
        adelta[x] = round_to_int(matrix[0] * x * ab_scale);
        bdelta[x] = round_to_int(matrix[3] * x * ab_scale);
    }
    const affine_job job = {.src = src, .sw = src_width, .sh = src_height, .border_mode = border_mode,
                            .dw = dst_width, .width1 = (unsigned)(src_width > 1 ? src_width - 1 : 0),
                            .height1 = (unsigned)(src_height > 1 ? src_height - 1 : 0),
                            .stride = src_row_floats, .matrix = matrix, .border_value = border_value,
                            .dst = dst, .adelta = adelta, .bdelta = bdelta};
    // The threads read the offsets on this stack while the caller waits for them. Each output
    // blends four source values: work as the other kernels count it.
    ck_threadpool *threads = on_stack ? ck_pool_for_work(pool, (size_t)dst_width * (size_t)dst_height * 4) : NULL;
    ck_parallel_for(threads, (size_t)dst_height, affine_rows, (void *)&job);
    if (!on_stack) free(delta);
    return CK_WARP_OK;
}
