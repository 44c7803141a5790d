// A persistent worker pool: workers spin briefly between jobs (an interpreter runs a job per
// operator, microseconds apart) and sleep on a condition variable when idle.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE // sched_getcpu, pthread_setaffinity_np
#endif
#include "ck_internal.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(CK_HAVE_X86)
#define CK_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define CK_PAUSE() __asm__ __volatile__("yield")
#else
#define CK_PAUSE() ((void)0)
#endif

/// Waiting is done in three phases: a few pause instructions (operators follow each other
/// within microseconds), then yielding the CPU (so a waiting thread never takes time from a
/// runnable one when the machine is busy), then sleeping on a condition variable.
#define CK_PAUSE_ITERATIONS 2048
#define CK_YIELD_ITERATIONS 2000

/// The claim word holds (generation << 48) | (head << 24) | tail, in units of `grain` indices.
#define CK_CLAIM_BITS 24
#define CK_CLAIM_MASK ((uint64_t)0xffffffu)
#define CK_CACHE_LINE 64

/// The generation as the claim word holds it (its low 16 bits: a claim is only ever compared
/// with the word it was read from, so wrapping is harmless).
static inline uint64_t claim_tag(unsigned generation) {
    return (uint64_t)generation & (((uint64_t)1 << (64 - 2 * CK_CLAIM_BITS)) - 1);
}

/// One step of waiting; returns 0 once the thread should block instead.
static inline int ck_wait_step(int *iteration) {
    int i = (*iteration)++;
    if (i < CK_PAUSE_ITERATIONS) {
        CK_PAUSE();
        return 1;
    }
    if (i < CK_PAUSE_ITERATIONS + CK_YIELD_ITERATIONS) {
        sched_yield();
        return 1;
    }
    return 0;
}

/// The scratch slot of the running thread: 0 for the thread that calls ck_parallel_for, i for
/// worker i (1 ... threads - 1) of the pool it belongs to.
static _Thread_local int tls_slot = 0;

/// A thread's time in pieces of jobs (ck_threadpool_measure), alone on its cache line.
typedef struct ck_busy {
    _Alignas(CK_CACHE_LINE) _Atomic uint64_t nanoseconds;
} ck_busy;

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int ck_thread_slot(void) { return tls_slot; }

uint64_t ck_call_serial(void) {
    static _Atomic uint64_t serials;
    return atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
}

/// A thread's buffers (ck_thread_buffer), allocated on its first request and freed with it.
typedef struct thread_buffers {
    float *floats[CK_THREAD_BUFFER_KINDS];
    size_t capacity[CK_THREAD_BUFFER_KINDS];
} thread_buffers;

static _Thread_local thread_buffers *tls_buffers;
static pthread_key_t buffers_key;
static pthread_once_t buffers_key_once = PTHREAD_ONCE_INIT;
static int buffers_key_made;

static void buffers_release(void *value) {
    thread_buffers *buffers = (thread_buffers *)value;
    for (int kind = 0; kind < CK_THREAD_BUFFER_KINDS; kind++) free(buffers->floats[kind]);
    free(buffers);
}

static void buffers_make_key(void) { buffers_key_made = pthread_key_create(&buffers_key, buffers_release) == 0; }

float *ck_thread_buffer(ck_thread_buffer_kind kind, size_t floats, int *grown) {
    if (grown != NULL) *grown = 0;
    if ((int)kind < 0 || kind >= CK_THREAD_BUFFER_KINDS || floats > SIZE_MAX / sizeof(float) - 64) return NULL;
    thread_buffers *buffers = tls_buffers;
    if (buffers == NULL) {
        pthread_once(&buffers_key_once, buffers_make_key);
        if (!buffers_key_made) return NULL;
        buffers = (thread_buffers *)calloc(1, sizeof *buffers);
        if (buffers == NULL) return NULL;
        if (pthread_setspecific(buffers_key, buffers) != 0) {
            free(buffers);
            return NULL;
        }
        tls_buffers = buffers;
    }
    if (buffers->capacity[kind] < floats || buffers->floats[kind] == NULL) {
        const size_t bytes = (CK_MAX(floats, (size_t)1) * sizeof(float) + 63) / 64 * 64;
        float *replacement = (float *)aligned_alloc(64, bytes);
        if (replacement == NULL) return NULL;
        free(buffers->floats[kind]);
        buffers->floats[kind] = replacement;
        buffers->capacity[kind] = bytes / sizeof(float);
        if (grown != NULL) *grown = 1;
    }
    return buffers->floats[kind];
}

typedef struct worker_start {
    struct ck_threadpool *pool;
    int slot;
} worker_start;

