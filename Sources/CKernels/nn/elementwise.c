// Element-wise kernels: broadcasting binary operations with fused activation, unary
// activations and softmax.
#include "ck_internal.h"

/// Applies `op` to n pairs: a advances by sa (0 or 1), b by sb (0 or 1).
#define CK_BINARY_LOOP(EXPR)                                                                     \
    do {                                                                                         \
        if (sa == 1 && sb == 1) {                                                                \
            for (size_t i = 0; i < n; i++) {                                                     \
                float x = a[i], y = b[i];                                                        \
                out[i] = (EXPR);                                                                 \
            }                                                                                    \
        } else if (sa == 1 && sb == 0) {                                                         \
            const float y = b[0];                                                                \
            for (size_t i = 0; i < n; i++) {                                                     \
                float x = a[i];                                                                  \
                out[i] = (EXPR);                                                                 \
            }                                                                                    \
        } else if (sa == 0 && sb == 1) {                                                         \
            const float x = a[0];                                                                \
            for (size_t i = 0; i < n; i++) {                                                     \
                float y = b[i];                                                                  \
                out[i] = (EXPR);                                                                 \
            }                                                                                    \
        } else {                                                                                 \
            for (size_t i = 0; i < n; i++) {                                                     \
                float x = a[i * sa], y = b[i * sb];                                              \
                out[i] = (EXPR);                                                                 \
            }                                                                                    \
        }                                                                                        \
    } while (0)

static inline __attribute__((always_inline)) void
binary_row_body(ck_binary_op op, size_t n, const float *a, size_t sa, const float *b, size_t sb,
                float *out, float lo, float hi, const float *prelu) {
    switch (op) {
    case CK_BINARY_ADD: CK_BINARY_LOOP(x + y); break;
    case CK_BINARY_SUB: CK_BINARY_LOOP(x - y); break;
    case CK_BINARY_MUL: CK_BINARY_LOOP(x * y); break;
    case CK_BINARY_DIV: CK_BINARY_LOOP(x / y); break;
    case CK_BINARY_MAXIMUM: CK_BINARY_LOOP(x > y ? x : y); break;
    case CK_BINARY_MINIMUM: CK_BINARY_LOOP(x < y ? x : y); break;
    case CK_BINARY_PRELU: CK_BINARY_LOOP(x >= 0.0f ? x : x * y); break;
    }
    if (lo != -INFINITY || hi != INFINITY) {
        for (size_t i = 0; i < n; i++) {
            float v = out[i];
            v = v < lo ? lo : v;
            out[i] = v > hi ? hi : v;
        }
    }
    if (prelu != NULL) {
        for (size_t i = 0; i < n; i++) {
            float v = out[i];
            out[i] = v < 0.0f ? v * prelu[i] : v;
        }
    }
}

typedef void (*binary_row_fn)(ck_binary_op, size_t, const float *, size_t, const float *, size_t,
                              float *, float, float, const float *);

static void binary_row_portable(ck_binary_op op, size_t n, const float *a, size_t sa,
                                const float *b, size_t sb, float *out, float lo, float hi,
                                const float *prelu) {
    binary_row_body(op, n, a, sa, b, sb, out, lo, hi, prelu);
}

#if defined(CK_HAVE_X86)
/// The same loops compiled for AVX2 (the compiler vectorises them 8 wide).
CK_AVX2 static void binary_row_avx2(ck_binary_op op, size_t n, const float *a, size_t sa,
                                    const float *b, size_t sb, float *out, float lo, float hi,
                                    const float *prelu) {
    binary_row_body(op, n, a, sa, b, sb, out, lo, hi, prelu);
}
#endif

/// Rank-1 problems are split into slices of this many elements so threads can share them.
#define CK_BINARY_SLICE 8192

typedef struct binary_job {
    const ck_binary_params *p;
    binary_row_fn row;
    size_t inner;
} binary_job;

