/*
 * distance.c — squared Euclidean distances between rows and k-smallest selection, for the
 * k-nearest-neighbours index. Exact differences (Σ (q − s)²), never the ‖q‖² + ‖s‖² − 2q·s
 * shortcut, so duplicates are at distance 0 and every path gives the same value for a pair.
 */
#include "ocm_internal.h"

#include <string.h>

/* MARK: - Scalar tile */

/* out[i·ldo + j] = Σ_d (q[i·ldq + d] − s[j·lds + d])² for i < nq, j < ns. */
static void tile_scalar(const float *q, int nq, int ldq, const float *s, int ns, int lds, int D,
                        float *out, int ldo) {
    for (int i = 0; i < nq; i++) {
        for (int j = 0; j < ns; j++) {
            const float *a = q + (size_t)i * ldq, *b = s + (size_t)j * lds;
            float acc[4] = {0, 0, 0, 0};
            int d = 0;
            for (; d + 4 <= D; d += 4) {
                for (int l = 0; l < 4; l++) {
                    float t = a[d + l] - b[d + l];
                    acc[l] += t * t;
                }
            }
            float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            for (; d < D; d++) {
                float t = a[d] - b[d];
                sum += t * t;
            }
            out[(size_t)i * ldo + j] = sum;
        }
    }
}

/* MARK: - Dispatch and threads */

#if OCM_X86
void ocm_distance_tile_avx2(const float *q, int nq, int ldq, const float *s, int ns, int lds,
                            int D, float *out, int ldo);
void ocm_distance_tile_avx512(const float *q, int nq, int ldq, const float *s, int ns, int lds,
                              int D, float *out, int ldo);
#endif

ocm_distance_tile_fn ocm_distance_tile(void) {
    switch (ocm_isa()) {
#if OCM_X86
    case OCM_ISA_AVX512: return ocm_distance_tile_avx512;
    case OCM_ISA_AVX2: return ocm_distance_tile_avx2;
#endif
    default: return tile_scalar;
    }
}

typedef struct distance_job {
    const float *queries, *samples;
    int Q, ldq, lds, D, ldo;
    float *out;
    ocm_distance_tile_fn tile;
} distance_job;

/* Query rows are taken in blocks that stay in cache while a thread's samples stream past. */
enum { QUERY_BLOCK = 32, SAMPLE_BLOCK = 64 };

static void distance_range(void *ctx, size_t begin, size_t end) {
    const distance_job *job = ctx;
    for (int q0 = 0; q0 < job->Q; q0 += QUERY_BLOCK) {
        int nq = OCM_MIN(QUERY_BLOCK, job->Q - q0);
        for (size_t s0 = begin; s0 < end; s0 += SAMPLE_BLOCK) {
            int ns = (int)OCM_MIN((size_t)SAMPLE_BLOCK, end - s0);
            job->tile(job->queries + (size_t)q0 * job->ldq, nq, job->ldq,
                      job->samples + s0 * job->lds, ns, job->lds, job->D,
                      job->out + (size_t)q0 * job->ldo + s0, job->ldo);
        }
    }
}

void ocm_squared_distances(const float *queries, int Q, int ldq, const float *samples, int N,
                           int lds, int D, float *out, int ldo) {
    assert(Q >= 0 && N >= 0 && D >= 0);
    assert(Q == 0 || N == 0 || (queries != NULL && samples != NULL && out != NULL));
    assert(ldq >= D && lds >= D && ldo >= N);
    if (Q == 0 || N == 0) return;
    distance_job job = {queries, samples, Q, ldq, lds, D, ldo, out, ocm_distance_tile()};
    /* About 64k multiply-adds per chunk before a thread is worth waking. */
    size_t per_sample = (size_t)Q * (size_t)OCM_MAX(D, 1);
    size_t grain = OCM_MAX((size_t)1, (size_t)65536 / per_sample);
    ocm_parallel_for_grain((size_t)N, grain, distance_range, &job);
}

/* MARK: - squared norms */

typedef struct norms_job {
    const float *rows;
    int D;
    float *out;
} norms_job;

/* Σ x² of each row of D floats, summed in double and rounded once. */
static void row_norms_range(void *ctx, size_t begin, size_t end) {
    const norms_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        const float *x = job->rows + i * (size_t)job->D;
        double sum = 0;
        for (int d = 0; d < job->D; d++) sum += (double)x[d] * x[d];
        job->out[i] = (float)sum;
    }
}

void ocm_squared_norms(const float *rows, int N, int D, float *out) {
    assert(N >= 0 && D >= 0);
    norms_job norms = {rows, D, out};
    ocm_parallel_for_grain((size_t)N, 256, row_norms_range, &norms);
}

/* MARK: - k smallest */

/* (value, index) ordering: smaller value first, then smaller index. */
static inline bool before(float va, int32_t ia, float vb, int32_t ib) {
    return va < vb || (va == vb && ia < ib);
}

static void sift_down(float *hv, int32_t *hi, int size, int at) {
    for (;;) {
        int l = 2 * at + 1, r = l + 1, top = at;
        if (l < size && before(hv[top], hi[top], hv[l], hi[l])) top = l;
        if (r < size && before(hv[top], hi[top], hv[r], hi[r])) top = r;
        if (top == at) return;
        float tv = hv[at]; hv[at] = hv[top]; hv[top] = tv;
        int32_t ti = hi[at]; hi[at] = hi[top]; hi[top] = ti;
        at = top;
    }
}

static void sift_up(float *hv, int32_t *hi, int at) {
    while (at > 0) {
        int parent = (at - 1) / 2;
        if (!before(hv[parent], hi[parent], hv[at], hi[at])) return;
        float tv = hv[at]; hv[at] = hv[parent]; hv[parent] = tv;
        int32_t ti = hi[at]; hi[at] = hi[parent]; hi[parent] = ti;
        at = parent;
    }
}

int ocm_heap_offer(float *heap_values, int32_t *heap_indices, int size, int k, float value,
                   int32_t index) {
    if (size < k) {
        heap_values[size] = value;
        heap_indices[size] = index;
        sift_up(heap_values, heap_indices, size);
        return size + 1;
    }
    if (k > 0 && before(value, index, heap_values[0], heap_indices[0])) {
        heap_values[0] = value;
        heap_indices[0] = index;
        sift_down(heap_values, heap_indices, k, 0);
    }
    return size;
}

void ocm_heap_sort_ascending(float *heap_values, int32_t *heap_indices, int size) {
    for (int end = size - 1; end > 0; end--) {
        float tv = heap_values[0]; heap_values[0] = heap_values[end]; heap_values[end] = tv;
        int32_t ti = heap_indices[0]; heap_indices[0] = heap_indices[end]; heap_indices[end] = ti;
        sift_down(heap_values, heap_indices, end, 0);
    }
}

int ocm_k_smallest(const float *values, int n, int k, int32_t index_offset, int32_t *indices,
                   float *selected) {
    assert(n >= 0 && k >= 0);
    int size = 0;
    for (int i = 0; i < n; i++) {
        /* Quick reject once full: most values are larger than the current k-th. */
        if (size == k && (k == 0 || values[i] > selected[0])) continue;
        size = ocm_heap_offer(selected, indices, size, k, values[i], index_offset + i);
    }
    ocm_heap_sort_ascending(selected, indices, size);
    return size;
}