/// The current job. Written by the caller before it publishes a new generation; fixed until
/// every unit of that job has completed. Everything a worker reads to join a job shares one
/// cache line, so joining costs one transfer from the caller's core.
typedef struct ck_job {
    ck_range_fn fn;
    void *context;
    size_t count;
    /// Indices per unit (1 unless count does not fit the claim word) and the number of units.
    size_t grain, units;
    /// The threads that take part (slots 0 ... active - 1); read by workers as they join, like
    /// caller_cpu (relaxed).
    atomic_int active;
    /// Units [head, tail) are unclaimed. The calling thread claims from the head and workers
    /// from the tail, so each thread keeps working on the same part of every operator's output
    /// (its data stays in that core's caches) while the two ends meet wherever the work
    /// balances. Each claim takes a share of what is left (guided scheduling): large pieces
    /// first, single units where the ends meet, so no thread waits long for the last piece.
    _Atomic uint64_t claim;
    atomic_uint generation;
    /// The CPU the caller runs on (-1: unknown), read by workers as they join (a late worker
    /// may read the next job's: relaxed, a hint only).
    atomic_int caller_cpu;
} ck_job;

struct ck_threadpool {
    _Alignas(CK_CACHE_LINE) ck_job job;
    /// Units completed; the thread that completes the last wakes the caller if it sleeps.
    _Alignas(CK_CACHE_LINE) atomic_size_t completed;
    _Alignas(CK_CACHE_LINE) int threads;
    /// Threads that take part in the next job (ck_threadpool_set_active).
    atomic_int active;
    int started;
    pthread_t *workers;
    worker_start *starts;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    pthread_cond_t done;
    atomic_int stop;
    /// Workers that sleep (or are about to) on `wake`, and whether the caller sleeps on
    /// `done`: while nobody sleeps, starting and finishing a job touch no mutex.
    atomic_int sleepers;
    atomic_int caller_sleeps;
    /// Profiling (ck_threadpool_measure): whether on; each thread's time in pieces (`threads`
    /// entries), then the caller's time in jobs.
    atomic_int measuring;
    ck_busy *busy;
#if defined(__linux__)
    /// The CPUs the pool's threads may run on (read when the pool is made).
    cpu_set_t allowed;
    int allowed_count;
#endif
};

/// The CPU the running thread is on (-1 where that cannot be known).
static inline int current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/// The scheduler can leave a worker on the caller's CPU, where it runs only while the caller
/// waits. A worker woken from its sleep is often placed beside the thread that woke it (whose
/// caches are warm), and the caller then keeps that CPU busy until the job is done, until the
/// load balancer parts the two: on a 2-core virtual machine, with 30 ms pauses between runs of
/// jobs (a camera's frames), the worker took no part in 31 to 45 of 80 sampled jobs
/// (`scripts/dev/pool-placement`). So the caller steers the workers away from its CPU before
/// waking sleepers (their affinity narrowed to the other allowed CPUs; a sleeper widens its own
/// again as it wakes, a worker that was awake when it next sleeps, so the scheduler stays free to
/// place them later), and a worker that joins a job on the caller's CPU anyway (a caller that
/// slept may wake beside a spinning worker) moves itself the same way. System calls only on a
/// wake-up or a shared CPU; a CPU number read per job otherwise.
#if defined(__linux__)
/// Narrows `thread`'s affinity to the pool's allowed CPUs but `cpu`; 0 when it did.
static int keep_off_cpu(ck_threadpool *p, pthread_t thread, int cpu) {
    if (cpu < 0 || p->allowed_count < 2 || !CPU_ISSET(cpu, &p->allowed)) return -1;
    cpu_set_t others = p->allowed;
    CPU_CLR(cpu, &others);
    return pthread_setaffinity_np(thread, sizeof others, &others);
}

static void allow_every_cpu(ck_threadpool *p) {
    if (p->allowed_count >= 2) pthread_setaffinity_np(pthread_self(), sizeof p->allowed, &p->allowed);
}
#endif

/// Moves the calling worker off `caller`'s CPU when it is on it.
static void move_off_caller_cpu(ck_threadpool *p, int caller) {
#if defined(__linux__)
    if (caller < 0 || sched_getcpu() != caller) return;
    if (keep_off_cpu(p, pthread_self(), caller) == 0) allow_every_cpu(p);
#else
    (void)p;
    (void)caller;
#endif
}

