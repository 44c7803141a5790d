// Convolution as matrix multiplication: a 6 x 16 register-blocked microkernel over weights
// packed once at load time (float32, or half precision converted in the kernel), used directly
// for 1x1 convolutions / fully connected layers and through an indirection buffer (one pointer
// per output pixel and kernel tap) for general convolutions, so no im2col copy is made. The
// results go through a fused epilogue: the convolution's clamp, an optional residual ADD with
// its clamp, and an optional PReLU.
//
// Each output is bias + sum over (tap, input channel) in order, one fused multiply-add per
// term; single-row tiles (matrix-vector products) keep four partial sums over k instead, so
// their result is independent of the threads but not bit-identical to a multi-row tile's.
//
// With AVX-512 a tile is 8 rows x two 16-column panels (16 zmm accumulators; the same packed
// panels, half-precision panels widened with vcvtph2ps, once per thread and call into a
// per-thread copy when a thread runs several row tiles over them; the second panel in 256-bit
// halves when the outputs end 1-8 columns into it), or x one panel for the last odd panel and
// the last rows; the arithmetic rules are the same, only which rows share a tile differs (so a
// single-row tile can fall on other rows).
#include "ck_internal.h"
#include "ck_simd8.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define MR CK_GEMM_MR
#define NR CK_GEMM_NR
/// Rows per AVX-512 tile: 8 (x 2 panels = 16 independent accumulators) keep both FMA units of a
/// core busy through the 4-cycle FMA latency.
#define MR512 8

// MARK: - Packing

size_t ck_conv_packed_size(size_t output_channels, size_t taps, size_t input_channels) {
    size_t panels = (output_channels + NR - 1) / NR;
    return panels * NR * (1 + taps * input_channels);
}

void ck_conv_pack(size_t n, size_t taps, size_t k, const float *weights, const float *bias,
                  float *packed) {
    size_t panels = (n + NR - 1) / NR;
    size_t kk = taps * k;
    for (size_t p = 0; p < panels; p++) {
        float *dst = packed + p * NR * (1 + kk);
        for (size_t j = 0; j < NR; j++) {
            size_t o = p * NR + j;
            dst[j] = (o < n && bias != NULL) ? bias[o] : 0.0f;
        }
        dst += NR;
        for (size_t r = 0; r < kk; r++) {
            for (size_t j = 0; j < NR; j++) {
                size_t o = p * NR + j;
                dst[r * NR + j] = o < n ? weights[o * kk + r] : 0.0f;
            }
        }
    }
}

/// Bytes of one half-precision panel: 16 float32 biases, then 16 halves per (tap, channel).
static size_t panel_bytes_f16(size_t kk) { return NR * sizeof(float) + kk * NR * sizeof(uint16_t); }

size_t ck_conv_packed_bytes_f16(size_t output_channels, size_t taps, size_t input_channels) {
    return (output_channels + NR - 1) / NR * panel_bytes_f16(taps * input_channels);
}

/// The half-precision value of `value` when it has one exactly (returns 1), else 0.
static int f32_to_f16_exact(float value, uint16_t *half) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) { // infinity or NaN: keep infinities, refuse NaN payloads
        if (mantissa != 0) return 0;
        *half = (uint16_t)(sign | 0x7c00u);
        return 1;
    }
    if (exponent == 0 && mantissa == 0) {
        *half = (uint16_t)sign;
        return 1;
    }
    if (exponent == 0) return 0; // float32 subnormals are far below half precision
    int e = (int)exponent - 127;
    if (e > 15) return 0;
    if (e >= -14) { // normal half: 10 mantissa bits
        if (mantissa & 0x1fffu) return 0;
        *half = (uint16_t)(sign | ((uint32_t)(e + 15) << 10) | (mantissa >> 13));
        return 1;
    }
    if (e < -24) return 0;
    // Subnormal half: value = m * 2^-24 with m < 1024.
    uint32_t full = mantissa | 0x800000u; // 1.mantissa as 24 bits, value = full * 2^(e-23)
    int shift = -14 - e + 13;            // bits dropped to reach units of 2^-24
    if (full & ((1u << shift) - 1u)) return 0;
    *half = (uint16_t)(sign | (full >> shift));
    return 1;
}

int ck_f16_exact(const float *values, size_t count) {
    uint16_t half;
    for (size_t i = 0; i < count; i++) {
        if (!f32_to_f16_exact(values[i], &half)) return 0;
    }
    return 1;
}

void ck_conv_pack_f16(size_t n, size_t taps, size_t k, const float *weights, const float *bias,
                      void *packed) {
    size_t panels = (n + NR - 1) / NR;
    size_t kk = taps * k;
    for (size_t p = 0; p < panels; p++) {
        char *panel = (char *)packed + p * panel_bytes_f16(kk);
        float *biases = (float *)(void *)panel;
        uint16_t *dst = (uint16_t *)(void *)(panel + NR * sizeof(float));
        for (size_t j = 0; j < NR; j++) {
            size_t o = p * NR + j;
            biases[j] = (o < n && bias != NULL) ? bias[o] : 0.0f;
        }
        for (size_t r = 0; r < kk; r++) {
            for (size_t j = 0; j < NR; j++) {
                size_t o = p * NR + j;
                uint16_t half = 0;
                if (o < n && !f32_to_f16_exact(weights[o * kk + r], &half)) half = 0x7e00u; // NaN: caller skipped the check
                dst[r * NR + j] = half;
            }
        }
    }
}

// MARK: - The shared driver

typedef struct gemm_job {
    size_t m, n, k, taps;
    // Direct rows (indirection == NULL) or an indirection buffer.
    const float *a;
    size_t a_stride;
    const float *const *indirection;
    const char *packed;
    size_t panel_bytes;
    int f16;
    float *c;
    size_t c_stride;
    float lo, hi, lo2, hi2;
    const float *residual;
    size_t residual_stride;
    const float *prelu;
    size_t m_tiles, n_tiles;
    /// Rows per tile at this dispatch level (MR, or MR512 with AVX-512).
    size_t mr;
    /// Row tiles of the first operand that stay in the L1 cache while panels pass over them.
    size_t row_block;
    int m_outer;
    int simd;
    int avx512;
    /// Distinct for every call of run_gemm (widened panels are reused within one call only).
    uint64_t serial;
} gemm_job;

/// The input of output row `row` at tap `t`.
static inline const float *gemm_row(const gemm_job *job, size_t row, size_t t) {
    return job->indirection != NULL ? job->indirection[row * job->taps + t] : job->a + row * job->a_stride;
}

// MARK: - Portable microkernel

