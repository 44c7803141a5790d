// CKernels for the LiteInterpreter: float32 neural-network kernels (NHWC activations) and the
// worker thread pool they run on.
//
// Conventions:
// - Every kernel has a portable C version, the reference the others are tested against. Where it
//   pays, a SIMD version is written once over eight-float vectors (nn/ck_simd8.h: AVX2/FMA with
//   F16C on x86-64, NEON on arm64), and the kernels where most of the time goes (the GEMM, the
//   depthwise and sparse convolutions, SiLU) have an AVX-512 version as well; the bilinear resize
//   compiles its portable loop for AVX2 (with an AVX2 row kernel for whole vectors of 8
//   channels). The version is chosen per call
//   from ck_active_isa(), so tests can compare them with ck_set_isa().
// - Kernels trust their parameters: the caller (LiteInterpreter) validates every shape, size and
//   index against the model before calling. Buffers passed in never alias unless stated.
// - A NULL pool (or a pool of one thread) runs the work on the calling thread.
#ifndef VISIONTASKS_CK_NN_H
#define VISIONTASKS_CK_NN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Thread pool

/// A persistent pool of worker threads. The calling thread takes part in the work, so a pool of
/// `thread_count` threads starts `thread_count - 1` workers. One caller at a time.
typedef struct ck_threadpool ck_threadpool;

/// Creates a pool with `thread_count` threads in total (values below 1 mean 1).
/// Returns NULL when threads cannot be created.
ck_threadpool *ck_threadpool_create(int thread_count);

/// Stops and joins the workers and frees the pool. NULL is ignored.
void ck_threadpool_destroy(ck_threadpool *pool);

/// The number of threads that work on a parallel_for (1 for NULL): the active count.
int ck_threadpool_thread_count(const ck_threadpool *pool);

/// Sets how many of the pool's threads (the caller included) work on the parallel_for calls
/// that start after it, clamped to 1 ... the count it was created with (the default); the
/// others stay idle. Results do not depend on it. May be called from any thread; a call
/// already running keeps the count it started with. NULL is ignored.
void ck_threadpool_set_active(ck_threadpool *pool, int active);

/// Starts (on != 0) or stops adding up, per thread, the time spent running pieces of jobs, and
/// the caller's time from the start to the end of each job run on more than one thread (for
/// profiling: two clock reads per piece while on). Counts start at zero with the pool and are
/// never reset. Call it between jobs. NULL is ignored.
void ck_threadpool_measure(ck_threadpool *pool, int on);

/// The times added up so far, in nanoseconds: the jobs' into `*jobs_ns`, each thread's (slot
/// 0: the caller, i: worker i) into `busy_ns[0 ... capacity - 1]`. Returns the pool's thread
/// count (0 for NULL). Call it between jobs.
int ck_threadpool_busy_time(const ck_threadpool *pool, uint64_t *jobs_ns, uint64_t *busy_ns, int capacity);

/// A piece of work over the index range [begin, end).
typedef void (*ck_range_fn)(void *context, size_t begin, size_t end);

/// Runs `fn` over [0, count) split into contiguous ranges, on all threads of the pool, and
/// returns when every range is done.
void ck_parallel_for(ck_threadpool *pool, size_t count, ck_range_fn fn, void *context);

// MARK: - Conversions

/// IEEE half-precision to single-precision (subnormals, infinities and NaNs included).
void ck_f16_to_f32(const uint16_t *input, float *output, size_t count);

// MARK: - Convolution as (indirect) matrix multiplication

/// Output channels per packed weight panel (the microkernel's width).
#define CK_GEMM_NR 16
/// Output pixels per microkernel call (a row tile) at the AVX2/NEON and portable levels.
#define CK_GEMM_MR 6
/// Output pixels per microkernel call at the AVX-512 level.
#define CK_GEMM_MR_AVX512 8

/// Floats needed to pack the weights of a convolution with `output_channels` outputs,
/// `taps` kernel positions (kh * kw) and `input_channels` inputs per position.
size_t ck_conv_packed_size(size_t output_channels, size_t taps, size_t input_channels);

/// Packs OHWI weights (`output_channels` x `taps` x `input_channels`, row-major, as TFLite
/// stores CONV_2D and FULLY_CONNECTED weights) and an optional bias (NULL = zeros) into the
/// panel layout the GEMM microkernels read: per panel of 16 outputs, 16 biases then, for each
/// tap and input channel, 16 weights. Missing outputs of the last panel are zero.
void ck_conv_pack(size_t output_channels, size_t taps, size_t input_channels,
                  const float *weights, const float *bias, float *packed);

