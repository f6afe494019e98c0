/*
 * threads.c — a persistent pool of worker threads. A job is a function run once per "part".
 * Parts are claimed one at a time by whichever thread is free — the caller included — so a
 * worker the OS has not scheduled yet (a loaded machine) holds nothing up: the caller runs the
 * parts itself and waits only for parts a worker has actually started. Workers spin briefly
 * after a job (kernels come in bursts), then sleep on a condition variable. One job at a time:
 * a call made while the pool is busy, or from inside a job, runs serially on its own thread.
 */
#include "ocm_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_relax(void) { _mm_pause(); }
#elif defined(__aarch64__)
static inline void cpu_relax(void) { __asm__ __volatile__("yield"); }
#else
static inline void cpu_relax(void) {}
#endif

enum {
    /* pause loops (~60 µs) before a worker sleeps: enough to catch the next kernel of a
     * training step, short enough not to take a loaded machine's time from the caller */
    WORKER_SPINS = 1 << 12,
    CALLER_SPINS = 1 << 12, /* pause loops before a waiting caller starts yielding */
    MAX_THREADS = 256,
};

typedef struct pool {
    int nthreads;       /* threads running jobs, the caller included (read under pool_busy) */
    pthread_t *workers; /* nthreads − 1 */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    atomic_uint generation; /* bumped once per job */
    atomic_int sleepers;    /* workers waiting on `wake` */
    /* The current job's claims: generation << 32 | nparts << 16 | next part to hand out. A
     * thread may run a part only after claiming it here for the generation it is working on. */
    _Atomic uint64_t claims;
    atomic_int completed; /* parts of the current job finished */
    atomic_bool stopping;
    unsigned first_generation; /* the generation when the workers were started */
    /* The current job (written by the caller before bumping `generation`). */
    ocm_part_fn fn;
    void *ctx;
    int nparts;
} pool;

static pool the_pool = {
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
};
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static atomic_flag pool_busy = ATOMIC_FLAG_INIT; /* held while submitting or resizing */
static atomic_int pool_threads = 1;              /* the_pool.nthreads, readable any time */
static _Thread_local bool inside_job;            /* nested calls run serially */

enum { MAX_PARTS = 0xFFFF };

static inline uint64_t claims_word(unsigned generation, int nparts) {
    return (uint64_t)generation << 32 | (uint64_t)nparts << 16;
}

/* Claims the next part of job `generation`; −1 when every part is taken or the job is over. */
static int claim_part(pool *p, unsigned generation, int *nparts) {
    uint64_t word = atomic_load_explicit(&p->claims, memory_order_acquire);
    for (;;) {
        if ((unsigned)(word >> 32) != generation) return -1;
        int total = (int)((word >> 16) & MAX_PARTS), next = (int)(word & MAX_PARTS);
        if (next >= total) return -1;
        if (atomic_compare_exchange_weak_explicit(&p->claims, &word, word + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *nparts = total;
            return next;
        }
    }
}

/* Runs parts of job `generation` until none is left. A successful claim means the job was not
 * finished, so `fn` and `ctx` (read before, after seeing the generation) are still its own. */
static void run_claimed_parts(pool *p, unsigned generation, ocm_part_fn fn, void *ctx) {
    int part, nparts;
    while ((part = claim_part(p, generation, &nparts)) >= 0) {
        fn(ctx, part, nparts);
        atomic_fetch_add_explicit(&p->completed, 1, memory_order_release);
    }
}

static void *worker_main(void *raw) {
    (void)raw;
    pool *p = &the_pool;
    inside_job = true;
    unsigned seen = p->first_generation;
    for (;;) {
        unsigned now;
        int spins = 0;
        while ((now = atomic_load_explicit(&p->generation, memory_order_acquire)) == seen) {
            if (++spins < WORKER_SPINS) {
                cpu_relax();
                continue;
            }
            pthread_mutex_lock(&p->mutex);
            atomic_fetch_add(&p->sleepers, 1);
            while (atomic_load(&p->generation) == seen) pthread_cond_wait(&p->wake, &p->mutex);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mutex);
            spins = 0;
        }
        seen = now;
        if (atomic_load_explicit(&p->stopping, memory_order_acquire)) break;
        run_claimed_parts(p, now, p->fn, p->ctx);
    }
    return NULL;
}

static void bump_generation(pool *p) {
    atomic_fetch_add(&p->generation, 1); /* seq_cst: pairs with the sleepers check below */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mutex);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mutex);
    }
}

static int default_threads(void) {
    const char *env = getenv("OPENCOREML_NUM_THREADS");
    if (env != NULL) {
        int n = atoi(env);
        if (n > 0) return OCM_MIN(n, MAX_THREADS);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)OCM_MIN(n, MAX_THREADS);
}

/* Starts nthreads − 1 workers; on failure keeps the ones that started. */
static void pool_start(pool *p, int nthreads) {
    p->nthreads = 1;
    p->workers = NULL;
    atomic_store(&p->stopping, false);
    p->first_generation = atomic_load(&p->generation);
    if (nthreads <= 1) return;
    p->workers = malloc(sizeof(pthread_t) * (size_t)(nthreads - 1));
    if (p->workers == NULL) return;
    for (int t = 1; t < nthreads; t++) {
        if (pthread_create(&p->workers[t - 1], NULL, worker_main, (void *)(intptr_t)t) != 0) break;
        p->nthreads = t + 1;
    }
}