static void tile_portable(const gemm_job *job, size_t i0, size_t mr, size_t panel) {
    const size_t n0 = panel * NR, nr = CK_MIN(NR, job->n - n0);
    const char *base = job->packed + panel * job->panel_bytes;
    const float *bias = (const float *)(const void *)base;
    const float *w32 = bias + NR;
    const uint16_t *w16 = (const uint16_t *)(const void *)(base + NR * sizeof(float));
    float acc[MR][NR];
    for (size_t i = 0; i < mr; i++) {
        for (size_t j = 0; j < NR; j++) acc[i][j] = bias[j];
    }
    float wrow[NR];
    size_t r = 0;
    for (size_t t = 0; t < job->taps; t++) {
        const float *a[MR];
        for (size_t i = 0; i < mr; i++) a[i] = gemm_row(job, i0 + i, t);
        for (size_t p = 0; p < job->k; p++, r++) {
            if (job->f16) {
                ck_f16_to_f32(w16 + r * NR, wrow, NR);
            } else {
                memcpy(wrow, w32 + r * NR, sizeof wrow);
            }
            for (size_t i = 0; i < mr; i++) {
                const float av = a[i][p];
                for (size_t j = 0; j < NR; j++) acc[i][j] += av * wrow[j];
            }
        }
    }
    for (size_t i = 0; i < mr; i++) {
        float *out = job->c + (i0 + i) * job->c_stride + n0;
        const float *res = job->residual ? job->residual + (i0 + i) * job->residual_stride + n0 : NULL;
        for (size_t j = 0; j < nr; j++) {
            float v = acc[i][j];
            v = v < job->lo ? job->lo : v;
            v = v > job->hi ? job->hi : v;
            if (res != NULL) {
                v += res[j];
                v = v < job->lo2 ? job->lo2 : v;
                v = v > job->hi2 ? job->hi2 : v;
            }
            if (job->prelu != NULL && v < 0.0f) v *= job->prelu[n0 + j];
            out[j] = v;
        }
    }
}

// MARK: - SIMD microkernels (AVX2 / NEON)

#if defined(CK_SIMD8)

/// The epilogue for 8 columns starting at `col` of output row `row`; `lanes` < 8 for the last
/// columns of a layer.
CK_SIMD8_INLINE void gemm_store(const gemm_job *job, ck_v8 v, size_t row, size_t col, size_t lanes) {
    v = v8_min(v8_max(v, v8_set1(job->lo)), v8_set1(job->hi));
    if (job->residual != NULL) {
        const float *res = job->residual + row * job->residual_stride + col;
        v = v8_add(v, lanes == 8 ? v8_load(res) : v8_load_partial(res, lanes));
        v = v8_min(v8_max(v, v8_set1(job->lo2)), v8_set1(job->hi2));
    }
    if (job->prelu != NULL) {
        v = v8_prelu(v, lanes == 8 ? v8_load(job->prelu + col) : v8_load_partial(job->prelu + col, lanes));
    }
    float *out = job->c + row * job->c_stride + col;
    if (lanes == 8) {
        v8_store(out, v);
    } else {
        v8_store_partial(out, v, lanes);
    }
}

/// Eight weights of a panel row: float32 or half precision.
CK_SIMD8_INLINE ck_v8 gemm_weights(const int F16, const void *w, size_t offset) {
    return F16 ? v8_load_f16((const uint16_t *)w + offset) : v8_load((const float *)w + offset);
}

/// R rows (a constant in each instantiation, so the accumulators stay in registers) x 16
/// columns (WIDE) or x 8 columns of one panel.
CK_SIMD8_INLINE void tile_simd(const int R, const int F16, const int WIDE, const gemm_job *job, size_t i0,
                               size_t panel) {
    const size_t n0 = panel * NR, nr = CK_MIN(NR, job->n - n0);
    const char *base = job->packed + panel * job->panel_bytes;
    const float *bias = (const float *)(const void *)base;
    const void *w = base + NR * sizeof(float);
    const size_t k = job->k, taps = job->taps;
    ck_v8 acc[MR][2];
    const ck_v8 bias0 = v8_load(bias), bias1 = v8_load(bias + 8);
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) {
        acc[i][0] = bias0;
        acc[i][1] = bias1;
    }
    size_t r = 0; // panel row (tap, channel)
    if (R == 1) {
        // One row has a single dependency chain per column group; four partial sums over k
        // keep the FMA units busy (matrix-vector products such as fully connected layers).
        ck_v8 p0 = v8_zero(), p1 = v8_zero(), q0 = v8_zero(), q1 = v8_zero(), u0 = v8_zero(), u1 = v8_zero();
        for (size_t t = 0; t < taps; t++) {
            const float *a0 = gemm_row(job, i0, t);
            size_t p = 0;
            for (; p + 4 <= k; p += 4, r += 4) {
                const ck_v8 x0 = v8_broadcast(a0 + p), x1 = v8_broadcast(a0 + p + 1);
                const ck_v8 x2 = v8_broadcast(a0 + p + 2), x3 = v8_broadcast(a0 + p + 3);
                acc[0][0] = v8_fma(x0, gemm_weights(F16, w, r * NR), acc[0][0]);
                p0 = v8_fma(x1, gemm_weights(F16, w, (r + 1) * NR), p0);
                q0 = v8_fma(x2, gemm_weights(F16, w, (r + 2) * NR), q0);
                u0 = v8_fma(x3, gemm_weights(F16, w, (r + 3) * NR), u0);
                if (WIDE) {
                    acc[0][1] = v8_fma(x0, gemm_weights(F16, w, r * NR + 8), acc[0][1]);
                    p1 = v8_fma(x1, gemm_weights(F16, w, (r + 1) * NR + 8), p1);
                    q1 = v8_fma(x2, gemm_weights(F16, w, (r + 2) * NR + 8), q1);
                    u1 = v8_fma(x3, gemm_weights(F16, w, (r + 3) * NR + 8), u1);
                }
            }
            for (; p < k; p++, r++) {
                const ck_v8 x0 = v8_broadcast(a0 + p);
                acc[0][0] = v8_fma(x0, gemm_weights(F16, w, r * NR), acc[0][0]);
                if (WIDE) acc[0][1] = v8_fma(x0, gemm_weights(F16, w, r * NR + 8), acc[0][1]);
            }
        }
        acc[0][0] = v8_add(v8_add(acc[0][0], p0), v8_add(q0, u0));
        if (WIDE) acc[0][1] = v8_add(v8_add(acc[0][1], p1), v8_add(q1, u1));
    } else {
        for (size_t t = 0; t < taps; t++) {
            const float *a[MR];
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) a[i] = gemm_row(job, i0 + (size_t)i, t);
            for (size_t p = 0; p < k; p++, r++) {
                const ck_v8 b0 = gemm_weights(F16, w, r * NR);
                if (WIDE) {
                    const ck_v8 b1 = gemm_weights(F16, w, r * NR + 8);
#pragma clang loop unroll(full)
                    for (int i = 0; i < R; i++) {
                        const ck_v8 va = v8_broadcast(a[i] + p);
                        acc[i][0] = v8_fma(va, b0, acc[i][0]);
                        acc[i][1] = v8_fma(va, b1, acc[i][1]);
                    }
                } else {
#pragma clang loop unroll(full)
                    for (int i = 0; i < R; i++) acc[i][0] = v8_fma(v8_broadcast(a[i] + p), b0, acc[i][0]);
                }
            }
        }
    }
    if (job->residual == NULL && nr == (WIDE ? NR : 8)) {
        // Whole vectors without a residual: the activation's constants loaded once per tile.
        const ck_v8 lo = v8_set1(job->lo), hi = v8_set1(job->hi);
        float *out = job->c + i0 * job->c_stride + n0;
        const size_t stride = job->c_stride;
        if (job->prelu != NULL) {
            const ck_v8 s0 = v8_load(job->prelu + n0), s1 = WIDE ? v8_load(job->prelu + n0 + 8) : s0;
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) {
                v8_store(out + (size_t)i * stride, v8_prelu(v8_min(v8_max(acc[i][0], lo), hi), s0));
                if (WIDE) v8_store(out + (size_t)i * stride + 8, v8_prelu(v8_min(v8_max(acc[i][1], lo), hi), s1));
            }
        } else {
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) {
                v8_store(out + (size_t)i * stride, v8_min(v8_max(acc[i][0], lo), hi));
                if (WIDE) v8_store(out + (size_t)i * stride + 8, v8_min(v8_max(acc[i][1], lo), hi));
            }
        }
        return;
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) {
        const size_t row = i0 + (size_t)i;
        gemm_store(job, acc[i][0], row, n0, CK_MIN(8, nr));
        if (WIDE && nr > 8) gemm_store(job, acc[i][1], row, n0 + 8, nr - 8);
    }
}

