// Spatial and layout kernels: max pooling, bilinear resize, strided copies, padding and
// reductions.
#include "ck_internal.h"
#include "ck_simd8.h"

// MARK: - Max pooling

typedef void (*pool_row_fn)(const ck_pool_params *p, size_t row);

/// An output pixel's window: input rows [y0, y1) and columns [x0, x1), the taps inside the image
/// (taps in the padding are ignored).
typedef struct pool_window {
    size_t y0, y1, x0, x1;
} pool_window;

/// The window's rows for output row oy (the same for every pixel of the row).
static inline pool_window pool_rows_of(const ck_pool_params *p, size_t oy) {
    const size_t top = oy * p->stride_h;
    pool_window w;
    w.y0 = top > p->pad_top ? top - p->pad_top : 0;
    w.y1 = CK_MIN(top + p->filter_h > p->pad_top ? top + p->filter_h - p->pad_top : 0, p->in_h);
    w.x0 = w.x1 = 0;
    return w;
}

/// The window's columns for output column ox.
static inline void pool_columns_of(const ck_pool_params *p, size_t ox, pool_window *w) {
    const size_t left = ox * p->stride_w;
    w->x0 = left > p->pad_left ? left - p->pad_left : 0;
    w->x1 = CK_MIN(left + p->filter_w > p->pad_left ? left + p->filter_w - p->pad_left : 0, p->in_w);
}

/// Channels [c_begin, c_end) of one output pixel, one channel at a time: the window's first tap,
/// then for each further tap in row-major order the tap where it is greater, then the clamp. An
/// empty window (which valid models cannot have) gives 0, clamped.
static inline __attribute__((always_inline)) void maxpool_channels(const ck_pool_params *p, const float *image,
                                                                   pool_window w, float *out, size_t c_begin,
                                                                   size_t c_end) {
    const size_t c = p->channels, in_w = p->in_w;
    const int empty = w.y0 >= w.y1 || w.x0 >= w.x1;
    for (size_t i = c_begin; i < c_end; i++) {
        float m = empty ? 0.0f : image[(w.y0 * in_w + w.x0) * c + i];
        for (size_t y = w.y0; y < w.y1; y++) {
            for (size_t x = (y == w.y0 ? w.x0 + 1 : w.x0); x < w.x1; x++) {
                const float v = image[(y * in_w + x) * c + i];
                m = v > m ? v : m;
            }
        }
        m = m < p->out_min ? p->out_min : m;
        out[i] = m > p->out_max ? p->out_max : m;
    }
}

static void maxpool_row_portable(const ck_pool_params *p, size_t row) {
    const size_t c = p->channels, oy = row % p->out_h;
    const float *image = p->input + row / p->out_h * p->in_h * p->in_w * c;
    float *out = p->output + row * p->out_w * c;
    pool_window w = pool_rows_of(p, oy);
    for (size_t ox = 0; ox < p->out_w; ox++, out += c) {
        pool_columns_of(p, ox, &w);
        maxpool_channels(p, image, w, out, 0, c);
    }
}

#if defined(CK_SIMD8)
/// maxpool_row_portable over 8 channels at a time, each block's maximum in a register over the
/// window. The same comparisons in the same order (v8_greater_of and v8_lesser_of are
/// maxpool_channels' ternaries), so the same bits, NaNs and signed zeros included; the channels
/// after the last whole block, and empty windows, go through maxpool_channels.
CK_SIMD8_FN static void maxpool_row_simd8(const ck_pool_params *p, size_t row) {
    const size_t c = p->channels, in_w = p->in_w, blocks_end = c / 8 * 8, oy = row % p->out_h;
    const float *image = p->input + row / p->out_h * p->in_h * in_w * c;
    float *out = p->output + row * p->out_w * c;
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    pool_window w = pool_rows_of(p, oy);
    for (size_t ox = 0; ox < p->out_w; ox++, out += c) {
        pool_columns_of(p, ox, &w);
        if (w.y0 >= w.y1 || w.x0 >= w.x1) {
            maxpool_channels(p, image, w, out, 0, c);
            continue;
        }
        for (size_t c0 = 0; c0 < blocks_end; c0 += 8) {
            ck_v8 m = v8_load(image + (w.y0 * in_w + w.x0) * c + c0);
            for (size_t y = w.y0; y < w.y1; y++) {
                for (size_t x = (y == w.y0 ? w.x0 + 1 : w.x0); x < w.x1; x++) {
                    m = v8_greater_of(v8_load(image + (y * in_w + x) * c + c0), m);
                }
            }
            v8_store(out + c0, v8_lesser_of(hi, v8_greater_of(lo, m)));
        }
        if (blocks_end < c) maxpool_channels(p, image, w, out, blocks_end, c);
    }
}
#endif

