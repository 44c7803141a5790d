// The portable GEMM microkernel: up to 6 rows x one panel of 16 columns in plain C, the reference
// the SIMD microkernels are tested against (each output is bias + the sum over (tap, input
// channel) in order; half-precision weights are widened one panel row at a time).
#include "gemm_internal.h"

/// Rows [i0, i0 + mr) (mr <= 6) x the 16 columns of one panel.
static void gemm_6x16_portable(const gemm_job *job, size_t i0, size_t mr, size_t panel) {
    const size_t n0 = panel * NR, nr = CK_MIN(NR, job->n - n0);
    const char *base = job->packed + panel * job->panel_bytes;
    const float *bias = (const float *)(const void *)base;
    const float *w32 = bias + NR;
    const uint16_t *w16 = (const uint16_t *)(const void *)(base + NR * sizeof(float));
    float acc[MR][NR];
    for (size_t i = 0; i < mr; i++) {
        for (size_t j = 0; j < NR; j++) acc[i][j] = bias[j];
    }
    float wrow[NR];
    size_t r = 0;
    for (size_t t = 0; t < job->taps; t++) {
        const float *a[MR];
        for (size_t i = 0; i < mr; i++) a[i] = gemm_row(job, i0 + i, t);
        for (size_t p = 0; p < job->k; p++, r++) {
            if (job->f16) {
                ck_f16_to_f32(w16 + r * NR, wrow, NR);
            } else {
                memcpy(wrow, w32 + r * NR, sizeof wrow);
            }
            for (size_t i = 0; i < mr; i++) {
                const float av = a[i][p];
                for (size_t j = 0; j < NR; j++) acc[i][j] += av * wrow[j];
            }
        }
    }
    for (size_t i = 0; i < mr; i++) {
        float *out = job->c + (i0 + i) * job->c_stride + n0;
        const float *res = job->residual ? job->residual + (i0 + i) * job->residual_stride + n0 : NULL;
        for (size_t j = 0; j < nr; j++) {
            float v = acc[i][j];
            v = v < job->lo ? job->lo : v;
            v = v > job->hi ? job->hi : v;
            if (res != NULL) {
                v += res[j];
                v = v < job->lo2 ? job->lo2 : v;
                v = v > job->hi2 ? job->hi2 : v;
            }
            if (job->prelu != NULL && v < 0.0f) v *= job->prelu[n0 + j];
            out[j] = v;
        }
    }
}

void gemm_tiles_portable(const gemm_job *job, size_t t_begin, size_t t_end, size_t p_begin, size_t p_end) {
    for (size_t panel = p_begin; panel < p_end; panel++) {
        for (size_t tile = t_begin; tile < t_end; tile++) {
            gemm_6x16_portable(job, tile * job->mr, CK_MIN(job->mr, job->m - tile * job->mr), panel);
        }
    }
}
