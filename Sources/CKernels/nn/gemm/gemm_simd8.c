// The GEMM microkernels written once over ck_simd8.h (AVX2/FMA with F16C on x86-64, NEON on
// arm64): gemm_6x16_simd8, up to 6 rows x the 16 columns of a panel (12 accumulators; whole
// tiles of 1x1 sums over 16 channels have their 16 steps written out);
// gemm_12x8_simd8, up to 12 rows x 8 columns where a panel has at most 8 live outputs; for
// matrix-vector products (one row), gemm_1x64_simd8, up to four panels per broadcast input value.
// Half-precision panels are widened as they are read (F16C's vcvtph2ps, NEON's fcvtl).
#include "gemm_internal.h"

#if defined(CK_SIMD8)

/// The epilogue for 8 columns starting at `col` of output row `row`; `lanes` < 8 for the last
/// columns of a layer.
CK_SIMD8_INLINE void gemm_store_simd8(const gemm_job *job, ck_v8 v, size_t row, size_t col, size_t lanes) {
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
CK_SIMD8_INLINE ck_v8 gemm_weights_simd8(const int F16, const void *w, size_t offset) {
    return F16 ? v8_load_f16((const uint16_t *)w + offset) : v8_load((const float *)w + offset);
}

/// The epilogue for whole vectors: VECS (1 or 2) vectors of 8 columns from `col` of R rows from
/// `i0`, row i's sums in acc[i * STEP + v], with the constants loaded once (gemm_store_simd8's
/// steps for each vector). One loop per case, so that each is straight-line code: tested inside
/// the unrolled loop, the cases cost 1024x8x8 about a fifth of its rate (scripts/dev/gemm-rates,
/// one Zen 3 core: 17.6-18.4 against 22.6 G multiply-adds per second). The two vectors of a row
/// are stored one after the other (a row's 16 columns are one cache line), and the job's fields
/// are read into locals first: they include floats, which the stores could alias, so read
/// through `job` they are read again after every store. Storing every row's first vector, then
/// every row's second, with the fields read through `job`, cost the 1x1 layers over 16 to 32
/// channels a tenth of their rate (docs/interpreter.md).
CK_SIMD8_INLINE void gemm_store_rows8_simd8(const int R, const int STEP, const int VECS, const gemm_job *job,
                                            const ck_v8 *acc, size_t i0, size_t col) {
    const ck_v8 lo = v8_set1(job->lo), hi = v8_set1(job->hi);
    const size_t stride = job->c_stride;
    float *const out = job->c + i0 * stride + col;
    const float *const prelu = job->prelu;
    const float *const residual = job->residual;
    if (residual != NULL) {
        const ck_v8 lo2 = v8_set1(job->lo2), hi2 = v8_set1(job->hi2);
        const size_t residual_stride = job->residual_stride;
        const float *const res = residual + i0 * residual_stride + col;
        ck_v8 slope[2];
#pragma clang loop unroll(full)
        for (int v = 0; v < VECS; v++) slope[v] = prelu != NULL ? v8_load(prelu + col + 8 * v) : lo;
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
#pragma clang loop unroll(full)
            for (int v = 0; v < VECS; v++) {
                ck_v8 x = v8_min(v8_max(acc[i * STEP + v], lo), hi);
                x = v8_min(v8_max(v8_add(x, v8_load(res + (size_t)i * residual_stride + 8 * v)), lo2), hi2);
                v8_store(out + (size_t)i * stride + 8 * v, prelu != NULL ? v8_prelu(x, slope[v]) : x);
            }
        }
    } else if (prelu != NULL) {
        ck_v8 slope[2];
#pragma clang loop unroll(full)
        for (int v = 0; v < VECS; v++) slope[v] = v8_load(prelu + col + 8 * v);
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
#pragma clang loop unroll(full)
            for (int v = 0; v < VECS; v++) {
                v8_store(out + (size_t)i * stride + 8 * v, v8_prelu(v8_min(v8_max(acc[i * STEP + v], lo), hi), slope[v]));
            }
        }
    } else {
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
#pragma clang loop unroll(full)
            for (int v = 0; v < VECS; v++) v8_store(out + (size_t)i * stride + 8 * v, v8_min(v8_max(acc[i * STEP + v], lo), hi));
        }
    }
}