typedef struct pool_job {
    const ck_pool_params *p;
    pool_row_fn row;
} pool_job;

static void maxpool_range(void *context, size_t begin, size_t end) {
    const pool_job *job = (const pool_job *)context;
    for (size_t r = begin; r < end; r++) job->row(job->p, r);
}

void ck_maxpool(const ck_pool_params *p, ck_threadpool *pool) {
    pool_job job = {p, maxpool_row_portable};
#if defined(CK_SIMD8)
    if (ck_use_simd8()) job.row = maxpool_row_simd8;
#endif
    pool = ck_pool_for_work(pool, p->batch * p->out_h * p->out_w * p->channels * p->filter_h * p->filter_w);
    ck_parallel_for(pool, p->batch * p->out_h, maxpool_range, &job);
}

// MARK: - Bilinear resize

static void interpolation(size_t value, float scale, int half_pixel, size_t size, float *scaled,
                          size_t *lower, size_t *upper) {
    float v = half_pixel ? ((float)value + 0.5f) * scale - 0.5f : (float)value * scale;
    float fl = floorf(v);
    long lo = (long)fl;
    long hi = (long)ceilf(v);
    if (lo < 0) lo = 0;
    if (hi > (long)size - 1) hi = (long)size - 1;
    if (hi < 0) hi = 0;
    if (lo > (long)size - 1) lo = (long)size - 1;
    *scaled = v;
    *lower = (size_t)lo;
    *upper = (size_t)hi;
}

typedef void (*resize_row_fn)(const ck_resize_params *p, float scale_y, size_t row, size_t first_column,
                              size_t columns, const size_t *x0s, const size_t *x1s, const float *dxs);

typedef struct resize_job {
    const ck_resize_params *p;
    float scale_y, scale_x;
    resize_row_fn row;
} resize_job;

/// Output row `row` (over the batch: row = b * out_h + y): the input rows it blends, the weight
/// of the lower one, and where its column `first_column` goes.
typedef struct resize_rows {
    const float *row0, *row1;
    float dy;
    float *out;
} resize_rows;

static inline resize_rows resize_rows_of(const ck_resize_params *p, float scale_y, size_t row, size_t first_column) {
    const size_t c = p->channels, b = row / p->out_h, oy = row % p->out_h;
    float fy;
    size_t y0, y1;
    interpolation(oy, scale_y, p->half_pixel_centers, p->in_h, &fy, &y0, &y1);
    const float *image = p->input + b * p->in_h * p->in_w * c;
    resize_rows r = {image + y0 * p->in_w * c, image + y1 * p->in_w * c, fy - (float)y0,
                     p->output + (row * p->out_w + first_column) * c};
    return r;
}

