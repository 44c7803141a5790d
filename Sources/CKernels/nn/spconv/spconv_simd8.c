// The sparse 1x1 convolution's kernels over ck_simd8.h (AVX2/FMA on x86-64, NEON on arm64): 8x8
// transposes in registers, and per output channel of a group of 4 one broadcast and one FMA
// per nonzero weight and 8 pixels, into up to 8 accumulators (the vectors of a tile).
#include "spconv_internal.h"

#if defined(CK_SIMD8)

/// The 8x8 transpose of r[0..7] (row i becomes column i).
CK_SIMD8_INLINE void sp_transpose_simd8(ck_v8 r[8]) { v8_transpose8(r); }

/// xt rows [0, k1 - k0) for the pixels [i0, i0 + 8 * V) (pixels past m repeat pixel m - 1).
CK_SIMD8_INLINE void sp_load_block_simd8(const ck_spconv_params *p, size_t i0, size_t V, size_t k0, size_t k1, float *xt) {
    const size_t m = p->m;
    for (size_t g = 0; g < V; g++) {
        const float *rows[8];
        for (size_t r = 0; r < 8; r++) rows[r] = p->a + CK_MIN(i0 + g * 8 + r, m - 1) * p->a_stride;
        for (size_t c = k0; c < k1; c += 8) {
            const size_t lanes = CK_MIN((size_t)8, k1 - c);
            ck_v8 v[8];
            if (lanes == 8) {
                for (size_t r = 0; r < 8; r++) v[r] = v8_load(rows[r] + c);
            } else {
                for (size_t r = 0; r < 8; r++) v[r] = v8_load_partial(rows[r] + c, lanes);
            }
            sp_transpose_simd8(v);
            float *dst = xt + (c - k0) * TILE + g * 8;
            for (size_t q = 0; q < lanes; q++) v8_store(dst + q * TILE, v[q]);
        }
    }
}

/// Output channels [j0, j1) of one channel block (j0 a multiple of 16, so whole groups):
/// yt[j] = (first ? bias : yt[j]) + the block's terms, V vectors of pixels each, one channel of
/// a group at a time.
CK_SIMD8_INLINE void sp_block_simd8(const int V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                    const float *xt, float *yt) {
    const size_t groups = job->l.groups;
    const uint32_t *start = job->start + blk * groups;
    const uint32_t *channels = job->channels + blk * groups * 4;
    const char *x = (const char *)xt;
    for (size_t g = j0 / 4; g < (j1 + 3) / 4; g++) {
        const float *w4 = job->values + start[g];
        const uint8_t *rows = job->rows + start[g];
        const uint32_t length = (start[g + 1] - start[g]) / 4;
        for (size_t c = 0; c < 4; c++) {
            const size_t j = channels[g * 4 + c];
            ck_v8 acc[8];
            float *y = yt + j * TILE;
            if (first) {
                const ck_v8 b = v8_broadcast(job->bias + j);
#pragma clang loop unroll(full)
                for (int v = 0; v < V; v++) acc[v] = b;
            } else {
#pragma clang loop unroll(full)
                for (int v = 0; v < V; v++) acc[v] = v8_load(y + v * 8);
            }
            for (uint32_t q = 0; q < length; q++) {
                const ck_v8 w = v8_broadcast(w4 + q * 4 + c);
                const float *xr = (const float *)(const void *)(x + rows[q * 4 + c] * (TILE * sizeof(float)));
#pragma clang loop unroll(full)
                for (int v = 0; v < V; v++) acc[v] = v8_fma(w, v8_load(xr + v * 8), acc[v]);
            }
#pragma clang loop unroll(full)
            for (int v = 0; v < V; v++) v8_store(y + v * 8, acc[v]);
        }
    }
}

/// yt rows [j0, j1) back to NHWC for pixels [i0, min(m, i0 + 8 * V)), through the epilogue.
CK_SIMD8_INLINE void sp_store_block_simd8(const ck_spconv_params *p, size_t i0, size_t V, size_t j0, size_t j1,
                                          const float *yt) {
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    const ck_v8 lo2 = v8_set1(p->sum_min), hi2 = v8_set1(p->sum_max);
    for (size_t g = 0; g < V; g++) {
        const size_t pixels = CK_MIN((size_t)8, p->m - CK_MIN(p->m, i0 + g * 8));
        for (size_t c = j0; c < j1; c += 8) {
            const size_t lanes = CK_MIN((size_t)8, p->n - c);
            ck_v8 v[8];
            for (size_t r = 0; r < 8; r++) v[r] = v8_load(yt + (c + r) * TILE + g * 8);
            sp_transpose_simd8(v);
            ck_v8 slopes = v8_zero();
            if (p->prelu != NULL) slopes = lanes == 8 ? v8_load(p->prelu + c) : v8_load_partial(p->prelu + c, lanes);
            for (size_t q = 0; q < pixels; q++) {
                const size_t row = i0 + g * 8 + q;
                ck_v8 o = v8_min(v8_max(v[q], lo), hi);
                if (p->residual != NULL) {
                    const float *res = p->residual + row * p->residual_stride + c;
                    o = v8_add(o, lanes == 8 ? v8_load(res) : v8_load_partial(res, lanes));
                    o = v8_min(v8_max(o, lo2), hi2);
                }
                if (p->prelu != NULL) o = v8_prelu(o, slopes);
                float *out = p->c + row * p->c_stride + c;
                if (lanes == 8) {
                    v8_store(out, o);
                } else {
                    v8_store_partial(out, o, lanes);
                }
            }
        }
    }
}

CK_SIMD8_INLINE void sp_block_any_simd8(size_t V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                        const float *xt, float *yt) {
    switch (V) {
    case 1: sp_block_simd8(1, job, blk, first, j0, j1, xt, yt); break;
    case 2: sp_block_simd8(2, job, blk, first, j0, j1, xt, yt); break;
    case 3: sp_block_simd8(3, job, blk, first, j0, j1, xt, yt); break;
    case 4: sp_block_simd8(4, job, blk, first, j0, j1, xt, yt); break;
    case 5: sp_block_simd8(5, job, blk, first, j0, j1, xt, yt); break;
    case 6: sp_block_simd8(6, job, blk, first, j0, j1, xt, yt); break;
    case 7: sp_block_simd8(7, job, blk, first, j0, j1, xt, yt); break;
    default: sp_block_simd8(8, job, blk, first, j0, j1, xt, yt); break;
    }
}

#define SP_ISA simd8
#define SP_FN CK_SIMD8_FN
#include "spconv_tile.h"
#endif