/// Bytes needed to pack the same weights in half precision (ck_conv_pack_f16).
size_t ck_conv_packed_bytes_f16(size_t output_channels, size_t taps, size_t input_channels);

/// The same panel layout with the weights in IEEE half precision (the 16 biases of a panel
/// stay float32): half the memory traffic for models whose weights are float16 anyway. Only
/// exact for weights that ck_f16_exact accepts.
void ck_conv_pack_f16(size_t output_channels, size_t taps, size_t input_channels,
                      const float *weights, const float *bias, void *packed);

/// 1 when every value converts to half precision and back unchanged (0 otherwise).
int ck_f16_exact(const float *values, size_t count);

/// What a GEMM does to each result before storing it (output row i, column j):
///   v = min(max(acc, out_min), out_max)
///   if residual: v = min(max(v + residual[i * residual_stride + j], sum_min), sum_max)
///   if prelu:    v = v < 0 ? v * prelu[j] : v
/// (a convolution's own activation, then a following ADD with its activation, then a
/// following PRELU, all fused). Use -INFINITY/INFINITY for no clamp.

/// C[m x n] = act(A[m x k] * W + bias): 1x1 convolutions and fully connected layers.
typedef struct ck_gemm_params {
    size_t m, n, k;
    const float *a;          ///< row i starts at a + i * a_stride
    size_t a_stride;
    const void *packed;      ///< from ck_conv_pack(n, 1, k, ...), or ck_conv_pack_f16 with weights_f16
    float *c;                ///< row i starts at c + i * c_stride
    size_t c_stride;
    float out_min, out_max;  ///< fused clamp (use -INFINITY/INFINITY for none)
    const float *prelu;      ///< n per-channel PReLU slopes applied last, or NULL
    const float *residual;   ///< added after the clamp (m x n, row stride residual_stride), or NULL
    size_t residual_stride;
    float sum_min, sum_max;  ///< clamp after the residual is added
    int weights_f16;         ///< packed holds half-precision panels
} ck_gemm_params;

void ck_gemm(const ck_gemm_params *params, ck_threadpool *pool);

/// A general convolution as an indirect GEMM: output pixel i, tap t reads `k` input channels
/// from indirection[i * taps + t] (a pointer into the input, or to a buffer of >= k zeros
/// for padding).
typedef struct ck_igemm_params {
    size_t m, n, k, taps;
    const float *const *indirection;
    const void *packed;      ///< from ck_conv_pack(n, taps, k, ...) or ck_conv_pack_f16
    float *c;
    size_t c_stride;
    float out_min, out_max;
    const float *prelu;
    const float *residual;
    size_t residual_stride;
    float sum_min, sum_max;
    int weights_f16;
} ck_igemm_params;

void ck_igemm(const ck_igemm_params *params, ck_threadpool *pool);

/// Sparse 1x1 convolutions (weights mostly zero, as models with DENSIFY'd weights store them):
/// each output channel keeps only its nonzero weights. Activations are read a tile of up to
/// CK_SPCONV_TILE pixels at a time and transposed into a channels-major block (one run of
/// pixels per input channel), so each nonzero weight costs one broadcast and one fused
/// multiply-add per 8 pixels; results are transposed back to NHWC through the GEMM's epilogue.
/// Each output is bias + the nonzero terms in input-channel order, one fused multiply-add per
/// term: the same arithmetic as ck_gemm's multi-row tiles, minus the products with zero.
#define CK_SPCONV_TILE 64
/// Input channels transposed at a time (larger layers visit their channels in blocks, so the
/// transposed block of 128 x 64 floats stays in the L1 cache: 128 against 256 made the layers
/// of pose_detection 10-40 % faster).
#define CK_SPCONV_CHANNEL_BLOCK 128

/// The number of nonzero weights among `count` (what ck_spconv_pack keeps).
size_t ck_count_nonzero(const float *values, size_t count);

/// Bytes needed to pack the row-major `output_channels` x `input_channels` `weights` for
/// ck_spconv (the nonzero weights, grouped 4 output channels at a time with a little padding).
size_t ck_spconv_packed_bytes(size_t output_channels, size_t input_channels, const float *weights);