/// Output columns [first_column, first_column + columns) of one row, from precomputed column
/// offsets (x0s, x1s, in elements) and fractions.
static inline __attribute__((always_inline)) void
resize_row_body(const ck_resize_params *p, float scale_y, size_t row, size_t first_column, size_t columns,
                const size_t *x0s, const size_t *x1s, const float *dxs) {
    const size_t c = p->channels;
    const resize_rows r = resize_rows_of(p, scale_y, row, first_column);
    const float dy = r.dy, *row0 = r.row0, *row1 = r.row1;
    float *out = r.out;
    const float lo = p->out_min, hi = p->out_max;
    const int clamp = lo != -INFINITY || hi != INFINITY;
    for (size_t i = 0; i < columns; i++, out += c) {
        const float dx = dxs[i];
        const float w00 = (1.0f - dy) * (1.0f - dx), w10 = dy * (1.0f - dx);
        const float w01 = (1.0f - dy) * dx, w11 = dy * dx;
        const float *v00 = row0 + x0s[i], *v10 = row1 + x0s[i];
        const float *v01 = row0 + x1s[i], *v11 = row1 + x1s[i];
        if (clamp) {
            for (size_t q = 0; q < c; q++) {
                const float v = v00[q] * w00 + v10[q] * w10 + v01[q] * w01 + v11[q] * w11;
                out[q] = CK_MIN(CK_MAX(v, lo), hi);
            }
        } else {
            for (size_t q = 0; q < c; q++) {
                out[q] = v00[q] * w00 + v10[q] * w10 + v01[q] * w01 + v11[q] * w11;
            }
        }
    }
}

static void resize_row_portable(const ck_resize_params *p, float scale_y, size_t row, size_t first_column,
                                size_t columns, const size_t *x0s, const size_t *x1s, const float *dxs) {
    resize_row_body(p, scale_y, row, first_column, columns, x0s, x1s, dxs);
}
#if defined(CK_HAVE_X86)
CK_AVX2 static void resize_row_avx2(const ck_resize_params *p, float scale_y, size_t row, size_t first_column,
                                    size_t columns, const size_t *x0s, const size_t *x1s, const float *dxs) {
    resize_row_body(p, scale_y, row, first_column, columns, x0s, x1s, dxs);
}

/// resize_row_body for channels in whole vectors of 8, written out: the compiler's form of the
/// general loop ran pose_landmark's 128x128x8 -> 256x256 upscale in 0.295 ms, 4.5 ns a pixel (best
/// of 150, one Zen 3 core, vision-tasks-bench --profile-operators); written out 0.155-0.239 ms.
/// The same operations as the general loop compiled for AVX2 with FMA contraction (the second
/// product first, then three fused multiply-adds), so the same bits.
CK_AVX2 static void resize_row8_avx2(const ck_resize_params *p, float scale_y, size_t row, size_t first_column,
                                     size_t columns, const size_t *x0s, const size_t *x1s, const float *dxs) {
    const size_t c = p->channels;
    const resize_rows r = resize_rows_of(p, scale_y, row, first_column);
    const float dy = r.dy, *row0 = r.row0, *row1 = r.row1;
    float *out = r.out;
    const ck_v8 lo = v8_set1(p->out_min), hi = v8_set1(p->out_max);
    const int clamp = p->out_min != -INFINITY || p->out_max != INFINITY;
    for (size_t i = 0; i < columns; i++, out += c) {
        const float dx = dxs[i];
        const ck_v8 w00 = v8_set1((1.0f - dy) * (1.0f - dx)), w10 = v8_set1(dy * (1.0f - dx));
        const ck_v8 w01 = v8_set1((1.0f - dy) * dx), w11 = v8_set1(dy * dx);
        const float *v00 = row0 + x0s[i], *v10 = row1 + x0s[i];
        const float *v01 = row0 + x1s[i], *v11 = row1 + x1s[i];
        for (size_t q = 0; q < c; q += 8) {
            ck_v8 v = v8_mul(v8_load(v10 + q), w10);
            v = v8_fma(v8_load(v00 + q), w00, v);
            v = v8_fma(v8_load(v01 + q), w01, v);
            v = v8_fma(v8_load(v11 + q), w11, v);
            v8_store(out + q, clamp ? v8_min(v8_max(v, lo), hi) : v);
        }
    }
}
#endif

/// Columns per strip of precomputed interpolation (the tables live on the stack).
#define CK_RESIZE_COLUMNS 512

