/*
 * knn.c — the exact k nearest neighbours of a batch of queries, through a GEMM.
 *
 * An exact distance Σ (q − s)² costs a subtraction and a multiply-add per value; the dot product
 * q·s costs one multiply-add and runs in the GEMM kernel at its best rate. So for a block of
 * queries against a chunk of samples, one GEMM gives every q·s, and a = ‖q‖² + ‖s‖² − 2·q·s
 * approximates each exact distance e within a bound B that depends only on the query and the
 * largest sample norm (float rounding of the dot product, the norms and the sums, and of the
 * exact path's own sum). Each query keeps a heap of its k smallest a, whose worst is τ, and a
 * list of the samples whose a is within τ + 2B. Every true neighbour s is in that list: its exact
 * distance is at most the k-th smallest e, which is at most the largest e among the k best a, so
 * e(s) ≤ τ + B and a(s) ≤ e(s) + B ≤ τ + 2B. The listed samples' exact distances, computed by
 * the tile function ocm_squared_distances uses (a pair's value does not depend on the tile),
 * then pick the k by (distance, index): the same answer as the exact scan, ties included.
 *
 * A query whose list would outgrow a few thousand entries (points far from the origin and close
 * together, where the bound is loose) is answered by the exact scan instead.
 */
#include "ocm_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

enum { QUERY_BLOCK = 512, SAMPLE_CHUNK = 2048 };

typedef struct query_state {
    float *heap_values; /* the k smallest approximations so far (a max-heap) */
    int32_t *heap_indices;
    int heap_size;
    float *listed_values; /* the samples within the heap's worst + margin: approximations */
    int32_t *listed_indices;
    int listed;
    bool overflow; /* the list outgrew its room: the exact scan answers */
} query_state;

typedef struct knn_job {
    const float *queries, *samples, *sample_norms;
    int N, D, k, room;
    int first_query;          /* block row 0's query */
    const float *query_norms; /* per block row */
    const float *margins;     /* per block row: 2B */
    const float *dots;        /* block rows × chunk */
    int chunk_start, chunk_length;
    query_state *states; /* per block row */
    ocm_distance_tile_fn tile;
    int32_t *indices; /* outputs, Q × k */
    float *distances;
} knn_job;

/* Drops the listed samples above `limit`. */
static void prune(query_state *st, float limit) {
    int kept = 0;
    for (int c = 0; c < st->listed; c++) {
        if (st->listed_values[c] <= limit) {
            st->listed_values[kept] = st->listed_values[c];
            st->listed_indices[kept] = st->listed_indices[c];
            kept++;
        }
    }
    st->listed = kept;
}

static void scan_rows(void *ctx, size_t begin, size_t end) {
    const knn_job *job = ctx;
    for (size_t row = begin; row < end; row++) {
        query_state *st = &job->states[row];
        if (st->overflow) continue;
        const float *dots = job->dots + row * (size_t)job->chunk_length;
        const float *norms = job->sample_norms + job->chunk_start;
        const float qn = job->query_norms[row], margin = job->margins[row];
        float limit = st->heap_size == job->k ? st->heap_values[0] + margin : INFINITY;
        for (int j = 0; j < job->chunk_length; j++) {
            const float a = qn + norms[j] - 2.0f * dots[j];
            if (a > limit) continue;
            const int32_t index = job->chunk_start + j;
            st->heap_size = ocm_heap_offer(st->heap_values, st->heap_indices, st->heap_size, job->k, a, index);
            if (st->heap_size == job->k) limit = st->heap_values[0] + margin;
            if (st->listed == job->room) {
                prune(st, limit);
                if (st->listed > job->room - job->room / 4) {
                    st->overflow = true;
                    break;
                }
            }
            st->listed_values[st->listed] = a;
            st->listed_indices[st->listed] = index;
            st->listed++;
        }
    }
}

/* The listed samples' exact distances decide each (non-overflowing) query's k neighbours. */
static void finish_rows(void *ctx, size_t begin, size_t end) {
    const knn_job *job = ctx;
    for (size_t row = begin; row < end; row++) {
        query_state *st = &job->states[row];
        if (st->overflow) continue;
        const int query = job->first_query + (int)row;
        const float *q = job->queries + (size_t)query * job->D;
        const float limit = st->heap_values[0] + job->margins[row];
        int32_t *indices = job->indices + (size_t)query * job->k;
        float *values = job->distances + (size_t)query * job->k;
        int size = 0;
        for (int c = 0; c < st->listed; c++) {
            if (st->listed_values[c] > limit) continue;
            const int32_t index = st->listed_indices[c];
            float exact;
            job->tile(q, 1, job->D, job->samples + (size_t)index * job->D, 1, job->D, job->D, &exact, 1);
            size = ocm_heap_offer(values, indices, size, job->k, exact, index);
        }
        assert(size == job->k);
        ocm_heap_sort_ascending(values, indices, size);
    }
}

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

