// What the sparse 1x1 convolution's driver (spconv.c) and its kernels share: the packed layout,
// the job of one ck_spconv call, and each instruction set's entry points (spconv.c describes the
// algorithm and the layout).
#ifndef VISIONTASKS_CK_SPCONV_INTERNAL_H
#define VISIONTASKS_CK_SPCONV_INTERNAL_H

#include "../ck_internal.h"
#include "../ck_simd8.h"
#include <stdint.h>

/// Pixels per tile, and floats per row of the transposed blocks xt and yt.
#define TILE CK_SPCONV_TILE

/// Output channels per pass when the input fits in one channel block: their results are
/// transposed back while still in the L1 cache.
#define SP_OUTPUT_BLOCK 64

static inline size_t round8(size_t v) { return (v + 7) / 8 * 8; }

typedef struct sp_layout {
    size_t n8, groups, blocks, block_size, entries;
    size_t start_offset, channel_offset, weight_offset, row_offset, bytes;
} sp_layout;

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
    /// The shared-input mode's groups of output channels (see ck_spconv) and the 16s of output
    /// channels they share (ck_even_part_start).
    size_t groups, sixteens;
    uint64_t serial;
    int simd;
    int avx512;
} sp_job;

/// ck_spconv's job for `p` (m and n not 0): the packed layout's parts and the dispatch level.
void spconv_job_for(sp_job *job, const ck_spconv_params *p);

/// Whether spconv_shared_channels can run `job` on the calling thread: one tile of pixels (at
/// most CK_SPCONV_TILE), a SIMD level with scratch, and a scratch slot for this thread.
int spconv_shares_input(const sp_job *job);

/// The shared-input mode on the calling thread: output channels [jb, je) (jb a multiple of 16)
/// of the single tile; the thread first transposes the whole input into its scratch, once per
/// job->serial (ck_call_serial).
void spconv_shared_channels(const sp_job *job, size_t jb, size_t je);

/// Pixels [i0, i1), all output channels, straight from NHWC with no scratch (spconv_portable.c).
void sp_rows_portable(const sp_job *job, size_t i0, size_t i1);

// Each SIMD instruction set's kernels (spconv_simd8.c, spconv_avx512.c), from spconv_tile.h:
// sp_tile_*: one tile, pixels [i0, i0 + 8 * V), output channels [0, je), through this thread's
//   scratch;
// sp_shared_transpose_*: in the shared-input mode, input channels [k0, k1) of the single tile
//   transposed into xt (this thread's area);
// sp_shared_*: then output channels [jb, je) from the transposed input of every channel block
//   at xt, results through this thread's yt.
#if defined(CK_SIMD8)
CK_SIMD8_FN void sp_tile_simd8(const sp_job *job, size_t i0, size_t V, size_t je, float *scratch);
CK_SIMD8_FN void sp_shared_transpose_simd8(const sp_job *job, size_t k0, size_t k1, float *xt);
CK_SIMD8_FN void sp_shared_simd8(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt);
#endif
#if defined(CK_HAVE_X86)
CK_AVX512 void sp_tile_avx512(const sp_job *job, size_t i0, size_t V, size_t je, float *scratch);
CK_AVX512 void sp_shared_transpose_avx512(const sp_job *job, size_t k0, size_t k1, float *xt);
CK_AVX512 void sp_shared_avx512(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt);
#endif

#endif