static void resize_range(void *context, size_t begin, size_t end) {
    const resize_job *job = (const resize_job *)context;
    const ck_resize_params *p = job->p;
    size_t x0s[CK_RESIZE_COLUMNS], x1s[CK_RESIZE_COLUMNS];
    float dxs[CK_RESIZE_COLUMNS];
    for (size_t first = 0; first < p->out_w; first += CK_RESIZE_COLUMNS) {
        size_t columns = CK_MIN(CK_RESIZE_COLUMNS, p->out_w - first);
        for (size_t i = 0; i < columns; i++) {
            float fx;
            size_t x0, x1;
            interpolation(first + i, job->scale_x, p->half_pixel_centers, p->in_w, &fx, &x0, &x1);
            x0s[i] = x0 * p->channels;
            x1s[i] = x1 * p->channels;
            dxs[i] = fx - (float)x0;
        }
        for (size_t r = begin; r < end; r++) job->row(p, job->scale_y, r, first, columns, x0s, x1s, dxs);
    }
}

static float resize_scale(size_t in, size_t out, int align_corners) {
    if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
    return (float)in / (float)out;
}

void ck_resize_bilinear(const ck_resize_params *p, ck_threadpool *pool) {
    if (p->out_h == 0 || p->out_w == 0 || p->in_h == 0 || p->in_w == 0) return;
    resize_job job = {p, resize_scale(p->in_h, p->out_h, p->align_corners),
                      resize_scale(p->in_w, p->out_w, p->align_corners), resize_row_portable};
#if defined(CK_HAVE_X86)
    if (ck_use_avx2()) job.row = p->channels % 8 == 0 ? resize_row8_avx2 : resize_row_avx2;
#endif
    pool = ck_pool_for_work(pool, p->batch * p->out_h * p->out_w * p->channels * 4); // a few operations per element
    ck_parallel_for(pool, p->batch * p->out_h, resize_range, &job);
}

// MARK: - Layout

/// A strided copy whose dimensions of size 1 are dropped: rows of dims[rank - 1] values.
typedef struct copy_job {
    size_t rank;
    size_t dims[CK_MAX_RANK];
    ptrdiff_t strides[CK_MAX_RANK];
    const float *input;
    float *output;
} copy_job;

/// Output rows [begin, end) of a strided copy.
static void copy_rows(void *context, size_t begin, size_t end) {
    const copy_job *job = (const copy_job *)context;
    const size_t rank = job->rank, inner = job->dims[rank - 1];
    const ptrdiff_t s = job->strides[rank - 1];
    // The multi-index over dims[0 ..< rank-1] of row `begin`, and its offset in the input.
    size_t index[CK_MAX_RANK] = {0};
    ptrdiff_t offset = 0;
    size_t rest = begin;
    for (size_t d = rank - 1; d-- > 0;) {
        index[d] = rest % job->dims[d];
        rest /= job->dims[d];
        offset += (ptrdiff_t)index[d] * job->strides[d];
    }
    for (size_t row = begin; row < end; row++) {
        const float *src = job->input + offset;
        float *dst = job->output + row * inner;
        if (s == 1) {
            memcpy(dst, src, inner * sizeof(float));
        } else {
            for (size_t i = 0; i < inner; i++) dst[i] = src[(ptrdiff_t)i * s];
        }
        // Advance the multi-index over dims[0 ..< rank-1].
        for (size_t d = rank - 1; d-- > 0;) {
            index[d]++;
            offset += job->strides[d];
            if (index[d] < job->dims[d]) break;
            offset -= (ptrdiff_t)index[d] * job->strides[d];
            index[d] = 0;
        }
    }
}

void ck_copy_strided(size_t rank, const size_t *dims_in, const float *input,
                     const ptrdiff_t *strides_in, float *output, ck_threadpool *pool) {
    if (rank == 0 || rank > CK_MAX_RANK) {
        if (rank == 0) output[0] = input[0];
        return;
    }
    // Dimensions of size 1 move nothing: drop them, so that (for example) UNPACK's [21, 1]
    // view with strides [3, 1] becomes one strided row of 21 instead of 21 one-value copies.
    copy_job job = {.rank = 0, .input = input, .output = output};
    size_t total = 1;
    for (size_t d = 0; d < rank; d++) {
        total *= dims_in[d];
        if (dims_in[d] != 1) {
            job.dims[job.rank] = dims_in[d];
            job.strides[job.rank] = strides_in[d];
            job.rank++;
        }
    }
    if (total == 0) return;
    if (job.rank == 0) {
        output[0] = input[0];
        return;
    }
    // Rows split over threads: left to the calling thread, pose_detection's DEPTH_TO_SPACE
    // layers took as long at 2 threads as at 1 or up to twice as long (docs/benchmarks.md).
    ck_parallel_for(ck_pool_for_work(pool, total), total / job.dims[job.rank - 1], copy_rows, &job);
}

