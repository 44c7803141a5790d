// Convolution as matrix multiplication, over weights packed once at load time (gemm_pack.c:
// panels of 16 output channels, float32, or half precision widened in the kernel), used directly
// for 1x1 convolutions / fully connected layers and through an indirection buffer (one pointer
// per output pixel and kernel tap) for general convolutions, so no im2col copy is made. The
// results go through a fused epilogue: the convolution's clamp, an optional residual ADD with
// its clamp, and an optional PReLU.
//
// This file is the driver: how the work is cut into row tiles and panels, in which order they
// are visited (L1 blocking), how threads share them, and which instruction set's microkernels
// run them. The microkernels (gemm_internal.h names them): gemm_portable.c, gemm_simd8.c (6x16
// and matrix-vector tiles for AVX2 and NEON), gemm_avx512.c (8x32, 8x24, 8x16 and matrix-vector
// tiles) with gemm_widen_avx512.c (per-thread float32 copies of half-precision panels).
//
// Each output is bias + sum over (tap, input channel) in order, one fused multiply-add per
// term; single-row tiles (matrix-vector products) keep four partial sums over k instead, so
// their result is independent of the threads but not bit-identical to a multi-row tile's.
#include "gemm_internal.h"

/// Row tiles [t_begin, t_end) x panels [p_begin, p_end) at the current dispatch level.
static void tiles(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end, int tile_major) {
#if defined(CK_HAVE_X86)
    if (job->avx512) {
        if (job->f16) {
            gemm_tiles_avx512_f16(job, t_begin, t_end, p_begin, p_end, tile_major);
        } else {
            gemm_tiles_avx512_f32(job, t_begin, t_end, p_begin, p_end, tile_major);
        }
        return;
    }
#endif
#if defined(CK_SIMD8)
    if (job->simd) {
        if (job->f16) {
            gemm_tiles_simd8_f16(job, t_begin, t_end, p_begin, p_end, tile_major);
        } else {
            gemm_tiles_simd8_f32(job, t_begin, t_end, p_begin, p_end, tile_major);
        }
        return;
    }
#endif
    gemm_tiles_portable(job, t_begin, t_end, p_begin, p_end);
}


/// Work units: row tiles (the first operand is the larger: blocks of row tiles stay in cache
/// while every panel passes over them), or (panel, row tile) pairs panel by panel (the
/// weights are the larger: a panel stays in cache while the rows pass; with AVX-512 a pair of
/// panels), either over all rows or, with `chunk_tiles`, over one thread's part of the rows
/// after another.
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
    if (job->chunk_tiles != 0) {
        const size_t groups = (job->n_tiles + group - 1) / group, per_chunk = job->chunk_tiles * groups;
        size_t unit = begin;
        while (unit < end) {
            const size_t chunk = unit / per_chunk, r = unit % per_chunk, row0 = chunk * job->chunk_tiles;
            const size_t rows = CK_MIN(job->chunk_tiles, job->m_tiles - row0);
            const size_t panel = r / rows * group, first = r % rows, last = CK_MIN(rows, first + (end - unit));
            tiles(job, row0 + first, row0 + last, panel, CK_MIN(job->n_tiles, panel + group), 0);
            unit += last - first;
        }
        return;
    }
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

/// Fills in how `job` (its fields from the parameters set) is cut and visited at the current
/// dispatch level, for one call (its serial).
static void gemm_plan(gemm_job *job) {
#if defined(CK_SIMD8)
    job->simd = ck_use_simd8();
#endif
    job->avx512 = ck_use_avx512();
    // Only calls that may widen half-precision panels take a serial (one counter for every
    // interpreter of the process).
    if (job->f16 && job->avx512) job->serial = ck_call_serial();
    job->mr = job->avx512 ? MR512 : MR;
    job->m_tiles = (job->m + job->mr - 1) / job->mr;
    job->n_tiles = (job->n + NR - 1) / NR;
    const size_t kk = job->k * job->taps;
    job->panel_bytes = job->f16 ? gemm_panel_bytes_f16(kk) : NR * (1 + kk) * sizeof(float);
    const size_t a_bytes = job->m * kk * sizeof(float);
    const size_t w_bytes = job->n_tiles * job->panel_bytes;
    job->m_outer = job->m > 1 && a_bytes >= w_bytes;
    // Weights that fit in the L1 cache are re-read from it for every row tile (each output row
    // is then written whole); larger weights pass over blocks of about 24 KB of rows, so each
    // panel is read from the L2 cache once per block (24 KB rather than 16: a 28x28x192 -> 96
    // layer of pose detection went from about 45 to 52 GMAC/s; 32 KB gained nothing more).
    const size_t tile_bytes = job->mr * kk * sizeof(float);
    job->row_block = w_bytes <= 24576 ? 1 : CK_MAX((size_t)1, (size_t)24576 / CK_MAX(tile_bytes, (size_t)1));
}

