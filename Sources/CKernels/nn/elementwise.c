// Element-wise kernels: broadcasting binary operations with fused activation, unary
// activations and softmax.
#include "ck_internal.h"
#include "ck_simd8.h"

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

#if defined(CK_SIMD8)
/// x op y for 8 lanes, with the portable version's semantics.
CK_SIMD8_INLINE ck_v8 binary_v8(const ck_binary_op op, ck_v8 x, ck_v8 y) {
    switch (op) {
    case CK_BINARY_ADD: return v8_add(x, y);
    case CK_BINARY_SUB: return v8_sub(x, y);
    case CK_BINARY_MUL: return v8_mul(x, y);
    case CK_BINARY_DIV: return v8_div(x, y);
    case CK_BINARY_MAXIMUM: return v8_greater_of(x, y);
    case CK_BINARY_MINIMUM: return v8_lesser_of(x, y);
    case CK_BINARY_PRELU: return v8_prelu_ge(x, y);
    }
    return x;
}

/// n results: a and b advance by sa and sb (each 0 or 1), then the clamp and the per-element
/// PReLU slopes, in one pass.
CK_SIMD8_INLINE void binary_row_v8(const ck_binary_op op, size_t n, const float *a, size_t sa, const float *b,
                                   size_t sb, float *out, float lo, float hi, const float *prelu) {
    const int clamp = lo != -INFINITY || hi != INFINITY;
    const ck_v8 vlo = v8_set1(lo), vhi = v8_set1(hi);
    const ck_v8 a0 = v8_set1(a[0]), b0 = v8_set1(b[0]);
    size_t i = 0;
    for (; i < n; i += 8) {
        const size_t lanes = CK_MIN((size_t)8, n - i);
        const ck_v8 x = sa == 0 ? a0 : lanes == 8 ? v8_load(a + i) : v8_load_partial(a + i, lanes);
        const ck_v8 y = sb == 0 ? b0 : lanes == 8 ? v8_load(b + i) : v8_load_partial(b + i, lanes);
        ck_v8 v = binary_v8(op, x, y);
        if (clamp) v = v8_min(v8_max(v, vlo), vhi);
        if (prelu != NULL) v = v8_prelu(v, lanes == 8 ? v8_load(prelu + i) : v8_load_partial(prelu + i, lanes));
        if (lanes == 8) {
            v8_store(out + i, v);
        } else {
            v8_store_partial(out + i, v, lanes);
        }
    }
}

CK_SIMD8_FN static void binary_row_simd8(ck_binary_op op, size_t n, const float *a, size_t sa, const float *b,
                                         size_t sb, float *out, float lo, float hi, const float *prelu) {
    if (sa > 1 || sb > 1) {
        binary_row_body(op, n, a, sa, b, sb, out, lo, hi, prelu);
        return;
    }
    switch (op) {
    case CK_BINARY_ADD: binary_row_v8(CK_BINARY_ADD, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_SUB: binary_row_v8(CK_BINARY_SUB, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_MUL: binary_row_v8(CK_BINARY_MUL, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_DIV: binary_row_v8(CK_BINARY_DIV, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_MAXIMUM: binary_row_v8(CK_BINARY_MAXIMUM, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_MINIMUM: binary_row_v8(CK_BINARY_MINIMUM, n, a, sa, b, sb, out, lo, hi, prelu); break;
    case CK_BINARY_PRELU: binary_row_v8(CK_BINARY_PRELU, n, a, sa, b, sb, out, lo, hi, prelu); break;
    }
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
    // Decompose the first row's index over dims[0 ..< r-1] into element offsets of a and b
    // once, then step the multi-index row by row (no division per row: the rows of small
    // broadcasts, e.g. 21 x 3 minus 1 x 3, are only a few values each).
    size_t index[CK_MAX_RANK] = {0};
    size_t rest = begin, oa = 0, ob = 0;
    for (size_t d = r - 1; d-- > 0;) {
        index[d] = rest % p->dims[d];
        rest /= p->dims[d];
        oa += index[d] * p->a_strides[d];
        ob += index[d] * p->b_strides[d];
    }
    for (size_t row = begin; row < end; row++) {
        job->row(p->op, inner, p->a + oa, sa, p->b + ob, sb, p->out + row * inner, p->out_min,
                 p->out_max, p->prelu);
        for (size_t d = r - 1; d-- > 0;) {
            index[d]++;
            oa += p->a_strides[d];
            ob += p->b_strides[d];
            if (index[d] < p->dims[d]) break;
            oa -= index[d] * p->a_strides[d];
            ob -= index[d] * p->b_strides[d];
            index[d] = 0;
        }
    }
}

void ck_binary(const ck_binary_params *p, ck_threadpool *pool) {
    if (p->rank == 0 || p->rank > CK_MAX_RANK) return;
    binary_job job = {p, binary_row_portable, p->dims[p->rank - 1]};
#if defined(CK_SIMD8)
    if (ck_use_simd8()) job.row = binary_row_simd8;
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
    ck_parallel_for(ck_pool_for_work(pool, total * 4), units, binary_range, &job); // a few operations per element
}

#if defined(CK_SIMD8)
CK_SIMD8_FN static void logistic_simd8(const float *input, float *output, size_t count) {
    const ck_v8 one = v8_set1(1.0f), zero = v8_zero();
    for (size_t i = 0; i < count; i += 8) {
        const size_t lanes = CK_MIN((size_t)8, count - i);
        const ck_v8 x = lanes == 8 ? v8_load(input + i) : v8_load_partial(input + i, lanes);
        const ck_v8 y = v8_div(one, v8_add(one, v8_exp(v8_sub(zero, x))));
        if (lanes == 8) {
            v8_store(output + i, y);
        } else {
            v8_store_partial(output + i, y, lanes);
        }
    }
}
#endif

void ck_unary(ck_unary_op op, const float *input, float *output, size_t count, float lo,
              float hi) {
    switch (op) {
    case CK_UNARY_LOGISTIC:
#if defined(CK_SIMD8)
        if (ck_use_simd8()) {
            logistic_simd8(input, output, count);
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