/// A padding of a 4-D tensor (ck_pad_4d's arguments).
typedef struct pad_job {
    const float *input;
    const size_t *in_dims, *out_dims, *before;
    float *output;
    float value;
} pad_job;

/// Output rows (n, h) [begin, end) of a padding, n * out_h + h.
static void pad_rows(void *context, size_t begin, size_t end) {
    const pad_job *job = (const pad_job *)context;
    const size_t *in_dims = job->in_dims, *out_dims = job->out_dims, *before = job->before;
    const size_t oc = out_dims[3], ic = in_dims[3];
    for (size_t row = begin; row < end; row++) {
        const size_t n = row / out_dims[1], h = row % out_dims[1];
        for (size_t w = 0; w < out_dims[2]; w++) {
            float *dst = job->output + (row * out_dims[2] + w) * oc;
            int inside = n >= before[0] && n - before[0] < in_dims[0] && h >= before[1] &&
                         h - before[1] < in_dims[1] && w >= before[2] && w - before[2] < in_dims[2];
            if (!inside) {
                for (size_t i = 0; i < oc; i++) dst[i] = job->value;
                continue;
            }
            const float *src = job->input + (((n - before[0]) * in_dims[1] + (h - before[1])) * in_dims[2] +
                                             (w - before[2])) * ic;
            for (size_t i = 0; i < before[3]; i++) dst[i] = job->value;
            memcpy(dst + before[3], src, ic * sizeof(float));
            for (size_t i = before[3] + ic; i < oc; i++) dst[i] = job->value;
        }
    }
}

void ck_pad_4d(const float *input, const size_t *in_dims, float *output, const size_t *out_dims,
               const size_t *before, float value, ck_threadpool *pool) {
    pad_job job = {input, in_dims, out_dims, before, output, value};
    const size_t rows = out_dims[0] * out_dims[1];
    ck_parallel_for(ck_pool_for_work(pool, rows * out_dims[2] * out_dims[3]), rows, pad_rows, &job);
}

void ck_fill_row_patches(const ck_row_patch *patches, size_t count, size_t kw, size_t channels, size_t width) {
    for (size_t i = 0; i < count; i++) {
        const ck_row_patch *p = patches + i;
        for (size_t kx = 0; kx < kw; kx++) {
            const ptrdiff_t x = p->x0 + (ptrdiff_t)kx;
            float *dst = p->dst + kx * channels;
            if (x >= 0 && x < (ptrdiff_t)width) {
                memcpy(dst, p->row + (size_t)x * channels, channels * sizeof(float));
            } else {
                memset(dst, 0, channels * sizeof(float));
            }
        }
    }
}