/// One (tap, channel) step of an R-row tile: row i's input `a[i][p]` times the panel's row `r`
/// (16 weights, or the first 8 unless WIDE), added to row i's accumulators.
CK_SIMD8_INLINE void gemm_6x16_step_simd8(const int R, const int F16, const int WIDE, const float *const *a, size_t p,
                                          const void *w, size_t r, ck_v8 acc[][2]) {
    const ck_v8 b0 = gemm_weights_simd8(F16, w, r * NR);
    if (WIDE) {
        const ck_v8 b1 = gemm_weights_simd8(F16, w, r * NR + 8);
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

/// R rows (a constant in each instantiation, so the accumulators stay in registers) x 16
/// columns (WIDE) or x 8 columns of one panel.
CK_SIMD8_INLINE void gemm_6x16_simd8(const int R, const int F16, const int WIDE, const gemm_job *job, size_t i0,
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
                acc[0][0] = v8_fma(x0, gemm_weights_simd8(F16, w, r * NR), acc[0][0]);
                p0 = v8_fma(x1, gemm_weights_simd8(F16, w, (r + 1) * NR), p0);
                q0 = v8_fma(x2, gemm_weights_simd8(F16, w, (r + 2) * NR), q0);
                u0 = v8_fma(x3, gemm_weights_simd8(F16, w, (r + 3) * NR), u0);
                if (WIDE) {
                    acc[0][1] = v8_fma(x0, gemm_weights_simd8(F16, w, r * NR + 8), acc[0][1]);
                    p1 = v8_fma(x1, gemm_weights_simd8(F16, w, (r + 1) * NR + 8), p1);
                    q1 = v8_fma(x2, gemm_weights_simd8(F16, w, (r + 2) * NR + 8), q1);
                    u1 = v8_fma(x3, gemm_weights_simd8(F16, w, (r + 3) * NR + 8), u1);
                }
            }
            for (; p < k; p++, r++) {
                const ck_v8 x0 = v8_broadcast(a0 + p);
                acc[0][0] = v8_fma(x0, gemm_weights_simd8(F16, w, r * NR), acc[0][0]);
                if (WIDE) acc[0][1] = v8_fma(x0, gemm_weights_simd8(F16, w, r * NR + 8), acc[0][1]);
            }
        }
        acc[0][0] = v8_add(v8_add(acc[0][0], p0), v8_add(q0, u0));
        if (WIDE) acc[0][1] = v8_add(v8_add(acc[0][1], p1), v8_add(q1, u1));
    } else if (R == MR && taps == 1 && k == 16) {
        // Whole tiles of short sums (1x1 convolutions over 16 channels: hand_landmark's
        // expansions to 64 and 96 channels) written out: the loop's branch and counters cost
        // 12544x64x16 about a twentieth of its time (scripts/dev/gemm-rates, one Zen 3 core).
        // The same steps in the same order: the same bits. A branch of its own: as a branch
        // inside the loop over taps below, 12544x64x16 ran 4 % slower.
        const float *a[MR];
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) a[i] = gemm_row(job, i0 + (size_t)i, 0);
#pragma clang loop unroll(full)
        for (size_t p = 0; p < 16; p++) gemm_6x16_step_simd8(R, F16, WIDE, a, p, w, p, acc);
    } else {
        for (size_t t = 0; t < taps; t++) {
            const float *a[MR];
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) a[i] = gemm_row(job, i0 + (size_t)i, t);
            for (size_t p = 0; p < k; p++, r++) gemm_6x16_step_simd8(R, F16, WIDE, a, p, w, r, acc);
        }
    }
    if (nr == (WIDE ? NR : 8)) {
        gemm_store_rows8_simd8(R, 2, WIDE ? 2 : 1, job, &acc[0][0], i0, n0);
        return;
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) {
        const size_t row = i0 + (size_t)i;
        gemm_store_simd8(job, acc[i][0], row, n0, CK_MIN(8, nr));
        if (WIDE && nr > 8) gemm_store_simd8(job, acc[i][1], row, n0 + 8, nr - 8);
    }
}

