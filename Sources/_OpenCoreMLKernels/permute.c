/*
 * permute.c — a tensor with its axes reordered (MIL's `transpose`, NumPy's `transpose(perm)`).
 *
 * The permutation is first reduced to its essentials: size-1 axes are dropped, and axes that stay
 * neighbours in the same order are merged. What is left either keeps the input's last axis last
 * (then the output is made of contiguous runs copied whole), or moves it (then each pair of the
 * output's last axis and the axis the input's last axis went to is a 2-D transpose, done in square
 * tiles so that both sides are read and written a cache line at a time). The work is split over the
 * thread pool in runs or tiles.
 */
#include "ocm_internal.h"

#include <string.h>

enum {
    TILE = 16,       /* edge of a 2-D transpose tile */
    GRAIN = 1 << 14, /* elements per thread at least */
};

/* The reduced permutation: output axis d has size size[d] and reads the input with stride
 * from[d]; `rank` axes, and the output is row-major over them. */
typedef struct permute_job {
    const float *x;
    float *y;
    int rank;
    size_t size[OCM_PERMUTE_MAX_RANK];
    size_t from[OCM_PERMUTE_MAX_RANK];
    size_t to[OCM_PERMUTE_MAX_RANK]; /* the output's own strides */
    /* The moved case: output axis `across` reads the input contiguously; `blocks` tiles along it. */
    int across;
    size_t blocks;
} permute_job;

/* Input and output offsets of outer index `index` over the output axes [0, outer) other than
 * `skip` (row-major over those axes); `at` (may be NULL) receives the index along each axis. */
static void locate(const permute_job *job, int outer, int skip, size_t index, size_t *in, size_t *out, size_t *at) {
    *in = 0;
    *out = 0;
    for (int d = outer - 1; d >= 0; d--) {
        if (d == skip) continue;
        size_t i = index % job->size[d];
        index /= job->size[d];
        *in += i * job->from[d];
        *out += i * job->to[d];
        if (at) at[d] = i;
    }
}

/* The input's last axis stays last: runs [begin, end) of size[rank − 1] contiguous floats. */
static void copy_runs(void *raw, size_t begin, size_t end) {
    const permute_job *job = raw;
    const int outer = job->rank - 1;
    const size_t run = job->size[outer];
    size_t in, out, index[OCM_PERMUTE_MAX_RANK];
    locate(job, outer, -1, begin, &in, &out, index);
    for (size_t r = begin; r < end; r++) {
        memcpy(job->y + out, job->x + in, run * sizeof(float));
        /* the next run: an odometer over the outer axes */
        for (int d = outer - 1; d >= 0; d--) {
            in += job->from[d];
            out += job->to[d];
            if (++index[d] < job->size[d]) break;
            in -= index[d] * job->from[d];
            out -= index[d] * job->to[d];
            index[d] = 0;
        }
    }
}

/* One rows × cols tile: y[i·ldy + j] = x[j·ldx + i]. */
static void transpose_tile(const float *restrict x, size_t ldx, float *restrict y, size_t ldy, size_t rows, size_t cols) {
    for (size_t i = 0; i < rows; i++) {
        for (size_t j = 0; j < cols; j++) y[i * ldy + j] = x[j * ldx + i];
    }
}

/* The input's last axis moved to output axis `across`: units [begin, end) are (outer index,
 * block of TILE along `across`), each a strip of tiles along the output's last axis. */
static void transpose_strips(void *raw, size_t begin, size_t end) {
    const permute_job *job = raw;
    const int last = job->rank - 1, across = job->across;
    const size_t rows = job->size[across], cols = job->size[last];
    const size_t ldx = job->from[last], ldy = job->to[across];
    for (size_t unit = begin; unit < end; unit++) {
        const size_t block = unit % job->blocks;
        size_t in, out;
        locate(job, last, across, unit / job->blocks, &in, &out, NULL);
        const size_t i0 = block * TILE, i1 = OCM_MIN(i0 + TILE, rows);
        for (size_t j0 = 0; j0 < cols; j0 += TILE) {
            transpose_tile(job->x + in + i0 + j0 * ldx, ldx, job->y + out + i0 * ldy + j0, ldy, i1 - i0,
                           OCM_MIN((size_t)TILE, cols - j0));
        }
    }
}

void ocm_permute(const float *x, float *y, int rank, const int *shape, const int *perm) {
    assert(rank >= 0 && rank <= OCM_PERMUTE_MAX_RANK);
    size_t count = 1;
    for (int a = 0; a < rank; a++) {
        assert(shape[a] >= 0 && perm[a] >= 0 && perm[a] < rank);
        count *= (size_t)shape[a];
    }
    if (count == 0) return;
    assert(x != NULL && y != NULL);
    /* Input strides, and each axis's place among the input axes longer than 1. */
    size_t stride[OCM_PERMUTE_MAX_RANK];
    int place[OCM_PERMUTE_MAX_RANK];
    for (int a = rank - 1, kept = rank; a >= 0; a--) {
        stride[a] = a == rank - 1 ? 1 : stride[a + 1] * (size_t)shape[a + 1];
        place[a] = shape[a] > 1 ? --kept : -1;
    }
    /* Output axes in order, size-1 ones dropped, an axis that continues the previous one's input
     * axis (the next input axis longer than 1) merged into it. */
    permute_job job = {.x = x, .y = y, .rank = 0};
    int previous = -2;
    for (int d = 0; d < rank; d++) {
        const int a = perm[d];
        if (shape[a] == 1) continue;
        if (place[a] == previous + 1 && job.rank > 0) {
            job.size[job.rank - 1] *= (size_t)shape[a];
            job.from[job.rank - 1] = stride[a];
        } else {
            job.size[job.rank] = (size_t)shape[a];
            job.from[job.rank] = stride[a];
            job.rank++;
        }
        previous = place[a];
    }
    if (job.rank <= 1) {
        memcpy(y, x, count * sizeof(float));
        return;
    }
    for (int d = job.rank - 1; d >= 0; d--) job.to[d] = d == job.rank - 1 ? 1 : job.to[d + 1] * job.size[d + 1];
    const int last = job.rank - 1;
    if (job.from[last] == 1) {
        const size_t runs = count / job.size[last];
        ocm_parallel_for_grain(runs, OCM_MAX((size_t)1, GRAIN / job.size[last]), copy_runs, &job);
        return;
    }
    job.across = 0;
    while (job.from[job.across] != 1) job.across++;
    job.blocks = (job.size[job.across] + TILE - 1) / TILE;
    const size_t units = count / (job.size[job.across] * job.size[last]) * job.blocks;
    ocm_parallel_for_grain(units, OCM_MAX((size_t)1, GRAIN / (TILE * job.size[last])), transpose_strips, &job);
}
