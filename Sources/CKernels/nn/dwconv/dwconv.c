// Depthwise convolution (depth multiplier 1) with the bias and the activation (clamp, PReLU)
// fused. Channels are processed in blocks of 8 (one AVX2 register, two NEON registers), with
// the weights packed per block at load time.
//
// The fast path (3x3 and 5x5 kernels, strides 1 and 2, no dilation, whole blocks of 8
// channels) computes up to 8 output pixels of a row at once: each input pixel of a kernel row
// is loaded once and multiplied into every output pixel that uses it, with the kernel row's
// weights held in registers. Taps outside the input are skipped. Every output value is
// bias + sum over taps in (row, column) order with one fused multiply-add per tap, the same
// order as the general path, so the result does not depend on the path or on the threads.
//
// With AVX-512 the fast path takes two blocks of 8 channels per zmm register (their packed
// weights joined at load), with the same arithmetic; a last odd block runs with the upper half
// masked off.
//
// This file packs the weights, picks the row kernel and shares the rows (or channel groups) out
// between threads; the row kernels are in dwconv_portable.c, dwconv_simd8.c and dwconv_avx512.c,
// the fast path's row driver, shared by the last two, in dwconv_fast_row.h.
#include "dwconv_internal.h"
#include <stdlib.h>

size_t ck_dwconv_packed_size(size_t channels, size_t taps) {
    size_t blocks = (channels + CB - 1) / CB;
    return blocks * CB * (1 + taps);
}

void ck_dwconv_pack(size_t channels, size_t taps, const float *weights, const float *bias,
                    float *packed) {
    size_t blocks = (channels + CB - 1) / CB;
    for (size_t t = 0; t < blocks; t++) {
        float *dst = packed + t * CB * (1 + taps);
        for (size_t j = 0; j < CB; j++) {
            size_t c = t * CB + j;
            dst[j] = (c < channels && bias != NULL) ? bias[c] : 0.0f;
        }
        for (size_t k = 0; k < taps; k++) {
            for (size_t j = 0; j < CB; j++) {
                size_t c = t * CB + j;
                dst[CB + k * CB + j] = c < channels ? weights[k * channels + c] : 0.0f;
            }
        }
    }
}

/// The index of this geometry in the fast paths' tables (DW_FAST_GEOMETRIES), or -1: a square
/// 3x3 or 5x5 kernel with equal strides of 1 or 2, no dilation, and whole blocks of 8 channels.
static int dw_fast_geometry(const ck_dwconv_params *p) {
    const int fast = p->kernel_h == p->kernel_w && p->stride_h == p->stride_w && p->dilation_h == 1 &&
                     p->dilation_w == 1 && p->channels % CB == 0;
    if (fast && p->kernel_h == 3 && p->stride_h == 1) return 0;
    if (fast && p->kernel_h == 3 && p->stride_h == 2) return 1;
    if (fast && p->kernel_h == 5 && p->stride_h == 1) return 2;
    if (fast && p->kernel_h == 5 && p->stride_h == 2) return 3;
    return -1;
}

/// L1 data cache geometry assumed by dw_span_conflicts: 64 sets of 64-byte lines, 8 ways (the
/// 32 KiB L1 of AMD Zen 2 to Zen 4 and of most Intel cores before Golden Cove).
#define DW_L1_SETS 64
#define DW_L1_WAYS 8

/// Whether the input one 8-pixel span reads in one block (K rows x (7 S + K) pixels, one 64-byte
/// line per pixel) falls into some L1 set more often than the set has ways. Then the lines are
/// gone before the next block reads their other half: where a pixel's channels take a multiple
/// of 512 bytes the pixels of a span map to a few sets only (palm_detection's 24x24x128 and
/// 12x12x256 layers: 10 and 15 lines in a set).
static int dw_span_conflicts(const ck_dwconv_params *p) {
    const size_t pixel_bytes = p->channels * sizeof(float);
    const size_t span = CK_MIN(p->out_w, 8);
    const size_t pixels = CK_MIN(p->in_w, (span - 1) * p->stride_w + p->kernel_w);
    const size_t rows = CK_MIN(p->in_h, p->kernel_h);
    unsigned lines[DW_L1_SETS] = {0};
    for (size_t r = 0; r < rows; r++) {
        for (size_t x = 0; x < pixels; x++) {
            const size_t line = (r * p->in_w + x) * pixel_bytes / 64;
            if (++lines[line % DW_L1_SETS] > DW_L1_WAYS) return 1;
        }
    }
    return 0;
}

/// Whether the AVX2/NEON fast path runs this layer line by line. Spans of 8 pixels use each
/// input pixel they load for more outputs, spans of 4 over a whole line read each line once.
/// Which pays was measured layer by layer on the models' shapes (scripts/dev/dwconv-rates, one
/// AMD Zen 3 core): lines where the span's lines conflict in L1 (12x12x256 5x5: 0.85x the time,
/// 7x7x512 3x3: 0.67x), on wide rows (56x56x96 3x3: 0.83x, 96x96x32 5x5: 0.92x) and with stride 2
/// from 12 output columns (24x24x128 5x5: 0.74x); blocks on narrow rows without conflicts
/// (14x14x672 5x5: 1.26x line by line, 7x7x576 5x5: 1.33x) and where the channels end in half a
/// line (whose pairs of blocks straddle two lines: 112x112x24 and 128x128x24 ran slower).
int ck_dwconv_line_spans(const ck_dwconv_params *p) {
    const char *forced = getenv("VISION_TASKS_DWCONV_SPANS");
    if (forced != NULL && strcmp(forced, "blocks") == 0) return 0;
    if (forced != NULL && strcmp(forced, "lines") == 0) return 1;
    if (dw_fast_geometry(p) < 0 || p->channels % (2 * CB) != 0) return 0;
    if (p->out_w >= 24) return 1;
    if (p->stride_w == 2 && p->out_w >= 12) return 1;
    return dw_span_conflicts(p);
}

