// An inverted residual block's expansion (a pointwise convolution) and the depthwise
// convolution that reads it, run together in bands of the depthwise layer's output rows or in
// groups of channels.
//
// In groups of channels (an image of few rows, whose depthwise layer splits channels between
// threads), a thread runs the expansion's panels of a group over every pixel into an image of
// its own (ck_thread_buffer: every such layer the thread runs reuses it, so it stays in the
// thread's caches), then the depthwise layer's rows for the group's channels from it. Every
// depthwise channel reads only its own expanded channel, so the groups are independent. The
// GEMM job is planned once for the whole expansion (gemm_job_for_columns) and each group runs
// its tiles, so the bits are ck_gemm's. A sparse expansion (one tile of pixels) runs as
// ck_spconv's shared-input mode does: each thread transposes the whole input once, then
// computes its groups' output channels, with the same bits; on one thread it runs whole (in
// ck_spconv's tile mode) before the depthwise layer, which was faster there.
//
// Measured on a 2-vCPU Intel Xeon (family 6, model 207, AVX-512), `vision-tasks-bench
// --profile-operators --threads 1,2 --runs 300 --no-litert`, two runs each way: the 7x7 layers of
// hand_landmark_lite (four such pairs, dense) summed 0.280-0.284 ms at best on 2 threads against
// 0.292-0.294 apart, pose_detection's (four pairs, sparse) 0.472-0.473 against 0.496-0.505; one
// thread unchanged. With one image shared by the threads (the arena's) they took 0.288-0.292 and
// 0.500-0.508; with a sparse expansion in groups on one thread, pose_detection's 7x7 layers
// took 0.790-0.791 ms against 0.770-0.782. 14x14 images (whose depthwise layers split rows, as
// the projections after them do) ran slower by channels: hand_landmark_lite's projections then
// read half their input from the other core.
//
// In bands, a band of output rows needs a window of the expansion's rows (its rows times the stride, plus
// the kernel's reach). Each thread keeps its last window in its own scratch: moving to the next
// band it keeps the rows both windows share (moved to their new place) and computes only the
// new ones with ck_gemm, then runs ck_dwconv over the band, reading the window as if it were an
// image of that many rows (its padding at the top adjusted so that every output row reads the
// same rows as in the whole image). The calling thread takes its bands from the front in
// ascending order and the workers from the back in descending order, so each thread's windows
// slide one way and nothing is computed twice within a thread's run of bands.
//
// Both kernels run unchanged on the calling thread (pool NULL). Every depthwise output sums the
// same taps in the same order, and every expansion output is bias + the sum over its input
// channels in order, except in a GEMM tile of one row (four partial sums): so each GEMM here
// starts at a multiple of the row tile (gemm_row_tile) and ends at one or at the image's end,
// as the tiles of a GEMM over the whole image do, and the results match ck_gemm then ck_dwconv
// bit for bit. The window therefore holds whole tiles of pixels, up to a tile less one more on
// either side than the band's rows.
#include "ck_internal.h"
#include "dwconv/dwconv_internal.h"
#include "gemm/gemm_internal.h"
#include "spconv/spconv_internal.h"

/// Bytes a window may take when the caller leaves the band to us: in the L2 cache of every core
/// we meet (512 KiB and up), with room for the weights and the output band. hand_landmark_lite's
/// 112x112x16 -> 64 expansion and 3x3/2 depthwise layer took 0.324, 0.308, 0.291, 0.302 ms at
/// best on one thread with windows of at most 90, 192, 400 and 800 KiB, 0.383 in one band
/// (vision-tasks-bench --profile-operators --threads 1,2 --runs 300 --no-litert, 2-vCPU Intel
/// Xeon, model 207; a one-off build reading the limit from the environment).
#define ED_WINDOW_BYTES (384 * 1024)

typedef struct ed_geometry {
    size_t band_rows, bands, window_rows, reach;
    /// Rows per GEMM tile: each GEMM over part of the expansion starts at a multiple of it.
    size_t tile;
} ed_geometry;

