// Sparse 1x1 convolutions, after "Fast Sparse ConvNets" (Elsen, Dukhan, Gale, Simonyan 2019):
// sparse weights times dense activations, with the activations of a tile of pixels laid out
// channels-major so that one nonzero weight multiplies a contiguous run of pixels.
//
// Our activations are NHWC, so each tile of up to CK_SPCONV_TILE pixels is transposed (8x8
// blocks in registers) into a scratch block xt[channel][pixel] with rows of CK_SPCONV_TILE
// floats, a block of at most CK_SPCONV_CHANNEL_BLOCK input channels at a time (so it stays in the
// L1 cache). For each output channel the nonzero weights are visited in input-channel order:
// broadcast the weight, one FMA per 8 pixels into V accumulators (V = vectors in the tile, up to
// 8, which is also the number of independent FMA chains). Results go to yt[channel][pixel] and
// are transposed back to NHWC through the GEMM epilogue (clamp, residual ADD, PReLU).
//
// With AVX-512 a vector holds 16 pixels, so a tile is at most 4 vectors: the 4 output channels
// of a group (below) run side by side, up to 16 independent FMA chains.
//
// Output channels go in groups of 4 whose nonzero lists are walked together (4 x the vectors of
// a tile = independent FMA chains, with no per-channel remainder loops): in each channel block,
// the channels of each aligned run of 16 are sorted by their count of nonzero weights there and
// cut into groups of 4, and a group's shorter lists are padded with zero weights up to its
// longest (adding 0 * x leaves a finite sum as it is; sorting keeps the padding small). Each
// output still sums its own terms in input-channel order, then the padding. Ranges of output
// channels that start at a multiple of 16 map to whole groups.
//
// Packed layout (all parts 32-byte aligned): bias[n8] floats; group starts (entry indices), one
// per (channel block, group) plus the end, as uint32; the 4 output channels of each (channel
// block, group) as uint32; the weights, one per (group, position, channel slot), padding
// included; then one uint32 per (group, position): byte c is the input channel of slot c's
// weight, counted from the channel block's start (a row of xt; blocks are at most 128 channels).
// One 16-byte load then gives a position's 4 weights and one 4-byte load their 4 rows: loads,
// not multiply-adds, bound the kernel (it also loads one vector of activations per FMA).
#include "ck_internal.h"
#include "ck_simd8.h"
#include <stdint.h>

#define TILE CK_SPCONV_TILE

static size_t round8(size_t v) { return (v + 7) / 8 * 8; }
static size_t align32(size_t v) { return (v + 31) / 32 * 32; }

/// Input channels in `*blocks` blocks of at most `*size` channels (a multiple of 8 and at most
/// CK_SPCONV_CHANNEL_BLOCK), as even as the multiple of 8 allows.
static void channel_blocks(size_t k, size_t *blocks, size_t *size) {
    size_t b = (k + CK_SPCONV_CHANNEL_BLOCK - 1) / CK_SPCONV_CHANNEL_BLOCK;
    if (b == 0) b = 1;
    *blocks = b;
    *size = round8((k + b - 1) / b);
}

typedef struct sp_layout {
    size_t n8, groups, blocks, block_size, entries;
    size_t start_offset, channel_offset, weight_offset, row_offset, bytes;
} sp_layout;

static sp_layout layout_for(size_t n, size_t k, size_t entries) {
    sp_layout l;
    l.n8 = round8(n);
    l.groups = (n + 3) / 4;
    channel_blocks(k, &l.blocks, &l.block_size);
    l.entries = entries;
    l.start_offset = align32(l.n8 * sizeof(float));
    l.channel_offset = align32(l.start_offset + (l.blocks * l.groups + 1) * sizeof(uint32_t));
    l.weight_offset = align32(l.channel_offset + l.blocks * l.groups * 4 * sizeof(uint32_t));
    l.row_offset = align32(l.weight_offset + entries * sizeof(float));
    l.bytes = align32(l.row_offset + entries / 4 * sizeof(uint32_t));
    return l;
}

size_t ck_count_nonzero(const float *values, size_t count) {
    size_t nonzero = 0;
    for (size_t i = 0; i < count; i++) nonzero += values[i] != 0.0f;
    return nonzero;
}