/// A matrix-vector product (m = 1): P panels at once, so each input value is broadcast once
/// for P panels, with bias + sum over k in order for every output (like a multi-row tile).
CK_SIMD8_INLINE void gemv_panels(const int P, const int F16, const gemm_job *job, size_t first_panel) {
    ck_v8 acc[4][2];
    const void *w[4];
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const char *base = job->packed + (first_panel + (size_t)q) * job->panel_bytes;
        const float *bias = (const float *)(const void *)base;
        acc[q][0] = v8_load(bias);
        acc[q][1] = v8_load(bias + 8);
        w[q] = base + NR * sizeof(float);
    }
    size_t r = 0;
    for (size_t t = 0; t < job->taps; t++) {
        const float *a = gemm_row(job, 0, t);
        for (size_t p = 0; p < job->k; p++, r++) {
            const ck_v8 x = v8_broadcast(a + p);
#pragma clang loop unroll(full)
            for (int q = 0; q < P; q++) {
                acc[q][0] = v8_fma(x, gemm_weights(F16, w[q], r * NR), acc[q][0]);
                acc[q][1] = v8_fma(x, gemm_weights(F16, w[q], r * NR + 8), acc[q][1]);
            }
        }
    }
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const size_t n0 = (first_panel + (size_t)q) * NR, nr = CK_MIN(NR, job->n - n0);
        gemm_store(job, acc[q][0], 0, n0, CK_MIN(8, nr));
        if (nr > 8) gemm_store(job, acc[q][1], 0, n0 + 8, nr - 8);
    }
}

/// Panels [p_begin, p_end) of a matrix-vector product. Panels in whole groups of four (counted
/// from panel 0, so the grouping does not depend on how threads split the panels) run four at
/// a time; the last panels, fewer than four, run as single-row tiles (four partial sums over k,
/// which keep the FMA units busy with one panel).
CK_SIMD8_INLINE void gemv_simd(const int F16, const gemm_job *job, size_t p_begin, size_t p_end) {
    const size_t grouped = job->n_tiles / 4 * 4;
    size_t panel = p_begin;
    while (panel < p_end) {
        if (panel >= grouped) {
            if (job->n - panel * NR > 8) {
                tile_simd(1, F16, 1, job, 0, panel);
            } else {
                tile_simd(1, F16, 0, job, 0, panel);
            }
            panel++;
            continue;
        }
        const size_t end = CK_MIN(p_end, (panel / 4 + 1) * 4);
        switch (end - panel) {
        case 4: gemv_panels(4, F16, job, panel); break;
        case 3: gemv_panels(3, F16, job, panel); break;
        case 2: gemv_panels(2, F16, job, panel); break;
        default: gemv_panels(1, F16, job, panel); break;
        }
        panel = end;
    }
}

/// One tile: rows [i0, i0 + 6) (fewer at the end) of one panel.
CK_SIMD8_INLINE void tile_any_simd(const int F16, const gemm_job *job, size_t tile, size_t panel) {
    const int wide = job->n - panel * NR > 8;
    const size_t i0 = tile * MR, mr = CK_MIN(MR, job->m - i0);
#define CK_TILE(RR)                                                                                   \
    if (wide) tile_simd(RR, F16, 1, job, i0, panel);                                                  \
    else tile_simd(RR, F16, 0, job, i0, panel);
    switch (mr) {
    case 1: CK_TILE(1) break;
    case 2: CK_TILE(2) break;
    case 3: CK_TILE(3) break;
    case 4: CK_TILE(4) break;
    case 5: CK_TILE(5) break;
    default: CK_TILE(6) break;
    }
#undef CK_TILE
}

/// Row tiles [t_begin, t_end) x panels [p_begin, p_end), tile by tile (every panel of a tile,
/// then the next tile) or panel by panel.
CK_SIMD8_INLINE void tiles_simd(const int F16, const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin,
                                size_t p_end, int tile_major) {
    if (tile_major) {
        for (size_t tile = t_begin; tile < t_end; tile++) {
            for (size_t panel = p_begin; panel < p_end; panel++) tile_any_simd(F16, job, tile, panel);
        }
    } else {
        for (size_t panel = p_begin; panel < p_end; panel++) {
            for (size_t tile = t_begin; tile < t_end; tile++) tile_any_simd(F16, job, tile, panel);
        }
    }
}

CK_SIMD8_FN static void tiles_simd_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                       int tile_major) {
    if (job->m == 1) {
        gemv_simd(0, job, p_begin, p_end);
        return;
    }
    tiles_simd(0, job, t_begin, t_end, p_begin, p_end, tile_major);
}
CK_SIMD8_FN static void tiles_simd_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                       int tile_major) {
    if (job->m == 1) {
        gemv_simd(1, job, p_begin, p_end);
        return;
    }
    tiles_simd(1, job, t_begin, t_end, p_begin, p_end, tile_major);
}
#endif

// MARK: - AVX-512 microkernels

#if defined(CK_HAVE_X86)

/// Sixteen weights of a panel row: float32 or half precision.
CK_AVX512_INLINE __m512 z_weights(const int F16, const void *w, size_t offset) {
    return F16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)((const uint16_t *)w + offset)))
               : _mm512_loadu_ps((const float *)w + offset);
}

/// v < 0 ? v * slope : v (as the portable epilogue).
CK_AVX512_INLINE __m512 z_prelu(__m512 v, __m512 slope) {
    return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, slope);
}

/// The epilogue for the 16 columns of a panel starting at `col` of output row `row`; `mask`
/// selects the columns that exist.
CK_AVX512_INLINE void z_store(const gemm_job *job, __m512 v, size_t row, size_t col, __mmask16 mask) {
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(job->lo)), _mm512_set1_ps(job->hi));
    if (job->residual != NULL) {
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, job->residual + row * job->residual_stride + col));
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(job->lo2)), _mm512_set1_ps(job->hi2));
    }
    if (job->prelu != NULL) v = z_prelu(v, _mm512_maskz_loadu_ps(mask, job->prelu + col));
    _mm512_mask_storeu_ps(job->c + row * job->c_stride + col, mask, v);
}

