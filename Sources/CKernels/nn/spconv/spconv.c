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
//
// This file packs the weights and shares the tiles (or, for one tile that expands its channels,
// the channel blocks and output channels) out between threads; the kernels are in
// spconv_portable.c, spconv_simd8.c and spconv_avx512.c, the tile drivers the last two share in
// spconv_tile.h.
#include "spconv_internal.h"

static size_t align32(size_t v) { return (v + 31) / 32 * 32; }

/// Input channels in `*blocks` blocks of at most `*size` channels (a multiple of 8 and at most
/// CK_SPCONV_CHANNEL_BLOCK), as even as the multiple of 8 allows.
static void channel_blocks(size_t k, size_t *blocks, size_t *size) {
    size_t b = (k + CK_SPCONV_CHANNEL_BLOCK - 1) / CK_SPCONV_CHANNEL_BLOCK;
    if (b == 0) b = 1;
    *blocks = b;
    *size = round8((k + b - 1) / b);
}

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
    // Transposed input for every channel block (a tile uses the first block's rows only; a
    // layer in the shared-input mode transposes all of its input into each thread's area), then
    // transposed results.
    return (blocks * size + round8(n)) * TILE;
}

void ck_spconv_pack(size_t n, size_t k, const float *weights, const float *bias, void *packed) {
    pack_groups(n, k, weights, bias, packed);
}

/// This thread's scratch for `p`: its own buffer (ck_thread_buffer), which every sparse layer the
/// thread runs reuses, so that the transposed tiles stay in its caches from one layer to the
/// next; else (no memory for it) its slot of the caller's scratch, NULL past the slots. Each layer
/// writing its own scratch met it out of cache at each invoke: pose_detection's sparse layers
/// without ADD summed 1.34-1.43 ms at best on one thread and 0.86-0.99 on two that way, 1.29-1.31
/// and 0.75-0.80 this way (`vision-tasks-bench --profile-operators --threads 1,2 --runs 300
/// --no-litert --models pose_detection.tflite`, four rounds taking turns, 2-vCPU AMD EPYC Zen 4,
/// family 25, model 17).
static float *sp_thread_scratch(const ck_spconv_params *p) {
    const size_t floats = ck_spconv_scratch_floats(p->n, p->k);
    float *own = ck_thread_buffer(CK_BUFFER_SPARSE_TILES, floats, NULL);
    if (own != NULL) return own;
    const size_t slot = (size_t)ck_thread_slot();
    return slot < p->scratch_slots ? p->scratch + slot * floats : NULL;
}

/// The shared-input call (ck_call_serial) whose input this thread has transposed into its area.
static _Thread_local uint64_t shared_transposed;

int spconv_shares_input(const sp_job *job) {
    return job->simd && job->vectors <= 8 && (size_t)ck_thread_slot() < job->p->scratch_slots;
}

void spconv_shared_channels(const sp_job *job, size_t jb, size_t je) {
    const ck_spconv_params *p = job->p;
    float *xt = sp_thread_scratch(p);
    if (xt == NULL) return; // not reached: callers check spconv_shares_input
    float *yt = xt + job->l.blocks * job->l.block_size * TILE;
    if (shared_transposed != job->serial) {
        shared_transposed = job->serial;
        for (size_t blk = 0; blk < job->l.blocks; blk++) {
            const size_t k0 = blk * job->l.block_size, k1 = CK_MIN(p->k, k0 + job->l.block_size);
#if defined(CK_HAVE_X86)
            if (job->avx512) {
                sp_shared_transpose_avx512(job, k0, k1, xt + k0 * TILE);
                continue;
            }
#endif
#if defined(CK_SIMD8)
            sp_shared_transpose_simd8(job, k0, k1, xt + k0 * TILE);
#endif
        }
    }
#if defined(CK_HAVE_X86)
    if (job->avx512) {
        sp_shared_avx512(job, jb, je, xt, yt);
        return;
    }
#endif
#if defined(CK_SIMD8)
    sp_shared_simd8(job, jb, je, xt, yt);
#else
    (void)je;
    (void)yt;
#endif
}

/// Shared-input mode: output channel groups [begin, end).
static void shared_range(void *context, size_t begin, size_t end) {
    const sp_job *job = (const sp_job *)context;
    for (size_t group = begin; group < end; group++) {
        const size_t jb = 16 * ck_even_part_start(group, job->groups, job->sixteens, 1);
        const size_t je = CK_MIN(job->p->n, 16 * ck_even_part_start(group + 1, job->groups, job->sixteens, 1));
        spconv_shared_channels(job, jb, je);
    }
}

/// The first group of 8 pixels of tile t (of job->tiles; the vector count for the last bound):
/// tile t covers [ceil(t * vectors / tiles), ceil((t + 1) * vectors / tiles)), so the larger
/// tiles come first. The calling thread claims tiles from the front and starts first; the
/// workers, from the back, join later. With the larger tiles last, a 14x14 layer's 25 vectors
/// went 12 to the caller and 13 to the worker, and the caller waited for the worker: in
/// pose_detection's sixteen 14x14 sparse layers the caller spent 137-254 µs per invoke outside its
/// pieces, the worker 37-120; the larger first, 57-78 and 70-133, the layers' medians summed
/// 0.943-1.017 ms -> 0.911-0.956 (`vision-tasks-bench --profile-operators --threads 1,2 --runs
/// 300 --no-litert --models pose_detection.tflite`, four rounds taking turns, 2-vCPU AMD EPYC
/// Zen 4, family 25, model 17). Which pixels share a tile does not change a result's bits.
static size_t sp_tile_start(const sp_job *job, size_t t) {
    if (t >= job->tiles) return job->vectors;
    return (t * job->vectors + job->tiles - 1) / job->tiles;
}