/// Groups the output channels (see the top of the file) and, when `packed` is not NULL, writes
/// the layout there. Returns the number of entries (nonzero weights plus padding).
static size_t pack_groups(size_t n, size_t k, const float *weights, const float *bias, void *packed) {
    size_t blocks, block_size;
    channel_blocks(k, &blocks, &block_size);
    const size_t n4 = (n + 3) / 4 * 4, groups = n4 / 4;
    sp_layout l = layout_for(n, k, packed ? pack_groups(n, k, weights, NULL, NULL) : 0);
    char *base = (char *)packed;
    uint32_t *start = packed ? (uint32_t *)(void *)(base + l.start_offset) : NULL;
    uint32_t *channels = packed ? (uint32_t *)(void *)(base + l.channel_offset) : NULL;
    float *values = packed ? (float *)(void *)(base + l.weight_offset) : NULL;
    uint8_t *rows = packed ? (uint8_t *)(void *)(base + l.row_offset) : NULL;
    if (packed) {
        float *b = (float *)(void *)base;
        for (size_t j = 0; j < l.n8; j++) b[j] = (j < n && bias != NULL) ? bias[j] : 0.0f;
    }
    size_t at = 0;
    for (size_t blk = 0; blk < blocks; blk++) {
        const size_t k0 = blk * block_size, k1 = CK_MIN(k, k0 + block_size);
        for (size_t r0 = 0; r0 < n4; r0 += 16) {
            const size_t r1 = CK_MIN(n4, r0 + 16);
            size_t ids[16], counts[16];
            for (size_t j = r0; j < r1; j++) {
                size_t count = 0;
                if (j < n) {
                    for (size_t q = k0; q < k1; q++) count += weights[j * k + q] != 0.0f;
                }
                // Insertion sort, most nonzeros first; equal counts keep channel order.
                size_t at_pos = j - r0;
                while (at_pos > 0 && counts[at_pos - 1] < count) {
                    ids[at_pos] = ids[at_pos - 1];
                    counts[at_pos] = counts[at_pos - 1];
                    at_pos--;
                }
                ids[at_pos] = j;
                counts[at_pos] = count;
            }
            for (size_t g0 = 0; g0 < r1 - r0; g0 += 4) {
                const size_t group = (r0 + g0) / 4, length = counts[g0];
                if (packed) {
                    start[blk * groups + group] = (uint32_t)at;
                    for (size_t c = 0; c < 4; c++) {
                        const size_t j = ids[g0 + c];
                        channels[(blk * groups + group) * 4 + c] = (uint32_t)j;
                        size_t t = 0;
                        if (j < n) {
                            for (size_t q = k0; q < k1; q++) {
                                const float w = weights[j * k + q];
                                if (w == 0.0f) continue;
                                values[at + t * 4 + c] = w;
                                rows[at + t * 4 + c] = (uint8_t)(q - k0);
                                t++;
                            }
                        }
                        for (; t < length; t++) {
                            values[at + t * 4 + c] = 0.0f;
                            rows[at + t * 4 + c] = 0;
                        }
                    }
                }
                at += length * 4;
            }
        }
    }
    if (packed) start[blocks * groups] = (uint32_t)at;
    return at;
}

size_t ck_spconv_packed_bytes(size_t n, size_t k, const float *weights) {
    return layout_for(n, k, pack_groups(n, k, weights, NULL, NULL)).bytes;
}

size_t ck_spconv_scratch_floats(size_t n, size_t k) {
    size_t blocks, size;
    channel_blocks(k, &blocks, &size);
    // Transposed input for every channel block (a tile of one thread uses the first block's
    // rows only; small layers on threads share slot 0's whole area), then transposed results.
    return (blocks * size + round8(n)) * TILE;
}

void ck_spconv_pack(size_t n, size_t k, const float *weights, const float *bias, void *packed) {
    pack_groups(n, k, weights, bias, packed);
}

typedef struct sp_job {
    const ck_spconv_params *p;
    sp_layout l;
    const float *bias;
    const uint32_t *start;     ///< entry index of each (channel block, group), then the end
    const uint32_t *channels;  ///< 4 output channels per (channel block, group)
    const float *values;       ///< the weights, 4 per (group, position)
    const uint8_t *rows;       ///< 4 per (group, position): slot c's row of xt
    size_t vectors;   ///< groups of 8 pixels
    size_t tiles;
    /// Output channel groups of the shared-input mode (see ck_spconv) and their size.
    size_t groups, group_size;
    int simd;
    int avx512;
} sp_job;