/// The epilogue of R rows x the 16 columns of a panel at n0 (nr of them live).
CK_AVX512_INLINE void tile_z_store(const int R, const gemm_job *job, const __m512 *acc, size_t i0, size_t n0, size_t nr) {
    const __mmask16 mask = (__mmask16)((1u << nr) - 1u);
    if (job->residual == NULL) {
        // No residual: the activation's constants loaded once per tile. Whole panels use plain
        // stores (masked stores of all 16 lanes are markedly slower on Zen 5).
        const __m512 lo = _mm512_set1_ps(job->lo), hi = _mm512_set1_ps(job->hi);
        float *out = job->c + i0 * job->c_stride + n0;
        const size_t stride = job->c_stride;
        if (nr == NR && job->prelu == NULL) {
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) _mm512_storeu_ps(out + (size_t)i * stride, _mm512_min_ps(_mm512_max_ps(acc[i], lo), hi));
            return;
        }
        if (nr == NR) {
            const __m512 slope = _mm512_loadu_ps(job->prelu + n0);
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) _mm512_storeu_ps(out + (size_t)i * stride, z_prelu(_mm512_min_ps(_mm512_max_ps(acc[i], lo), hi), slope));
            return;
        }
        if (job->prelu != NULL) {
            const __m512 slope = _mm512_maskz_loadu_ps(mask, job->prelu + n0);
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) {
                _mm512_mask_storeu_ps(out + (size_t)i * stride, mask, z_prelu(_mm512_min_ps(_mm512_max_ps(acc[i], lo), hi), slope));
            }
        } else {
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) {
                _mm512_mask_storeu_ps(out + (size_t)i * stride, mask, _mm512_min_ps(_mm512_max_ps(acc[i], lo), hi));
            }
        }
        return;
    }
    if (nr == NR && job->prelu == NULL) {
        // A residual over whole panels (the common fused ADD): unmasked loads and stores.
        const __m512 lo = _mm512_set1_ps(job->lo), hi = _mm512_set1_ps(job->hi);
        const __m512 lo2 = _mm512_set1_ps(job->lo2), hi2 = _mm512_set1_ps(job->hi2);
        float *out = job->c + i0 * job->c_stride + n0;
        const float *res = job->residual + i0 * job->residual_stride + n0;
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
            __m512 v = _mm512_min_ps(_mm512_max_ps(acc[i], lo), hi);
            v = _mm512_add_ps(v, _mm512_loadu_ps(res + (size_t)i * job->residual_stride));
            _mm512_storeu_ps(out + (size_t)i * job->c_stride, _mm512_min_ps(_mm512_max_ps(v, lo2), hi2));
        }
        return;
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) z_store(job, acc[i], i0 + (size_t)i, n0, mask);
}

/// R rows (a constant in each instantiation) x the 16 columns of one panel.
CK_AVX512_INLINE void tile_z(const int R, const int F16, const gemm_job *job, size_t i0, size_t panel) {
    const size_t n0 = panel * NR, nr = CK_MIN(NR, job->n - n0);
    const char *base = job->packed + panel * job->panel_bytes;
    const float *bias = (const float *)(const void *)base;
    const void *w = base + NR * sizeof(float);
    const size_t k = job->k, taps = job->taps;
    __m512 acc[MR512];
    const __m512 b = _mm512_loadu_ps(bias);
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) acc[i] = b;
    size_t r = 0;
    if (R == 1) {
        // Four partial sums over k, as the AVX2 single-row tile.
        __m512 p1 = _mm512_setzero_ps(), p2 = _mm512_setzero_ps(), p3 = _mm512_setzero_ps();
        for (size_t t = 0; t < taps; t++) {
            const float *a0 = gemm_row(job, i0, t);
            size_t p = 0;
            for (; p + 4 <= k; p += 4, r += 4) {
                acc[0] = _mm512_fmadd_ps(_mm512_set1_ps(a0[p]), z_weights(F16, w, r * NR), acc[0]);
                p1 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 1]), z_weights(F16, w, (r + 1) * NR), p1);
                p2 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 2]), z_weights(F16, w, (r + 2) * NR), p2);
                p3 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 3]), z_weights(F16, w, (r + 3) * NR), p3);
            }
            for (; p < k; p++, r++) acc[0] = _mm512_fmadd_ps(_mm512_set1_ps(a0[p]), z_weights(F16, w, r * NR), acc[0]);
        }
        acc[0] = _mm512_add_ps(_mm512_add_ps(acc[0], p1), _mm512_add_ps(p2, p3));
    } else {
        for (size_t t = 0; t < taps; t++) {
            const float *a[MR512];
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) a[i] = gemm_row(job, i0 + (size_t)i, t);
            const float *wt = (const float *)w + (F16 ? 0 : r * NR);
            const uint16_t *ht = (const uint16_t *)w + (F16 ? r * NR : 0);
            for (size_t p = 0; p < k; p++) {
                const __m512 bv = F16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(ht + p * NR)))
                                      : _mm512_loadu_ps(wt + p * NR);
#pragma clang loop unroll(full)
                for (int i = 0; i < R; i++) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i][p]), bv, acc[i]);
            }
            r += k;
        }
    }
    tile_z_store(R, job, acc, i0, n0, nr);
}

/// Panel `base` (16 float32 biases, then kk rows of 16 halves) as float32: 16 biases, then kk
/// rows of 16 floats, the layout of a float32 panel.
CK_AVX512_INLINE void z_widen_panel(const char *base, size_t kk, float *out) {
    _mm512_store_ps(out, _mm512_loadu_ps((const float *)(const void *)base));
    const uint16_t *h = (const uint16_t *)(const void *)(base + NR * sizeof(float));
    for (size_t r = 0; r < kk; r++) {
        _mm512_store_ps(out + NR * (1 + r), _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(h + r * NR))));
    }
}

/// Widened copies of half-precision panel pairs, per thread (see z_wide_pair).
#define CK_WIDE_MAX_PAIRS 64
#define CK_WIDE_MAX_BYTES ((size_t)1 << 20)

typedef struct wide_cache {
    float *floats;
    size_t capacity;
    /// The GEMM call (0: none) and pair whose copy each slot holds.
    uint64_t slot_serial[CK_WIDE_MAX_PAIRS];
    size_t slot_pair[CK_WIDE_MAX_PAIRS];
} wide_cache;

/// The slot of the pair at `panel`: rows-outer GEMMs pass over every pair once per block of row
/// tiles, so each pair keeps a slot of its own; panels-outer ones finish a pair's row tiles
/// before the next, so one slot, reused while it is warm in the cache, serves them all.
static size_t wide_slot(const gemm_job *job, size_t panel) { return job->m_outer ? panel / 2 : 0; }

static _Thread_local wide_cache tls_wide;
static pthread_key_t wide_key;
static pthread_once_t wide_key_once = PTHREAD_ONCE_INIT;
static int wide_key_made;

static void wide_release(void *floats) { free(floats); }
static void wide_make_key(void) { wide_key_made = pthread_key_create(&wide_key, wide_release) == 0; }