static ed_geometry ed_geometry_for(const ck_dwconv_params *d, size_t band_rows) {
    ed_geometry g;
    g.reach = d->kernel_h == 0 ? 1 : (d->kernel_h - 1) * d->dilation_h + 1;
    g.tile = gemm_row_tile();
    const size_t stride = d->stride_h;
    const size_t row_bytes = CK_MAX(d->in_w * d->channels * sizeof(float), (size_t)1);
    const size_t fit = ED_WINDOW_BYTES / row_bytes;
    // Window rows (B - 1) * stride + reach for B output rows, at least one row.
    g.band_rows = band_rows != 0 ? band_rows : fit > g.reach ? (fit - g.reach) / stride + 1 : 1;
    g.band_rows = CK_MIN(g.band_rows, CK_MAX(d->out_h, (size_t)1));
    g.window_rows = CK_MIN((g.band_rows - 1) * stride + g.reach, d->in_h);
    g.bands = (d->out_h + g.band_rows - 1) / g.band_rows;
    return g;
}

/// Floats of one slot: the window's pixels and up to a tile less one on either side (GEMMs start
/// and end on whole tiles), in whole 64-byte lines, so that the slots share none.
static size_t ed_slot_floats(const ck_dwconv_params *d, const ed_geometry *g) {
    const size_t pixels = g->window_rows * d->in_w + 2 * g->tile;
    return (pixels * d->channels + 15) / 16 * 16;
}

/// Groups of channels per thread when shared out by channels (as ck_dwconv's channel groups).
#define ED_GROUPS_PER_THREAD 3

/// Floats of the expanded image.
static size_t ed_image_floats(const ck_dwconv_params *d) { return d->in_h * d->in_w * d->channels; }

size_t ck_expand_dwconv_scratch_floats(const ck_dwconv_params *depthwise, int by_channels, size_t band_rows) {
    if (by_channels) return ed_image_floats(depthwise);
    const ed_geometry g = ed_geometry_for(depthwise, band_rows);
    return ed_slot_floats(depthwise, &g);
}

typedef struct ed_job {
    const ck_expand_dwconv_params *p;
    ed_geometry g;
    size_t slot_floats; ///< in bands, each thread slot's part of the scratch; by channels, the image
    uint64_t serial;
    /// By channels: the expansion, planned whole (dense or sparse), its panels of 16 channels
    /// and the groups they are shared out in (ed_group_start).
    gemm_job gemm;
    sp_job sparse;
    size_t panels, groups;
} ed_job;

/// The first panel of group `group` (of job->groups; the panel count for the last bound): the
/// panels shared out as evenly as whole pairs allow (AVX-512 tiles take two panels at once, so
/// every group but the last starts and ends on a pair). Groups of one fixed number of pairs
/// leave the last group short (464 channels in five groups of 96, 96, 96, 96 and 80), and at two
/// threads one thread then computes up to 288 of the 464. On a 2-vCPU AMD EPYC Zen 4 (family
/// 25, model 17), one build with the two rules behind a switch, six rounds taking turns of
/// `vision-tasks-bench --profile-operators --threads 1,2 --runs 300 --no-litert --models
/// hand_landmark_lite.tflite,hand_landmark_full.tflite,pose_landmark_full.tflite`, the pairs on
/// 7x7 and 8x8 images summed (best times, median of the rounds) 0.171 -> 0.164 ms at two threads
/// (hand_landmark_lite), 0.274 -> 0.256 (hand_landmark_full), 0.443 -> 0.421
/// (pose_landmark_full); one thread unchanged.
static size_t ed_group_start(const ed_job *job, size_t group) { return ck_even_part_start(group, job->groups, job->panels, 2); }

/// The expanded pixels this thread's window holds: [first, end) of call `serial`
/// (ck_call_serial).
static _Thread_local struct {
    uint64_t serial;
    size_t first, end;
} ed_window;

/// Expanded pixels [q0, q1) into dst (q0 a multiple of the tile).
static void ed_expand(const ck_expand_dwconv_params *p, size_t q0, size_t q1, float *dst) {
    if (q1 <= q0) return;
    ck_gemm_params e = p->expand;
    e.m = q1 - q0;
    e.a = p->expand.a + q0 * p->expand.a_stride;
    e.c = dst;
    e.c_stride = p->depthwise.channels;
    e.residual = NULL;
    ck_gemm(&e, NULL);
}

