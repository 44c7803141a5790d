// A pointwise (1x1) convolution and the depthwise convolution that reads its output, in bands of
// rows (ck_pointwise_dwconv in ck_nn.h). The MobileNet blocks of the hand and pose models expand
// their channels with a 1x1 convolution and filter them with a depthwise one; at 112x112x64 the
// expanded tensor is 3.2 MB, far more than the L2 cache, so run one after the other the first
// writes it out to L3 or memory and the second reads it back. In bands, the depthwise reads each
// band of rows right after the GEMM wrote it.
//
// Only the order of the work changes: the GEMM runs as calls on ranges of its rows that start at
// a multiple of PW_ROW_ALIGN, so every tile is one a single ck_gemm call has (same rows, same
// height), and the depthwise runs row by row as ck_dwconv's workers do.
//
// On one thread only. Split into a strip of rows per thread (each thread banding its own strip,
// the depthwise rows that read two strips after them), the models ran slower at 2 threads
// (hand_landmark_full 1.10-1.40x, hand_landmark_lite 0.81-1.71x per round): with one unit per
// thread the calling thread often takes both strips before the worker is awake, where the
// separate calls' many tiles let a late worker join.
#include "gemm/gemm_internal.h"

/// GEMM calls start at multiples of this many rows: a multiple of every tile height (6 with
/// AVX2, NEON and the portable kernel, 8 with AVX-512).
#define PW_ROW_ALIGN 24
_Static_assert(PW_ROW_ALIGN % MR == 0 && PW_ROW_ALIGN % MR512 == 0, "GEMM calls must start at a tile boundary");

/// Bytes of new pointwise output per band: about an eighth of a 512 KB L2 cache, so that the
/// band, the depthwise's output and the weights stay in it.
#define PW_BAND_BYTES 65536

/// One past the last input row that depthwise output row `oy` reads (clamped to the image).
static size_t pw_rows_read_end(const ck_dwconv_params *d, size_t oy) {
    const size_t reach = (d->kernel_h - 1) * d->dilation_h + 1;
    const size_t end = oy * d->stride_h + reach; // counted from the top of the padding
    return CK_MIN(d->in_h, end > d->pad_top ? end - d->pad_top : 0);
}

/// GEMM rows [begin, end) on the calling thread.
static void pw_gemm_rows(const ck_gemm_params *g, size_t begin, size_t end) {
    if (begin >= end) return;
    ck_gemm_params part = *g;
    part.m = end - begin;
    part.a = g->a + begin * g->a_stride;
    part.c = g->c + begin * g->c_stride;
    if (g->residual != NULL) part.residual = g->residual + begin * g->residual_stride;
    ck_gemm(&part, NULL);
}

void ck_pointwise_dwconv(const ck_gemm_params *g, const ck_dwconv_params *d, ck_threadpool *pool) {
    const int fits = d->batch == 1 && g->m == d->in_h * d->in_w && g->n == d->channels && g->c_stride == d->channels &&
                     g->c == d->input;
    if (!fits || ck_threadpool_thread_count(pool) > 1) {
        ck_gemm(g, pool);
        ck_dwconv(d, pool);
        return;
    }
    const size_t row_bytes = d->stride_h * d->in_w * d->channels * sizeof(float);
    const size_t band = CK_MAX((size_t)1, PW_BAND_BYTES / CK_MAX(row_bytes, (size_t)1));
    size_t done = 0; // GEMM rows written
    for (size_t row = 0; row < d->out_h;) {
        const size_t last = CK_MIN(d->out_h, row + band);
        const size_t needed = pw_rows_read_end(d, last - 1) * d->in_w;
        const size_t target = needed >= g->m ? g->m : (needed + PW_ROW_ALIGN - 1) / PW_ROW_ALIGN * PW_ROW_ALIGN;
        if (target > done) {
            pw_gemm_rows(g, done, target);
            done = target;
        }
        ck_dwconv_rows(d, row, last);
        row = last;
    }
    pw_gemm_rows(g, done, g->m);
}