/// Reduction over the middle of [outer, count, inner]: rows of `inner` contiguous values are
/// combined element by element (vectorisable).
static void reduce_block(ck_reduce_op op, size_t outer, size_t count, size_t inner, const float *input,
                         float *output) {
    if (inner == 1) { // each output combines `count` consecutive values (a row's max, a mean)
        for (size_t o = 0; o < outer; o++) {
            const float *in = input + o * count;
            float v = in[0];
            switch (op) {
            case CK_REDUCE_SUM:
            case CK_REDUCE_MEAN:
                for (size_t r = 1; r < count; r++) v += in[r];
                if (op == CK_REDUCE_MEAN) v *= 1.0f / (float)count;
                break;
            case CK_REDUCE_MAX:
                for (size_t r = 1; r < count; r++) v = in[r] > v ? in[r] : v;
                break;
            case CK_REDUCE_MIN:
                for (size_t r = 1; r < count; r++) v = in[r] < v ? in[r] : v;
                break;
            }
            output[o] = v;
        }
        return;
    }
    for (size_t o = 0; o < outer; o++) {
        const float *in = input + o * count * inner;
        float *out = output + o * inner;
        memcpy(out, in, inner * sizeof(float));
        for (size_t r = 1; r < count; r++) {
            const float *row = in + r * inner;
            switch (op) {
            case CK_REDUCE_SUM:
            case CK_REDUCE_MEAN:
                for (size_t i = 0; i < inner; i++) out[i] += row[i];
                break;
            case CK_REDUCE_MAX:
                for (size_t i = 0; i < inner; i++) out[i] = row[i] > out[i] ? row[i] : out[i];
                break;
            case CK_REDUCE_MIN:
                for (size_t i = 0; i < inner; i++) out[i] = row[i] < out[i] ? row[i] : out[i];
                break;
            }
        }
        if (op == CK_REDUCE_MEAN) {
            const float scale = 1.0f / (float)count;
            for (size_t i = 0; i < inner; i++) out[i] *= scale;
        }
    }
}

void ck_reduce(ck_reduce_op op, size_t rank, const size_t *dims_in, unsigned mask_in,
               const float *input, float *output) {
    if (rank > CK_MAX_RANK) return;
    // Dimensions of size 1 change nothing, reduced or kept: drop them first, so that more
    // reductions take the contiguous path below.
    size_t dims[CK_MAX_RANK];
    unsigned reduce_mask = 0;
    size_t kept = 0;
    for (size_t d = 0; d < rank; d++) {
        if (dims_in[d] == 1) continue;
        if (mask_in & (1u << d)) reduce_mask |= 1u << kept;
        dims[kept++] = dims_in[d];
    }
    if (kept == 0) { // a single value
        output[0] = input[0];
        return;
    }
    rank = kept;
    // Fast path: the reduced dimensions are one contiguous run.
    size_t first = rank, last = 0;
    for (size_t d = 0; d < rank; d++) {
        if (reduce_mask & (1u << d)) {
            if (first == rank) first = d;
            last = d;
        }
    }
    int contiguous = first < rank;
    for (size_t d = first; contiguous && d <= last; d++) contiguous = (reduce_mask >> d) & 1u;
    if (contiguous) {
        size_t outer = 1, count = 1, inner = 1;
        for (size_t d = 0; d < first; d++) outer *= dims[d];
        for (size_t d = first; d <= last; d++) count *= dims[d];
        for (size_t d = last + 1; d < rank; d++) inner *= dims[d];
        if (count > 0 && outer * inner > 0) {
            reduce_block(op, outer, count, inner, input, output);
            return;
        }
    }
    size_t out_strides[CK_MAX_RANK] = {0};
    size_t out_count = 1, total = 1;
    for (size_t d = rank; d-- > 0;) {
        total *= dims[d];
        if (!(reduce_mask & (1u << d))) {
            out_strides[d] = out_count;
            out_count *= dims[d];
        }
    }
    float init = op == CK_REDUCE_MAX ? -INFINITY : op == CK_REDUCE_MIN ? INFINITY : 0.0f;
    for (size_t i = 0; i < out_count; i++) output[i] = init;
    if (total == 0) return;
    size_t index[CK_MAX_RANK] = {0};
    size_t o = 0;
    for (size_t i = 0; i < total; i++) {
        float v = input[i];
        switch (op) {
        case CK_REDUCE_SUM:
        case CK_REDUCE_MEAN: output[o] += v; break;
        case CK_REDUCE_MAX: output[o] = v > output[o] ? v : output[o]; break;
        case CK_REDUCE_MIN: output[o] = v < output[o] ? v : output[o]; break;
        }
        for (size_t d = rank; d-- > 0;) {
            index[d]++;
            o += out_strides[d];
            if (index[d] < dims[d]) break;
            o -= index[d] * out_strides[d];
            index[d] = 0;
        }
    }
    if (op == CK_REDUCE_MEAN) {
        float count = (float)(total / out_count);
        for (size_t i = 0; i < out_count; i++) output[i] /= count;
    }
}