bool ocm_k_nearest_batch(const float *queries, int Q, const float *samples, int N, int D, int k,
                         int32_t *indices, float *distances) {
    assert(Q >= 0 && N > 0 && D > 0 && k > 0 && k <= N);
    if (Q == 0) return true;
    const int block = OCM_MIN(QUERY_BLOCK, Q), chunk = OCM_MIN(SAMPLE_CHUNK, N);
    const int room = 4 * k + 1024;
    float *sample_norms = malloc(sizeof(float) * (size_t)N);
    float *dots = malloc(sizeof(float) * (size_t)block * chunk);
    float *per_row = malloc(sizeof(float) * 2 * (size_t)block);
    query_state *states = calloc((size_t)block, sizeof(query_state));
    float *heap_values = malloc(sizeof(float) * (size_t)block * k);
    int32_t *heap_indices = malloc(sizeof(int32_t) * (size_t)block * k);
    float *listed_values = malloc(sizeof(float) * (size_t)block * room);
    int32_t *listed_indices = malloc(sizeof(int32_t) * (size_t)block * room);
    float *scan = NULL;
    bool ok = sample_norms && dots && per_row && states && heap_values && heap_indices && listed_values &&
              listed_indices;
    if (!ok) goto done;

    knn_job job = {queries, samples, sample_norms, N, D, k, room, 0, per_row, per_row + block,
                   dots, 0, 0, states, ocm_distance_tile(), indices, distances};
    norms_job norms = {samples, D, sample_norms};
    ocm_parallel_for_grain((size_t)N, 256, row_norms_range, &norms);
    float largest = 0;
    for (int i = 0; i < N; i++) largest = OCM_MAX(largest, sample_norms[i]);
    /* B: the dot product's rounding (γ_D·‖q‖‖s‖ ≤ γ_D·(‖q‖² + ‖s‖²)/2), the norms' (u each, from
     * double) and the three float operations of a (u·(‖q‖² + ‖s‖² + 2|q·s|) each), plus the exact
     * sum's own error (γ_{D+2}·e, e ≤ 2(‖q‖² + ‖s‖²)): under (4D + 16)·u·(‖q‖² + max ‖s‖²).
     * The margin is 2B, doubled again for safety; a wider list only costs a few exact
     * distances. */
    const double u = FLT_EPSILON / 2;

    for (int q0 = 0; q0 < Q; q0 += block) {
        const int rows = OCM_MIN(block, Q - q0);
        float *query_norms = per_row, *margins = per_row + block;
        for (int row = 0; row < rows; row++) {
            const float *q = queries + (size_t)(q0 + row) * D;
            double sum = 0;
            for (int d = 0; d < D; d++) sum += (double)q[d] * q[d];
            query_norms[row] = (float)sum;
            margins[row] = (float)(4.0 * (4.0 * D + 16.0) * u * (sum + (double)largest)) + FLT_MIN;
            states[row] = (query_state){heap_values + (size_t)row * k, heap_indices + (size_t)row * k, 0,
                                        listed_values + (size_t)row * room, listed_indices + (size_t)row * room, 0,
                                        false};
        }
        job.first_query = q0;
        for (int s0 = 0; s0 < N; s0 += chunk) {
            const int length = OCM_MIN(chunk, N - s0);
            ocm_sgemm(false, true, rows, length, D, 1.0f, queries + (size_t)q0 * D, D, samples + (size_t)s0 * D, D,
                      0.0f, dots, length);
            job.chunk_start = s0;
            job.chunk_length = length;
            ocm_parallel_for_grain((size_t)rows, 1, scan_rows, &job);
        }
        ocm_parallel_for_grain((size_t)rows, 1, finish_rows, &job);
        for (int row = 0; row < rows; row++) {
            if (!states[row].overflow) continue;
            if (!scan && !(scan = malloc(sizeof(float) * (size_t)N))) {
                ok = false;
                goto done;
            }
            const int query = q0 + row;
            ocm_squared_distances(queries + (size_t)query * D, 1, D, samples, N, D, D, scan, N);
            ocm_k_smallest(scan, N, k, 0, indices + (size_t)query * k, distances + (size_t)query * k);
        }
    }

done:
    free(sample_norms);
    free(dots);
    free(per_row);
    free(states);
    free(heap_values);
    free(heap_indices);
    free(listed_values);
    free(listed_indices);
    free(scan);
    return ok;
}