/// This thread's float32 copy of half-precision panels `panel` and `panel + 1` for this GEMM
/// call: the one it holds, else (with `make`) a new one, else NULL (the caller reads the halves;
/// also when there is no room). The tiles then spend no conversion per weight row (the
/// conversions share the FMA units), and each thread converts a pair once per call however many
/// row tiles and blocks it runs over it. The values are the same, so is every sum. The buffer
/// grows to the largest layer's pairs (at most CK_WIDE_MAX_BYTES) and is freed when its thread
/// ends.
CK_AVX512 static float *z_wide_pair(const gemm_job *job, size_t panel, int make) {
    const size_t kk = job->k * job->taps, pair = panel / 2, slot = wide_slot(job, panel);
    const size_t pairs = job->m_outer ? (job->n_tiles + 1) / 2 : 1, pair_floats = 2 * NR * (1 + kk);
    if (pairs > CK_WIDE_MAX_PAIRS || pair_floats > CK_WIDE_MAX_BYTES / sizeof(float) / pairs) return NULL;
    wide_cache *cache = &tls_wide;
    if (cache->capacity >= pairs * pair_floats && cache->slot_serial[slot] == job->serial && cache->slot_pair[slot] == pair) {
        return cache->floats + slot * pair_floats;
    }
    if (!make) return NULL;
    if (cache->capacity < pairs * pair_floats) {
        pthread_once(&wide_key_once, wide_make_key);
        if (!wide_key_made) return NULL;
        const size_t bytes = (pairs * pair_floats * sizeof(float) + 63) / 64 * 64;
        float *floats = (float *)aligned_alloc(64, bytes);
        if (floats == NULL) return NULL;
        free(cache->floats);
        cache->floats = floats;
        cache->capacity = pairs * pair_floats;
        memset(cache->slot_serial, 0, sizeof cache->slot_serial);
        pthread_setspecific(wide_key, floats);
    }
    float *wide = cache->floats + slot * pair_floats;
    const char *base = job->packed + panel * job->panel_bytes;
    z_widen_panel(base, kk, wide);
    z_widen_panel(base + job->panel_bytes, kk, wide + NR * (1 + kk));
    cache->slot_serial[slot] = job->serial;
    cache->slot_pair[slot] = pair;
    return wide;
}

/// Eight rows x the 32 columns of panels `panel` and `panel + 1` (the second may be partial):
/// each broadcast row value feeds two FMAs, where the single-panel tile spends a broadcast per
/// FMA (one core: 9216x32x32 95 -> 118, 12544x64x16 81 -> 110, 576x128x256 111 -> 128 G
/// multiply-adds per second). The same arithmetic per output as tile_z.
/// `base0` and `base1` are the two panels: in job->packed, or widened copies (F16 = 0).
///
/// With HALF the second panel has at most 8 live columns (the last panel when the outputs end
/// 1-8 columns into it, as the 24 of hand_landmark's first convolution do) and runs in the low
/// 256 bits of its registers: on cores that split a 512-bit FMA in two, 24 halves of FMA work per
/// weight row instead of 32 (784x96x24 on one Zen 4 core: 43.0 -> 50.7 G multiply-adds per
/// second).
CK_AVX512_INLINE void tile_z2_any(const int HALF, const int F16, const gemm_job *job, size_t i0, size_t panel,
                                  const char *base0, const char *base1) {
    const size_t n0 = panel * NR, nr1 = CK_MIN(NR, job->n - n0 - NR);
    const void *w0 = base0 + NR * sizeof(float), *w1 = base1 + NR * sizeof(float);
    const size_t k = job->k, taps = job->taps;
    __m512 acc0[MR512], acc1[MR512];
    const __m512 b0 = _mm512_loadu_ps((const float *)(const void *)base0), b1 = _mm512_loadu_ps((const float *)(const void *)base1);
#pragma clang loop unroll(full)
    for (int i = 0; i < MR512; i++) {
        acc0[i] = b0;
        acc1[i] = b1;
    }
    size_t r = 0;
    for (size_t t = 0; t < taps; t++) {
        const float *a[MR512];
#pragma clang loop unroll(full)
        for (int i = 0; i < MR512; i++) a[i] = gemm_row(job, i0 + (size_t)i, t);
        for (size_t p = 0; p < k; p++, r++) {
            const __m512 v0 = z_weights(F16, w0, r * NR);
            const __m512 v1 = !HALF ? z_weights(F16, w1, r * NR)
                              : F16 ? _mm512_castps256_ps512(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)((const uint16_t *)w1 + r * NR))))
                                    : _mm512_castps256_ps512(_mm256_loadu_ps((const float *)w1 + r * NR));
#pragma clang loop unroll(full)
            for (int i = 0; i < MR512; i++) {
                __m512 x = _mm512_set1_ps(a[i][p]);
                acc0[i] = _mm512_fmadd_ps(x, v0, acc0[i]);
                if (HALF) {
                    // Opaque to the compiler, which would otherwise broadcast to 256 bits from
                    // memory and widen with a shuffle per row (a shuffle unit's worth of extra
                    // work that made the half tile no faster than the whole one).
                    __asm__("" : "+v"(x));
                    acc1[i] = _mm512_castps256_ps512(_mm256_fmadd_ps(_mm512_castps512_ps256(x), _mm512_castps512_ps256(v1),
                                                                     _mm512_castps512_ps256(acc1[i])));
                } else {
                    acc1[i] = _mm512_fmadd_ps(x, v1, acc1[i]);
                }
            }
        }
    }
    if (HALF) {
#pragma clang loop unroll(full)
        for (int i = 0; i < MR512; i++) acc1[i] = _mm512_zextps256_ps512(_mm512_castps512_ps256(acc1[i]));
    }
    tile_z_store(MR512, job, acc0, i0, n0, NR);
    tile_z_store(MR512, job, acc1, i0, n0 + NR, nr1);
}

CK_AVX512_INLINE void tile_z2(const int F16, const gemm_job *job, size_t i0, size_t panel, const char *base0,
                              const char *base1) {
    if (job->n - panel * NR - NR <= NR / 2) {
        tile_z2_any(1, F16, job, i0, panel, base0, base1);
    } else {
        tile_z2_any(0, F16, job, i0, panel, base0, base1);
    }
}

/// tile_z2 over the pair at `panel`: from `wide`, this thread's float32 copy of it (z_wide_pair),
/// or from the packed panels when that is NULL.
CK_AVX512_INLINE void tile_z2_pair(const int F16, const gemm_job *job, size_t i0, size_t panel, const float *wide) {
    if (wide != NULL) {
        tile_z2(0, job, i0, panel, (const char *)wide, (const char *)(wide + NR * (1 + job->k * job->taps)));
    } else {
        const char *base = job->packed + panel * job->panel_bytes;
        tile_z2(F16, job, i0, panel, base, base + job->panel_bytes);
    }
}

/// A matrix-vector product over P panels at once (the AVX2 gemv_panels' arithmetic).
CK_AVX512_INLINE void gemv_panels_z(const int P, const int F16, const gemm_job *job, size_t first_panel) {
    __m512 acc[8];
    const void *w[8];
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const char *base = job->packed + (first_panel + (size_t)q) * job->panel_bytes;
        acc[q] = _mm512_loadu_ps((const float *)(const void *)base);
        w[q] = base + NR * sizeof(float);
    }
    size_t r = 0;
    for (size_t t = 0; t < job->taps; t++) {
        const float *a = gemm_row(job, 0, t);
        for (size_t p = 0; p < job->k; p++, r++) {
            const __m512 x = _mm512_set1_ps(a[p]);
#pragma clang loop unroll(full)
            for (int q = 0; q < P; q++) acc[q] = _mm512_fmadd_ps(x, z_weights(F16, w[q], r * NR), acc[q]);
        }
    }
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const size_t n0 = (first_panel + (size_t)q) * NR, nr = CK_MIN(NR, job->n - n0);
        z_store(job, acc[q], 0, n0, (__mmask16)((1u << nr) - 1u));
    }
}

