// The monotonic clock in nanoseconds that the dev tools time with (scripts/dev/*.c).
#ifndef VISIONTASKS_DEV_MONOTONIC_CLOCK_H
#define VISIONTASKS_DEV_MONOTONIC_CLOCK_H

#include <stdint.h>
#include <time.h>

static uint64_t nanoseconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