/// Output rows of band b: the window it needs, filled from what the window holds, then the band.
static void ed_band(const ed_job *job, size_t b, float *window) {
    const ck_expand_dwconv_params *p = job->p;
    const ck_dwconv_params *d = &p->depthwise;
    const size_t stride = d->stride_h, w = d->in_w, c = d->channels, tile = job->g.tile, m = d->in_h * w;
    const size_t o0 = b * job->g.band_rows, o1 = CK_MIN(d->out_h, o0 + job->g.band_rows);
    // Input rows [n0, n1) of the band's outputs, within the image.
    const ptrdiff_t top = (ptrdiff_t)(o0 * stride) - (ptrdiff_t)d->pad_top;
    const ptrdiff_t bottom = (ptrdiff_t)((o1 - 1) * stride) - (ptrdiff_t)d->pad_top + (ptrdiff_t)job->g.reach;
    const size_t n0 = top < 0 ? 0 : (size_t)top;
    const size_t n1 = bottom > (ptrdiff_t)d->in_h ? d->in_h : (size_t)CK_MAX(bottom, (ptrdiff_t)0);
    if (n1 <= n0) return;
    // Their pixels, widened to whole tiles (or the image's end).
    const size_t s0 = n0 * w / tile * tile, s1 = CK_MIN(m, (n1 * w + tile - 1) / tile * tile);
    size_t q0 = ed_window.first, q1 = ed_window.end;
    if (ed_window.serial != job->serial) q0 = q1 = 0;
    if (q0 <= s0 && s0 < q1) {
        // Sliding down the image: keep [s0, min(q1, s1)), compute the rest after it.
        const size_t keep = CK_MIN(q1, s1);
        if (s0 > q0) memmove(window, window + (s0 - q0) * c, (keep - s0) * c * sizeof(float));
        ed_expand(p, keep, s1, window + (keep - s0) * c);
        q0 = s0;
        q1 = CK_MAX(keep, s1);
    } else if (q0 < s1 && s1 <= q1) {
        // Sliding up: keep [q0, s1), compute [s0, q0) before it.
        memmove(window + (q0 - s0) * c, window, (s1 - q0) * c * sizeof(float));
        ed_expand(p, s0, q0, window);
        q1 = s1;
        q0 = s0;
    } else {
        ed_expand(p, s0, s1, window);
        q0 = s0;
        q1 = s1;
    }
    ed_window.serial = job->serial;
    ed_window.first = q0;
    ed_window.end = q1;
    // The band as an image of the window's rows [n0, n1): output row o reads rows from
    // o * stride - pad_top in the image, which is row (o - o0) * stride - pad' in the window.
    ck_dwconv_params band = *d;
    band.batch = 1;
    band.input = window + (n0 * w - q0) * c;
    band.in_h = n1 - n0;
    band.pad_top = d->pad_top + n0 - o0 * stride;
    band.out_h = o1 - o0;
    band.output = d->output + o0 * d->out_w * c;
    ck_dwconv(&band, NULL);
}

static void ed_range(void *context, size_t begin, size_t end) {
    const ed_job *job = (const ed_job *)context;
    const size_t slot = (size_t)ck_thread_slot();
    if (slot >= job->p->scratch_slots) return; // not reached: the caller checks the slots
    float *window = job->p->scratch + slot * job->slot_floats;
    if (slot == 0) {
        for (size_t b = begin; b < end; b++) ed_band(job, b, window);
    } else {
        for (size_t b = end; b > begin; b--) ed_band(job, b - 1, window);
    }
}

