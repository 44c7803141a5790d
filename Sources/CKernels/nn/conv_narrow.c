// Convolutions with few output channels (at most CK_NARROW_MAX_OUTPUTS): a dot product per
// output pixel and channel, vectorised along the input channels, over the weights in their OHWI
// layout (no packing). ck_conv_narrow reads the taps through the indirection buffer, four output
// pixels at a time; ck_conv_narrow_direct takes 3x3 and 5x5 kernels (strides 1 and 2) over 8
// input channels straight from the image, up to 8 output pixels of a row at a time, with the same
// arithmetic. Portable C and ck_simd8.h (AVX2, NEON) versions.
#include "ck_internal.h"
#include "ck_simd8.h"

// MARK: - Through the indirection buffer

static void narrow_pixel_portable(const ck_conv_narrow_params *p, size_t i) {
    const float *const *rows = p->indirection + i * p->taps;
    for (size_t j = 0; j < p->n; j++) {
        float sum = p->bias ? p->bias[j] : 0.0f;
        const float *w = p->weights + j * p->taps * p->k;
        for (size_t t = 0; t < p->taps; t++) {
            const float *x = rows[t];
            for (size_t q = 0; q < p->k; q++) sum += x[q] * w[t * p->k + q];
        }
        p->c[i * p->c_stride + j] = ck_activate(sum, p->out_min, p->out_max, p->prelu, j);
    }
}

#if defined(CK_SIMD8)
/// Four output pixels at once (independent accumulation chains); pixels past `count` repeat
/// the last one and are not stored.
CK_SIMD8_FN static void narrow_block_simd8(const ck_conv_narrow_params *p, size_t i0, size_t count) {
    const size_t k = p->k, taps = p->taps, full = k / 8 * 8, rest = k - full;
    const float *const *rows[4];
    for (size_t q = 0; q < 4; q++) rows[q] = p->indirection + (i0 + CK_MIN(q, count - 1)) * taps;
    for (size_t j = 0; j < p->n; j++) {
        ck_v8 acc0 = v8_zero(), acc1 = v8_zero(), acc2 = v8_zero(), acc3 = v8_zero();
        const float *w = p->weights + j * taps * k;
        for (size_t t = 0; t < taps; t++, w += k) {
            const float *x0 = rows[0][t], *x1 = rows[1][t], *x2 = rows[2][t], *x3 = rows[3][t];
            for (size_t q = 0; q < full; q += 8) {
                const ck_v8 wv = v8_load(w + q);
                acc0 = v8_fma(v8_load(x0 + q), wv, acc0);
                acc1 = v8_fma(v8_load(x1 + q), wv, acc1);
                acc2 = v8_fma(v8_load(x2 + q), wv, acc2);
                acc3 = v8_fma(v8_load(x3 + q), wv, acc3);
            }
            if (rest > 0) {
                const ck_v8 wv = v8_load_partial(w + full, rest);
                acc0 = v8_fma(v8_load_partial(x0 + full, rest), wv, acc0);
                acc1 = v8_fma(v8_load_partial(x1 + full, rest), wv, acc1);
                acc2 = v8_fma(v8_load_partial(x2 + full, rest), wv, acc2);
                acc3 = v8_fma(v8_load_partial(x3 + full, rest), wv, acc3);
            }
        }
        const float bias = p->bias ? p->bias[j] : 0.0f;
        const float sums[4] = {v8_sum(acc0), v8_sum(acc1), v8_sum(acc2), v8_sum(acc3)};
        for (size_t q = 0; q < count; q++) {
            p->c[(i0 + q) * p->c_stride + j] = ck_activate(sums[q] + bias, p->out_min, p->out_max, p->prelu, j);
        }
    }
}
#endif

typedef struct narrow_job {
    const ck_conv_narrow_params *p;
    int simd;
} narrow_job;

static void narrow_range(void *context, size_t begin, size_t end) {
    const narrow_job *job = (const narrow_job *)context;
#if defined(CK_SIMD8)
    if (job->simd) {
        for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i += 4) {
            narrow_block_simd8(job->p, i, CK_MIN(4, job->p->m - i));
        }
        return;
    }
#endif
    for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i++) narrow_pixel_portable(job->p, i);
}

