// The AVX-512 GEMM microkernels (F, VL, BW, DQ): gemm_8x32_avx512, 8 rows x two 16-column panels
// (16 zmm accumulators, each broadcast row value feeding two FMAs), with the second panel in
// 256-bit halves (8x24) when the outputs end 1-8 columns into it; gemm_8x16_avx512, 8 rows or
// fewer x one panel, for a last odd panel and the last rows; gemm_1x128_avx512, a matrix-vector
// product over up to eight panels. Half-precision panels are widened with vcvtph2ps as they are
// read, or once per thread and call into a float32 copy (gemm_wide_pair_avx512) when a thread runs
// several row tiles over them. Each output is bias + the sum over (tap, input channel) in order,
// as at the other levels; only which rows share a tile differs (so a single-row tile, with its
// four partial sums, can fall on other rows).
#include "gemm_internal.h"

#if defined(CK_HAVE_X86)

/// Sixteen weights of a panel row: float32 or half precision.
CK_AVX512_INLINE __m512 gemm_weights_avx512(const int F16, const void *w, size_t offset) {
    return F16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)((const uint16_t *)w + offset)))
               : _mm512_loadu_ps((const float *)w + offset);
}

/// v < 0 ? v * slope : v (as the portable epilogue).
CK_AVX512_INLINE __m512 gemm_prelu_avx512(__m512 v, __m512 slope) {
    return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, slope);
}

/// The epilogue for the 16 columns of a panel starting at `col` of output row `row`; `mask`
/// selects the columns that exist.
CK_AVX512_INLINE void gemm_store_avx512(const gemm_job *job, __m512 v, size_t row, size_t col, __mmask16 mask) {
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(job->lo)), _mm512_set1_ps(job->hi));
    if (job->residual != NULL) {
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, job->residual + row * job->residual_stride + col));
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(job->lo2)), _mm512_set1_ps(job->hi2));
    }
    if (job->prelu != NULL) v = gemm_prelu_avx512(v, _mm512_maskz_loadu_ps(mask, job->prelu + col));
    _mm512_mask_storeu_ps(job->c + row * job->c_stride + col, mask, v);
}

/// The epilogue of R rows x the 16 columns of a panel at n0 (nr of them live).
CK_AVX512_INLINE void gemm_store_tile_avx512(const int R, const gemm_job *job, const __m512 *acc, size_t i0, size_t n0,
                                             size_t nr) {
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
            for (int i = 0; i < R; i++) _mm512_storeu_ps(out + (size_t)i * stride, gemm_prelu_avx512(_mm512_min_ps(_mm512_max_ps(acc[i], lo), hi), slope));
            return;
        }
        if (job->prelu != NULL) {
            const __m512 slope = _mm512_maskz_loadu_ps(mask, job->prelu + n0);
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) {
                _mm512_mask_storeu_ps(out + (size_t)i * stride, mask, gemm_prelu_avx512(_mm512_min_ps(_mm512_max_ps(acc[i], lo), hi), slope));
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
    for (int i = 0; i < R; i++) gemm_store_avx512(job, acc[i], i0 + (size_t)i, n0, mask);
}

/// R rows (a constant in each instantiation) x the 16 columns of one panel.
CK_AVX512_INLINE void gemm_8x16_avx512(const int R, const int F16, const gemm_job *job, size_t i0, size_t panel) {
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
                acc[0] = _mm512_fmadd_ps(_mm512_set1_ps(a0[p]), gemm_weights_avx512(F16, w, r * NR), acc[0]);
                p1 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 1]), gemm_weights_avx512(F16, w, (r + 1) * NR), p1);
                p2 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 2]), gemm_weights_avx512(F16, w, (r + 2) * NR), p2);
                p3 = _mm512_fmadd_ps(_mm512_set1_ps(a0[p + 3]), gemm_weights_avx512(F16, w, (r + 3) * NR), p3);
            }
            for (; p < k; p++, r++) acc[0] = _mm512_fmadd_ps(_mm512_set1_ps(a0[p]), gemm_weights_avx512(F16, w, r * NR), acc[0]);
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
    gemm_store_tile_avx512(R, job, acc, i0, n0, nr);
}