/// Groups of channels [begin, end): each expanded into the image, then convolved.
static void ed_groups_range(void *context, size_t begin, size_t end) {
    const ed_job *job = (const ed_job *)context;
    // This thread's own image, which every such layer it runs reuses (so it stays in its
    // caches); else the one the caller passed, which the threads share.
    float *image = ck_thread_buffer(CK_BUFFER_EXPANDED_IMAGE, job->slot_floats, NULL);
    if (image == NULL) image = job->p->scratch;
    const size_t channels = job->p->depthwise.channels;
    gemm_job expand = job->gemm;
    expand.c = image;
    expand.c_stride = channels;
    ck_spconv_params sparse_params = job->p->sparse_expand;
    sparse_params.c = image;
    sparse_params.c_stride = channels;
    sp_job sparse = job->sparse;
    sparse.p = &sparse_params;
    ck_dwconv_params depthwise = job->p->depthwise;
    depthwise.input = image;
    for (size_t group = begin; group < end; group++) {
        const size_t panel = ed_group_start(job, group), panel_end = ed_group_start(job, group + 1);
        const size_t c0 = panel * CK_GEMM_NR, c1 = CK_MIN(channels, panel_end * CK_GEMM_NR);
        if (job->p->sparse) {
            spconv_shared_channels(&sparse, c0, c1);
        } else {
            gemm_panels(&expand, panel, panel_end);
        }
        dwconv_channels(&depthwise, c0, c1);
    }
}

/// By channels where a sparse expansion does not share its input (no SIMD level, or one
/// thread): the two kernels one after the other, through the image.
static void ed_sparse_apart(const ck_expand_dwconv_params *p, float *image, ck_threadpool *pool) {
    ck_spconv_params sparse = p->sparse_expand;
    sparse.c = image;
    sparse.c_stride = p->depthwise.channels;
    ck_spconv(&sparse, pool);
    ck_dwconv_params depthwise = p->depthwise;
    depthwise.input = image;
    ck_dwconv(&depthwise, pool);
}

void ck_expand_dwconv(const ck_expand_dwconv_params *p, ck_threadpool *pool) {
    const ck_dwconv_params *d = &p->depthwise;
    // Nothing to compute (ck_dwconv also leaves an output of a kernel with no taps as it is).
    if (d->out_h == 0 || d->out_w == 0 || d->channels == 0 || d->in_h == 0 || d->in_w == 0 || d->kernel_h == 0 ||
        d->kernel_w == 0 || p->scratch == NULL || (!p->by_channels && p->scratch_slots == 0) || d->stride_h == 0) {
        return;
    }
    if (p->sparse && !p->by_channels) return; // bands take dense expansions only
    ed_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    const size_t expand_work = p->sparse ? p->sparse_expand.m * p->sparse_expand.n * p->sparse_expand.k : p->expand.m * p->expand.n * p->expand.k;
    const size_t work = d->out_h * d->out_w * d->channels * d->kernel_h * d->kernel_w + expand_work;
    pool = ck_pool_for_work(pool, work);
    if (p->by_channels) {
        // The expansion's rows are the depthwise layer's input pixels, its columns its channels.
        const size_t m = p->sparse ? p->sparse_expand.m : p->expand.m, n = p->sparse ? p->sparse_expand.n : p->expand.n;
        if (m != d->in_h * d->in_w || n != d->channels) return;
        job.slot_floats = ed_image_floats(d);
        if (p->sparse) {
            spconv_job_for(&job.sparse, &p->sparse_expand);
            if (!spconv_shares_input(&job.sparse) || m > CK_SPCONV_TILE || ck_threadpool_thread_count(pool) == 1 ||
                (size_t)ck_threadpool_thread_count(pool) > p->sparse_expand.scratch_slots) {
                ed_sparse_apart(p, p->scratch, pool);
                return;
            }
            job.sparse.serial = ck_call_serial();
        } else {
            gemm_job_for_columns(&job.gemm, &p->expand);
        }
        // Groups of whole panel pairs (the AVX-512 tiles take two panels), as even as pairs allow.
        job.panels = (d->channels + CK_GEMM_NR - 1) / CK_GEMM_NR;
        const size_t pairs = (job.panels + 1) / 2;
        job.groups = CK_MIN(pairs, ED_GROUPS_PER_THREAD * (size_t)ck_threadpool_thread_count(pool));
        ck_parallel_for(pool, job.groups, ed_groups_range, &job);
        return;
    }
    if ((size_t)ck_threadpool_thread_count(pool) > p->scratch_slots) pool = NULL;
    job.g = ed_geometry_for(d, p->band_rows);
    job.slot_floats = ed_slot_floats(d, &job.g);
    job.serial = ck_call_serial();
    ck_parallel_for(pool, job.g.bands, ed_range, &job);
}
