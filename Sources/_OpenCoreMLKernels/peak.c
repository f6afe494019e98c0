/*
 * peak.c — the multiply-add rate the cores sustain when nothing but independent fused
 * multiply-adds run: the yardstick for "the FMA limit" that BENCHMARKS.md measures training
 * against, on the machine at hand (`opencoreml bench fma`). Twelve independent chains per thread,
 * enough to cover the FMA latency on two pipes, in registers of the instruction set in use.
 */
#include "ocm_internal.h"

#include <time.h>

#if OCM_X86
#include <immintrin.h>
#endif

enum { CHAINS = 12 };

static double monotonic_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Each returns the chains' sum, and takes its constants at run time, so that the compiler keeps
 * the work (with constants it folded the whole loop away); flops per iteration are
 * CHAINS × lanes × 2. */
#if OCM_X86
OCM_TARGET_AVX512 static float chains_avx512(long iterations, float scale, float shift) {
    __m512 acc[CHAINS];
    for (int j = 0; j < CHAINS; j++) acc[j] = _mm512_set1_ps(1.0f + 0.01f * (float)j);
    const __m512 m = _mm512_set1_ps(scale), c = _mm512_set1_ps(shift);
    for (long i = 0; i < iterations; i++) {
        for (int j = 0; j < CHAINS; j++) acc[j] = _mm512_fmadd_ps(acc[j], m, c);
    }
    float sum = 0.0f;
    for (int j = 0; j < CHAINS; j++) sum += _mm512_reduce_add_ps(acc[j]);
    return sum;
}

OCM_TARGET_AVX2 static float chains_avx2(long iterations, float scale, float shift) {
    __m256 acc[CHAINS];
    for (int j = 0; j < CHAINS; j++) acc[j] = _mm256_set1_ps(1.0f + 0.01f * (float)j);
    const __m256 m = _mm256_set1_ps(scale), c = _mm256_set1_ps(shift);
    for (long i = 0; i < iterations; i++) {
        for (int j = 0; j < CHAINS; j++) acc[j] = _mm256_fmadd_ps(acc[j], m, c);
    }
    float lanes[8], sum = 0.0f;
    for (int j = 0; j < CHAINS; j++) {
        _mm256_storeu_ps(lanes, acc[j]);
        for (int l = 0; l < 8; l++) sum += lanes[l];
    }
    return sum;
}
#endif

/* 16-float vectors of the compiler's vector extension: NEON registers on AArch64, the baseline
 * SIMD elsewhere (the scalar level's yardstick). */
static float chains_portable(long iterations, float scale, float shift) {
    ocm_v16 acc[CHAINS];
    for (int j = 0; j < CHAINS; j++) {
        const float v = 1.0f + 0.01f * (float)j;
        acc[j] = (ocm_v16){v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v};
    }
    for (long i = 0; i < iterations; i++) {
        for (int j = 0; j < CHAINS; j++) acc[j] = acc[j] * scale + shift;
    }
    float sum = 0.0f;
    for (int j = 0; j < CHAINS; j++) {
        for (int l = 0; l < 16; l++) sum += acc[j][l];
    }
    return sum;
}

typedef struct peak_job {
    int isa;
    long iterations;
    float scale, shift;
    float sink[64];
} peak_job;

static void peak_part(void *raw, int part, int nparts) {
    (void)nparts;
    peak_job *job = raw;
    float sum;
    switch (job->isa) {
#if OCM_X86
    case OCM_ISA_AVX512: sum = chains_avx512(job->iterations, job->scale, job->shift); break;
    case OCM_ISA_AVX2: sum = chains_avx2(job->iterations, job->scale, job->shift); break;
#endif
    default: sum = chains_portable(job->iterations, job->scale, job->shift); break;
    }
    job->sink[part % 64] = sum;
}

static int lanes_of(int isa) {
    switch (isa) {
#if OCM_X86
    case OCM_ISA_AVX512: return 16;
    case OCM_ISA_AVX2: return 8;
#endif
    default: return 16;
    }
}

double ocm_fma_peak_gflops(double seconds) {
    /* Opaque to the compiler: read at run time. */
    volatile float scale = 0.9999999f, shift = 1e-7f;
    peak_job job = {.isa = ocm_isa(), .iterations = 1 << 16, .scale = scale, .shift = shift};
    const int threads = ocm_num_threads();
    /* Grow the loop until one run takes a tenth of the time asked for, then time runs until it
     * is spent; the fastest run counts (the others met interruptions). */
    double best = 0.0, spent = 0.0;
    while (spent < seconds) {
        const double start = monotonic_seconds();
        ocm_run_parts(threads, peak_part, &job);
        const double elapsed = monotonic_seconds() - start;
        spent += elapsed;
        if (elapsed < seconds / 10 && job.iterations < (1L << 40)) {
            job.iterations *= 2;
            continue;
        }
        const double flops = (double)threads * (double)job.iterations * CHAINS * lanes_of(job.isa) * 2.0;
        if (flops / elapsed > best) best = flops / elapsed;
    }
    return best / 1e9;
}
