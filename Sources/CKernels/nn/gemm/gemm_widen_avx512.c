// Per-thread float32 copies of half-precision GEMM panels for the AVX-512 tiles: converting a
// panel row costs the tile a vcvtph2ps per 16 weights on the units its FMAs need, so a thread that
// runs several row tiles over a pair of half-precision panels widens the pair once per GEMM call
// into a buffer of its own, and the tiles read float32 (the same values, so the same sums).
#include "gemm_internal.h"

#if defined(CK_HAVE_X86)
/// Panel `base` (16 float32 biases, then kk rows of 16 halves) as float32: 16 biases, then kk
/// rows of 16 floats, the layout of a float32 panel.
CK_AVX512_INLINE void widen_panel_avx512(const char *base, size_t kk, float *out) {
    _mm512_store_ps(out, _mm512_loadu_ps((const float *)(const void *)base));
    const uint16_t *h = (const uint16_t *)(const void *)(base + NR * sizeof(float));
    for (size_t r = 0; r < kk; r++) {
        _mm512_store_ps(out + NR * (1 + r), _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(h + r * NR))));
    }
}

/// Widened copies of half-precision panel pairs, per thread (see gemm_wide_pair_avx512).
#define CK_WIDE_MAX_PAIRS 64
#define CK_WIDE_MAX_BYTES ((size_t)1 << 20)

/// Which pair each slot of this thread's buffer (CK_BUFFER_WIDE_PANELS) holds.
typedef struct wide_cache {
    float *floats;
    /// Floats of the buffer known to be there (0: none yet).
    size_t capacity;
    /// The GEMM call (0: none) and pair whose copy each slot holds.
    uint64_t slot_serial[CK_WIDE_MAX_PAIRS];
    size_t slot_pair[CK_WIDE_MAX_PAIRS];
} wide_cache;

/// The slot of the pair at `panel`: rows-outer GEMMs pass over every pair once per block of row
/// tiles, so each pair keeps a slot of its own; panels-outer ones finish a pair's row tiles
/// before the next, so one slot, reused while it is warm in the cache, serves them all.
static size_t wide_slot(const gemm_job *job, size_t panel) { return job->m_outer ? panel / 2 : 0; }

static _Thread_local wide_cache tls_wide;

/// This thread's float32 copy of half-precision panels `panel` and `panel + 1` for this GEMM
/// call: the one it holds, else (with `make`) a new one, else NULL (the caller reads the halves;
/// also when there is no room). The tiles then spend no conversion per weight row (the
/// conversions share the FMA units), and each thread converts a pair once per call however many
/// row tiles and blocks it runs over it. The values are the same, so is every sum. The buffer
/// (ck_thread_buffer) grows to the largest layer's pairs (at most CK_WIDE_MAX_BYTES) and is
/// freed when its thread ends.
CK_AVX512 float *gemm_wide_pair_avx512(const gemm_job *job, size_t panel, int make) {
    const size_t kk = job->k * job->taps, pair = panel / 2, slot = wide_slot(job, panel);
    const size_t pairs = job->m_outer ? (job->n_tiles + 1) / 2 : 1, pair_floats = 2 * NR * (1 + kk);
    if (pairs > CK_WIDE_MAX_PAIRS || pair_floats > CK_WIDE_MAX_BYTES / sizeof(float) / pairs) return NULL;
    wide_cache *cache = &tls_wide;
    if (cache->capacity >= pairs * pair_floats && cache->slot_serial[slot] == job->serial && cache->slot_pair[slot] == pair) {
        return cache->floats + slot * pair_floats;
    }
    if (!make) return NULL;
    if (cache->capacity < pairs * pair_floats) {
        int grown = 0;
        float *floats = ck_thread_buffer(CK_BUFFER_WIDE_PANELS, pairs * pair_floats, &grown);
        if (floats == NULL) return NULL;
        if (grown || floats != cache->floats) memset(cache->slot_serial, 0, sizeof cache->slot_serial);
        cache->floats = floats;
        cache->capacity = pairs * pair_floats;
    }
    float *wide = cache->floats + slot * pair_floats;
    const char *base = job->packed + panel * job->panel_bytes;
    widen_panel_avx512(base, kk, wide);
    widen_panel_avx512(base + job->panel_bytes, kk, wide + NR * (1 + kk));
    cache->slot_serial[slot] = job->serial;
    cache->slot_pair[slot] = pair;
    return wide;
}
#endif