/// Claims and runs pieces of job `generation` until none are left, from the head (the caller)
/// or from the tail (workers).
static void run_units(ck_threadpool *p, uint64_t generation, int from_tail) {
    const size_t share = 2 * (size_t)atomic_load_explicit(&p->job.active, memory_order_relaxed);
    for (;;) {
        uint64_t current = atomic_load_explicit(&p->job.claim, memory_order_acquire);
        if ((current >> (2 * CK_CLAIM_BITS)) != generation) return;
        size_t head = (size_t)((current >> CK_CLAIM_BITS) & CK_CLAIM_MASK), tail = (size_t)(current & CK_CLAIM_MASK);
        if (head >= tail) return;
        size_t take = (tail - head) / share;
        if (take == 0) take = 1;
        size_t first;
        uint64_t next;
        if (from_tail) {
            first = tail - take;
            next = (current & ~CK_CLAIM_MASK) | (uint64_t)first;
        } else {
            first = head;
            next = (current & ~(CK_CLAIM_MASK << CK_CLAIM_BITS)) | ((uint64_t)(head + take) << CK_CLAIM_BITS);
        }
        if (!atomic_compare_exchange_weak_explicit(&p->job.claim, &current, next,
                                                   memory_order_acq_rel, memory_order_acquire)) {
            continue;
        }
        // The claimed units are not complete, so the job's fields are stable until they are.
        const size_t units = p->job.units, grain = p->job.grain, count = p->job.count;
        const size_t begin = first * grain, end = CK_MIN(count, (first + take) * grain);
        const int measuring = atomic_load_explicit(&p->measuring, memory_order_relaxed);
        const uint64_t started = measuring ? monotonic_ns() : 0;
        p->job.fn(p->job.context, begin, end);
        if (measuring && tls_slot < p->threads) {
            atomic_fetch_add_explicit(&p->busy[tls_slot].nanoseconds, monotonic_ns() - started, memory_order_relaxed);
        }
        size_t finished = atomic_fetch_add(&p->completed, take) + take;
        if (finished == units && atomic_load(&p->caller_sleeps)) {
            pthread_mutex_lock(&p->mutex);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mutex);
        }
    }
}

static void *worker_main(void *arg) {
    const worker_start *start = (const worker_start *)arg;
    ck_threadpool *p = start->pool;
    tls_slot = start->slot;
    // Generations start at 0 when the pool is made; a worker that starts late still sees the
    // first job as new (reading the current generation here could skip it).
    unsigned seen = 0;
    for (;;) {
        unsigned g = atomic_load_explicit(&p->job.generation, memory_order_acquire);
        int spins = 0;
        while (g == seen && !atomic_load_explicit(&p->stop, memory_order_acquire)) {
            if (!ck_wait_step(&spins)) {
                // Announced before the generation is read again, so a caller that publishes
                // after that read sees a sleeper and wakes it (both sides are sequentially
                // consistent).
                pthread_mutex_lock(&p->mutex);
                atomic_fetch_add(&p->sleepers, 1);
                while ((g = atomic_load(&p->job.generation)) == seen && !atomic_load(&p->stop)) {
                    pthread_cond_wait(&p->wake, &p->mutex);
                }
                atomic_fetch_sub(&p->sleepers, 1);
                pthread_mutex_unlock(&p->mutex);
#if defined(__linux__)
                allow_every_cpu(p); // the caller may have steered it off its CPU
#endif
                break;
            }
            g = atomic_load_explicit(&p->job.generation, memory_order_acquire);
        }
        if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
        seen = g;
        // A worker beyond the active count sits the job out (a late worker may read the next
        // job's count: either way the caller's claims cover every unit).
        if (start->slot >= atomic_load_explicit(&p->job.active, memory_order_relaxed)) continue;
        move_off_caller_cpu(p, atomic_load_explicit(&p->job.caller_cpu, memory_order_relaxed));
        run_units(p, claim_tag(g), 1);
    }
}

ck_threadpool *ck_threadpool_create(int thread_count) {
    if (thread_count < 1) thread_count = 1;
    const size_t size = (sizeof(ck_threadpool) + CK_CACHE_LINE - 1) / CK_CACHE_LINE * CK_CACHE_LINE;
    ck_threadpool *p = (ck_threadpool *)aligned_alloc(CK_CACHE_LINE, size);
    if (p == NULL) return NULL;
    memset(p, 0, size);
    p->threads = thread_count;
    atomic_init(&p->active, thread_count);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->stop, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->caller_sleeps, 0);
    atomic_init(&p->completed, 0);
    atomic_init(&p->measuring, 0);
    p->busy = (ck_busy *)aligned_alloc(CK_CACHE_LINE, sizeof(ck_busy) * ((size_t)thread_count + 1));
    if (p->busy == NULL) {
        ck_threadpool_destroy(p);
        return NULL;
    }
    for (int i = 0; i <= thread_count; i++) atomic_init(&p->busy[i].nanoseconds, 0);
    atomic_init(&p->job.claim, 0);
    atomic_init(&p->job.generation, 0);
    atomic_init(&p->job.caller_cpu, -1);
    atomic_init(&p->job.active, thread_count);
