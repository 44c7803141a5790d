// Shared helpers of the neural-network kernels (not part of the public header).
#ifndef VISIONTASKS_CK_INTERNAL_H
#define VISIONTASKS_CK_INTERNAL_H

#include "../include/CKernels.h"
#include "../include/ck_nn.h"
#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define CK_HAVE_X86 1
#include <immintrin.h>
/// Compiles one function for AVX2 + FMA (+ F16C, which every AVX2 CPU has and the dispatch
/// checks) without changing the flags of the whole target.
#define CK_AVX2 __attribute__((target("avx2,fma,f16c")))
/// Compiles one function for AVX-512 (F, VL, BW, DQ) on top of AVX2 + FMA + F16C, the level
/// CK_ISA_AVX512 checks for. Functions with this attribute may call CK_AVX2 inline helpers.
#define CK_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,f16c")))
#define CK_AVX512_INLINE CK_AVX512 static inline __attribute__((always_inline))
#endif

/// `base` with an instruction set's suffix: CK_ISA_NAME(dw_span, avx512) is dw_span_avx512. For
/// the headers that define one instruction set's kernels from a file's definitions (see
/// dwconv/dwconv_fast_row.h).
#define CK_ISA_NAME(base, isa) CK_ISA_NAME_(base, isa)
#define CK_ISA_NAME_(base, isa) base##_##isa

#define CK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CK_MAX(a, b) ((a) > (b) ? (a) : (b))

/// Layers with fewer multiply-adds (or element visits) than this run on the calling thread:
/// waking the workers costs more than the few microseconds of work they would share.
#define CK_PARALLEL_MIN_WORK 65536

/// The pool a kernel shares `work` multiply-adds over: NULL (the calling thread alone) when
/// there are fewer than CK_PARALLEL_MIN_WORK. Every kernel asks here, so the rule has one home.
static inline ck_threadpool *ck_pool_for_work(ck_threadpool *pool, size_t work) {
    return work < CK_PARALLEL_MIN_WORK ? NULL : pool;
}

/// The first of `units` work units in part `part` of `parts` (`units` for part >= parts): the
/// units shared out as evenly as whole steps of `step` allow, every part but the last starting
/// and ending on a multiple of `step`. Parts of one rounded-up size leave the last one short, or
/// fewer parts than asked: 29 panels in 6 parts of whole pairs come out as 6, 6, 6, 6, 5 and
/// none that way, and 4, 6, 4, 6, 4 and 5 here. No part is empty while parts * step <= units.
static inline size_t ck_even_part_start(size_t part, size_t parts, size_t units, size_t step) {
    if (part >= parts) return units;
    return step * ((part * units + parts * step / 2) / (parts * step));
}

/// The running thread's index in the pool that runs it: 0 for the thread that called
/// ck_parallel_for (or any thread outside a pool), 1 ... threads - 1 for the pool's workers.
/// Kernels that need per-thread scratch memory index a caller-provided buffer with it.
int ck_thread_slot(void);

/// A number no other kernel call of the process gets (from 1): kernels that keep per-thread
/// state across the pieces of one call (a widened weight panel, a transposed input, a window of
/// expanded rows) tag it with their call's number, so a thread knows whether it is current.
uint64_t ck_call_serial(void);

/// Per-thread buffers (ck_thread_buffer), one of each kind per thread.
typedef enum ck_thread_buffer_kind {
    CK_BUFFER_WIDE_PANELS,    ///< float32 copies of half-precision GEMM panels (gemm_widen_avx512.c)
    CK_BUFFER_EXPANDED_IMAGE, ///< an expansion's output by channels (expand_dwconv.c)
    CK_BUFFER_SPARSE_TILES,   ///< a sparse 1x1 layer's transposed tiles (spconv.c)
    CK_BUFFER_UPSAMPLED_ROWS, ///< a JPEG's chroma rows at full width (jpeg_reconstruct.c)
    CK_THREAD_BUFFER_KINDS
} ck_thread_buffer_kind;

/// This thread's buffer of `kind`, 64-byte aligned and at least `floats` long, or NULL when the
/// memory is not there. It grows (its contents then lost) when asked for more than it holds,
/// never shrinks, and is freed when the thread ends; `*grown` (when not NULL) says whether this
/// call replaced it. Kernels whose threads keep data across calls use one instead of a
/// caller-provided scratch area, so that every layer a thread runs reuses the same memory,
/// which stays in its own caches.
float *ck_thread_buffer(ck_thread_buffer_kind kind, size_t floats, int *grown);

/// Whether the AVX2/FMA kernels run at the current dispatch level (AVX2 or AVX-512).
static inline int ck_use_avx2(void) {
#if defined(CK_HAVE_X86)
    return ck_isa_has_avx2(ck_active_isa());
#else
    return 0;
#endif
}

/// Whether the AVX-512 kernels run at the current dispatch level.
static inline int ck_use_avx512(void) {
#if defined(CK_HAVE_X86)
    return ck_active_isa() == CK_ISA_AVX512;
#else
    return 0;
#endif
}

/// The fused activation: clamp, then the optional PReLU slope.
static inline float ck_activate(float v, float lo, float hi, const float *prelu, size_t channel) {
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    if (prelu != NULL && v < 0.0f) v *= prelu[channel];
    return v;
}

#endif
