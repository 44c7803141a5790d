// The sparse 1x1 convolution's portable kernel: each pixel straight from NHWC, no scratch, summed
// group by group in the SIMD kernels' order; the reference they are tested against.
#include "spconv_internal.h"

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
void sp_rows_portable(const sp_job *job, size_t i0, size_t i1) {
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
