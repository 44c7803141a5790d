// What the two-CPU timing tools (core_to_core.c, cross_core_reads.c) share: a monotonic clock
// in nanoseconds and pinning the calling thread to one CPU. Linux only (CPU affinity).
#ifndef VISIONTASKS_DEV_PINNED_THREADS_H
#define VISIONTASKS_DEV_PINNED_THREADS_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

static uint64_t nanoseconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/// Runs the calling thread on `cpu` only; 0 on success.
static int pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

#endif
