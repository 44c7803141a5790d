// Run-time CPU feature detection and the dispatch level shared by all kernels.
#include "CKernels.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define CK_X86 1
#endif

static ck_isa detect(void) {
#if defined(CK_X86)
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"))) {
        return CK_ISA_PORTABLE;
    }
    // The AVX-512 kernels use F (zmm arithmetic, vcvtph2ps to 16 lanes), VL (masked 256-bit
    // forms), BW and DQ (byte/word masks, 256-bit inserts and lane moves). The compiler's
    // check also requires the operating system to save the zmm and mask registers (XCR0).
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) {
        return CK_ISA_AVX512;
    }
    return CK_ISA_AVX2_FMA;
#elif defined(__aarch64__)
    return CK_ISA_NEON; // Advanced SIMD is mandatory on AArch64.
#else
    return CK_ISA_PORTABLE;
#endif
}

/// The level VISION_TASKS_KERNELS names ("portable", "avx2", "avx512", "neon"), or -1.
static int requested_level(void) {
    const char *name = getenv("VISION_TASKS_KERNELS");
    if (name == NULL) return -1;
    if (strcmp(name, "portable") == 0) return CK_ISA_PORTABLE;
    if (strcmp(name, "avx2") == 0) return CK_ISA_AVX2_FMA;
    if (strcmp(name, "avx512") == 0) return CK_ISA_AVX512;
    if (strcmp(name, "neon") == 0) return CK_ISA_NEON;
    return -1;
}

/// The CPU's best level, lowered to VISION_TASKS_KERNELS when that names a level below it
/// (AVX2 on an AVX-512 CPU, or portable); other values are ignored.
static ck_isa detect_capped(void) {
    const ck_isa best = detect();
    const int requested = requested_level();
    if (requested == CK_ISA_PORTABLE) return CK_ISA_PORTABLE;
    if (requested == CK_ISA_AVX2_FMA && best == CK_ISA_AVX512) return CK_ISA_AVX2_FMA;
    return best;
}

/// The detected level, written once by detect_once (pthread_once orders the write before every
/// read that follows ck_detected_isa's pthread_once call).
static ck_isa g_detected;
static pthread_once_t g_detected_once = PTHREAD_ONCE_INIT;

static void detect_once(void) { g_detected = detect_capped(); }

ck_isa ck_detected_isa(void) {
    pthread_once(&g_detected_once, detect_once);
    return g_detected;
}

/// The level kernels dispatch to: -1 until the first kernel asks (it then becomes the detected
/// level) or ck_set_isa sets one. Atomic, so that threads running kernels may read it while
/// another thread sets it (ck_set_isa is meant to be called between kernel calls: a call that
/// overlaps it may see the old level at one step and the new at another).
static _Atomic int g_active = -1;

ck_isa ck_active_isa(void) {
    int level = atomic_load_explicit(&g_active, memory_order_relaxed);
    if (level < 0) {
        // The first call: the detected level, unless ck_set_isa has set one meanwhile.
        int unset = -1;
        level = (int)ck_detected_isa();
        if (!atomic_compare_exchange_strong_explicit(&g_active, &unset, level, memory_order_relaxed,
                                                     memory_order_relaxed)) {
            level = unset;
        }
    }
    return (ck_isa)level;
}

/// Whether the CPU runs kernels of level `isa`: the portable level always, AVX2/FMA also on an
/// AVX-512 CPU (a superset), anything else only when it is the detected level.
static int supported(ck_isa isa) {
    const ck_isa best = ck_detected_isa();
    if (isa == CK_ISA_PORTABLE || isa == best) return 1;
    return isa == CK_ISA_AVX2_FMA && best == CK_ISA_AVX512;
}

int ck_set_isa(ck_isa isa) {
    if (!supported(isa)) return 0;
    atomic_store_explicit(&g_active, (int)isa, memory_order_relaxed);
    return 1;
}