/// Packs row-major weights (`output_channels` x `input_channels`, OHWI of a 1x1 convolution)
/// and an optional bias (NULL = zeros): the bias, then per block of input channels and output
/// channel the nonzero weights in input-channel order with their positions.
void ck_spconv_pack(size_t output_channels, size_t input_channels, const float *weights, const float *bias,
                    void *packed);

/// Floats of scratch memory ck_spconv needs per thread.
size_t ck_spconv_scratch_floats(size_t output_channels, size_t input_channels);

/// C[m x n] = act(A[m x k] * W^T + bias) for a packed sparse W; the epilogue is ck_gemm's.
typedef struct ck_spconv_params {
    size_t m, n, k;
    const float *a;          ///< row i (pixel i) starts at a + i * a_stride
    size_t a_stride;
    const void *packed;      ///< from ck_spconv_pack(n, k, ...)
    float *c;
    size_t c_stride;
    float out_min, out_max;
    const float *prelu;
    const float *residual;
    size_t residual_stride;
    float sum_min, sum_max;
    /// scratch_slots x ck_spconv_scratch_floats(n, k) floats; NULL runs the portable kernel. Each
    /// thread works in a buffer of its own that every sparse layer it runs reuses, and in its
    /// slot here only when that buffer cannot be had.
    float *scratch;
    size_t scratch_slots;    ///< at least the thread count of the pool passed to ck_spconv
} ck_spconv_params;

void ck_spconv(const ck_spconv_params *params, ck_threadpool *pool);

/// Convolutions with few output channels (CK_NARROW_MAX_OUTPUTS at most): a dot product per
/// output pixel and channel over the taps, vectorised along the input channels, with the
/// weights in their original OHWI layout (`n` x `taps` x `k`) and an optional bias.
#define CK_NARROW_MAX_OUTPUTS 4

typedef struct ck_conv_narrow_params {
    size_t m, n, k, taps;
    const float *const *indirection;   ///< as for ck_igemm
    const float *weights;              ///< OHWI
    const float *bias;                 ///< n values or NULL
    float *c;
    size_t c_stride;
    float out_min, out_max;
    const float *prelu;
} ck_conv_narrow_params;

void ck_conv_narrow(const ck_conv_narrow_params *params, ck_threadpool *pool);

/// A narrow convolution over 8 input channels with a square 3x3 or 5x5 kernel, stride 1 or 2
/// and no dilation, read directly from the NHWC image (no indirection): up to 8 output pixels
/// of a row at a time, each input pixel loaded once per kernel row. The same arithmetic as
/// ck_conv_narrow. Returns 0 (and does nothing) for any other geometry.
typedef struct ck_conv_narrow_direct_params {
    size_t batch, in_h, in_w, out_h, out_w, n;
    size_t kernel, stride, pad_top, pad_left;
    const float *input;                ///< NHWC with 8 channels
    const float *weights;              ///< OHWI: n x kernel x kernel x 8
    const float *bias;                 ///< n values or NULL
    float *output;                     ///< NHWC with n channels
    float out_min, out_max;
    const float *prelu;
} ck_conv_narrow_direct_params;

int ck_conv_narrow_direct(const ck_conv_narrow_direct_params *params, ck_threadpool *pool);

// MARK: - Depthwise convolution

/// Channels per packed depthwise weight block.
#define CK_DWCONV_CHANNEL_TILE 8
/// The largest kernel (kh * kw) the depthwise kernel takes.
#define CK_DWCONV_MAX_TAPS 256

/// Floats needed to pack depthwise weights for `channels` channels and `taps` positions.
size_t ck_dwconv_packed_size(size_t channels, size_t taps);

/// Packs TFLite depthwise weights ([1, kh, kw, channels], depth multiplier 1) and an optional
/// bias into blocks of 8 channels: 8 biases, then 8 weights per tap.
void ck_dwconv_pack(size_t channels, size_t taps, const float *weights, const float *bias,
                    float *packed);

typedef struct ck_dwconv_params {
    size_t batch, in_h, in_w, channels;
    size_t out_h, out_w;
    size_t kernel_h, kernel_w;
    size_t stride_h, stride_w, dilation_h, dilation_w;
    size_t pad_top, pad_left;
    const float *input;      ///< NHWC
    const float *packed;     ///< from ck_dwconv_pack
    const float *zero;       ///< unused (taps outside the input are skipped); may be NULL
    float *output;           ///< NHWC
    float out_min, out_max;
    const float *prelu;
    /// How the AVX2/NEON fast path walks the channels: 1 line by line, 0 block by block (the
    /// same bits either way), -1 as ck_dwconv_line_spans says at each call. Set it once from
    /// ck_dwconv_line_spans when the layer is bound.
    int line_spans;
} ck_dwconv_params;