/// Eight rows x the 32 columns of panels `panel` and `panel + 1` (the second may be partial):
/// each broadcast row value feeds two FMAs, where the single-panel tile spends a broadcast per
/// FMA (one core: 9216x32x32 95 -> 118, 12544x64x16 81 -> 110, 576x128x256 111 -> 128 G
/// multiply-adds per second). The same arithmetic per output as gemm_8x16_avx512.
/// `base0` and `base1` are the two panels: in job->packed, or widened copies (F16 = 0).
///
/// With HALF the second panel has at most 8 live columns (the last panel when the outputs end
/// 1-8 columns into it, as the 24 of hand_landmark's first convolution do) and runs in the low
/// 256 bits of its registers: on cores that split a 512-bit FMA in two, 24 halves of FMA work per
/// weight row instead of 32 (784x96x24 on one Zen 4 core: 43.0 -> 50.7 G multiply-adds per
/// second).
CK_AVX512_INLINE void gemm_8x32_avx512(const int HALF, const int F16, const gemm_job *job, size_t i0, size_t panel,
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
            const __m512 v0 = gemm_weights_avx512(F16, w0, r * NR);
            const __m512 v1 = !HALF ? gemm_weights_avx512(F16, w1, r * NR)
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
    gemm_store_tile_avx512(MR512, job, acc0, i0, n0, NR);
    gemm_store_tile_avx512(MR512, job, acc1, i0, n0 + NR, nr1);
}

CK_AVX512_INLINE void gemm_pair_avx512(const int F16, const gemm_job *job, size_t i0, size_t panel, const char *base0,
                                       const char *base1) {
    if (job->n - panel * NR - NR <= NR / 2) {
        gemm_8x32_avx512(1, F16, job, i0, panel, base0, base1);
    } else {
        gemm_8x32_avx512(0, F16, job, i0, panel, base0, base1);
    }
}

/// gemm_pair_avx512 over the pair at `panel`: from `wide`, this thread's float32 copy of it
/// (gemm_wide_pair_avx512), or from the packed panels when that is NULL.
CK_AVX512_INLINE void gemm_pair_cached_avx512(const int F16, const gemm_job *job, size_t i0, size_t panel,
                                              const float *wide) {
    if (wide != NULL) {
        gemm_pair_avx512(0, job, i0, panel, (const char *)wide, (const char *)(wide + NR * (1 + job->k * job->taps)));
    } else {
        const char *base = job->packed + panel * job->panel_bytes;
        gemm_pair_avx512(F16, job, i0, panel, base, base + job->panel_bytes);
    }
}

/// A matrix-vector product over P panels at once (gemm_1x64_simd8's arithmetic).
CK_AVX512_INLINE void gemm_1x128_avx512(const int P, const int F16, const gemm_job *job, size_t first_panel) {
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
            for (int q = 0; q < P; q++) acc[q] = _mm512_fmadd_ps(x, gemm_weights_avx512(F16, w[q], r * NR), acc[q]);
        }
    }
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const size_t n0 = (first_panel + (size_t)q) * NR, nr = CK_MIN(NR, job->n - n0);
        gemm_store_avx512(job, acc[q], 0, n0, (__mmask16)((1u << nr) - 1u));
    }
}

/// Panels [p_begin, p_end) of a matrix-vector product, grouped as gemv_simd8 groups them.
CK_AVX512_INLINE void gemv_avx512(const int F16, const gemm_job *job, size_t p_begin, size_t p_end) {
    const size_t grouped = job->n_tiles / 4 * 4;
    size_t panel = p_begin;
    while (panel < p_end) {
        if (panel >= grouped) {
            gemm_8x16_avx512(1, F16, job, 0, panel);
            panel++;
            continue;
        }
        // Two whole groups of four at once where both are in range: eight independent FMA
        // chains instead of four (each output's sum is the same either way).
        if (panel % 4 == 0 && panel + 8 <= CK_MIN(p_end, grouped)) {
            gemm_1x128_avx512(8, F16, job, panel);
            panel += 8;
            continue;
        }
        const size_t end = CK_MIN(p_end, (panel / 4 + 1) * 4);
        switch (end - panel) {
        case 4: gemm_1x128_avx512(4, F16, job, panel); break;
        case 3: gemm_1x128_avx512(3, F16, job, panel); break;
        case 2: gemm_1x128_avx512(2, F16, job, panel); break;
        default: gemm_1x128_avx512(1, F16, job, panel); break;
        }
        panel = end;
    }
}

