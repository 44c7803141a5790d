// What the two-CPU timing tools (core_to_core.c, cross_core_reads.c) share: the monotonic clock
// (monotonic_clock.h) and pinning the calling thread to one CPU. Linux only (CPU affinity).
#ifndef VISIONTASKS_DEV_PINNED_THREADS_H
#define VISIONTASKS_DEV_PINNED_THREADS_H

#include "monotonic_clock.h"
#include <pthread.h>
#include <sched.h>

/// Runs the calling thread on `cpu` only; 0 on success.
static int pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

#endif
