// Where the thread pool's worker runs after the pool has slept, as in a live app between a
// camera's frames: for each of 8 "frames", waits `pause_ms` (long enough for the worker to go to
// sleep), then runs 40 jobs of a 56x56x144 depthwise convolution back to back. After every 4th
// job, a small probe job records the CPU of the caller and of the worker (none when the worker
// took no part in it). Prints the counts and the median job time, first jobs of a frame apart.
// Built and run by scripts/dev/pool-placement. Linux only (sched_getcpu).
#define _GNU_SOURCE
#include "ck_nn.h"
#include "monotonic_clock.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ck_thread_slot(void);

enum { FRAMES = 8, JOBS = 40, PROBE_EVERY = 4 };

static int probe_cpu[2];

/// A few microseconds of arithmetic per unit, so that a worker that is running joins in.
static void probe(void *context, size_t begin, size_t end) {
    (void)context;
    volatile float a = 1;
    for (size_t unit = begin; unit < end; unit++) {
        for (int k = 0; k < 500; k++) a = a * 0.999f + 0.001f;
    }
    int slot = ck_thread_slot();
    if (slot >= 0 && slot < 2) probe_cpu[slot] = sched_getcpu();
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const int pause_ms = argc > 1 ? atoi(argv[1]) : 30;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        fprintf(stderr, "pool-placement: needs 2 CPUs or more\n");
        return 1;
    }
    const size_t side = 56, channels = 144, taps = 9;
    float *input = aligned_alloc(64, side * side * channels * sizeof(float));
    float *output = aligned_alloc(64, side * side * channels * sizeof(float));
    float *weights = malloc(taps * channels * sizeof(float));
    float *packed = aligned_alloc(64, (ck_dwconv_packed_size(channels, taps) * sizeof(float) + 63) / 64 * 64);
    if (!input || !output || !weights || !packed) return 1;
    for (size_t i = 0; i < side * side * channels; i++) input[i] = (float)(i % 17) * 0.1f;
    for (size_t i = 0; i < taps * channels; i++) weights[i] = (float)(i % 5) * 0.1f;
    ck_dwconv_pack(channels, taps, weights, NULL, packed);
    ck_dwconv_params p = {
        .batch = 1, .in_h = side, .in_w = side, .channels = channels, .out_h = side, .out_w = side,
        .kernel_h = 3, .kernel_w = 3, .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1,
        .pad_top = 1, .pad_left = 1, .input = input, .packed = packed, .output = output,
        .out_min = 0, .out_max = 6, .line_spans = -1, // as the geometry says, as in the models
    };
    ck_threadpool *pool = ck_threadpool_create(2);
    if (!pool) return 1;
    int samples = 0, absent = 0, shared = 0;
    double first[FRAMES], rest[FRAMES * (JOBS - 1)];
    int rest_count = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        usleep((useconds_t)pause_ms * 1000);
        for (int job = 0; job < JOBS; job++) {
            const uint64_t start = nanoseconds_now();
            ck_dwconv(&p, pool);
            const double elapsed = (double)(nanoseconds_now() - start) * 1e-9;
            if (job == 0) first[frame] = elapsed; else rest[rest_count++] = elapsed;
            if (job % PROBE_EVERY == 0) {
                probe_cpu[0] = probe_cpu[1] = -1;
                ck_parallel_for(pool, 64, probe, NULL);
                samples++;
                if (probe_cpu[1] < 0) absent++;
                else if (probe_cpu[1] == probe_cpu[0]) shared++;
            }
        }
    }
    qsort(first, FRAMES, sizeof(double), compare);
    qsort(rest, (size_t)rest_count, sizeof(double), compare);
    printf("%d ms pauses: of %d sampled jobs, the worker took no part in %d and shared the caller's CPU in %d; "
           "median job %.0f us (first of a frame %.0f us)\n",
           pause_ms, samples, absent, shared, rest[rest_count / 2] * 1e6, first[FRAMES / 2] * 1e6);
    ck_threadpool_destroy(pool);
    free(input);
    free(output);
    free(weights);
    free(packed);
    return 0;
}