/// The epilogue of one result (output row i, column j), as ck_gemm's portable one.
static inline float sp_finish(const ck_spconv_params *p, float v, size_t i, size_t j) {
    v = v < p->out_min ? p->out_min : v;
    v = v > p->out_max ? p->out_max : v;
    if (p->residual != NULL) {
        v += p->residual[i * p->residual_stride + j];
        v = v < p->sum_min ? p->sum_min : v;
        v = v > p->sum_max ? p->sum_max : v;
    }
    if (p->prelu != NULL && v < 0.0f) v *= p->prelu[j];
    return v;
}

/// Pixels [i0, i1), all output channels, straight from NHWC with no scratch (the portable
/// kernel): a run of 16 output channels at a time, summed group by group as the SIMD kernels do.
static void rows_portable(const sp_job *job, size_t i0, size_t i1) {
    const ck_spconv_params *p = job->p;
    const size_t n = p->n, groups = job->l.groups;
    for (size_t i = i0; i < i1; i++) {
        const float *x = p->a + i * p->a_stride;
        for (size_t r0 = 0; r0 < n; r0 += 16) {
            float acc[16];
            for (size_t c = 0; c < 16; c++) acc[c] = r0 + c < job->l.n8 ? job->bias[r0 + c] : 0.0f;
            for (size_t blk = 0; blk < job->l.blocks; blk++) {
                const float *xb = x + blk * job->l.block_size;
                for (size_t g = r0 / 4; g < CK_MIN(groups, r0 / 4 + 4); g++) {
                    const uint32_t *ch = job->channels + (blk * groups + g) * 4;
                    const uint32_t begin = job->start[blk * groups + g], end = job->start[blk * groups + g + 1];
                    for (uint32_t t = begin; t < end; t++) {
                        acc[ch[(t - begin) % 4] - r0] += job->values[t] * xb[job->rows[t]];
                    }
                }
            }
            for (size_t j = r0; j < CK_MIN(n, r0 + 16); j++) p->c[i * p->c_stride + j] = sp_finish(p, acc[j - r0], i, j);
        }
    }
}

#if defined(CK_SIMD8)

/// The 8x8 transpose of r[0..7] (row i becomes column i).
CK_SIMD8_INLINE void sp_transpose(ck_v8 r[8]) { v8_transpose8(r); }

/// xt rows [0, k1 - k0) for the pixels [i0, i0 + 8 * V) (pixels past m repeat pixel m - 1).
CK_SIMD8_INLINE void sp_load_block(const ck_spconv_params *p, size_t i0, size_t V, size_t k0, size_t k1, float *xt) {
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
            sp_transpose(v);
            float *dst = xt + (c - k0) * TILE + g * 8;
            for (size_t q = 0; q < lanes; q++) v8_store(dst + q * TILE, v[q]);
        }
    }
}

