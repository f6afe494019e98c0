/*
 * knn.c — the exact k nearest neighbours of a batch of queries, through a GEMM.
 *
 * An exact distance Σ (q − s)² costs a subtraction and a multiply-add per value; the dot product
 * q·s costs one multiply-add and runs in the GEMM micro-kernel at its best rate. So for a block of
 * queries against a block of samples, the micro-kernel gives every q·s, and a = ‖q‖² + ‖s‖² − 2·q·s
 * approximates each exact distance e within a bound B that depends only on the query and the
 * largest sample norm (float rounding of the dot product, the norms and the sums, and of the
 * exact path's own sum). Each query keeps a heap of its k smallest a, whose worst is τ, and a
 * list of the samples whose a is within τ + 2B. Every true neighbour s is in that list: its exact
 * distance is at most the k-th smallest e, which is at most the largest e among the k best a, so
 * e(s) ≤ τ + B and a(s) ≤ e(s) + B ≤ τ + 2B. The listed samples' exact distances, computed by
 * the tile function ocm_squared_distances uses (a pair's value does not depend on the tile),
 * then pick the k by (distance, index): the same answer as the exact scan, ties included.
 *
 * The product runs here, over the GEMM building blocks of ocm_internal.h, so that each finished
 * piece of distances is scanned while it is in cache: the queries (a block of up to QUERY_BLOCK)
 * are packed once; the samples are cut into blocks of the arch's nc that the threads claim as they
 * come free (ocm_parallel_dynamic: one dispatch per query block, a delayed thread holds up one
 * block), each thread packing its sample block once and keeping its own heaps and lists per query
 * (a sample block's candidates are one thread's); the lists of all threads are merged at the end,
 * against the k-th best of the merged heaps (each thread's own k-th best is no better, so its list
 * holds every sample within the merged bound).
 *
 * A query whose list would outgrow a few thousand entries (points far from the origin and close
 * together, where the bound is loose) is answered by the exact scan instead, and so is a query
 * for which a could overflow float ((‖q‖ + max ‖s‖)² near FLT_MAX: a would be inf − inf = NaN).
 */
#include "ocm_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* QUERY_BLOCK queries at most per block; fewer when the thread slots' per-query scratch (heaps,
 * lists, dot products) would pass SCRATCH_BUDGET bytes; below MINIMUM_BLOCK queries a block is
 * not worth the GEMM and the exact scan answers the batch. */
enum { QUERY_BLOCK = 1024, MINIMUM_BLOCK = 16 };
static const size_t SCRATCH_BUDGET = (size_t)64 << 20;

typedef struct query_state {
    float *heap_values; /* the k smallest approximations so far (a max-heap) */
    int32_t *heap_indices;
    int heap_size;
    float *listed_values; /* the samples within the heap's worst + margin: approximations */
    int32_t *listed_indices;
    int listed;
    bool overflow; /* the list outgrew its room: the exact scan answers */
} query_state;

/* One thread slot's scratch: a packed sample block, its dot products with the query block, and
 * the slot's state per query. */
typedef struct slot_scratch {
    float *packed;       /* K × round_up(nb, nr) */
    float *dots;         /* query block rows × nb */
    query_state *states; /* per query of the block */
    float *heap_values;
    int32_t *heap_indices;
    float *listed_values;
    int32_t *listed_indices;
} slot_scratch;

typedef struct knn_job {
    const float *queries, *samples, *sample_norms;
    int N, D, k, room;
    const ocm_gemm_arch *arch;
    const float *packed_queries; /* the query block, by ocm_sgemm_pack_a for arch */
    int rows;                    /* queries in the block */
    int nb;                      /* samples per block */
    const float *query_norms;    /* per block row */
    const float *margins;        /* per block row: 2B */
    slot_scratch *slots;
} knn_job;

static inline int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }
static inline size_t round_up_size(size_t x, size_t unit) { return (x + unit - 1) / unit * unit; }

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

/* Offers the approximations of `length` samples from `first` (their dot products with the
 * query at `dots`) to one query's state. */
