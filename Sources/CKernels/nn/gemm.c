// Convolution as matrix multiplication: a 6 x 16 register-blocked microkernel over weights
// packed once at load time, used directly for 1x1 convolutions / fully connected layers and
// through an indirection buffer (one pointer per output pixel and kernel tap) for general
// convolutions, so no im2col copy is made.
#include "ck_internal.h"

#define MR CK_GEMM_MR
#define NR CK_GEMM_NR

size_t ck_conv_packed_size(size_t output_channels, size_t taps, size_t input_channels) {
    size_t panels = (output_channels + NR - 1) / NR;
    return panels * NR * (1 + taps * input_channels);
}

void ck_conv_pack(size_t n, size_t taps, size_t k, const float *weights, const float *bias,
                  float *packed) {
    size_t panels = (n + NR - 1) / NR;
    size_t kk = taps * k;
    for (size_t p = 0; p < panels; p++) {
        float *dst = packed + p * NR * (1 + kk);
        for (size_t j = 0; j < NR; j++) {
            size_t o = p * NR + j;
            dst[j] = (o < n && bias != NULL) ? bias[o] : 0.0f;
        }
        dst += NR;
        for (size_t r = 0; r < kk; r++) {
            for (size_t j = 0; j < NR; j++) {
                size_t o = p * NR + j;
                dst[r * NR + j] = o < n ? weights[o * kk + r] : 0.0f;
            }
        }
    }
}

/// One microkernel call: rows[i * row_stride + t] is the input of output row i at tap t
/// (i < MR; rows past `mr` repeat the last valid row and are not stored).
typedef void (*ukernel_fn)(size_t mr, size_t nr, size_t k, size_t taps, const float *const *rows,
                           size_t row_stride, const float *w, float *c, size_t c_stride,
                           float lo, float hi, const float *prelu);

static void ukernel_portable(size_t mr, size_t nr, size_t k, size_t taps,
                             const float *const *rows, size_t row_stride, const float *w,
                             float *c, size_t c_stride, float lo, float hi, const float *prelu) {
    float acc[MR][NR];
    for (size_t i = 0; i < MR; i++) {
        for (size_t j = 0; j < NR; j++) acc[i][j] = w[j];
    }
    w += NR;
    for (size_t t = 0; t < taps; t++) {
        const float *a[MR];
        for (size_t i = 0; i < MR; i++) a[i] = rows[CK_MIN(i, mr - 1) * row_stride + t];
        for (size_t p = 0; p < k; p++) {
            for (size_t i = 0; i < MR; i++) {
                float av = a[i][p];
                for (size_t j = 0; j < NR; j++) acc[i][j] += av * w[j];
            }
            w += NR;
        }
    }
    for (size_t i = 0; i < mr; i++) {
        float *out = c + i * c_stride;
        for (size_t j = 0; j < nr; j++) out[j] = ck_activate(acc[i][j], lo, hi, prelu, j);
    }
}

#if defined(CK_HAVE_X86)
CK_AVX2 static inline __m256 activate8(__m256 v, __m256 lo, __m256 hi, const float *prelu,
                                       __m256i mask, int full) {
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    if (prelu != NULL) {
        __m256 slope = full ? _mm256_loadu_ps(prelu) : _mm256_maskload_ps(prelu, mask);
        __m256 neg = _mm256_mul_ps(v, slope);
        v = _mm256_blendv_ps(v, neg, v); // sign bit set -> negative -> take v * slope
    }
    return v;
}