static void sp_range(void *context, size_t begin, size_t end) {
    const sp_job *job = (const sp_job *)context;
    const ck_spconv_params *p = job->p;
#if defined(CK_SIMD8)
    float *scratch = job->simd ? sp_thread_scratch(p) : NULL;
    if (scratch != NULL) {
        for (size_t t = begin; t < end; t++) {
            const size_t g0 = sp_tile_start(job, t), g1 = sp_tile_start(job, t + 1);
#if defined(CK_HAVE_X86)
            if (job->avx512) {
                sp_tile_avx512(job, g0 * 8, g1 - g0, p->n, scratch);
                continue;
            }
#endif
            sp_tile_simd8(job, g0 * 8, g1 - g0, p->n, scratch);
        }
        return;
    }
#endif
    const size_t i0 = sp_tile_start(job, begin) * 8, i1 = CK_MIN(p->m, sp_tile_start(job, end) * 8);
    sp_rows_portable(job, i0, i1);
}

void spconv_job_for(sp_job *job, const ck_spconv_params *p) {
    memset(job, 0, sizeof *job);
    job->p = p;
    const char *base = (const char *)p->packed;
    sp_layout l = layout_for(p->n, p->k, 0);
    job->start = (const uint32_t *)(const void *)(base + l.start_offset);
    l = layout_for(p->n, p->k, job->start[l.blocks * l.groups]);
    job->l = l;
    job->bias = (const float *)(const void *)base;
    job->channels = (const uint32_t *)(const void *)(base + l.channel_offset);
    job->values = (const float *)(const void *)(base + l.weight_offset);
    job->rows = (const uint8_t *)(const void *)(base + l.row_offset);
#if defined(CK_SIMD8)
    job->simd = ck_use_simd8() && p->scratch != NULL;
#endif
    job->avx512 = ck_use_avx512();
    job->vectors = (p->m + 7) / 8;
}

void ck_spconv(const ck_spconv_params *p, ck_threadpool *pool) {
    if (p->m == 0 || p->n == 0) return;
    sp_job job;
    spconv_job_for(&job, p);
    pool = ck_pool_for_work(pool, p->m * job.l.entries);
    const size_t threads = (size_t)ck_threadpool_thread_count(pool);
    size_t tiles = (job.vectors + 7) / 8;
    if (threads > 1 && tiles == 1 && p->k < p->n && (p->n + 15) / 16 >= threads && job.simd && p->scratch_slots >= threads) {
        // One tile of pixels (a 7x7 layer) that expands its channels, on threads, with a 16 of
        // output channels for each: each thread transposes the whole input into its own area
        // (before its first group), then takes groups of output channels (two groups per thread,
        // as even as whole 16s allow: ck_even_part_start) over it. Transposing once into one area
        // shared by the threads made each thread read half the transposed rows from the other
        // core: pose_detection's 7x7x192 ->
        // 1152 layers took 0.051-0.054 ms at best on 2 threads that way and 0.042-0.046 this way
        // when each runs twice before it is timed, 0.055-0.060 and 0.051-0.055 in the flow
        // (vision-tasks-bench --profile-operators [--in-place 2] --threads 1,2 --runs 300
        // --no-litert, 2-vCPU Intel Xeon, model 207, two runs each); more groups (six per
        // thread) were slower, 0.046-0.048 in place. Tiles of fewer pixels per thread repeat
        // every output channel's fixed costs (its weights' loads, which bound the kernel) with
        // less work each, and 7 vectors of pixels split 3 and 4: the expansion
        // 7x7x192 -> 1152 at density 0.25 ran 1.55x faster on 2 threads than on one that way,
        // 1.83x this way (pose_detection, vision-tasks-bench --profile-operators --threads 1,2,
        // one AMD Zen 3 VM). A layer that narrows its channels keeps the tiles: every thread
        // then reads the whole transposed input, half of it written by the other thread, which
        // costs more than the repeated weights save. The projections 7x7x1152 -> 192 had the
        // same best time either way on the Zen 3 VM; on a 2-vCPU Intel Xeon (family 6, model
        // 207, AVX-512), where a cache line's round trip between the two cores takes about
        // 350 ns (scripts/dev/core-to-core), they took 0.079-0.083 ms this way against
        // 0.053-0.058 with tiles, and 7x7x672 -> 192 0.049-0.061 against 0.033-0.035 (best of
        // 300 at 2 threads, the same command); with each thread's own transposed copy, as
        // here, pose_detection's five 7x7 projections still summed 0.371-0.423 ms this way
        // against 0.276-0.293 with tiles (docs/benchmarks.md).
        job.tiles = 1;
        job.sixteens = (p->n + 15) / 16;
        job.groups = CK_MIN(job.sixteens, 2 * threads);
        job.serial = ck_call_serial();
        ck_parallel_for(pool, job.groups, shared_range, &job);
        return;
    }
    // Tiles of at most 8 vectors of 8 pixels, as even as possible, and at least one per thread
    // where there are enough pixels.
    if (threads > 1 && tiles % threads != 0) tiles = CK_MIN(job.vectors, (tiles + threads - 1) / threads * threads);
    job.tiles = tiles;
    ck_parallel_for(pool, tiles, sp_range, &job);
}
