// How long a cache line takes to go from one CPU to another and back: two threads pinned to
// CPUs A and B pass a counter back and forth through two cache lines, 200,000 times per sample.
// On a machine of its own the figure is steady (tens of ns between cores that share a cache,
// about 100 or more across dies); on a virtual machine it changes as the host moves the guest's
// CPUs between its cores, dies and sockets, and with it what data written by one thread and
// read by the other costs. Prints one line per sample. Built and run by scripts/dev/core-to-core.
// Linux only (CPU affinity).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pinned_threads.h"

enum { PASSES = 200000 };

static _Alignas(64) atomic_int ping;
static _Alignas(64) atomic_int pong;
static int partner_cpu;

/// Answers every ping with the same number on the other line.
static void *partner(void *unused) {
    (void)unused;
    if (pin_to(partner_cpu) != 0) return (void *)1;
    for (int i = 1; i <= PASSES; i++) {
        while (atomic_load_explicit(&ping, memory_order_acquire) != i) {}
        atomic_store_explicit(&pong, i, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv) {
    const int samples = argc > 1 ? atoi(argv[1]) : 20;
    const int cpu_a = argc > 2 ? atoi(argv[2]) : 0;
    partner_cpu = argc > 3 ? atoi(argv[3]) : 1;
    if (samples < 1 || samples > 10000 || cpu_a < 0 || partner_cpu < 0 || cpu_a == partner_cpu) {
        fprintf(stderr, "usage: core_to_core [samples 1-10000] [cpu A] [cpu B, not A]\n");
        return 2;
    }
    if (pin_to(cpu_a) != 0) {
        fprintf(stderr, "cannot run on CPU %d\n", cpu_a);
        return 1;
    }
    for (int sample = 0; sample < samples; sample++) {
        atomic_store(&ping, 0);
        atomic_store(&pong, 0);
        pthread_t thread;
        if (pthread_create(&thread, NULL, partner, NULL) != 0) return 1;
        const uint64_t started = nanoseconds_now();
        for (int i = 1; i <= PASSES; i++) {
            atomic_store_explicit(&ping, i, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) != i) {}
        }
        const uint64_t elapsed = nanoseconds_now() - started;
        void *failed = NULL;
        pthread_join(thread, &failed);
        if (failed != NULL) {
            fprintf(stderr, "cannot run on CPU %d\n", partner_cpu);
            return 1;
        }
        printf("CPU %d <-> %d: round trip %.1f ns\n", cpu_a, partner_cpu, (double)elapsed / PASSES);
        fflush(stdout);
        const struct timespec pause = {0, 200000000};
        nanosleep(&pause, NULL);
    }
    return 0;
}