#if defined(__linux__)
    CPU_ZERO(&p->allowed);
    if (sched_getaffinity(0, sizeof p->allowed, &p->allowed) == 0) p->allowed_count = CPU_COUNT(&p->allowed);
#endif
    if (thread_count > 1) {
        p->workers = (pthread_t *)calloc((size_t)thread_count - 1, sizeof(pthread_t));
        p->starts = (worker_start *)calloc((size_t)thread_count - 1, sizeof(worker_start));
        if (p->workers == NULL || p->starts == NULL) {
            ck_threadpool_destroy(p);
            return NULL;
        }
        for (int i = 0; i < thread_count - 1; i++) {
            p->starts[i].pool = p;
            p->starts[i].slot = i + 1;
            if (pthread_create(&p->workers[i], NULL, worker_main, &p->starts[i]) != 0) {
                ck_threadpool_destroy(p);
                return NULL;
            }
            p->started++;
        }
    }
    return p;
}

void ck_threadpool_destroy(ck_threadpool *p) {
    if (p == NULL) return;
    pthread_mutex_lock(&p->mutex);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 0; i < p->started; i++) pthread_join(p->workers[i], NULL);
    free(p->workers);
    free(p->starts);
    free(p->busy);
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p);
}

int ck_threadpool_thread_count(const ck_threadpool *p) {
    return p == NULL ? 1 : atomic_load_explicit(&p->active, memory_order_relaxed);
}

void ck_threadpool_set_active(ck_threadpool *p, int active) {
    if (p == NULL) return;
    atomic_store_explicit(&p->active, CK_MAX(1, CK_MIN(active, p->threads)), memory_order_relaxed);
}

void ck_threadpool_measure(ck_threadpool *p, int on) {
    if (p != NULL) atomic_store(&p->measuring, on != 0);
}

int ck_threadpool_busy_time(const ck_threadpool *p, uint64_t *jobs_ns, uint64_t *busy_ns, int capacity) {
    if (p == NULL) return 0;
    if (jobs_ns != NULL) *jobs_ns = atomic_load(&p->busy[p->threads].nanoseconds);
    for (int i = 0; busy_ns != NULL && i < capacity && i < p->threads; i++) busy_ns[i] = atomic_load(&p->busy[i].nanoseconds);
    return p->threads;
}

void ck_parallel_for(ck_threadpool *p, size_t count, ck_range_fn fn, void *context) {
    if (count == 0) return;
    const int active = p == NULL ? 1 : atomic_load_explicit(&p->active, memory_order_relaxed);
    if (active <= 1 || count == 1) {
        fn(context, 0, count);
        return;
    }
    const size_t grain = (count + CK_CLAIM_MASK - 1) / CK_CLAIM_MASK;
    const size_t units = (count + grain - 1) / grain;
    p->job.fn = fn;
    p->job.context = context;
    p->job.count = count;
    p->job.grain = grain;
    p->job.units = units;
    atomic_store_explicit(&p->job.active, active, memory_order_relaxed);
    const uint64_t started = atomic_load_explicit(&p->measuring, memory_order_relaxed) ? monotonic_ns() : 0;
    const int caller_cpu = current_cpu();
    atomic_store_explicit(&p->job.caller_cpu, caller_cpu, memory_order_relaxed);
    atomic_store_explicit(&p->completed, 0, memory_order_relaxed);
    const unsigned generation = atomic_load_explicit(&p->job.generation, memory_order_relaxed) + 1;
    const uint64_t tag = claim_tag(generation);
    atomic_store_explicit(&p->job.claim, (tag << (2 * CK_CLAIM_BITS)) | (uint64_t)units, memory_order_release);
    atomic_store(&p->job.generation, generation);
    if (atomic_load(&p->sleepers) > 0) {
#if defined(__linux__)
        for (int i = 0; i < p->started; i++) keep_off_cpu(p, p->workers[i], caller_cpu);
#endif
        pthread_mutex_lock(&p->mutex);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mutex);
    }

    run_units(p, tag, 0);

    int spins = 0;
    while (atomic_load_explicit(&p->completed, memory_order_acquire) != units) {
        if (ck_wait_step(&spins)) continue;
        // Announced before `completed` is read again, so the thread that completes the last
        // unit after that read sees it and signals.
        pthread_mutex_lock(&p->mutex);
        atomic_store(&p->caller_sleeps, 1);
        while (atomic_load(&p->completed) != units) pthread_cond_wait(&p->done, &p->mutex);
        atomic_store(&p->caller_sleeps, 0);
        pthread_mutex_unlock(&p->mutex);
        break;
    }
    if (started != 0) atomic_fetch_add_explicit(&p->busy[p->threads].nanoseconds, monotonic_ns() - started, memory_order_relaxed);
}