/// R rows (8 to 12: two row tiles, the first whole) x the 8 columns of a narrow panel (at most 8
/// live outputs, as the last panel of a 24-channel layer or the only one of an 8-channel layer).
/// Six rows would give six FMA dependency chains, which at 4 cycles of latency each keep two
/// FMA units at most three-quarters busy, and short sums (pose_landmark's 256x256x8 layers, k = 8)
/// latency-bound from tile to tile; twelve chains keep them busy. Each output is computed as in
/// gemm_6x16_simd8 (bias + one fused multiply-add per (tap, channel) in order): the same bits.
CK_SIMD8_INLINE void gemm_12x8_simd8(const int R, const int F16, const gemm_job *job, size_t i0, size_t panel) {
    const size_t n0 = panel * NR, nr = CK_MIN(NR, job->n - n0);
    const char *base = job->packed + panel * job->panel_bytes;
    const float *bias = (const float *)(const void *)base;
    const void *w = base + NR * sizeof(float);
    const size_t k = job->k, taps = job->taps;
    ck_v8 acc[2 * MR];
    const ck_v8 bias0 = v8_load(bias);
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) acc[i] = bias0;
    if (job->indirection == NULL) {
        // Rows at a fixed stride: one base pointer, fewer registers than twelve row pointers.
        const float *a0 = job->a + i0 * job->a_stride;
        const size_t lda = job->a_stride;
        for (size_t p = 0; p < k; p++) {
            const ck_v8 b0 = gemm_weights_simd8(F16, w, p * NR);
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) acc[i] = v8_fma(v8_broadcast(a0 + (size_t)i * lda + p), b0, acc[i]);
        }
    } else {
        size_t r = 0; // panel row (tap, channel)
        for (size_t t = 0; t < taps; t++) {
            const float *a[2 * MR];
#pragma clang loop unroll(full)
            for (int i = 0; i < R; i++) a[i] = gemm_row(job, i0 + (size_t)i, t);
            for (size_t p = 0; p < k; p++, r++) {
                const ck_v8 b0 = gemm_weights_simd8(F16, w, r * NR);
#pragma clang loop unroll(full)
                for (int i = 0; i < R; i++) acc[i] = v8_fma(v8_broadcast(a[i] + p), b0, acc[i]);
            }
        }
    }
    if (nr == 8) {
        gemm_store_rows8_simd8(R, 1, 1, job, acc, i0, n0);
        return;
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < R; i++) gemm_store_simd8(job, acc[i], i0 + (size_t)i, n0, nr);
}

/// A matrix-vector product (m = 1): P panels at once, so each input value is broadcast once
/// for P panels, with bias + sum over k in order for every output (like a multi-row tile).
CK_SIMD8_INLINE void gemm_1x64_simd8(const int P, const int F16, const gemm_job *job, size_t first_panel) {
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
                acc[q][0] = v8_fma(x, gemm_weights_simd8(F16, w[q], r * NR), acc[q][0]);
                acc[q][1] = v8_fma(x, gemm_weights_simd8(F16, w[q], r * NR + 8), acc[q][1]);
            }
        }
    }
#pragma clang loop unroll(full)
    for (int q = 0; q < P; q++) {
        const size_t n0 = (first_panel + (size_t)q) * NR, nr = CK_MIN(NR, job->n - n0);
        gemm_store_simd8(job, acc[q][0], 0, n0, CK_MIN(8, nr));
        if (nr > 8) gemm_store_simd8(job, acc[q][1], 0, n0 + 8, nr - 8);
    }
}

