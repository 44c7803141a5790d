// A persistent worker pool: workers spin briefly between jobs (an interpreter runs a job per
// operator, microseconds apart) and sleep on a condition variable when idle.
#include "ck_internal.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

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

int ck_thread_slot(void) { return tls_slot; }

typedef struct worker_start {
    struct ck_threadpool *pool;
    int slot;
} worker_start;

struct ck_threadpool {
    int threads;
    pthread_t *workers;
    worker_start *starts;
    int started;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    pthread_cond_t done;
    atomic_int stop;

    // The current job. fn/context/count/chunks are written by the caller before it publishes
    // a new generation and stay fixed until every chunk of that job has completed.
    ck_range_fn fn;
    void *context;
    size_t count;
    size_t chunks;
    /// (generation << 32) | (head << 16) | tail: chunks [head, tail) are unclaimed. The calling
    /// thread claims from the head and workers from the tail, so each thread keeps working on
    /// the same part of every operator's output (its data stays in that core's caches) while
    /// the two ends still meet wherever the work balances.
    _Atomic uint64_t claim;
    atomic_size_t completed;
    atomic_uint generation;
};

static void chunk_bounds(const ck_threadpool *p, size_t chunk, size_t *begin, size_t *end) {
    size_t base = p->count / p->chunks, extra = p->count % p->chunks;
    *begin = chunk * base + CK_MIN(chunk, extra);
    *end = *begin + base + (chunk < extra ? 1 : 0);
}

/// Claims and runs chunks of job `generation` until none are left, from the head (the caller)
/// or from the tail (workers).
static void run_chunks(ck_threadpool *p, unsigned generation, int from_tail) {
    for (;;) {
        uint64_t current = atomic_load_explicit(&p->claim, memory_order_acquire);
        if ((unsigned)(current >> 32) != generation) return;
        size_t head = (size_t)((current >> 16) & 0xffffu), tail = (size_t)(current & 0xffffu);
        if (head >= tail) return;
        size_t chunk;
        uint64_t next;
        if (from_tail) {
            chunk = tail - 1;
            next = (current & ~(uint64_t)0xffffu) | (uint64_t)(tail - 1);
        } else {
            chunk = head;
            next = (current & ~((uint64_t)0xffffu << 16)) | ((uint64_t)(head + 1) << 16);
        }
        if (!atomic_compare_exchange_weak_explicit(&p->claim, &current, next,
                                                   memory_order_acq_rel, memory_order_acquire)) {
            continue;
        }
        // The claimed chunk is not complete, so the job's fields are stable.
        size_t begin, end;
        chunk_bounds(p, chunk, &begin, &end);
        p->fn(p->context, begin, end);
        size_t finished = atomic_fetch_add_explicit(&p->completed, 1, memory_order_acq_rel) + 1;
        if (finished == p->chunks) {
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
        unsigned g = atomic_load_explicit(&p->generation, memory_order_acquire);
        int spins = 0;
        while (g == seen && !atomic_load_explicit(&p->stop, memory_order_acquire)) {
            if (!ck_wait_step(&spins)) {
                pthread_mutex_lock(&p->mutex);
                while ((g = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen &&
                       !atomic_load_explicit(&p->stop, memory_order_acquire)) {
                    pthread_cond_wait(&p->wake, &p->mutex);
                }
                pthread_mutex_unlock(&p->mutex);
                break;
            }
            g = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
        seen = g;
        run_chunks(p, g, 1);
    }
}

ck_threadpool *ck_threadpool_create(int thread_count) {
    if (thread_count < 1) thread_count = 1;
    ck_threadpool *p = (ck_threadpool *)calloc(1, sizeof(ck_threadpool));
    if (p == NULL) return NULL;
    p->threads = thread_count;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->stop, 0);
    atomic_init(&p->claim, 0);
    atomic_init(&p->completed, 0);
    atomic_init(&p->generation, 0);
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
    atomic_store_explicit(&p->stop, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 0; i < p->started; i++) pthread_join(p->workers[i], NULL);
    free(p->workers);
    free(p->starts);
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p);
}

int ck_threadpool_thread_count(const ck_threadpool *p) { return p == NULL ? 1 : p->threads; }

void ck_parallel_for(ck_threadpool *p, size_t count, ck_range_fn fn, void *context) {
    if (count == 0) return;
    if (p == NULL || p->threads <= 1 || count == 1) {
        fn(context, 0, count);
        return;
    }
    size_t chunks = (size_t)p->threads * 8;
    if (chunks > count) chunks = count;
    if (chunks > 0xffffu) chunks = 0xffffu;
    p->fn = fn;
    p->context = context;
    p->count = count;
    p->chunks = chunks;
    atomic_store_explicit(&p->completed, 0, memory_order_relaxed);
    unsigned generation = atomic_load_explicit(&p->generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&p->claim, ((uint64_t)generation << 32) | (uint64_t)chunks, memory_order_release);
    pthread_mutex_lock(&p->mutex);
    atomic_store_explicit(&p->generation, generation, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);

    run_chunks(p, generation, 0);

    int spins = 0;
    while (atomic_load_explicit(&p->completed, memory_order_acquire) != chunks) {
        if (ck_wait_step(&spins)) continue;
        pthread_mutex_lock(&p->mutex);
        while (atomic_load_explicit(&p->completed, memory_order_acquire) != chunks) {
            pthread_cond_wait(&p->done, &p->mutex);
        }
        pthread_mutex_unlock(&p->mutex);
        break;
    }
}