/// The row kernel for this geometry at the current dispatch level.
static dw_row_fn dw_select(const ck_dwconv_params *p) {
#if defined(CK_SIMD8)
    const int fast = dw_fast_geometry(p);
#if defined(CK_HAVE_X86)
    if (ck_use_avx512() && fast >= 0) return dw_fast_rows_avx512[fast];
#endif
    if (ck_use_simd8() && fast >= 0) {
        const int lines = p->line_spans >= 0 ? p->line_spans : ck_dwconv_line_spans(p);
        return lines ? dw_fast_line_rows_simd8[fast] : dw_fast_rows_simd8[fast];
    }
    if (ck_use_simd8()) return dw_row_general_simd8;
#endif
    return dw_row_portable;
}

void dwconv_channels(const ck_dwconv_params *p, size_t c_begin, size_t c_end) {
    const size_t taps = p->kernel_h * p->kernel_w;
    c_end = CK_MIN(c_end, p->channels);
    if (taps == 0 || taps > CK_DWCONV_MAX_TAPS || c_begin >= c_end || p->out_w == 0) return;
    const dw_row_fn row = dw_select(p);
    for (size_t r = 0; r < p->batch * p->out_h; r++) row(p, r, c_begin, c_end);
}

typedef struct dw_job {
    const ck_dwconv_params *p;
    dw_row_fn row;
    /// Work units are (row, channel group) pairs; groups split the channels when there are too
    /// few rows to share among the threads.
    size_t groups, group_size;
    /// Units in channel-group-major order (all rows of a group, then the next group) instead
    /// of row-major; `rows` is the number of output rows.
    int channel_major;
    size_t rows;
} dw_job;

static void dw_rows_range(void *context, size_t begin, size_t end) {
    const dw_job *job = (const dw_job *)context;
    for (size_t unit = begin; unit < end; unit++) {
        const size_t row = job->channel_major ? unit % job->rows : unit / job->groups;
        const size_t group = job->channel_major ? unit / job->rows : unit % job->groups;
        size_t c_begin = group * job->group_size;
        size_t c_end = CK_MIN(job->p->channels, c_begin + job->group_size);
        job->row(job->p, row, c_begin, c_end);
    }
}

void ck_dwconv(const ck_dwconv_params *p, ck_threadpool *pool) {
    size_t taps = p->kernel_h * p->kernel_w;
    if (taps == 0 || taps > CK_DWCONV_MAX_TAPS || p->channels == 0 || p->out_w == 0) return;
    dw_job job;
    job.p = p;
    job.row = dw_select(p);
    const size_t rows = p->batch * p->out_h;
    pool = ck_pool_for_work(pool, rows * p->out_w * p->channels * taps);
    const size_t threads = (size_t)ck_threadpool_thread_count(pool);
    // Channel groups of whole vectors: 8 channels, or 16 with AVX-512.
    const size_t vector = ck_use_avx512() ? 2 * CB : CB;
    const size_t blocks = (p->channels + vector - 1) / vector;
    size_t groups = 1;
    job.channel_major = 0;
    job.rows = rows;
    if (threads > 1 && p->batch * p->in_h <= 4 * threads) {
        // So few input rows that a thread's share plus the rows its kernel reaches beyond it is
        // most of the image (7x7 at 2 threads): the threads split the channels instead, in
        // about three groups each, taken group by group. The expansion before such a layer
        // splits its output channels the same way (the caller from the first, the workers from
        // the last), so each thread mostly reads what it wrote: hand_landmark_lite's five 7x7
        // layers took 42.3 and 41.9 µs in all at 2 threads with rows shared out, 40.2 and 36.3
        // with channels (best of 400 runs each, two alternations). The input's rows decide, not
        // the output's: a stride-2 layer from 14x14 to 7x7 reads an input that the layer before
        // wrote split by rows, and split by rows itself it reads the other thread's part only
        // near the boundary (pose_detection's 14x14x672 5x5 one: 0.026-0.028 ms at best on 2
        // threads with channels, 0.020-0.021 with rows; `vision-tasks-bench --profile-operators
        // --threads 1,2 --runs 300 --no-litert`, 2-vCPU Intel Xeon, model 207, two runs each).
        groups = CK_MIN(blocks, 3 * threads);
        job.channel_major = 1;
    } else if (threads > 1 && rows < 8 * threads) {
        groups = CK_MIN(blocks, (8 * threads + rows - 1) / rows);
    }
    job.group_size = (blocks + groups - 1) / groups * vector;
    job.groups = (p->channels + job.group_size - 1) / job.group_size;
    ck_parallel_for(pool, rows * job.groups, dw_rows_range, &job);
}