/// Panels [p_begin, p_end) of a matrix-vector product, grouped as gemv_simd groups them.
CK_AVX512_INLINE void gemv_z(const int F16, const gemm_job *job, size_t p_begin, size_t p_end) {
    const size_t grouped = job->n_tiles / 4 * 4;
    size_t panel = p_begin;
    while (panel < p_end) {
        if (panel >= grouped) {
            tile_z(1, F16, job, 0, panel);
            panel++;
            continue;
        }
        // Two whole groups of four at once where both are in range: eight independent FMA
        // chains instead of four (each output's sum is the same either way).
        if (panel % 4 == 0 && panel + 8 <= CK_MIN(p_end, grouped)) {
            gemv_panels_z(8, F16, job, panel);
            panel += 8;
            continue;
        }
        const size_t end = CK_MIN(p_end, (panel / 4 + 1) * 4);
        switch (end - panel) {
        case 4: gemv_panels_z(4, F16, job, panel); break;
        case 3: gemv_panels_z(3, F16, job, panel); break;
        case 2: gemv_panels_z(2, F16, job, panel); break;
        default: gemv_panels_z(1, F16, job, panel); break;
        }
        panel = end;
    }
}

/// One tile: rows [i0, i0 + 8) (fewer at the end) of one panel.
CK_AVX512_INLINE void tile_any_z(const int F16, const gemm_job *job, size_t tile, size_t panel) {
    const size_t i0 = tile * MR512, mr = CK_MIN(MR512, job->m - i0);
    switch (mr) {
    case 1: tile_z(1, F16, job, i0, panel); break;
    case 2: tile_z(2, F16, job, i0, panel); break;
    case 3: tile_z(3, F16, job, i0, panel); break;
    case 4: tile_z(4, F16, job, i0, panel); break;
    case 5: tile_z(5, F16, job, i0, panel); break;
    case 6: tile_z(6, F16, job, i0, panel); break;
    case 7: tile_z(7, F16, job, i0, panel); break;
    default: tile_z(8, F16, job, i0, panel); break;
    }
}

CK_AVX512_INLINE void tiles_z(const int F16, const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin,
                              size_t p_end, int tile_major) {
    if (job->m == 1) {
        gemv_z(F16, job, p_begin, p_end);
        return;
    }
    // A thread widens a half-precision pair (z_wide_pair) when it runs more than one row tile
    // over it in this piece; a copy it made for an earlier piece of this call serves anyway.
    const size_t whole_tiles = CK_MIN(t_end, job->m / MR512) > t_begin ? CK_MIN(t_end, job->m / MR512) - t_begin : 0;
    const int widen = whole_tiles >= 2;
    // Pairs of panels in whole 8-row tiles (see tile_z2).
    if (tile_major) {
        for (size_t tile = t_begin; tile < t_end; tile++) {
            size_t panel = p_begin;
            if ((tile + 1) * MR512 <= job->m) {
                for (; panel + 2 <= p_end; panel += 2) {
                    tile_z2_pair(F16, job, tile * MR512, panel, F16 ? z_wide_pair(job, panel, widen) : NULL);
                }
            }
            for (; panel < p_end; panel++) tile_any_z(F16, job, tile, panel);
        }
    } else {
        size_t panel = p_begin;
        for (; panel + 2 <= p_end; panel += 2) {
            const float *wide = F16 ? z_wide_pair(job, panel, widen) : NULL;
            for (size_t tile = t_begin; tile < t_end; tile++) {
                if ((tile + 1) * MR512 <= job->m) {
                    tile_z2_pair(F16, job, tile * MR512, panel, wide);
                } else {
                    tile_any_z(F16, job, tile, panel);
                    tile_any_z(F16, job, tile, panel + 1);
                }
            }
        }
        for (; panel < p_end; panel++) {
            for (size_t tile = t_begin; tile < t_end; tile++) tile_any_z(F16, job, tile, panel);
        }
    }
}

CK_AVX512 static void tiles_z_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                  int tile_major) {
    tiles_z(0, job, t_begin, t_end, p_begin, p_end, tile_major);
}
CK_AVX512 static void tiles_z_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                  int tile_major) {
    tiles_z(1, job, t_begin, t_end, p_begin, p_end, tile_major);
}
#endif

/// Row tiles [t_begin, t_end) x panels [p_begin, p_end) at the current dispatch level.
static void tiles(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end, int tile_major) {
#if defined(CK_HAVE_X86)
    if (job->avx512) {
        if (job->f16) {
            tiles_z_f16(job, t_begin, t_end, p_begin, p_end, tile_major);
        } else {
            tiles_z_f32(job, t_begin, t_end, p_begin, p_end, tile_major);
        }
        return;
    }
#endif
#if defined(CK_SIMD8)
    if (job->simd) {
        if (job->f16) {
            tiles_simd_f16(job, t_begin, t_end, p_begin, p_end, tile_major);
        } else {
            tiles_simd_f32(job, t_begin, t_end, p_begin, p_end, tile_major);
        }
        return;
    }
#endif
    for (size_t panel = p_begin; panel < p_end; panel++) {
        for (size_t tile = t_begin; tile < t_end; tile++) {
            tile_portable(job, tile * job->mr, CK_MIN(job->mr, job->m - tile * job->mr), panel);
        }
    }
}

/// Work units: row tiles (the first operand is the larger: blocks of row tiles stay in cache
/// while every panel passes over them), or (panel, row tile) pairs panel by panel (the
/// weights are the larger: a panel stays in cache while the rows pass; with AVX-512 a pair of
/// panels).
static void gemm_range(void *context, size_t begin, size_t end) {
    const gemm_job *job = (const gemm_job *)context;
    if (job->m_outer) {
        if (job->row_block == 1) {
            tiles(job, begin, end, 0, job->n_tiles, 1);
            return;
        }
        for (size_t b = begin; b < end; b += job->row_block) {
            tiles(job, b, CK_MIN(end, b + job->row_block), 0, job->n_tiles, 0);
        }
        return;
    }
    // Units are (group of panels, row tile) pairs: single panels, or pairs with AVX-512 (whose
    // tiles take two panels at once).
    const size_t group = job->avx512 ? 2 : 1;
    if (job->m_tiles == 1) { // one row tile: the units are groups of panels, taken together
        tiles(job, 0, 1, begin * group, CK_MIN(job->n_tiles, end * group), 0);
        return;
    }
    size_t unit = begin;
    while (unit < end) {
        const size_t panel = unit / job->m_tiles * group, first = unit % job->m_tiles;
        const size_t last = CK_MIN(job->m_tiles, first + (end - unit));
        tiles(job, first, last, panel, CK_MIN(job->n_tiles, panel + group), 0);
        unit += last - first;
    }
}