/// Panels [p_begin, p_end) of a matrix-vector product. Panels in whole groups of four (counted
/// from panel 0, so the grouping does not depend on how threads split the panels) run four at
/// a time; the last panels, fewer than four, run as single-row tiles (four partial sums over k,
/// which keep the FMA units busy with one panel).
CK_SIMD8_INLINE void gemv_simd8(const int F16, const gemm_job *job, size_t p_begin, size_t p_end) {
    const size_t grouped = job->n_tiles / 4 * 4;
    size_t panel = p_begin;
    while (panel < p_end) {
        if (panel >= grouped) {
            if (job->n - panel * NR > 8) {
                gemm_6x16_simd8(1, F16, 1, job, 0, panel);
            } else {
                gemm_6x16_simd8(1, F16, 0, job, 0, panel);
            }
            panel++;
            continue;
        }
        const size_t end = CK_MIN(p_end, (panel / 4 + 1) * 4);
        switch (end - panel) {
        case 4: gemm_1x64_simd8(4, F16, job, panel); break;
        case 3: gemm_1x64_simd8(3, F16, job, panel); break;
        case 2: gemm_1x64_simd8(2, F16, job, panel); break;
        default: gemm_1x64_simd8(1, F16, job, panel); break;
        }
        panel = end;
    }
}

