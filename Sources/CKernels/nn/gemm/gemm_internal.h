// What the GEMM's driver (gemm.c) and its microkernels share: the job one ck_gemm or ck_igemm
// call describes, and each instruction set's entry point over a range of tiles.
//
// A microkernel is named after its operation, its tile (output rows x columns) and its
// instruction set, as XNNPACK names them: gemm_6x16_simd8 computes up to 6 rows x 16 columns
// with ck_simd8.h's vectors (AVX2/FMA on x86-64, NEON on arm64), gemm_8x32_avx512 8 rows x 32
// columns with AVX-512, gemm_1x64_simd8 one row (a matrix-vector product) x up to 64 columns.
#ifndef VISIONTASKS_CK_GEMM_INTERNAL_H
#define VISIONTASKS_CK_GEMM_INTERNAL_H

#include "../ck_internal.h"
#include "../ck_simd8.h"

/// Output channels per packed panel (the tile width of one panel).
#define NR CK_GEMM_NR
/// Rows per portable and SIMD8 tile.
#define MR CK_GEMM_MR
/// Rows per AVX-512 tile: 8 (x 2 panels = 16 independent accumulators) keep both FMA units of a
/// core busy through the 4-cycle FMA latency.
#define MR512 CK_GEMM_MR_AVX512

/// Bytes of one half-precision panel: 16 float32 biases, then 16 halves per (tap, channel).
static inline size_t gemm_panel_bytes_f16(size_t kk) { return NR * sizeof(float) + kk * NR * sizeof(uint16_t); }

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
    /// Weights first (not m_outer): the row tiles are cut into parts of this many, one per
    /// thread, each taken panel by panel (0: not cut).
    size_t chunk_tiles;
    int simd;
    int avx512;
    /// Distinct for every call of run_gemm (widened panels are reused within one call only).
    uint64_t serial;
} gemm_job;

/// The input of output row `row` at tap `t`.
static inline const float *gemm_row(const gemm_job *job, size_t row, size_t t) {
    return job->indirection != NULL ? job->indirection[row * job->taps + t] : job->a + row * job->a_stride;
}

// Row tiles [t_begin, t_end) x panels [p_begin, p_end) at one instruction set, tile by tile
// (`tile_major`: every panel of a tile, then the next tile) or panel by panel. A tile is
// job->mr rows; the last one may be shorter.

/// The portable microkernel (gemm_portable.c), panel by panel.
/// Rows per tile at the current dispatch level: a GEMM's tiles start at multiples of it, and
/// a tile of one row sums in another order (four partial sums), so a GEMM over part of the rows
/// gives the same bits only where its rows start at such a multiple (expand_dwconv.c).
size_t gemm_row_tile(void);

/// A job for ck_gemm's parameters, planned as ck_gemm plans it, to be run a group of panels at a
/// time on the calling thread (gemm_panels): the same tiles, so the same bits, as one ck_gemm.
/// Its widened half-precision panels last for this job (one ck_call_serial).
void gemm_job_for_columns(gemm_job *job, const ck_gemm_params *p);

/// Every row tile of panels [p_begin, p_end) (output columns p_begin * NR on) on the calling
/// thread, panel by panel; p_begin even with AVX-512 (whose tiles take panels in pairs).
void gemm_panels(const gemm_job *job, size_t p_begin, size_t p_end);

void gemm_tiles_portable(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end);

#if defined(CK_SIMD8)
/// ck_simd8.h's microkernels (gemm_simd8.c) over float32 and half-precision panels.
CK_SIMD8_FN void gemm_tiles_simd8_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                      int tile_major);
CK_SIMD8_FN void gemm_tiles_simd8_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                      int tile_major);
#endif

#if defined(CK_HAVE_X86)
/// This thread's float32 copy of the half-precision panels `panel` and `panel + 1` for this call
/// (job->serial), made now when `make` is set and it has none; NULL when there is none or no room
/// (gemm_widen_avx512.c).
CK_AVX512 float *gemm_wide_pair_avx512(const gemm_job *job, size_t panel, int make);

/// The AVX-512 microkernels (gemm_avx512.c) over float32 and half-precision panels.
CK_AVX512 void gemm_tiles_avx512_f32(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                     int tile_major);
CK_AVX512 void gemm_tiles_avx512_f16(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end,
                                     int tile_major);
#endif

#endif