/// R rows x 16 columns; R is a constant in each instantiation so the accumulators stay in
/// registers.
CK_AVX2 static inline __attribute__((always_inline)) void
ukernel_avx2_rows(const int R, size_t mr, size_t nr, size_t k, size_t taps, const float *const *rows,
                  size_t row_stride, const float *w, float *c, size_t c_stride, float lo, float hi,
                  const float *prelu) {
    __m256 acc[MR][2];
    const __m256 bias0 = _mm256_loadu_ps(w), bias1 = _mm256_loadu_ps(w + 8);
    for (int i = 0; i < R; i++) {
        acc[i][0] = bias0;
        acc[i][1] = bias1;
    }
    w += NR;
    if (R == 1) {
        // One row has a single dependency chain per column group; four partial sums over k
        // keep the FMA units busy (matrix-vector products such as fully connected layers).
        __m256 p0 = _mm256_setzero_ps(), p1 = _mm256_setzero_ps(), q0 = _mm256_setzero_ps(), q1 = _mm256_setzero_ps();
        __m256 u0 = _mm256_setzero_ps(), u1 = _mm256_setzero_ps();
        for (size_t t = 0; t < taps; t++) {
            const float *a0 = rows[t];
            size_t p = 0;
            for (; p + 4 <= k; p += 4, w += 4 * NR) {
                const __m256 x0 = _mm256_broadcast_ss(a0 + p), x1 = _mm256_broadcast_ss(a0 + p + 1);
                const __m256 x2 = _mm256_broadcast_ss(a0 + p + 2), x3 = _mm256_broadcast_ss(a0 + p + 3);
                acc[0][0] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w), acc[0][0]);
                acc[0][1] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8), acc[0][1]);
                p0 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(w + NR), p0);
                p1 = _mm256_fmadd_ps(x1, _mm256_loadu_ps(w + NR + 8), p1);
                q0 = _mm256_fmadd_ps(x2, _mm256_loadu_ps(w + 2 * NR), q0);
                q1 = _mm256_fmadd_ps(x2, _mm256_loadu_ps(w + 2 * NR + 8), q1);
                u0 = _mm256_fmadd_ps(x3, _mm256_loadu_ps(w + 3 * NR), u0);
                u1 = _mm256_fmadd_ps(x3, _mm256_loadu_ps(w + 3 * NR + 8), u1);
            }
            for (; p < k; p++, w += NR) {
                const __m256 x0 = _mm256_broadcast_ss(a0 + p);
                acc[0][0] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w), acc[0][0]);
                acc[0][1] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8), acc[0][1]);
            }
        }
        acc[0][0] = _mm256_add_ps(_mm256_add_ps(acc[0][0], p0), _mm256_add_ps(q0, u0));
        acc[0][1] = _mm256_add_ps(_mm256_add_ps(acc[0][1], p1), _mm256_add_ps(q1, u1));
    } else
    for (size_t t = 0; t < taps; t++) {
        const float *a[MR];
        for (int i = 0; i < R; i++) a[i] = rows[CK_MIN((size_t)i, mr - 1) * row_stride + t];
        for (size_t p = 0; p < k; p++) {
            const __m256 b0 = _mm256_loadu_ps(w), b1 = _mm256_loadu_ps(w + 8);
            w += NR;
            for (int i = 0; i < R; i++) {
                const __m256 va = _mm256_broadcast_ss(a[i] + p);
                acc[i][0] = _mm256_fmadd_ps(va, b0, acc[i][0]);
                acc[i][1] = _mm256_fmadd_ps(va, b1, acc[i][1]);
            }
        }
    }
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    if (nr == NR) {
        const __m256i all = _mm256_set1_epi32(-1);
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
            if ((size_t)i >= mr) continue;
            float *out = c + i * c_stride;
            _mm256_storeu_ps(out, activate8(acc[i][0], vlo, vhi, prelu, all, 1));
            _mm256_storeu_ps(out + 8, activate8(acc[i][1], vlo, vhi, prelu ? prelu + 8 : NULL, all, 1));
        }
    } else {
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nr), lane);
        const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nr - 8), lane);
#pragma clang loop unroll(full)
        for (int i = 0; i < R; i++) {
            if ((size_t)i >= mr) continue;
            float *out = c + i * c_stride;
            _mm256_maskstore_ps(out, m0, activate8(acc[i][0], vlo, vhi, prelu, m0, 0));
            if (nr > 8) {
                _mm256_maskstore_ps(out + 8, m1, activate8(acc[i][1], vlo, vhi, prelu ? prelu + 8 : NULL, m1, 0));
            }
        }
    }
}

