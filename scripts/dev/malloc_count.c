// An LD_PRELOAD shim that counts heap allocations (glibc): every malloc, calloc, realloc,
// posix_memalign, aligned_alloc, memalign and valloc call increments one counter and adds its
// size to a second; calls of at least VT_LARGE_ALLOCATION bytes (image- or tensor-sized buffers)
// also increment a third. The process reads them through vt_allocation_count(),
// vt_allocated_bytes() and vt_large_allocation_count() (found with dlsym; vision-tasks-bench
// does when the shim is loaded). Built and used by scripts/dev/count-allocations.
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

#define VT_LARGE_ALLOCATION 65536

static _Atomic uint64_t g_allocations, g_bytes, g_large;

uint64_t vt_allocation_count(void) { return atomic_load_explicit(&g_allocations, memory_order_relaxed); }
uint64_t vt_allocated_bytes(void) { return atomic_load_explicit(&g_bytes, memory_order_relaxed); }
uint64_t vt_large_allocation_count(void) { return atomic_load_explicit(&g_large, memory_order_relaxed); }

static inline void count_size(size_t size) {
    atomic_fetch_add_explicit(&g_allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_bytes, size, memory_order_relaxed);
    if (size >= VT_LARGE_ALLOCATION) atomic_fetch_add_explicit(&g_large, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_size(size);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    count_size(n * size);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    count_size(size);
    return __libc_realloc(p, size);
}

void *memalign(size_t alignment, size_t size) {
    count_size(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_size(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    count_size(size);
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return 22; // EINVAL
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return 12; // ENOMEM
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    count_size(size);
    return __libc_valloc(size);
}