void ck_conv_narrow(const ck_conv_narrow_params *p, ck_threadpool *pool) {
    narrow_job job = {p, 0};
#if defined(CK_SIMD8)
    job.simd = ck_use_simd8();
#endif
    pool = ck_pool_for_work(pool, p->m * p->n * p->k * p->taps);
    ck_parallel_for(pool, (p->m + 3) / 4, narrow_range, &job);
}

// MARK: - Over 8 channels, read directly

/// The sum of `taps` products over 8 channels for output channel j of pixel (row, ox), in the
/// order of ck_conv_narrow: taps in (row, column) order, lanes added pairwise at the end.
static float narrow_direct_pixel_portable(const ck_conv_narrow_direct_params *p, size_t row, size_t ox, size_t j) {
    const size_t K = p->kernel, in_w = p->in_w;
    const size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * in_w * 8;
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t ky = 0; ky < K; ky++) {
        const ptrdiff_t iy = (ptrdiff_t)(oy * p->stride + ky) - (ptrdiff_t)p->pad_top;
        if (iy < 0 || iy >= (ptrdiff_t)p->in_h) continue;
        for (size_t kx = 0; kx < K; kx++) {
            const ptrdiff_t ix = (ptrdiff_t)(ox * p->stride + kx) - (ptrdiff_t)p->pad_left;
            if (ix < 0 || ix >= (ptrdiff_t)in_w) continue;
            const float *x = image + ((size_t)iy * in_w + (size_t)ix) * 8;
            const float *w = p->weights + ((j * K + ky) * K + kx) * 8;
            for (size_t q = 0; q < 8; q++) lanes[q] += x[q] * w[q];
        }
    }
    return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
}

static void narrow_direct_row_portable(const ck_conv_narrow_direct_params *p, size_t row) {
    float *out = p->output + row * p->out_w * p->n;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        for (size_t j = 0; j < p->n; j++) {
            const float sum = narrow_direct_pixel_portable(p, row, ox, j) + (p->bias ? p->bias[j] : 0.0f);
            out[ox * p->n + j] = ck_activate(sum, p->out_min, p->out_max, p->prelu, j);
        }
    }
}

#if defined(CK_SIMD8)
/// W output pixels of one row for output channel j; CHECKED: some columns fall outside.
CK_SIMD8_INLINE void narrow_direct_block_simd8(const int W, const int K, const int S, const int CHECKED,
                                               const ck_conv_narrow_direct_params *p, const float *const *rows,
                                               size_t ky_begin, size_t ky_end, ptrdiff_t ix0, size_t j, float *out) {
    ck_v8 acc[8];
#pragma clang loop unroll(full)
    for (int i = 0; i < W; i++) acc[i] = v8_zero();
    for (size_t ky = ky_begin; ky < ky_end; ky++) {
        const float *row = rows[ky];
        const float *wk = p->weights + (j * (size_t)K + ky) * (size_t)K * 8;
        ck_v8 wv[5];
#pragma clang loop unroll(full)
        for (int kx = 0; kx < K; kx++) wv[kx] = v8_load(wk + kx * 8);
#pragma clang loop unroll(full)
        for (int t = 0; t < (W - 1) * S + K; t++) {
            const ptrdiff_t ix = ix0 + t;
            if (CHECKED && (ix < 0 || ix >= (ptrdiff_t)p->in_w)) continue;
            const ck_v8 x = v8_load(row + ix * 8);
#pragma clang loop unroll(full)
            for (int i = 0; i < W; i++) {
                const int kx = t - i * S;
                if (kx >= 0 && kx < K) acc[i] = v8_fma(x, wv[kx], acc[i]);
            }
        }
    }
    const float bias = p->bias ? p->bias[j] : 0.0f;
#pragma clang loop unroll(full)
    for (int i = 0; i < W; i++) {
        out[(size_t)i * p->n] = ck_activate(v8_sum(acc[i]) + bias, p->out_min, p->out_max, p->prelu, j);
    }
}