/// Picks the instantiation for the tile's row count.
CK_AVX2 static void ukernel_avx2(size_t mr, size_t nr, size_t k, size_t taps,
                                 const float *const *rows, size_t row_stride, const float *w,
                                 float *c, size_t c_stride, float lo, float hi,
                                 const float *prelu) {
    switch (mr) {
    case 1: ukernel_avx2_rows(1, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    case 2: ukernel_avx2_rows(2, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    case 3: ukernel_avx2_rows(3, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    case 4: ukernel_avx2_rows(4, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    case 5: ukernel_avx2_rows(5, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    default: ukernel_avx2_rows(6, mr, nr, k, taps, rows, row_stride, w, c, c_stride, lo, hi, prelu); break;
    }
}
#endif

#if defined(CK_HAVE_X86)
/// The same over at most 8 columns (one vector per row): for layers with 8 or fewer outputs.
CK_AVX2 static void ukernel_avx2_n8(size_t mr, size_t nr, size_t k, size_t taps,
                                    const float *const *rows, size_t row_stride, const float *w,
                                    float *c, size_t c_stride, float lo, float hi,
                                    const float *prelu) {
    __m256 c0 = _mm256_loadu_ps(w);
    __m256 c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
    w += NR;
    for (size_t t = 0; t < taps; t++) {
        const float *a0 = rows[0 * row_stride + t];
        const float *a1 = rows[CK_MIN(1, mr - 1) * row_stride + t];
        const float *a2 = rows[CK_MIN(2, mr - 1) * row_stride + t];
        const float *a3 = rows[CK_MIN(3, mr - 1) * row_stride + t];
        const float *a4 = rows[CK_MIN(4, mr - 1) * row_stride + t];
        const float *a5 = rows[CK_MIN(5, mr - 1) * row_stride + t];
        for (size_t p = 0; p < k; p++) {
            const __m256 b = _mm256_loadu_ps(w);
            w += NR;
            c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + p), b, c0);
            c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + p), b, c1);
            c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + p), b, c2);
            c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + p), b, c3);
            c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + p), b, c4);
            c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + p), b, c5);
        }
    }
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)nr), lane);
    __m256 acc[MR] = {c0, c1, c2, c3, c4, c5};
    for (size_t i = 0; i < mr; i++) {
        __m256 v = activate8(acc[i], vlo, vhi, prelu, mask, nr == 8);
        if (nr == 8) {
            _mm256_storeu_ps(c + i * c_stride, v);
        } else {
            _mm256_maskstore_ps(c + i * c_stride, mask, v);
        }
    }
}
#endif

static ukernel_fn select_ukernel(void) {
#if defined(CK_HAVE_X86)
    if (ck_use_avx2()) return ukernel_avx2;
#endif
    return ukernel_portable;
}

/// The shared driver: tiles of MR rows x NR columns, ordered so that the larger operand is
/// streamed once and the smaller one is re-read from cache.
typedef struct gemm_job {
    ukernel_fn kernel;
    size_t m, n, k, taps;
    // Direct rows (indirection == NULL) or an indirection buffer.
    const float *a;
    size_t a_stride;
    const float *const *indirection;
    const float *packed;
    float *c;
    size_t c_stride;
    float lo, hi;
    const float *prelu;
    size_t m_tiles, n_tiles;
    int m_outer;
} gemm_job;

static void gemm_range(void *context, size_t begin, size_t end) {
    const gemm_job *job = (const gemm_job *)context;
    const size_t panel = NR * (1 + job->taps * job->k);
    for (size_t tile = begin; tile < end; tile++) {
        size_t mi, nj;
        if (job->m_outer) {
            mi = tile / job->n_tiles;
            nj = tile % job->n_tiles;
        } else {
            nj = tile / job->m_tiles;
            mi = tile % job->m_tiles;
        }
        size_t m0 = mi * MR, n0 = nj * NR;
        size_t mr = CK_MIN(MR, job->m - m0), nr = CK_MIN(NR, job->n - n0);
        const float *const *rows;
        size_t row_stride;
        const float *direct[MR];
        if (job->indirection != NULL) {
            rows = job->indirection + m0 * job->taps;
            row_stride = job->taps;
        } else {
            for (size_t i = 0; i < MR; i++) direct[i] = job->a + (m0 + CK_MIN(i, mr - 1)) * job->a_stride;
            rows = direct;
            row_stride = 1;
        }
        ukernel_fn kernel = job->kernel;
#if defined(CK_HAVE_X86)
        // A last panel with at most 8 real columns runs the 8-wide kernel.
        if (nr <= 8 && kernel == ukernel_avx2) kernel = ukernel_avx2_n8;
#endif
        kernel(mr, nr, job->k, job->taps, rows, row_stride, job->packed + nj * panel,
                    job->c + m0 * job->c_stride + n0, job->c_stride, job->lo, job->hi,
                    job->prelu ? job->prelu + n0 : NULL);
    }
}