static void binary_range(void *context, size_t begin, size_t end) {
    const binary_job *job = (const binary_job *)context;
    const ck_binary_params *p = job->p;
    const size_t r = p->rank;
    const size_t inner = p->dims[r - 1];
    const size_t sa = p->a_strides[r - 1], sb = p->b_strides[r - 1];
    if (r == 1) {
        for (size_t s = begin; s < end; s++) {
            size_t i0 = s * CK_BINARY_SLICE, n = CK_MIN(CK_BINARY_SLICE, inner - i0);
            job->row(p->op, n, p->a + i0 * sa, sa, p->b + i0 * sb, sb, p->out + i0, p->out_min,
                     p->out_max, p->prelu ? p->prelu + i0 : NULL);
        }
        return;
    }
    for (size_t row = begin; row < end; row++) {
        // Decompose the row index over dims[0 ..< r-1] into element offsets of a and b.
        size_t rest = row, oa = 0, ob = 0;
        for (size_t d = r - 1; d-- > 0;) {
            size_t i = rest % p->dims[d];
            rest /= p->dims[d];
            oa += i * p->a_strides[d];
            ob += i * p->b_strides[d];
        }
        job->row(p->op, inner, p->a + oa, sa, p->b + ob, sb, p->out + row * inner, p->out_min,
                 p->out_max, p->prelu);
    }
}

void ck_binary(const ck_binary_params *p, ck_threadpool *pool) {
    if (p->rank == 0 || p->rank > CK_MAX_RANK) return;
    binary_job job = {p, binary_row_portable, p->dims[p->rank - 1]};
#if defined(CK_HAVE_X86)
    if (ck_use_avx2()) job.row = binary_row_avx2;
#endif
    size_t total = 1;
    for (size_t d = 0; d < p->rank; d++) total *= p->dims[d];
    if (total == 0) return;
    size_t units;
    if (p->rank == 1) {
        units = (p->dims[0] + CK_BINARY_SLICE - 1) / CK_BINARY_SLICE;
    } else {
        units = total / p->dims[p->rank - 1];
    }
    // Small problems are not worth waking the workers for.
    ck_parallel_for(total < 16384 ? NULL : pool, units, binary_range, &job);
}

#if defined(CK_HAVE_X86)
/// e^x for 8 lanes: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor polynomial to r^7
/// (relative error about 2e-7), 2^n through the exponent bits. Inputs are clamped to the range
/// where e^x is a finite, normal float.
CK_AVX2 static inline __m256 exp8(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

CK_AVX2 static void logistic_avx2(const float *input, float *output, size_t count) {
    const __m256 one = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256 e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_loadu_ps(input + i)));
        _mm256_storeu_ps(output + i, _mm256_div_ps(one, _mm256_add_ps(one, e)));
    }
    if (i < count) {
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count - i)), lane);
        __m256 e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_maskload_ps(input + i, mask)));
        _mm256_maskstore_ps(output + i, mask, _mm256_div_ps(one, _mm256_add_ps(one, e)));
    }
}
#endif

void ck_unary(ck_unary_op op, const float *input, float *output, size_t count, float lo,
              float hi) {
    switch (op) {
    case CK_UNARY_LOGISTIC:
#if defined(CK_HAVE_X86)
        if (ck_use_avx2()) {
            logistic_avx2(input, output, count);
            break;
        }
#endif
        for (size_t i = 0; i < count; i++) output[i] = 1.0f / (1.0f + expf(-input[i]));
        break;
    case CK_UNARY_TANH:
        for (size_t i = 0; i < count; i++) output[i] = tanhf(input[i]);
        break;
    case CK_UNARY_CLAMP:
        for (size_t i = 0; i < count; i++) {
            float v = input[i];
            v = v < lo ? lo : v;
            output[i] = v > hi ? hi : v;
        }
        break;
    case CK_UNARY_COPY:
        if (output != input) memmove(output, input, count * sizeof(float));
        break;
    }
}

void ck_softmax(const float *input, float *output, size_t outer, size_t inner, float beta) {
    for (size_t r = 0; r < outer; r++) {
        const float *x = input + r * inner;
        float *y = output + r * inner;
        float m = -INFINITY;
        for (size_t i = 0; i < inner; i++) m = x[i] > m ? x[i] : m;
        float sum = 0.0f;
        for (size_t i = 0; i < inner; i++) {
            y[i] = expf((x[i] - m) * beta);
            sum += y[i];
        }
        float scale = 1.0f / sum;
        for (size_t i = 0; i < inner; i++) y[i] *= scale;
    }
}