static void scan_row(const knn_job *job, query_state *st, const float *dots, int first, int length, float qn,
                     float margin) {
    if (st->overflow) return;
    const float *norms = job->sample_norms + first;
    const int k = job->k, room = job->room;
    float limit = st->heap_size == k ? st->heap_values[0] + margin : INFINITY;
    if (st->heap_size == k) {
        /* Most rows of a block have no candidate once the heap is full: count them first in a
         * loop the compiler vectorizes (the same a; limit only falls during the loop below). */
        int hits = 0;
        for (int j = 0; j < length; j++) hits += qn + norms[j] - 2.0f * dots[j] <= limit;
        if (hits == 0) return;
    }
    for (int j = 0; j < length; j++) {
        const float a = qn + norms[j] - 2.0f * dots[j];
        if (!(a <= limit)) continue; /* the pre-count's test, NaN included */
        const int32_t index = first + j;
        st->heap_size = ocm_heap_offer(st->heap_values, st->heap_indices, st->heap_size, k, a, index);
        if (st->heap_size == k) limit = st->heap_values[0] + margin;
        if (st->listed == room) {
            prune(st, limit);
            if (st->listed > room - room / 4) {
                st->overflow = true;
                return;
            }
        }
        st->listed_values[st->listed] = a;
        st->listed_indices[st->listed] = index;
        st->listed++;
    }
}

/* Sample block `index` on thread slot `thread`: packs it, multiplies it with the packed queries
 * K block by K block, and scans each micro-panel of queries once its last K block is done. */
static void sample_block(void *ctx, int thread, size_t index) {
    const knn_job *job = ctx;
    const ocm_gemm_arch *arch = job->arch;
    slot_scratch *slot = &job->slots[thread];
    const int first = (int)index * job->nb, length = OCM_MIN(job->nb, job->N - first);
    const int K = job->D, kc_max = OCM_MIN(arch->kc, K), mr = arch->mr, nr = arch->nr;
    const int columns = round_up(length, nr), query_rows = round_up(job->rows, mr);
    /* The packed layout of ocm_sgemm_pack_b: K blocks, each holding nr-column panels of its depth. */
    for (int pc = 0; pc < K; pc += kc_max) {
        const int kc = OCM_MIN(kc_max, K - pc);
        for (int jr = 0; jr < length; jr += nr) {
            const int n = OCM_MIN(nr, length - jr);
            arch->pack_b(true, job->samples + (size_t)(first + jr) * K + pc, K, kc, n, round_up(n, arch->vw),
                         slot->packed + (size_t)pc * columns + (size_t)jr * kc);
        }
    }
    float *dots = slot->dots;
    for (int pc = 0; pc < K; pc += kc_max) {
        const int kc = OCM_MIN(kc_max, K - pc);
        const float beta = pc == 0 ? 0.0f : 1.0f;
        const float *block = slot->packed + (size_t)pc * columns;
        const bool last = pc + kc == K;
        for (int ir = 0; ir < job->rows; ir += mr) {
            const int m = OCM_MIN(mr, job->rows - ir);
            const float *panel = job->packed_queries + (size_t)pc * query_rows + (size_t)ir * kc;
            float *c = dots + (size_t)ir * length;
            for (int jr = 0; jr < length; jr += nr) {
                arch->kernel(kc, panel, block + (size_t)jr * kc, c + jr, length, m, OCM_MIN(nr, length - jr), 1.0f, beta);
            }
            if (!last) continue;
            for (int row = ir; row < ir + m; row++) {
                scan_row(job, &slot->states[row], dots + (size_t)row * length, first, length, job->query_norms[row],
                         job->margins[row]);
            }
        }
    }
}

typedef struct finish_job {
    const knn_job *knn;
    int slots, first_query;
    ocm_distance_tile_fn tile;
    int32_t *indices; /* outputs, Q × k */
    float *distances;
    bool *overflow; /* per block row */
} finish_job;

/* Merges the slots' heaps into the k-th best approximation, then the exact distances of every
 * slot's listed samples within its margin decide each (non-overflowing) query's k neighbours. */