/// Depthwise convolution with depth multiplier 1, bias and fused activation.
void ck_dwconv(const ck_dwconv_params *params, ck_threadpool *pool);

/// Whether the AVX2/NEON fast path should walk this layer line by line (1: two 8-channel blocks,
/// one 64-byte line, in spans of up to 4 pixels) or block by block (0: spans of 8 pixels), as its
/// geometry says (only those fields of `params` are read); VISION_TASKS_DWCONV_SPANS=blocks or
/// =lines in the environment answers that for every layer, to compare both in one build.
int ck_dwconv_line_spans(const ck_dwconv_params *params);

// MARK: - Expansion and depthwise convolution together

/// A pointwise convolution (the expansion of an inverted residual block) whose output only a
/// depthwise convolution reads, run together so that the expanded image is never stored whole
/// in the arena, in one of two ways:
/// - band by band (a large image: 3.2 MB at 112x112x64): each thread computes the expansion's
///   rows that a band of the depthwise layer's output rows needs into a window of its own
///   scratch and the band from there;
/// - group by group of channels (a small image of few rows, such as 7x7, whose depthwise layer
///   splits channels between threads): each thread computes all pixels of a group of
///   expanded channels (whole 32s) into an image of its own and the depthwise layer's same
///   channels from there, so no thread reads an expanded channel another wrote and one
///   hand-off between the threads serves both layers.
/// The results are those of ck_gemm then ck_dwconv, bit for bit.
typedef struct ck_expand_dwconv_params {
    /// The expansion over all in_h x in_w pixels of the depthwise layer's input (m = in_h x
    /// in_w, n = channels); `c` and `c_stride` are not used, nor is a residual allowed.
    ck_gemm_params expand;
    /// With `sparse` set, the expansion with sparse weights instead of `expand` (the same
    /// fields, and its own scratch for ck_spconv); by channels only, and at most
    /// CK_SPCONV_TILE pixels.
    ck_spconv_params sparse_expand;
    int sparse;
    /// The depthwise layer (batch 1); `input` is not used.
    ck_dwconv_params depthwise;
    /// 1 to share groups of channels out, 0 for bands of rows.
    int by_channels;
    /// Output rows per band: 0 for as many as keep a window of expanded rows within 384 KiB
    /// (in the L2 cache of every core we meet), at least one. Not used by channels.
    size_t band_rows;
    /// In bands, scratch_slots x ck_expand_dwconv_scratch_floats(&depthwise, 0, band_rows)
    /// floats, one part per thread slot (ck_thread_slot). By channels, one image of the
    /// expansion's output (in_h x in_w x channels floats, 64-byte aligned), which the threads
    /// share, each writing its own channels, where they have no image of their own
    /// (ck_thread_buffer's memory is not there), and which a sparse expansion on one thread
    /// writes whole; scratch_slots is not used.
    float *scratch;
    size_t scratch_slots;
} ck_expand_dwconv_params;

/// Floats of one thread's scratch in bands: its window of expanded rows for bands of
/// `band_rows` output rows (0: as ck_expand_dwconv_params.band_rows says); by channels, the
/// expanded image's.
size_t ck_expand_dwconv_scratch_floats(const ck_dwconv_params *depthwise, int by_channels, size_t band_rows);

void ck_expand_dwconv(const ck_expand_dwconv_params *params, ck_threadpool *pool);

// MARK: - Element-wise

typedef enum ck_binary_op {
    CK_BINARY_ADD = 0,
    CK_BINARY_SUB = 1,
    CK_BINARY_MUL = 2,
    CK_BINARY_DIV = 3,
    CK_BINARY_MAXIMUM = 4,
    CK_BINARY_MINIMUM = 5,
    /// a >= 0 ? a : a * b (PRELU, b is the slope).
    CK_BINARY_PRELU = 6,
} ck_binary_op;

#define CK_MAX_RANK 6