/// Output channels [j0, j1) of one channel block (j0 a multiple of 16, so whole groups):
/// yt[j] = (first ? bias : yt[j]) + the block's terms, V vectors of pixels each, one channel of
/// a group at a time.
CK_SIMD8_INLINE void sp_block(const int V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
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
CK_SIMD8_INLINE void sp_store_block(const ck_spconv_params *p, size_t i0, size_t V, size_t j0, size_t j1,
                                    const float *yt) {
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    const ck_v8 lo2 = v8_set1(p->sum_min), hi2 = v8_set1(p->sum_max);
    for (size_t g = 0; g < V; g++) {
        const size_t pixels = CK_MIN((size_t)8, p->m - CK_MIN(p->m, i0 + g * 8));
        for (size_t c = j0; c < j1; c += 8) {
            const size_t lanes = CK_MIN((size_t)8, p->n - c);
            ck_v8 v[8];
            for (size_t r = 0; r < 8; r++) v[r] = v8_load(yt + (c + r) * TILE + g * 8);
            sp_transpose(v);
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

CK_SIMD8_INLINE void sp_block_any(size_t V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                  const float *xt, float *yt) {
    switch (V) {
    case 1: sp_block(1, job, blk, first, j0, j1, xt, yt); break;
    case 2: sp_block(2, job, blk, first, j0, j1, xt, yt); break;
    case 3: sp_block(3, job, blk, first, j0, j1, xt, yt); break;
    case 4: sp_block(4, job, blk, first, j0, j1, xt, yt); break;
    case 5: sp_block(5, job, blk, first, j0, j1, xt, yt); break;
    case 6: sp_block(6, job, blk, first, j0, j1, xt, yt); break;
    case 7: sp_block(7, job, blk, first, j0, j1, xt, yt); break;
    default: sp_block(8, job, blk, first, j0, j1, xt, yt); break;
    }
}

/// Output channels per pass when the input fits in one channel block: their results are
/// transposed back while still in the L1 cache.
#define SP_OUTPUT_BLOCK 64

/// One tile: pixels [i0, i0 + 8 * V), output channels [jb, je) (jb a multiple of 16).
CK_SIMD8_FN static void tile_simd(const sp_job *job, size_t i0, size_t V, size_t jb, size_t je, float *scratch) {
    const ck_spconv_params *p = job->p;
    const size_t k = p->k;
    float *xt = scratch, *yt = scratch + job->l.blocks * job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        sp_load_block(p, i0, V, 0, k, xt);
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            sp_block_any(V, job, 0, 1, j0, j1, xt, yt);
            sp_store_block(p, i0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) {
        const size_t k0 = blk * job->l.block_size;
        sp_load_block(p, i0, V, k0, CK_MIN(k, k0 + job->l.block_size), xt);
        sp_block_any(V, job, blk, blk == 0, jb, je, xt, yt);
    }
    sp_store_block(p, i0, V, jb, je, yt);
}

#if defined(CK_HAVE_X86)
/// 16 pixels of a row of xt, or (the last vector of a tile with an odd count of 8-pixel groups)
/// the first 8 with zeros above: masked loads and stores only where needed.
CK_AVX512_INLINE __m512 sp_load_z(const float *p, int half) {
    return half ? _mm512_maskz_loadu_ps((__mmask16)0x00ff, p) : _mm512_loadu_ps(p);
}
CK_AVX512_INLINE void sp_store_z(float *p, __m512 v, int half) {
    if (half) {
        _mm512_mask_storeu_ps(p, (__mmask16)0x00ff, v);
    } else {
        _mm512_storeu_ps(p, v);
    }
}

/// sp_block with 16 pixels per vector (Z = vectors of 16; HALF: the last one holds 8 pixels, and
/// lanes past them are neither read nor written), the 4 channels of a group side by side (4 * Z
/// independent FMA chains).
CK_AVX512_INLINE void sp_block_z(const int Z, const int HALF, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                 const float *xt, float *yt) {
    const size_t groups = job->l.groups;
    const uint32_t *start = job->start + blk * groups;
    const uint32_t *channels = job->channels + blk * groups * 4;
    const char *x = (const char *)xt;
    for (size_t g = j0 / 4; g < (j1 + 3) / 4; g++) {
        const float *w4 = job->values + start[g];
        const uint8_t *rows = job->rows + start[g];
        const uint32_t length = (start[g + 1] - start[g]) / 4;
        const uint32_t *ch = channels + g * 4;
        __m512 acc[4][4];
#pragma clang loop unroll(full)
        for (int c = 0; c < 4; c++) {
            const float *y = yt + ch[c] * TILE;
            const __m512 bias = _mm512_set1_ps(job->bias[ch[c]]);
#pragma clang loop unroll(full)
            for (int v = 0; v < Z; v++) acc[c][v] = first ? bias : sp_load_z(y + v * 16, HALF && v == Z - 1);
        }
        // Two positions per loop iteration: 1.3 % faster over pose_detection's shapes.
#pragma clang loop unroll_count(2)
        for (uint32_t q = 0; q < length; q++, w4 += 4, rows += 4) {
            // The 4 weights in one load, broadcast from the register; the 4 rows in one load.
            const __m512 ws = _mm512_castps128_ps512(_mm_loadu_ps(w4));
            uint32_t r;
            memcpy(&r, rows, sizeof r);
#pragma clang loop unroll(full)
            for (int c = 0; c < 4; c++) {
                const __m512 w = _mm512_permutexvar_ps(_mm512_set1_epi32(c), ws);
                const float *xr = (const float *)(const void *)(x + ((r >> (8 * c)) & 0xff) * (TILE * sizeof(float)));
#pragma clang loop unroll(full)
                for (int v = 0; v < Z; v++) acc[c][v] = _mm512_fmadd_ps(w, sp_load_z(xr + v * 16, HALF && v == Z - 1), acc[c][v]);
            }
        }
#pragma clang loop unroll(full)
        for (int c = 0; c < 4; c++) {
            float *y = yt + ch[c] * TILE;
#pragma clang loop unroll(full)
            for (int v = 0; v < Z; v++) sp_store_z(y + v * 16, acc[c][v], HALF && v == Z - 1);
        }
    }
}

/// sp_block_any for V vectors of 8 pixels as (V + 1) / 2 vectors of 16.
CK_AVX512_INLINE void sp_block_any_z(size_t V, const sp_job *job, size_t blk, int first, size_t j0, size_t j1,
                                     const float *xt, float *yt) {
    switch (V) {
    case 1: sp_block_z(1, 1, job, blk, first, j0, j1, xt, yt); break;
    case 2: sp_block_z(1, 0, job, blk, first, j0, j1, xt, yt); break;
    case 3: sp_block_z(2, 1, job, blk, first, j0, j1, xt, yt); break;
    case 4: sp_block_z(2, 0, job, blk, first, j0, j1, xt, yt); break;
    case 5: sp_block_z(3, 1, job, blk, first, j0, j1, xt, yt); break;
    case 6: sp_block_z(3, 0, job, blk, first, j0, j1, xt, yt); break;
    case 7: sp_block_z(4, 1, job, blk, first, j0, j1, xt, yt); break;
    default: sp_block_z(4, 0, job, blk, first, j0, j1, xt, yt); break;
    }
}

/// v < 0 ? v * slope : v with the sign bit deciding (negative zero included), as v8_prelu.
CK_AVX512_INLINE __m512 sp_prelu_z(__m512 v, __m512 slope) {
    return _mm512_mask_mul_ps(v, _mm512_movepi32_mask(_mm512_castps_si512(v)), v, slope);
}

/// Transposes the 16x16 matrix whose rows are r[0..15] in place (row i becomes column i):
/// 32-bit and 64-bit interleaves within 128-bit lanes, then two rounds of lane shuffles.
CK_AVX512_INLINE void sp_transpose16(__m512 r[16]) {
    __m512 t[16];
#pragma clang loop unroll(full)
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    __m512 x[16]; // x[4g + e], lane L: rows 4g ... 4g + 3 at column 4L + e
#pragma clang loop unroll(full)
    for (int g = 0; g < 4; g++) {
        const __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * g + 2]), d = _mm512_castps_pd(t[4 * g + 3]);
        x[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        x[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        x[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        x[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
#pragma clang loop unroll(full)
    for (int e = 0; e < 4; e++) {
        const __m512 a = _mm512_shuffle_f32x4(x[e], x[4 + e], 0x88), b = _mm512_shuffle_f32x4(x[e], x[4 + e], 0xdd);
        const __m512 c = _mm512_shuffle_f32x4(x[8 + e], x[12 + e], 0x88), d = _mm512_shuffle_f32x4(x[8 + e], x[12 + e], 0xdd);
        r[e] = _mm512_shuffle_f32x4(a, c, 0x88);
        r[8 + e] = _mm512_shuffle_f32x4(a, c, 0xdd);
        r[4 + e] = _mm512_shuffle_f32x4(b, d, 0x88);
        r[12 + e] = _mm512_shuffle_f32x4(b, d, 0xdd);
    }
}

/// sp_load_block with 16x16 transposes: xt rows [0, k1 - k0) for the pixels [i0, i0 + 8 * V)
/// (pixels past m repeat pixel m - 1; a tile with an odd V also fills the next 8 pixels of its
/// last 16, which nothing reads).
CK_AVX512_INLINE void sp_load_block_z(const ck_spconv_params *p, size_t i0, size_t V, size_t k0, size_t k1, float *xt) {
    const size_t m = p->m;
    for (size_t g = 0; g < (V + 1) / 2; g++) {
        const float *rows[16];
        for (size_t r = 0; r < 16; r++) rows[r] = p->a + CK_MIN(i0 + g * 16 + r, m - 1) * p->a_stride;
        for (size_t c = k0; c < k1; c += 16) {
            const size_t lanes = CK_MIN((size_t)16, k1 - c);
            __m512 v[16];
            if (lanes == 16) {
                for (size_t r = 0; r < 16; r++) v[r] = _mm512_loadu_ps(rows[r] + c);
            } else {
                const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
                for (size_t r = 0; r < 16; r++) v[r] = _mm512_maskz_loadu_ps(mask, rows[r] + c);
            }
            sp_transpose16(v);
            float *dst = xt + (c - k0) * TILE + g * 16;
            for (size_t q = 0; q < lanes; q++) _mm512_storeu_ps(dst + q * TILE, v[q]);
        }
    }
}

/// One 16x16 block of the store: v[q] holds pixel row0 + q's channels [c, c + lanes); the
/// epilogue with (RES) or without a residual ADD and (PRELU) or without PReLU. Everything it
/// reads from the parameters is in locals, so the compiler need not reload it after each store.
CK_AVX512_INLINE void sp_store_rows_z(const int RES, const int PRELU, const __m512 *v, size_t pixels, size_t lanes, float *out,
                                      size_t c_stride, const float *res, size_t res_stride, __m512 slopes, __m512 lo,
                                      __m512 hi, __m512 lo2, __m512 hi2) {
    if (lanes == 16) {
        for (size_t q = 0; q < pixels; q++) {
            __m512 o = _mm512_min_ps(_mm512_max_ps(v[q], lo), hi);
            if (RES) o = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(o, _mm512_loadu_ps(res + q * res_stride)), lo2), hi2);
            if (PRELU) o = sp_prelu_z(o, slopes);
            _mm512_storeu_ps(out + q * c_stride, o);
        }
    } else {
        const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
        for (size_t q = 0; q < pixels; q++) {
            __m512 o = _mm512_min_ps(_mm512_max_ps(v[q], lo), hi);
            if (RES) o = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(o, _mm512_maskz_loadu_ps(mask, res + q * res_stride)), lo2), hi2);
            if (PRELU) o = sp_prelu_z(o, slopes);
            _mm512_mask_storeu_ps(out + q * c_stride, mask, o);
        }
    }
}

/// sp_store_block with 16x16 transposes: yt rows [j0, j1) back to NHWC for the pixels
/// [i0, min(m, i0 + 8 * V)), through the epilogue. yt holds rows up to round8(n).
CK_AVX512_INLINE void sp_store_block_z(const ck_spconv_params *p, size_t i0, size_t V, size_t j0, size_t j1,
                                       const float *yt) {
    const __m512 lo = _mm512_set1_ps(p->out_min), hi = _mm512_set1_ps(p->out_max);
    const __m512 lo2 = _mm512_set1_ps(p->sum_min), hi2 = _mm512_set1_ps(p->sum_max);
    const size_t pixels_total = CK_MIN(p->m - i0, 8 * V);
    const size_t rows_available = round8(p->n), n = p->n, c_stride = p->c_stride, res_stride = p->residual_stride;
    const float *residual = p->residual, *prelu = p->prelu;
    float *c_base = p->c;
    for (size_t g = 0; g < (pixels_total + 15) / 16; g++) {
        const size_t pixels = CK_MIN((size_t)16, pixels_total - g * 16), row0 = i0 + g * 16;
        for (size_t c = j0; c < j1; c += 16) {
            const size_t lanes = CK_MIN((size_t)16, n - c);
            const size_t rows = CK_MIN((size_t)16, rows_available - c);
            __m512 v[16];
            for (size_t r = 0; r < 16; r++) {
                v[r] = r < rows ? _mm512_loadu_ps(yt + (c + r) * TILE + g * 16) : _mm512_setzero_ps();
            }
            sp_transpose16(v);
            const __mmask16 mask = (__mmask16)((1u << lanes) - 1u);
            __m512 slopes = _mm512_setzero_ps();
            if (prelu != NULL) slopes = lanes == 16 ? _mm512_loadu_ps(prelu + c) : _mm512_maskz_loadu_ps(mask, prelu + c);
            float *out = c_base + row0 * c_stride + c;
            const float *res = residual != NULL ? residual + row0 * res_stride + c : NULL;
            if (res != NULL) {
                if (prelu != NULL) {
                    sp_store_rows_z(1, 1, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
                } else {
                    sp_store_rows_z(1, 0, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
                }
            } else if (prelu != NULL) {
                sp_store_rows_z(0, 1, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
            } else {
                sp_store_rows_z(0, 0, v, pixels, lanes, out, c_stride, res, res_stride, slopes, lo, hi, lo2, hi2);
            }
        }
    }
}

/// tile_simd with the AVX-512 products and 16x16 transposes.
CK_AVX512 static void tile_z(const sp_job *job, size_t i0, size_t V, size_t jb, size_t je, float *scratch) {
    const ck_spconv_params *p = job->p;
    const size_t k = p->k;
    float *xt = scratch, *yt = scratch + job->l.blocks * job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        sp_load_block_z(p, i0, V, 0, k, xt);
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            sp_block_any_z(V, job, 0, 1, j0, j1, xt, yt);
            sp_store_block_z(p, i0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) {
        const size_t k0 = blk * job->l.block_size;
        sp_load_block_z(p, i0, V, k0, CK_MIN(k, k0 + job->l.block_size), xt);
        sp_block_any_z(V, job, blk, blk == 0, jb, je, xt, yt);
    }
    sp_store_block_z(p, i0, V, jb, je, yt);
}
#endif
#endif

/// Shared-input mode, phase 2: output channels [jb, je) of the single tile, from the
/// transposed input of every channel block at xt (slot 0's area), results through this
/// thread's yt.
#if defined(CK_SIMD8)
CK_SIMD8_FN static void shared_simd(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt) {
    const size_t V = job->vectors, stride = job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            sp_block_any(V, job, 0, 1, j0, j1, xt, yt);
            sp_store_block(job->p, 0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) sp_block_any(V, job, blk, blk == 0, jb, je, xt + blk * stride, yt);
    sp_store_block(job->p, 0, V, jb, je, yt);
}
#endif
#if defined(CK_HAVE_X86)
CK_AVX512 static void shared_z(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt) {
    const size_t V = job->vectors, stride = job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            sp_block_any_z(V, job, 0, 1, j0, j1, xt, yt);
            sp_store_block_z(job->p, 0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) sp_block_any_z(V, job, blk, blk == 0, jb, je, xt + blk * stride, yt);
    sp_store_block_z(job->p, 0, V, jb, je, yt);
}
/// Shared-input mode, phase 1, AVX-512 transposes.
CK_AVX512 static void shared_transpose_z(const sp_job *job, size_t k0, size_t k1, float *xt) {
    sp_load_block_z(job->p, 0, job->vectors, k0, k1, xt);
}
#endif
#if defined(CK_SIMD8)
CK_SIMD8_FN static void shared_transpose_simd(const sp_job *job, size_t k0, size_t k1, float *xt) {
    sp_load_block(job->p, 0, job->vectors, k0, k1, xt);
}
#endif

/// Shared-input mode, phase 1: channel blocks [begin, end) of the input, transposed into slot
/// 0's area (block b at rows b * block_size).
static void shared_transpose_range(void *context, size_t begin, size_t end) {
    const sp_job *job = (const sp_job *)context;
    const ck_spconv_params *p = job->p;
    for (size_t blk = begin; blk < end; blk++) {
        const size_t k0 = blk * job->l.block_size, k1 = CK_MIN(p->k, k0 + job->l.block_size);
        float *xt = p->scratch + blk * job->l.block_size * TILE;
#if defined(CK_HAVE_X86)
        if (job->avx512) {
            shared_transpose_z(job, k0, k1, xt);
            continue;
        }
#endif
#if defined(CK_SIMD8)
        shared_transpose_simd(job, k0, k1, xt);
#endif
    }
}

/// Shared-input mode, phase 2: output channel groups [begin, end).
static void shared_range(void *context, size_t begin, size_t end) {
    const sp_job *job = (const sp_job *)context;
    const ck_spconv_params *p = job->p;
    const size_t slot = (size_t)ck_thread_slot();
    float *yt = p->scratch + slot * ck_spconv_scratch_floats(p->n, p->k) + job->l.blocks * job->l.block_size * TILE;
    for (size_t group = begin; group < end; group++) {
        const size_t jb = group * job->group_size, je = CK_MIN(p->n, jb + job->group_size);
#if defined(CK_HAVE_X86)
        if (job->avx512) {
            shared_z(job, jb, je, p->scratch, yt);
            continue;
        }
#endif
#if defined(CK_SIMD8)
        shared_simd(job, jb, je, p->scratch, yt);
#endif
    }
}

/// Tile t covers the groups of 8 pixels [t * vectors / tiles, (t + 1) * vectors / tiles).
static void sp_range(void *context, size_t begin, size_t end) {
    const sp_job *job = (const sp_job *)context;
    const ck_spconv_params *p = job->p;
#if defined(CK_SIMD8)
    const size_t slot = (size_t)ck_thread_slot();
    if (job->simd && slot < p->scratch_slots) {
        float *scratch = p->scratch + slot * ck_spconv_scratch_floats(p->n, p->k);
        for (size_t t = begin; t < end; t++) {
            const size_t g0 = t * job->vectors / job->tiles, g1 = (t + 1) * job->vectors / job->tiles;
#if defined(CK_HAVE_X86)
            if (job->avx512) {
                tile_z(job, g0 * 8, g1 - g0, 0, p->n, scratch);
                continue;
            }
#endif
            tile_simd(job, g0 * 8, g1 - g0, 0, p->n, scratch);
        }
        return;
    }
#endif
    const size_t i0 = begin * job->vectors / job->tiles * 8, i1 = CK_MIN(p->m, end * job->vectors / job->tiles * 8);
    rows_portable(job, i0, i1);
}

void ck_spconv(const ck_spconv_params *p, ck_threadpool *pool) {
    if (p->m == 0 || p->n == 0) return;
    sp_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    const char *base = (const char *)p->packed;
    sp_layout l = layout_for(p->n, p->k, 0);
    job.start = (const uint32_t *)(const void *)(base + l.start_offset);
    l = layout_for(p->n, p->k, job.start[l.blocks * l.groups]);
    job.l = l;
    job.bias = (const float *)(const void *)base;
    job.channels = (const uint32_t *)(const void *)(base + l.channel_offset);
    job.values = (const float *)(const void *)(base + l.weight_offset);
    job.rows = (const uint8_t *)(const void *)(base + l.row_offset);
#if defined(CK_SIMD8)
    job.simd = ck_use_simd8() && p->scratch != NULL;
#endif
    job.avx512 = ck_use_avx512();
    pool = ck_pool_for_work(pool, p->m * l.entries);
    const size_t threads = (size_t)ck_threadpool_thread_count(pool);
    job.vectors = (p->m + 7) / 8;
    size_t tiles = (job.vectors + 7) / 8;
    if (threads > 1 && tiles == 1 && p->n >= p->k && job.simd && p->scratch_slots >= threads) {
        // One tile of pixels with more outputs than inputs (a 7x7 expansion) on threads: the
        // input is transposed once, block by block on every thread, into slot 0's area; then
        // each thread takes groups of output channels (whole 16s, two groups per thread) over
        // the shared transposed input. Tiles of fewer pixels per thread repeat every output
        // channel's fixed costs with less work each: 7x7x192 -> 1152 at density 0.25 ran 1.55x
        // faster on 2 threads than on one that way, 1.83x this way. (The 7x7 projections,
        // 1152 -> 192, run as fast either way.)
        job.tiles = 1;
        const size_t sixteens = (p->n + 15) / 16, groups = CK_MIN(sixteens, 2 * threads);
        job.group_size = (sixteens + groups - 1) / groups * 16;
        job.groups = (p->n + job.group_size - 1) / job.group_size;
        ck_parallel_for(pool, l.blocks, shared_transpose_range, &job);
        ck_parallel_for(pool, job.groups, shared_range, &job);
        return;
    }
    // Tiles of at most 8 vectors of 8 pixels, as even as possible, and at least one per thread
    // where there are enough pixels.
    if (threads > 1 && tiles % threads != 0) tiles = CK_MIN(job.vectors, (tiles + threads - 1) / threads * threads);
    job.tiles = tiles;
    ck_parallel_for(pool, tiles, sp_range, &job);
}