static void run_gemm(gemm_job *job, ck_threadpool *pool) {
    if (job->m == 0 || job->n == 0) return;
    gemm_plan(job);
    const size_t kk = job->k * job->taps;
    pool = ck_pool_for_work(pool, job->m * job->n * kk);
    const size_t panel_groups = job->avx512 ? (job->n_tiles + 1) / 2 : job->n_tiles;
    // Weights first with enough rows (4 row tiles per thread or more): each thread takes a
    // contiguous part of the rows, panel by panel, so that it writes whole pixels as the layers
    // before and after it do (they split pixels or image rows), rather than some channels of
    // every pixel. hand_landmark_lite's 14x14x64 -> 384 half-precision expansions took
    // 0.042 ms at best on 2 threads with output channels split, 0.037 with rows, and the 5x5
    // depthwise layers after them 0.033 -> 0.031 (`vision-tasks-bench --profile-operators
    // --threads 1,2 --runs 300 --no-litert --models hand_landmark_lite.tflite`, 2-vCPU Intel
    // Xeon, model 207, two runs each). Fewer rows (7x7 layers) keep channels, as the depthwise
    // layers after them do.
    const size_t threads = (size_t)ck_threadpool_thread_count(pool);
    if (!job->m_outer && threads > 1 && job->m_tiles >= 4 * threads) job->chunk_tiles = (job->m_tiles + threads - 1) / threads;
    ck_parallel_for(pool, job->m_outer ? job->m_tiles : job->m_tiles * panel_groups, gemm_range, job);
}

/// The fields ck_gemm_params and ck_igemm_params share, copied into a zeroed job.
#define GEMM_JOB_FROM_PARAMS(job, p)                  \
    do {                                              \
        memset(&(job), 0, sizeof(job));               \
        (job).m = (p)->m;                             \
        (job).n = (p)->n;                             \
        (job).k = (p)->k;                             \
        (job).packed = (const char *)(p)->packed;     \
        (job).f16 = (p)->weights_f16 != 0;            \
        (job).c = (p)->c;                             \
        (job).c_stride = (p)->c_stride;               \
        (job).lo = (p)->out_min;                      \
        (job).hi = (p)->out_max;                      \
        (job).residual = (p)->residual;               \
        (job).residual_stride = (p)->residual_stride; \
        (job).lo2 = (p)->sum_min;                     \
        (job).hi2 = (p)->sum_max;                     \
        (job).prelu = (p)->prelu;                     \
    } while (0)

size_t gemm_row_tile(void) { return ck_use_avx512() ? MR512 : MR; }

void gemm_job_for_columns(gemm_job *job, const ck_gemm_params *p) {
    GEMM_JOB_FROM_PARAMS(*job, p);
    job->taps = 1;
    job->a = p->a;
    job->a_stride = p->a_stride;
    if (job->m != 0 && job->n != 0) gemm_plan(job);
}

void gemm_panels(const gemm_job *job, size_t p_begin, size_t p_end) {
    if (job->m == 0 || job->n == 0 || p_begin >= CK_MIN(p_end, job->n_tiles)) return;
    tiles(job, 0, job->m_tiles, p_begin, CK_MIN(p_end, job->n_tiles), 0);
}

void ck_gemm(const ck_gemm_params *p, ck_threadpool *pool) {
    gemm_job job;
    GEMM_JOB_FROM_PARAMS(job, p);
    job.taps = 1;
    job.a = p->a;
    job.a_stride = p->a_stride;
    run_gemm(&job, pool);
}

void ck_igemm(const ck_igemm_params *p, ck_threadpool *pool) {
    gemm_job job;
    GEMM_JOB_FROM_PARAMS(job, p);
    job.taps = p->taps;
    job.indirection = p->indirection;
    run_gemm(&job, pool);
}