CK_SIMD8_INLINE void narrow_direct_row_simd8(const int K, const int S, const ck_conv_narrow_direct_params *p, size_t row) {
    const size_t in_w = p->in_w, out_w = p->out_w;
    const size_t b = row / p->out_h, oy = row % p->out_h;
    const float *image = p->input + b * p->in_h * in_w * 8;
    const ptrdiff_t iy0 = (ptrdiff_t)(oy * S) - (ptrdiff_t)p->pad_top;
    size_t ky_begin = 0, ky_end = 0;
    const float *rows[5] = {0, 0, 0, 0, 0};
    for (size_t ky = 0; ky < (size_t)K; ky++) {
        const ptrdiff_t iy = iy0 + (ptrdiff_t)ky;
        if (iy < 0 || iy >= (ptrdiff_t)p->in_h) continue;
        if (ky_end == 0) ky_begin = ky;
        ky_end = ky + 1;
        rows[ky] = image + (size_t)iy * in_w * 8;
    }
    const size_t x_lo = (p->pad_left + S - 1) / S;
    size_t x_hi = in_w + p->pad_left >= (size_t)K ? (in_w + p->pad_left - K) / S + 1 : 0;
    if (x_hi > out_w) x_hi = out_w;
    float *out_row = p->output + row * out_w * p->n;
    size_t ox = 0;
    while (ox < out_w) {
        const size_t left = out_w - ox;
        const int W = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
        const int inside = ox >= x_lo && ox + (size_t)W <= x_hi;
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * S) - (ptrdiff_t)p->pad_left;
        for (size_t j = 0; j < p->n; j++) {
            float *out = out_row + ox * p->n + j;
#define CK_NARROW_BLOCK(WW)                                                                           \
    if (inside) narrow_direct_block_simd8(WW, K, S, 0, p, rows, ky_begin, ky_end, ix0, j, out);            \
    else narrow_direct_block_simd8(WW, K, S, 1, p, rows, ky_begin, ky_end, ix0, j, out);
            switch (W) {
            case 8: CK_NARROW_BLOCK(8) break;
            case 4: CK_NARROW_BLOCK(4) break;
            case 2: CK_NARROW_BLOCK(2) break;
            default: CK_NARROW_BLOCK(1) break;
            }
#undef CK_NARROW_BLOCK
        }
        ox += (size_t)W;
    }
}

CK_SIMD8_FN static void narrow_direct_3x3s1_simd8(const ck_conv_narrow_direct_params *p, size_t row) {
    narrow_direct_row_simd8(3, 1, p, row);
}
CK_SIMD8_FN static void narrow_direct_3x3s2_simd8(const ck_conv_narrow_direct_params *p, size_t row) {
    narrow_direct_row_simd8(3, 2, p, row);
}
CK_SIMD8_FN static void narrow_direct_5x5s1_simd8(const ck_conv_narrow_direct_params *p, size_t row) {
    narrow_direct_row_simd8(5, 1, p, row);
}
CK_SIMD8_FN static void narrow_direct_5x5s2_simd8(const ck_conv_narrow_direct_params *p, size_t row) {
    narrow_direct_row_simd8(5, 2, p, row);
}
#endif

typedef struct narrow_direct_job {
    const ck_conv_narrow_direct_params *p;
    void (*row)(const ck_conv_narrow_direct_params *p, size_t row);
} narrow_direct_job;

static void narrow_direct_range(void *context, size_t begin, size_t end) {
    const narrow_direct_job *job = (const narrow_direct_job *)context;
    for (size_t row = begin; row < end; row++) job->row(job->p, row);
}

int ck_conv_narrow_direct(const ck_conv_narrow_direct_params *p, ck_threadpool *pool) {
    if ((p->kernel != 3 && p->kernel != 5) || (p->stride != 1 && p->stride != 2) || p->n == 0 ||
        p->n > CK_NARROW_MAX_OUTPUTS) {
        return 0;
    }
    narrow_direct_job job = {p, narrow_direct_row_portable};
#if defined(CK_SIMD8)
    if (ck_use_simd8()) {
        job.row = p->kernel == 3 ? (p->stride == 1 ? narrow_direct_3x3s1_simd8 : narrow_direct_3x3s2_simd8)
                                 : (p->stride == 1 ? narrow_direct_5x5s1_simd8 : narrow_direct_5x5s2_simd8);
    }
#endif
    pool = ck_pool_for_work(pool, p->batch * p->out_h * p->out_w * p->n * p->kernel * p->kernel * 8);
    ck_parallel_for(pool, p->batch * p->out_h, narrow_direct_range, &job);
    return 1;
}