static void finish_rows(void *ctx, size_t begin, size_t end) {
    const finish_job *f = ctx;
    const knn_job *job = f->knn;
    const int k = job->k, D = job->D;
    for (size_t row = begin; row < end; row++) {
        bool overflow = false;
        for (int t = 0; t < f->slots; t++) overflow |= job->slots[t].states[row].overflow;
        f->overflow[row] = overflow;
        if (overflow) continue;
        const int query = f->first_query + (int)row;
        int32_t *indices = f->indices + (size_t)query * k;
        float *values = f->distances + (size_t)query * k;
        /* The k best approximations of all slots, in the output rows as scratch. */
        int size = 0;
        for (int t = 0; t < f->slots; t++) {
            const query_state *st = &job->slots[t].states[row];
            for (int h = 0; h < st->heap_size; h++) {
                size = ocm_heap_offer(values, indices, size, k, st->heap_values[h], st->heap_indices[h]);
            }
        }
        assert(size == k);
        const float limit = values[0] + job->margins[row];
        const float *q = job->queries + (size_t)query * D;
        size = 0;
        for (int t = 0; t < f->slots; t++) {
            const query_state *st = &job->slots[t].states[row];
            for (int c = 0; c < st->listed; c++) {
                if (!(st->listed_values[c] <= limit)) continue;
                const int32_t index = st->listed_indices[c];
                float exact;
                f->tile(q, 1, D, job->samples + (size_t)index * D, 1, D, D, &exact, 1);
                size = ocm_heap_offer(values, indices, size, k, exact, index);
            }
        }
        assert(size == k);
        ocm_heap_sort_ascending(values, indices, size);
    }
}

static void free_slots(slot_scratch *slots, int count) {
    for (int t = 0; slots && t < count; t++) {
        free(slots[t].packed);
        free(slots[t].dots);
        free(slots[t].states);
        free(slots[t].heap_values);
        free(slots[t].heap_indices);
        free(slots[t].listed_values);
        free(slots[t].listed_indices);
    }
    free(slots);
}

/* Every query of the batch by the exact scan (k too large for the GEMM path's scratch budget). */
static bool exact_batch(const float *queries, int Q, const float *samples, int N, int D, int k, int32_t *indices,
                        float *distances) {
    float *scan = malloc(sizeof(float) * (size_t)N);
    if (!scan) return false;
    for (int query = 0; query < Q; query++) {
        ocm_squared_distances(queries + (size_t)query * D, 1, D, samples, N, D, D, scan, N);
        ocm_k_smallest(scan, N, k, 0, indices + (size_t)query * k, distances + (size_t)query * k);
    }
    free(scan);
    return true;
}

