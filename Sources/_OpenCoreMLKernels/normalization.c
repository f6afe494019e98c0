/*
 * normalization.c — layer normalization over the last axis (a transformer's LayerNorm), row by
 * row: the mean, then the variance about it (two passes, as exact as the definition), then one
 * scale-and-shift pass. Plain loops with several partial sums, which the compiler vectorises.
 */
#include "ocm_internal.h"

#include <math.h>

enum {
    LANES = 8,       /* partial sums per reduction */
    GRAIN = 1 << 13, /* elements per thread at least */
};

typedef struct layer_norm_job {
    const float *x;
    float *y;
    const float *gamma, *beta;
    int N, ldx, ldy;
    float epsilon;
} layer_norm_job;

/* Σ (x[i] − shift)² over n values, or Σ x[i] with square == false and shift 0. */
static float row_sum(const float *x, int n, float shift, bool square) {
    float partial[LANES] = {0};
    int i = 0;
    for (; i + LANES <= n; i += LANES) {
        for (int j = 0; j < LANES; j++) {
            const float d = x[i + j] - shift;
            partial[j] += square ? d * d : d;
        }
    }
    float total = 0.0f;
    for (; i < n; i++) {
        const float d = x[i] - shift;
        total += square ? d * d : d;
    }
    for (int j = 0; j < LANES; j++) total += partial[j];
    return total;
}

static void layer_norm_range(void *raw, size_t begin, size_t end) {
    const layer_norm_job *job = raw;
    const int n = job->N;
    for (size_t r = begin; r < end; r++) {
        const float *x = job->x + r * (size_t)job->ldx;
        float *y = job->y + r * (size_t)job->ldy;
        const float mean = row_sum(x, n, 0.0f, false) / (float)n;
        const float scale = 1.0f / sqrtf(row_sum(x, n, mean, true) / (float)n + job->epsilon);
        if (job->gamma && job->beta) {
            for (int i = 0; i < n; i++) y[i] = (x[i] - mean) * scale * job->gamma[i] + job->beta[i];
        } else if (job->gamma) {
            for (int i = 0; i < n; i++) y[i] = (x[i] - mean) * scale * job->gamma[i];
        } else if (job->beta) {
            for (int i = 0; i < n; i++) y[i] = (x[i] - mean) * scale + job->beta[i];
        } else {
            for (int i = 0; i < n; i++) y[i] = (x[i] - mean) * scale;
        }
    }
}

void ocm_layer_norm_rows(const float *x, float *y, const float *gamma, const float *beta, int M, int N,
                         int ldx, int ldy, float epsilon) {
    assert(M >= 0 && N >= 0 && ldx >= N && ldy >= N);
    if (M == 0 || N == 0) return;
    assert(x != NULL && y != NULL);
    layer_norm_job job = {.x = x, .y = y, .gamma = gamma, .beta = beta, .N = N, .ldx = ldx, .ldy = ldy, .epsilon = epsilon};
    ocm_parallel_for_grain((size_t)M, OCM_MAX((size_t)1, GRAIN / (size_t)N), layer_norm_range, &job);
}