/// out = post(a op b) with numpy broadcasting, expressed as strides: a dimension that is
/// broadcast has stride 0. `out` is contiguous with shape `dims`.
typedef struct ck_binary_params {
    ck_binary_op op;
    size_t rank;                       ///< 1 ... CK_MAX_RANK
    size_t dims[CK_MAX_RANK];
    size_t a_strides[CK_MAX_RANK];
    size_t b_strides[CK_MAX_RANK];
    const float *a, *b;
    float *out;
    float out_min, out_max;
    const float *prelu;                ///< per-channel slopes over the last dimension, or NULL
} ck_binary_params;

void ck_binary(const ck_binary_params *params, ck_threadpool *pool);

typedef enum ck_unary_op {
    CK_UNARY_LOGISTIC = 0,
    CK_UNARY_TANH = 1,
    CK_UNARY_CLAMP = 2,      ///< min(max(x, lo), hi)
    CK_UNARY_COPY = 3,
} ck_unary_op;

void ck_unary(ck_unary_op op, const float *input, float *output, size_t count, float lo, float hi);

/// SiLU with an optional per-channel affine step first: y = x * scale[c] + shift[c] (over the
/// last dimension of size `channels`; scale and shift may each be NULL), output = y * logistic(y).
/// Each step rounds as MUL, ADD, LOGISTIC and MUL run one after another would. `count` must be
/// a multiple of `channels` (otherwise nothing is written).
void ck_silu(const float *input, const float *scale, const float *shift, float *output, size_t count,
             size_t channels);

/// Softmax over the last dimension of size `inner`, `outer` rows: exp(beta * (x - max)) / sum.
void ck_softmax(const float *input, float *output, size_t outer, size_t inner, float beta);

// MARK: - Spatial

typedef struct ck_pool_params {
    size_t batch, in_h, in_w, channels, out_h, out_w;
    size_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
    const float *input;
    float *output;
    float out_min, out_max;
} ck_pool_params;

/// Max pooling; taps outside the input are skipped.
void ck_maxpool(const ck_pool_params *params, ck_threadpool *pool);

typedef struct ck_resize_params {
    size_t batch, in_h, in_w, channels, out_h, out_w;
    int align_corners, half_pixel_centers;
    const float *input;
    float *output;
    float out_min, out_max; ///< every result is clamped to [out_min, out_max] (-inf, inf: as is)
} ck_resize_params;

/// Bilinear resize with TensorFlow's coordinate conventions, and a clamp of the results (the
/// activation of a convolution that the interpreter runs before the resize instead of after).
void ck_resize_bilinear(const ck_resize_params *params, ck_threadpool *pool);

/// Copies a strided view: out (contiguous, shape dims) = in[base + sum(i_d * in_strides[d])].
/// Strides are in elements and may be negative or zero. Large copies are split over the pool's
/// threads by output rows (NULL: the calling thread).
void ck_copy_strided(size_t rank, const size_t *dims, const float *input,
                     const ptrdiff_t *in_strides, float *output, ck_threadpool *pool);

/// Pads a 4-D tensor with `value`: out has shape out_dims; input element (n, h, w, c) goes to
/// (n + before[0], h + before[1], w + before[2], c + before[3]). Large paddings are split over
/// the pool's threads by output rows (NULL: the calling thread).
void ck_pad_4d(const float *input, const size_t *in_dims, float *output,
               const size_t *out_dims, const size_t *before, float value, ck_threadpool *pool);

/// One kernel row of one output pixel for convolutions that read the taps of a kernel row as a
/// single run of kw * channels floats: where some of the kw pixels lie outside the image, the
/// run is assembled in `dst` before each run (zeros for the outside pixels).
typedef struct ck_row_patch {
    const float *row;   ///< column 0 of the input row
    ptrdiff_t x0;       ///< the first pixel's column (may be negative)
    float *dst;         ///< kw * channels floats
} ck_row_patch;

/// Fills every patch's dst from its row (pixels outside [0, width) become zeros).
void ck_fill_row_patches(const ck_row_patch *patches, size_t count, size_t kw, size_t channels, size_t width);

typedef enum ck_reduce_op {
    CK_REDUCE_SUM = 0,
    CK_REDUCE_MEAN = 1,
    CK_REDUCE_MAX = 2,
    CK_REDUCE_MIN = 3,
} ck_reduce_op;

/// Reduces the dimensions whose `reduce_mask` bit is set; `output` holds the kept dimensions
/// in order (its size is the product of the kept dimensions).
void ck_reduce(ck_reduce_op op, size_t rank, const size_t *dims, unsigned reduce_mask,
               const float *input, float *output);

#ifdef __cplusplus
}
#endif

#endif
