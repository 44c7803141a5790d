// CKernels: the hot loops of VisionTasks, in C.
//
// Every kernel has a portable C version and, where it pays, an AVX2/FMA version (functions
// compiled with __attribute__((target(...))), so no special compiler flags are needed), an
// AVX-512 version of the kernels where most of the time goes (convolutions, SiLU, the
// crop-rotate-resize blend), and NEON versions of the neural-network kernels on arm64 (written
// once with their AVX2 versions, see ck_nn.h). The version is chosen at run time from the CPU's
// features; tests can force each level the CPU supports with ck_set_isa() to check it against
// the portable one.
#ifndef VISIONTASKS_CKERNELS_H
#define VISIONTASKS_CKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Instruction-set levels a kernel can be specialised for.
typedef enum ck_isa {
    CK_ISA_PORTABLE = 0,
    CK_ISA_AVX2_FMA = 1,
    CK_ISA_NEON = 2,
    /// x86-64 AVX-512 (F, BW, DQ, VL) with the AVX2, FMA and F16C of the level below: kernels
    /// without an AVX-512 version run their AVX2 one at this level.
    CK_ISA_AVX512 = 3,
} ck_isa;

/// The best level this CPU supports, or the lower level the environment variable
/// VISION_TASKS_KERNELS names ("portable"; "avx2" on an AVX-512 CPU), read once: to compare
/// the levels in one process, or to keep a CPU off AVX-512.
ck_isa ck_detected_isa(void);

/// The level kernels currently dispatch to (the detected one unless overridden).
ck_isa ck_active_isa(void);

/// Overrides the dispatch level (tests use this to compare versions): the portable level, or
/// any level the CPU supports (on an AVX-512 CPU, AVX2/FMA too). A level the CPU does not
/// support is refused: returns 0 and changes nothing; returns 1 on success.
int ck_set_isa(ck_isa isa);

/// Whether kernels written for AVX2/FMA run at `isa` (AVX2/FMA itself, or AVX-512 above it).
static inline int ck_isa_has_avx2(ck_isa isa) { return isa == CK_ISA_AVX2_FMA || isa == CK_ISA_AVX512; }

#ifdef __cplusplus
}
#endif

// Kernel families (each in its own header; this umbrella header makes them one module).
#include "ck_pixels.h"
#include "ck_jpeg.h"
#include "ck_image_to_tensor.h"
#include "ck_checksum.h"
// The interpreter's neural-network kernels and thread pool.
#include "ck_nn.h"

#endif