static void pool_stop(pool *p) {
    if (p->nthreads > 1) {
        atomic_store(&p->stopping, true);
        bump_generation(p);
        for (int t = 1; t < p->nthreads; t++) pthread_join(p->workers[t - 1], NULL);
    }
    free(p->workers);
    p->workers = NULL;
    p->nthreads = 1;
}

static void pool_init(void) {
    pool_start(&the_pool, default_threads());
    atomic_store(&pool_threads, the_pool.nthreads);
}

static void acquire_pool(void) {
    while (atomic_flag_test_and_set_explicit(&pool_busy, memory_order_acquire)) sched_yield();
}

static void release_pool(void) { atomic_flag_clear_explicit(&pool_busy, memory_order_release); }

int ocm_num_threads(void) {
    pthread_once(&pool_once, pool_init);
    return atomic_load_explicit(&pool_threads, memory_order_relaxed);
}

void ocm_set_num_threads(int n) {
    assert(!inside_job && "ocm_set_num_threads called from inside a parallel job");
    pthread_once(&pool_once, pool_init);
    if (n <= 0) n = default_threads();
    n = OCM_MIN(n, MAX_THREADS);
    acquire_pool();
    if (n != the_pool.nthreads) {
        pool_stop(&the_pool);
        pool_start(&the_pool, n);
        atomic_store(&pool_threads, the_pool.nthreads);
    }
    release_pool();
}

void ocm_run_parts(int nparts, ocm_part_fn fn, void *ctx) {
    assert(fn != NULL && nparts >= 0);
    if (nparts <= 0) return;
    pool *p = &the_pool;
    pthread_once(&pool_once, pool_init);
    if (nparts == 1 || inside_job ||
        atomic_flag_test_and_set_explicit(&pool_busy, memory_order_acquire)) {
        for (int part = 0; part < nparts; part++) fn(ctx, part, nparts);
        return;
    }
    if (p->nthreads == 1) {
        release_pool();
        for (int part = 0; part < nparts; part++) fn(ctx, part, nparts);
        return;
    }
    assert(nparts <= MAX_PARTS);
    p->fn = fn;
    p->ctx = ctx;
    p->nparts = nparts;
    atomic_store_explicit(&p->completed, 0, memory_order_relaxed);
    unsigned generation = atomic_load_explicit(&p->generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&p->claims, claims_word(generation, nparts), memory_order_release);
    bump_generation(p);

    inside_job = true;
    run_claimed_parts(p, generation, fn, ctx);
    inside_job = false;

    int spins = 0;
    while (atomic_load_explicit(&p->completed, memory_order_acquire) < nparts) {
        if (++spins < CALLER_SPINS) cpu_relax();
        else sched_yield();
    }
    release_pool();
}

bool ocm_inside_parallel_job(void) { return inside_job; }

typedef struct range_job {
    size_t count;
    ocm_range_fn fn;
    void *ctx;
} range_job;

static void range_part(void *raw, int part, int nparts) {
    const range_job *job = raw;
    size_t begin = job->count * (size_t)part / (size_t)nparts;
    size_t end = job->count * (size_t)(part + 1) / (size_t)nparts;
    if (begin < end) job->fn(job->ctx, begin, end);
}

void ocm_parallel_for_grain(size_t count, size_t grain, ocm_range_fn fn, void *ctx) {
    assert(fn != NULL);
    if (count == 0) return;
    if (grain == 0) grain = 1;
    size_t chunks = count / grain;
    int threads = ocm_num_threads();
    int nparts = chunks < (size_t)threads ? (int)(chunks > 0 ? chunks : 1) : threads;
    if (nparts <= 1 || inside_job) {
        fn(ctx, 0, count);
        return;
    }
    range_job job = {count, fn, ctx};
    ocm_run_parts(nparts, range_part, &job);
}

void ocm_parallel_for(size_t count, ocm_range_fn fn, void *ctx) {
    ocm_parallel_for_grain(count, 1, fn, ctx);
}

typedef struct dynamic_job {
    size_t count;
    atomic_size_t next;
    ocm_index_fn fn;
    void *ctx;
} dynamic_job;

static void dynamic_part(void *raw, int part, int nparts) {
    (void)nparts;
    dynamic_job *job = raw;
    for (;;) {
        size_t index = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (index >= job->count) break;
        job->fn(job->ctx, part, index);
    }
}

void ocm_parallel_dynamic(size_t count, ocm_index_fn fn, void *ctx) {
    ocm_parallel_dynamic_slots(count, INT32_MAX, fn, ctx);
}

void ocm_parallel_dynamic_slots(size_t count, int slots, ocm_index_fn fn, void *ctx) {
    assert(fn != NULL && slots >= 1);
    if (count == 0) return;
    int threads = OCM_MIN(ocm_num_threads(), slots);
    if (threads <= 1 || count == 1 || inside_job) {
        for (size_t index = 0; index < count; index++) fn(ctx, 0, index);
        return;
    }
    dynamic_job job = {.count = count, .fn = fn, .ctx = ctx};
    atomic_init(&job.next, 0);
    ocm_run_parts((int)OCM_MIN((size_t)threads, count), dynamic_part, &job);
}