static void run_gemm(gemm_job *job, ck_threadpool *pool) {
    if (job->m == 0 || job->n == 0) return;
    job->kernel = select_ukernel();
#if defined(CK_HAVE_X86)
    if (job->kernel == ukernel_avx2 && job->n <= 8) job->kernel = ukernel_avx2_n8;
#endif
    job->m_tiles = (job->m + MR - 1) / MR;
    job->n_tiles = (job->n + NR - 1) / NR;
    size_t a_bytes = job->m * job->k * job->taps;
    size_t w_bytes = job->n * job->k * job->taps;
    job->m_outer = a_bytes >= w_bytes;
    ck_parallel_for(pool, job->m_tiles * job->n_tiles, gemm_range, job);
}

void ck_gemm(const ck_gemm_params *p, ck_threadpool *pool) {
    gemm_job job = {0};
    job.m = p->m;
    job.n = p->n;
    job.k = p->k;
    job.taps = 1;
    job.a = p->a;
    job.a_stride = p->a_stride;
    job.packed = p->packed;
    job.c = p->c;
    job.c_stride = p->c_stride;
    job.lo = p->out_min;
    job.hi = p->out_max;
    job.prelu = p->prelu;
    run_gemm(&job, pool);
}

void ck_igemm(const ck_igemm_params *p, ck_threadpool *pool) {
    gemm_job job = {0};
    job.m = p->m;
    job.n = p->n;
    job.k = p->k;
    job.taps = p->taps;
    job.indirection = p->indirection;
    job.packed = p->packed;
    job.c = p->c;
    job.c_stride = p->c_stride;
    job.lo = p->out_min;
    job.hi = p->out_max;
    job.prelu = p->prelu;
    run_gemm(&job, pool);
}

// MARK: - Narrow convolutions

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

#if defined(CK_HAVE_X86)
CK_AVX2 static inline float hsum8(__m256 v) {
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
    return _mm_cvtss_f32(s4);
}

/// Four output pixels at once (independent accumulation chains); pixels past `count` repeat
/// the last one and are not stored.
CK_AVX2 static void narrow_block_avx2(const ck_conv_narrow_params *p, size_t i0, size_t count) {
    const size_t k = p->k, taps = p->taps, full = k / 8 * 8;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(k - full)), lane);
    const float *const *rows[4];
    for (size_t q = 0; q < 4; q++) rows[q] = p->indirection + (i0 + CK_MIN(q, count - 1)) * taps;
    for (size_t j = 0; j < p->n; j++) {
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
        const float *w = p->weights + j * taps * k;
        for (size_t t = 0; t < taps; t++, w += k) {
            const float *x0 = rows[0][t], *x1 = rows[1][t], *x2 = rows[2][t], *x3 = rows[3][t];
            for (size_t q = 0; q < full; q += 8) {
                const __m256 wv = _mm256_loadu_ps(w + q);
                acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x0 + q), wv, acc0);
                acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x1 + q), wv, acc1);
                acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(x2 + q), wv, acc2);
                acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(x3 + q), wv, acc3);
            }
            if (full < k) {
                const __m256 wv = _mm256_maskload_ps(w + full, mask);
                acc0 = _mm256_fmadd_ps(_mm256_maskload_ps(x0 + full, mask), wv, acc0);
                acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(x1 + full, mask), wv, acc1);
                acc2 = _mm256_fmadd_ps(_mm256_maskload_ps(x2 + full, mask), wv, acc2);
                acc3 = _mm256_fmadd_ps(_mm256_maskload_ps(x3 + full, mask), wv, acc3);
            }
        }
        const float bias = p->bias ? p->bias[j] : 0.0f;
        const float sums[4] = {hsum8(acc0), hsum8(acc1), hsum8(acc2), hsum8(acc3)};
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
#if defined(CK_HAVE_X86)
    if (job->simd) {
        for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i += 4) {
            narrow_block_avx2(job->p, i, CK_MIN(4, job->p->m - i));
        }
        return;
    }
#endif
    for (size_t i = begin * 4; i < CK_MIN(end * 4, job->p->m); i++) narrow_pixel_portable(job->p, i);
}

void ck_conv_narrow(const ck_conv_narrow_params *p, ck_threadpool *pool) {
    narrow_job job = {p, 0};
#if defined(CK_HAVE_X86)
    job.simd = ck_use_avx2();
#endif
    ck_parallel_for(pool, (p->m + 3) / 4, narrow_range, &job);
}