bool ocm_k_nearest_batch_normed(const float *queries, int Q, const float *samples, const float *sample_norms, int N,
                                int D, int k, int32_t *indices, float *distances) {
    assert(Q >= 0 && N > 0 && D > 0 && k > 0 && k <= N);
    if (Q == 0) return true;
    const size_t list_room = 4 * (size_t)k + 1024;
    /* The sample block size, from the current level (the kernel itself is the level the queries
     * are packed for, job.arch, read per query block). */
    const ocm_gemm_arch *arch = ocm_kernels()->gemm;
    const int nb = (int)OCM_MIN((size_t)arch->nc, round_up_size((size_t)N, (size_t)arch->nr));
    const size_t sample_blocks = ((size_t)N + (size_t)nb - 1) / (size_t)nb;
    /* One slot per thread that can have a sample block to work on. */
    const int threads = (int)OCM_MIN((size_t)ocm_num_threads(), sample_blocks);
    const size_t per_query = sizeof(query_state) + (sizeof(float) + sizeof(int32_t)) * ((size_t)k + list_room) +
                             sizeof(float) * (size_t)nb;
    const size_t fits = SCRATCH_BUDGET / ((size_t)threads * per_query);
    const int block = (int)OCM_MIN((size_t)OCM_MIN(QUERY_BLOCK, Q), fits);
    if (block < MINIMUM_BLOCK && block < Q) return exact_batch(queries, Q, samples, N, D, k, indices, distances);
    const int room = (int)list_room; /* below SCRATCH_BUDGET / 8 here */
    float *own_norms = NULL;
    if (!sample_norms) {
        if (!(own_norms = malloc(sizeof(float) * (size_t)N))) return false;
        ocm_squared_norms(samples, N, D, own_norms);
        sample_norms = own_norms;
    }
    float *packed_queries = malloc(sizeof(float) * ocm_sgemm_packed_a_floats(block, D));
    float *per_row = malloc(sizeof(float) * 2 * (size_t)block);
    bool *overflow = malloc(sizeof(bool) * (size_t)block);
    bool *direct = malloc(sizeof(bool) * (size_t)block); /* per block row: answered by the exact scan */
    slot_scratch *slots = calloc((size_t)threads, sizeof(slot_scratch));
    float *scan = NULL;
    bool ok = packed_queries && per_row && overflow && direct && slots;
    for (int t = 0; ok && t < threads; t++) {
        slot_scratch *s = &slots[t];
        s->packed = malloc(sizeof(float) * ocm_sgemm_packed_b_floats(D, nb));
        s->dots = malloc(sizeof(float) * (size_t)block * nb);
        s->states = malloc(sizeof(query_state) * (size_t)block);
        s->heap_values = malloc(sizeof(float) * (size_t)block * k);
        s->heap_indices = malloc(sizeof(int32_t) * (size_t)block * k);
        s->listed_values = malloc(sizeof(float) * (size_t)block * room);
        s->listed_indices = malloc(sizeof(int32_t) * (size_t)block * room);
        ok = s->packed && s->dots && s->states && s->heap_values && s->heap_indices && s->listed_values &&
             s->listed_indices;
    }
    if (!ok) goto done;

    float largest = 0;
    for (int i = 0; i < N; i++) largest = OCM_MAX(largest, sample_norms[i]);
    /* B: the dot product's rounding (γ_D·‖q‖‖s‖ ≤ γ_D·(‖q‖² + ‖s‖²)/2), the norms' (u each, from
     * double) and the three float operations of a (u·(‖q‖² + ‖s‖² + 2|q·s|) each), plus the exact
     * sum's own error (γ_{D+2}·e, e ≤ 2(‖q‖² + ‖s‖²)): under (4D + 16)·u·(‖q‖² + max ‖s‖²).
     * The margin is 2B, doubled again for safety; a wider list only costs a few exact
     * distances. */
    const double u = FLT_EPSILON / 2;
    knn_job job = {queries, samples, sample_norms, N, D, k, room, NULL, packed_queries, 0, nb,
                   per_row, per_row + block, slots};
    finish_job finish = {&job, threads, 0, ocm_distance_tile(), indices, distances, overflow};

    for (int q0 = 0; q0 < Q; q0 += block) {
        const int rows = OCM_MIN(block, Q - q0);
        float *query_norms = per_row, *margins = per_row + block;
        ocm_squared_norms(queries + (size_t)q0 * D, rows, D, query_norms);
        for (int row = 0; row < rows; row++) {
            /* |a| ≤ ‖q‖² + ‖s‖² + 2‖q‖‖s‖ = (‖q‖ + ‖s‖)²: where that is not well below FLT_MAX
             * (a finite query or sample whose squared norm overflows float, or nearly), a could be
             * inf − inf = NaN; such a query goes to the exact scan up front (marked as overflowing
             * in every slot, so the pass skips it). */
            const double reach = sqrt((double)query_norms[row]) + sqrt((double)largest);
            direct[row] = !(reach * reach < FLT_MAX / 4.0);
            margins[row] = direct[row] ? 0.0f
                                       : (float)(4.0 * (4.0 * D + 16.0) * u * ((double)query_norms[row] + (double)largest)) + FLT_MIN;
        }
        for (int t = 0; t < threads; t++) {
            slot_scratch *s = &slots[t];
            for (int row = 0; row < rows; row++) {
                s->states[row] = (query_state){s->heap_values + (size_t)row * k, s->heap_indices + (size_t)row * k, 0,
                                               s->listed_values + (size_t)row * room,
                                               s->listed_indices + (size_t)row * room, 0, direct[row]};
            }
        }
        job.arch = ocm_kernels_for(ocm_sgemm_pack_a(false, rows, D, queries + (size_t)q0 * D, D, packed_queries))->gemm;
        job.rows = rows;
        ocm_parallel_dynamic_slots(sample_blocks, threads, sample_block, &job);
        finish.first_query = q0;
        ocm_parallel_for_grain((size_t)rows, 1, finish_rows, &finish);
        for (int row = 0; row < rows; row++) {
            if (!overflow[row]) continue;
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
    free(own_norms);
    free(packed_queries);
    free(per_row);
    free(overflow);
    free(direct);
    free_slots(slots, threads);
    free(scan);
    return ok;
}

bool ocm_k_nearest_batch(const float *queries, int Q, const float *samples, int N, int D, int k,
                         int32_t *indices, float *distances) {
    return ocm_k_nearest_batch_normed(queries, Q, samples, NULL, N, D, k, indices, distances);
}