static void run_gemm(gemm_job *job, ck_threadpool *pool) {
    if (job->m == 0 || job->n == 0) return;
#if defined(CK_SIMD8)
    job->simd = ck_use_simd8();
#endif
    job->avx512 = ck_use_avx512();
    // Only calls that may widen half-precision panels take a serial: the counter is shared by
    // every interpreter of the process.
    static _Atomic uint64_t serials;
    if (job->f16 && job->avx512) job->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
    job->mr = job->avx512 ? MR512 : MR;
    job->m_tiles = (job->m + job->mr - 1) / job->mr;
    job->n_tiles = (job->n + NR - 1) / NR;
    const size_t kk = job->k * job->taps;
    job->panel_bytes = job->f16 ? panel_bytes_f16(kk) : NR * (1 + kk) * sizeof(float);
    const size_t a_bytes = job->m * kk * sizeof(float);
    const size_t w_bytes = job->n_tiles * job->panel_bytes;
    job->m_outer = job->m > 1 && a_bytes >= w_bytes;
    // Weights that fit in the L1 cache are re-read from it for every row tile (each output row
    // is then written whole); larger weights pass over blocks of about 24 KB of rows, so each
    // panel is read from the L2 cache once per block (24 KB rather than 16: a 28x28x192 -> 96
    // layer of pose detection went from about 45 to 52 GMAC/s; 32 KB gained nothing more).
    const size_t tile_bytes = job->mr * kk * sizeof(float);
    job->row_block = w_bytes <= 24576 ? 1 : CK_MAX((size_t)1, (size_t)24576 / CK_MAX(tile_bytes, (size_t)1));
    pool = ck_pool_for_work(pool, job->m * job->n * kk);
    const size_t panel_groups = job->avx512 ? (job->n_tiles + 1) / 2 : job->n_tiles;
    ck_parallel_for(pool, job->m_outer ? job->m_tiles : job->m_tiles * panel_groups, gemm_range, job);
}

void ck_gemm(const ck_gemm_params *p, ck_threadpool *pool) {
    gemm_job job;
    memset(&job, 0, sizeof job);
    job.m = p->m;
    job.n = p->n;
    job.k = p->k;
    job.taps = 1;
    job.a = p->a;
    job.a_stride = p->a_stride;
    job.packed = (const char *)p->packed;
    job.f16 = p->weights_f16 != 0;
    job.c = p->c;
    job.c_stride = p->c_stride;
    job.lo = p->out_min;
    job.hi = p->out_max;
    job.residual = p->residual;
    job.residual_stride = p->residual_stride;
    job.lo2 = p->sum_min;
    job.hi2 = p->sum_max;
    job.prelu = p->prelu;
    run_gemm(&job, pool);
}

void ck_igemm(const ck_igemm_params *p, ck_threadpool *pool) {
    gemm_job job;
    memset(&job, 0, sizeof job);
    job.m = p->m;
    job.n = p->n;
    job.k = p->k;
    job.taps = p->taps;
    job.indirection = p->indirection;
    job.packed = (const char *)p->packed;
    job.f16 = p->weights_f16 != 0;
    job.c = p->c;
    job.c_stride = p->c_stride;
    job.lo = p->out_min;
    job.hi = p->out_max;
    job.residual = p->residual;
    job.residual_stride = p->residual_stride;
    job.lo2 = p->sum_min;
    job.hi2 = p->sum_max;
    job.prelu = p->prelu;
    run_gemm(&job, pool);
}

// MARK: - Narrow convolutions

static void narrow_pixel_portable(const ck_conv_narrow_params *p, size_t i) {
    const float *const *rows = p->indirection + i * p->taps;
    for (size_t j = 0; j < p->n; j++) {
        float sum = p->bias ? p->bias[j] : 0.0f;
        const float *w = p->weights + j * p->taps * p->k;
        for (size_t t = 0; t < p->taps; t++) {
            const float *x = rows[t];
            for (size_t q = 0; q < p->k; q++) sum += x[q] * w[t * p->k + q];
        }
        p->c[i * p->c_stride + j] = ck_activate(sum, p->out_min, p->out_max, p->prelu, j);
    }
}

#if defined(CK_SIMD8)
/// Four output pixels at once (independent accumulation chains); pixels past `count` repeat
/// the last one and are not stored.
CK_SIMD8_FN static void narrow_block_simd(const ck_conv_narrow_params *p, size_t i0, size_t count) {
    const size_t k = p->k, taps = p->taps, full = k / 8 * 8, rest = k - full;
    const float *const *rows[4];
    for (size_t q = 0; q < 4; q++) rows[q] = p->indirection + (i0 + CK_MIN(q, count - 1)) * taps;
    for (size_t j = 0; j < p->n; j++) {
        ck_v8 acc0 = v8_zero(), acc1 = v8_zero(), acc2 = v8_zero(), acc3 = v8_zero();
        const float *w = p->weights + j * taps * k;
        for (size_t t = 0; t < taps; t++, w += k) {
            const float *x0 = rows[0][t], *x1 = rows[1][t], *x2 = rows[2][t], *x3 = rows[3][t];
            for (size_t q = 0; q < full; q += 8) {
                const ck_v8 wv = v8_load(w + q);
                acc0 = v8_fma(v8_load(x0 + q), wv, acc0);
                acc1 = v8_fma(v8_load(x1 + q), wv, acc1);
                acc2 = v8_fma(v8_load(x2 + q), wv, acc2);
                acc3 = v8_fma(v8_load(x3 + q), wv, acc3);
            }
            if (rest > 0) {
                const ck_v8 wv = v8_load_partial(w + full, rest);
                acc0 = v8_fma(v8_load_partial(x0 + full, rest), wv, acc0);
                acc1 = v8_fma(v8_load_partial(x1 + full, rest), wv, acc1);
                acc2 = v8_fma(v8_load_partial(x2 + full, rest), wv, acc2);
                acc3 = v8_fma(v8_load_partial(x3 + full, rest), wv, acc3);
            }
        }
        const float bias = p->bias ? p->bias[j] : 0.0f;
        const float sums[4] = {v8_sum(acc0), v8_sum(acc1), v8_sum(acc2), v8_sum(acc3)};
        for (size_t q = 0; q < count; q++) {
            p->c[(i0 + q) * p->c_stride + j] = ck_activate(sums[q] + bias, p->out_min, p->out_max, p->prelu, j);
        }
    }
}
#endif

typedef struct narrow_job {
    const ck_conv_narrow_params *p;
    int simd;
} narrow_job;

static void narrow_range(void *context, size_t begin, size_t end) {
    const narrow_job *job = (const narrow_job *)context;
#if defined(CK_SIMD8)
    if (job->simd) {
        for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i += 4) {
            narrow_block_simd(job->p, i, CK_MIN(4, job->p->m - i));
        }
        return;
    }
#endif
    for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i++) narrow_pixel_portable(job->p, i);
}

void ck_conv_narrow(const ck_conv_narrow_params *p, ck_threadpool *pool) {
    narrow_job job = {p, 0};
#if defined(CK_SIMD8)
    job.simd = ck_use_simd8();
#endif
    pool = ck_pool_for_work(pool, p->m * p->n * p->k * p->taps);
    ck_parallel_for(pool, (p->m + 3) / 4, narrow_range, &job);
}

// MARK: - Narrow convolutions over 8 channels, read directly