/// One tile: rows [i0, i0 + 8) (fewer at the end) of one panel.
CK_AVX512_INLINE void gemm_tile_avx512(const int F16, const gemm_job *job, size_t tile, size_t panel) {
    const size_t i0 = tile * MR512, mr = CK_MIN(MR512, job->m - i0);
    switch (mr) {
    case 1: gemm_8x16_avx512(1, F16, job, i0, panel); break;
    case 2: gemm_8x16_avx512(2, F16, job, i0, panel); break;
    case 3: gemm_8x16_avx512(3, F16, job, i0, panel); break;
    case 4: gemm_8x16_avx512(4, F16, job, i0, panel); break;
    case 5: gemm_8x16_avx512(5, F16, job, i0, panel); break;
    case 6: gemm_8x16_avx512(6, F16, job, i0, panel); break;
    case 7: gemm_8x16_avx512(7, F16, job, i0, panel); break;
    default: gemm_8x16_avx512(8, F16, job, i0, panel); break;
    }
}

CK_AVX512_INLINE void gemm_tiles_avx512(const int F16, const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin,
                                        size_t p_end, int tile_major) {
    if (job->m == 1) {
        gemv_avx512(F16, job, p_begin, p_end);
        return;
    }
    // A thread widens a half-precision pair (gemm_wide_pair_avx512) when it runs more than one row
    // tile over it in this piece; a copy it made for an earlier piece of this call serves anyway.
    const size_t whole_tiles = CK_MIN(t_end, job->m / MR512) > t_begin ? CK_MIN(t_end, job->m / MR512) - t_begin : 0;
    const int widen = whole_tiles >= 2;
    // Pairs of panels in whole 8-row tiles (see gemm_pair_avx512).
    if (tile_major) {
        for (size_t tile = t_begin; tile < t_end; tile++) {
            size_t panel = p_begin;
            if ((tile + 1) * MR512 <= job->m) {
                for (; panel + 2 <= p_end; panel += 2) {
                    const float *wide = F16 ? gemm_wide_pair_avx512(job, panel, widen) : NULL;
                    gemm_pair_cached_avx512(F16, job, tile * MR512, panel, wide);
                }
            }
            for (; panel < p_end; panel++) gemm_tile_avx512(F16, job, tile, panel);
        }
    } else {
        size_t panel = p_begin;
        for (; panel + 2 <= p_end; panel += 2) {
            const float *wide = F16 ? gemm_wide_pair_avx512(job, panel, widen) : NULL;
            for (size_t tile = t_begin; tile < t_end; tile++) {
                if ((tile + 1) * MR512 <= job->m) {
                    gemm_pair_cached_avx512(F16, job, tile * MR512, panel, wide);
                } else {
                    gemm_tile_avx512(F16, job, tile, panel);
                    gemm_tile_avx512(F16, job, tile, panel + 1);
                }
            }
        }
        for (; panel < p_end; panel++) {
            for (size_t tile = t_begin; tile < t_end; tile++) gemm_tile_avx512(F16, job, tile, panel);
        }
    }
}

CK_AVX512 void gemm_tiles_avx512_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                     int tile_major) {
    gemm_tiles_avx512(0, job, t_begin, t_end, p_begin, p_end, tile_major);
}
CK_AVX512 void gemm_tiles_avx512_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                     int tile_major) {
    gemm_tiles_avx512(1, job, t_begin, t_end, p_begin, p_end, tile_major);
}
#endif
