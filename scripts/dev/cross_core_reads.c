// What reading data costs when another core has just written it, against data the reading core
// wrote itself: two threads pinned to CPUs A (the reader) and B (the writer) take turns on one
// buffer, 400 turns per size. Each turn the writer fills the buffer and, in the "demoted" rows,
// then asks with CLDEMOTE for each of its lines to move from its own caches to the shared one
// (x86 CPUs that have the instruction, Intel's since Sapphire Rapids; the rows are left out
// elsewhere); the reader then sums the buffer, timed. The "own" rows time the reader summing a
// buffer it has just written itself. Prints medians in ns per 64-byte line, and the writer's
// time per line for the demotes. This is the price of a layer reading what the other thread of
// the layer before wrote (docs/benchmarks.md, "What the second core is worth"). Built and run by
// scripts/dev/cross-core-reads. Linux only (CPU affinity).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pinned_threads.h"
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

enum { TURNS = 400, LINE = 64 };

static _Alignas(64) atomic_int turn;
static uint64_t *buffer;
static size_t words;
static int writer_cpu, demote;
static uint64_t demote_ns[TURNS];
/// Where the sums go, so that the compiler keeps them.
static volatile uint64_t sink;

static int has_cldemote(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (c >> 25) & 1;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
__attribute__((target("cldemote"))) static void demote_all(void) {
    for (size_t i = 0; i < words; i += LINE / sizeof(uint64_t)) _cldemote(buffer + i);
}
#else
static void demote_all(void) {}
#endif

static void fill(uint64_t seed) {
    for (size_t i = 0; i < words; i++) buffer[i] = seed + i;
}

/// One add per word, in eight independent lanes (a line's words), so that the loop waits on
/// memory rather than on its own additions.
static uint64_t sum(void) {
    uint64_t lanes[8] = {0};
    for (size_t i = 0; i < words; i += 8) {
        for (size_t j = 0; j < 8; j++) lanes[j] += buffer[i + j];
    }
    uint64_t s = 0;
    for (size_t j = 0; j < 8; j++) s += lanes[j];
    return s;
}

/// Fills the buffer whenever it is the writer's turn (odd), then hands it back (even).
static void *writer(void *unused) {
    (void)unused;
    if (pin_to(writer_cpu) != 0) return (void *)1;
    for (int t = 0; t < TURNS; t++) {
        while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * t + 1) {}
        fill((uint64_t)t);
        if (demote) {
            const uint64_t started = nanoseconds_now();
            demote_all();
            demote_ns[t] = nanoseconds_now() - started;
        }
        atomic_store_explicit(&turn, 2 * t + 2, memory_order_release);
    }
    return NULL;
}

static int by_value(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_per_line(uint64_t *ns) {
    qsort(ns, TURNS, sizeof ns[0], by_value);
    return (double)ns[TURNS / 2] / (double)(words * sizeof(uint64_t) / LINE);
}

/// Times the reader's sums: of the other CPU's writes (cross = 1) or of its own (cross = 0).
static int measure(size_t kib, int cross, int demoted) {
    words = kib * 1024 / sizeof(uint64_t);
    demote = demoted;
    uint64_t ns[TURNS];
    atomic_store(&turn, 0);
    pthread_t thread;
    if (cross && pthread_create(&thread, NULL, writer, NULL) != 0) return 1;
    for (int t = 0; t < TURNS; t++) {
        if (cross) {
            atomic_store_explicit(&turn, 2 * t + 1, memory_order_release);
            while (atomic_load_explicit(&turn, memory_order_acquire) != 2 * t + 2) {}
        } else {
            fill((uint64_t)t);
        }
        const uint64_t started = nanoseconds_now();
        sink = sum();
        ns[t] = nanoseconds_now() - started;
    }
    if (cross) {
        void *failed = NULL;
        pthread_join(thread, &failed);
        if (failed != NULL) {
            fprintf(stderr, "cannot run on CPU %d\n", writer_cpu);
            return 1;
        }
    }
    const char *what = !cross ? "own writes" : demoted ? "other CPU's, demoted" : "other CPU's writes";
    printf("%4zu KiB  %-22s read %6.2f ns/line", kib, what, median_per_line(ns));
    if (demoted) printf("   (writer's demotes %.2f ns/line)", median_per_line(demote_ns));
    printf("\n");
    return 0;
}

int main(int argc, char **argv) {
    const int reader_cpu = argc > 1 ? atoi(argv[1]) : 0;
    writer_cpu = argc > 2 ? atoi(argv[2]) : 1;
    if (reader_cpu < 0 || writer_cpu < 0 || reader_cpu == writer_cpu) {
        fprintf(stderr, "usage: cross_core_reads [reader cpu] [writer cpu, not the reader's]\n");
        return 2;
    }
    if (pin_to(reader_cpu) != 0) {
        fprintf(stderr, "cannot run on CPU %d\n", reader_cpu);
        return 1;
    }
    const size_t sizes[] = {16, 64, 256};
    buffer = aligned_alloc(LINE, 256 * 1024);
    if (buffer == NULL) return 1;
    memset(buffer, 0, 256 * 1024);
    const int demotes = has_cldemote();
    printf("reader CPU %d, writer CPU %d; CLDEMOTE %s\n", reader_cpu, writer_cpu, demotes ? "available" : "not available");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (measure(sizes[s], 0, 0) || measure(sizes[s], 1, 0)) return 1;
        if (demotes && measure(sizes[s], 1, 1)) return 1;
    }
    free(buffer);
    return 0;
}