/// The sum of `taps` products over 8 channels for output channel j of pixel (row, ox), in the
/// order of ck_conv_narrow: taps in (row, column) order, lanes added pairwise at the end.
static float narrow_direct_pixel_portable(const ck_conv_narrow_direct_params *p, size_t row, size_t ox, size_t j) {
    const size_t K = p->kernel, in_w = p->in_w;
    const size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * in_w * 8;
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t ky = 0; ky < K; ky++) {
        const ptrdiff_t iy = (ptrdiff_t)(oy * p->stride + ky) - (ptrdiff_t)p->pad_top;
        if (iy < 0 || iy >= (ptrdiff_t)p->in_h) continue;
        for (size_t kx = 0; kx < K; kx++) {
            const ptrdiff_t ix = (ptrdiff_t)(ox * p->stride + kx) - (ptrdiff_t)p->pad_left;
            if (ix < 0 || ix >= (ptrdiff_t)in_w) continue;
            const float *x = image + ((size_t)iy * in_w + (size_t)ix) * 8;
            const float *w = p->weights + ((j * K + ky) * K + kx) * 8;
            for (size_t q = 0; q < 8; q++) lanes[q] += x[q] * w[q];
        }
    }
    return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
}

static void narrow_direct_row_portable(const ck_conv_narrow_direct_params *p, size_t row) {
    float *out = p->output + row * p->out_w * p->n;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        for (size_t j = 0; j < p->n; j++) {
            const float sum = narrow_direct_pixel_portable(p, row, ox, j) + (p->bias ? p->bias[j] : 0.0f);
            out[ox * p->n + j] = ck_activate(sum, p->out_min, p->out_max, p->prelu, j);
        }
    }
}

#if defined(CK_SIMD8)
/// W output pixels of one row for output channel j; CHECKED: some columns fall outside.
CK_SIMD8_INLINE void narrow_direct_block(const int W, const int K, const int S, const int CHECKED,
                                         const ck_conv_narrow_direct_params *p, const float *const *rows,
                                         size_t ky_begin, size_t ky_end, ptrdiff_t ix0, size_t j, float *out) {
    ck_v8 acc[8];
#pragma clang loop unroll(full)
    for (int i = 0; i < W; i++) acc[i] = v8_zero();
    for (size_t ky = ky_begin; ky < ky_end; ky++) {
        const float *row = rows[ky];
        const float *wk = p->weights + (j * (size_t)K + ky) * (size_t)K * 8;
        ck_v8 wv[5];
#pragma clang loop unroll(full)
        for (int kx = 0; kx < K; kx++) wv[kx] = v8_load(wk + kx * 8);
#pragma clang loop unroll(full)
        for (int t = 0; t < (W - 1) * S + K; t++) {
            const ptrdiff_t ix = ix0 + t;
            if (CHECKED && (ix < 0 || ix >= (ptrdiff_t)p->in_w)) continue;
            const ck_v8 x = v8_load(row + ix * 8);
#pragma clang loop unroll(full)
            for (int i = 0; i < W; i++) {
                const int kx = t - i * S;
                if (kx >= 0 && kx < K) acc[i] = v8_fma(x, wv[kx], acc[i]);
            }
        }
    }
    const float bias = p->bias ? p->bias[j] : 0.0f;
#pragma clang loop unroll(full)
    for (int i = 0; i < W; i++) {
        out[(size_t)i * p->n] = ck_activate(v8_sum(acc[i]) + bias, p->out_min, p->out_max, p->prelu, j);
    }
}

CK_SIMD8_INLINE void narrow_direct_row(const int K, const int S, const ck_conv_narrow_direct_params *p, size_t row) {
    const size_t in_w = p->in_w, out_w = p->out_w;
    const size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * in_w * 8;
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * S) - (ptrdiff_t)p->pad_top;
    size_t ky_begin = 0, ky_end = 0;
    const float *rows[5] = {0, 0, 0, 0, 0};
    for (size_t ky = 0; ky < (size_t)K; ky++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)ky;
        if (iy < 0 || iy >= (ptrdiff_t)p->in_h) continue;
        if (ky_end == 0) ky_begin = ky;
        ky_end = ky + 1;
        rows[ky] = image + (size_t)iy * in_w * 8;
    }
    const size_t x_lo = (p->pad_left + S - 1) / S;
    size_t x_hi = in_w + p->pad_left >= (size_t)K ? (in_w + p->pad_left - K) / S + 1 : 0;
    if (x_hi > out_w) x_hi = out_w;
    float *out_row = p->output + row * out_w * p->n;
    size_t ox = 0;
    while (ox < out_w) {
        const size_t left = out_w - ox;
        const int W = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        for (size_t j = 0; j < p->n; j++) {
            float *out = out_row + ox * p->n + j;
#define CK_NARROW_BLOCK(WW)                                                                           \
    if (inside) narrow_direct_block(WW, K, S, 0, p, rows, ky_begin, ky_end, ix0, j, out);            \
    else narrow_direct_block(WW, K, S, 1, p, rows, ky_begin, ky_end, ix0, j, out);
            switch (W) {
            case 8: CK_NARROW_BLOCK(8) break;
            case 4: CK_NARROW_BLOCK(4) break;
            case 2: CK_NARROW_BLOCK(2) break;
            default: CK_NARROW_BLOCK(1) break;
            }
#undef CK_NARROW_BLOCK
        }
        ox += (size_t)W;
    }
}

CK_SIMD8_FN static void narrow_direct_3x3s1(const ck_conv_narrow_direct_params *p, size_t row) { narrow_direct_row(3, 1, p, row); }
CK_SIMD8_FN static void narrow_direct_3x3s2(const ck_conv_narrow_direct_params *p, size_t row) { narrow_direct_row(3, 2, p, row); }
CK_SIMD8_FN static void narrow_direct_5x5s1(const ck_conv_narrow_direct_params *p, size_t row) { narrow_direct_row(5, 1, p, row); }
CK_SIMD8_FN static void narrow_direct_5x5s2(const ck_conv_narrow_direct_params *p, size_t row) { narrow_direct_row(5, 2, p, row); }
#endif

typedef struct narrow_direct_job {
    const ck_conv_narrow_direct_params *p;
    void (*row)(const ck_conv_narrow_direct_params *p, size_t row);
} narrow_direct_job;

static void narrow_direct_range(void *context, size_t begin, size_t end) {
    const narrow_direct_job *job = (const narrow_direct_job *)context;
    for (size_t row = begin; row < end; row++) job->row(job->p, row);
}

int ck_conv_narrow_direct(const ck_conv_narrow_direct_params *p, ck_threadpool *pool) {
    if ((p->kernel != 3 && p->kernel != 5) || (p->stride != 1 && p->stride != 2) || p->n == 0 ||
        p->n > CK_NARROW_MAX_OUTPUTS) {
        return 0;
    }
    narrow_direct_job job = {p, narrow_direct_row_portable};
#if defined(CK_SIMD8)
    if (ck_use_simd8()) {
        job.row = p->kernel == 3 ? (p->stride == 1 ? narrow_direct_3x3s1 : narrow_direct_3x3s2)
                                 : (p->stride == 1 ? narrow_direct_5x5s1 : narrow_direct_5x5s2);
    }
#endif
    pool = ck_pool_for_work(pool, p->batch * p->out_h * p->out_w * p->n * p->kernel * p->kernel * 8);
    ck_parallel_for(pool, p->batch * p->out_h, narrow_direct_range, &job);
    return 1;
}