/// One tile: rows [i0, i0 + 6) (fewer at the end) of one panel.
CK_SIMD8_INLINE void gemm_tile_simd8(const int F16, const gemm_job *job, size_t tile, size_t panel) {
    const int wide = job->n - panel * NR > 8;
    const size_t i0 = tile * MR, mr = CK_MIN(MR, job->m - i0);
#define CK_TILE(RR)                                                                                   \
    if (wide) gemm_6x16_simd8(RR, F16, 1, job, i0, panel);                                                  \
    else gemm_6x16_simd8(RR, F16, 0, job, i0, panel);
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

/// Whether row tiles `tile` and `tile + 1` run as one: the second has two rows or more (a
/// single-row tile sums in four parts, as a matrix-vector product, and must do so however the
/// tiles are paired, so that the result does not depend on how threads share the tiles).
static inline int gemm_pairs_with_next(const gemm_job *job, size_t tile, size_t t_end) {
    return tile + 1 < t_end && job->m - (tile + 1) * MR >= 2;
}

/// Row tiles `tile` and `tile + 1` (the first whole, the second of 2 rows or more) of a narrow
/// panel, as one tile of 8 to 12 rows.
CK_SIMD8_INLINE void gemm_tile_pair_simd8(const int F16, const gemm_job *job, size_t tile, size_t panel) {
    const size_t i0 = tile * MR;
    switch (CK_MIN(2 * MR, job->m - i0)) {
    case 8: gemm_12x8_simd8(8, F16, job, i0, panel); break;
    case 9: gemm_12x8_simd8(9, F16, job, i0, panel); break;
    case 10: gemm_12x8_simd8(10, F16, job, i0, panel); break;
    case 11: gemm_12x8_simd8(11, F16, job, i0, panel); break;
    default: gemm_12x8_simd8(12, F16, job, i0, panel); break;
    }
}

/// Row tiles [t_begin, t_end) x panels [p_begin, p_end), every panel of a tile, then the next
/// tile. A narrow panel (at most 8 live outputs: only the last can be) takes its row tiles two at
/// a time (gemm_12x8_simd8); a tile left alone runs as the others.
CK_SIMD8_INLINE void gemm_tile_major_simd8(const int F16, const gemm_job *job, size_t t_begin, size_t t_end,
                                           size_t p_begin, size_t p_end) {
    const size_t last = p_end - 1;
    const int narrow = job->n - last * NR <= 8;
    size_t tile = t_begin;
    if (!narrow) {
        // Whole tiles (nearly all of them) straight to their microkernel, every panel 16 wide,
        // without gemm_tile_simd8's switch over the row count (which cost short sums, k = 16 to
        // 24, 2-5 % of their rate: docs/interpreter.md).
        for (; tile < t_end && job->m - tile * MR >= MR; tile++) {
            for (size_t panel = p_begin; panel < p_end; panel++) gemm_6x16_simd8(MR, F16, 1, job, tile * MR, panel);
        }
    }
    while (tile < t_end) {
        const int pair = narrow && gemm_pairs_with_next(job, tile, t_end);
        for (size_t panel = p_begin; panel < p_end; panel++) {
            if (pair && panel == last) {
                gemm_tile_pair_simd8(F16, job, tile, panel);
            } else {
                gemm_tile_simd8(F16, job, tile, panel);
                if (pair) gemm_tile_simd8(F16, job, tile + 1, panel);
            }
        }
        tile += pair ? 2 : 1;
    }
}

/// The same, panel by panel (the panel's weights stay in cache while the rows pass).
CK_SIMD8_INLINE void gemm_panel_major_simd8(const int F16, const gemm_job *job, size_t t_begin, size_t t_end,
                                            size_t p_begin, size_t p_end) {
    const size_t last = p_end - 1;
    const int narrow = job->n - last * NR <= 8;
    for (size_t panel = p_begin; panel < p_end; panel++) {
        size_t tile = t_begin;
        if (narrow && panel == last) {
            for (; gemm_pairs_with_next(job, tile, t_end); tile += 2) gemm_tile_pair_simd8(F16, job, tile, panel);
        }
        for (; tile < t_end; tile++) gemm_tile_simd8(F16, job, tile, panel);
    }
}

/// Each order at each precision is a function of its own, not inlined into its caller: with
/// both orders inlined into one function the compiler kept the job's fields on the stack and
/// read them back through pointers around every tile (scripts/dev/gemm-rates, one Zen 3 core,
/// three runs each: 12544x64x16 40.2-40.6 -> 40.9-41.2, 9216x32x32 with a residual 40.5-40.7
/// -> 41.8-41.9 G multiply-adds per second; the narrow panels' shapes unchanged).
#define GEMM_ORDER_FN(ORDER, SUFFIX, F16)                                                                     \
    __attribute__((noinline)) CK_SIMD8_FN static void ORDER##_##SUFFIX(const gemm_job *job, size_t t_begin, \
                                                                       size_t t_end, size_t p_begin, size_t p_end) { \
        ORDER(F16, job, t_begin, t_end, p_begin, p_end);                                                     \
    }
GEMM_ORDER_FN(gemm_tile_major_simd8, f32, 0)
GEMM_ORDER_FN(gemm_tile_major_simd8, f16, 1)
GEMM_ORDER_FN(gemm_panel_major_simd8, f32, 0)
GEMM_ORDER_FN(gemm_panel_major_simd8, f16, 1)
#undef GEMM_ORDER_FN

CK_SIMD8_FN void gemm_tiles_simd8_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                      int tile_major) {
    if (job->m == 1) {
        gemv_simd8(0, job, p_begin, p_end);
        return;
    }
    if (p_begin >= p_end) return;
    if (tile_major) gemm_tile_major_simd8_f32(job, t_begin, t_end, p_begin, p_end);
    else gemm_panel_major_simd8_f32(job, t_begin, t_end, p_begin, p_end);
}
CK_SIMD8_FN void gemm_tiles_simd8_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                      int tile_major) {
    if (job->m == 1) {
        gemv_simd8(1, job, p_begin, p_end);
        return;
    }
    if (p_begin >= p_end) return;
    if (tile_major) gemm_tile_major_simd8_f16(job, t_begin, t_end, p_begin, p_end);
    else gemm_panel_major_simd8_f16(job, t_begin, t_end, p_begin, p_end);
}
#endif
