/*
 * pooling.c — max / average / global pooling over NCHW planes, forward and backward, split
 * over threads by planes. The common 2×2 stride-2 unpadded max pooling has per-instruction-set
 * plane kernels (table ocm_pooling_*); everything else is portable C.
 */
#include "ocm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { POOL_GRAIN = 1 << 14 }; /* input elements per thread at least */

static size_t plane_grain(size_t plane_elements) {
    return OCM_MAX((size_t)1, POOL_GRAIN / OCM_MAX(plane_elements, (size_t)1));
}

/* MARK: - Scalar plane kernels */

/* 2×2 stride 2: the first maximum in the order (0,0), (0,1), (1,0), (1,1) wins. */
static void maxpool_2x2s2_scalar(const float *x, float *y, int32_t *argmax, int H, int W,
                                 int outH, int outW) {
    (void)H;
    for (int oh = 0; oh < outH; oh++) {
        const float *r0 = x + (size_t)(2 * oh) * W, *r1 = r0 + W;
        float *yo = y + (size_t)oh * outW;
        int32_t *ao = argmax != NULL ? argmax + (size_t)oh * outW : NULL;
        for (int ow = 0; ow < outW; ow++) {
            int w = 2 * ow;
            float best = r0[w];
            int32_t index = 2 * oh * W + w;
            if (r0[w + 1] > best) { best = r0[w + 1]; index = 2 * oh * W + w + 1; }
            if (r1[w] > best) { best = r1[w]; index = (2 * oh + 1) * W + w; }
            if (r1[w + 1] > best) { best = r1[w + 1]; index = (2 * oh + 1) * W + w + 1; }
            yo[ow] = best;
            if (ao != NULL) ao[ow] = index;
        }
    }
}

void ocm_maxpool_2x2s2_backward_scalar(const float *dy, const float *gate, const int32_t *argmax,
                                       float *dx, int H, int W, int outH, int outW) {
    (void)outH;
    memset(dx, 0, sizeof(float) * (size_t)H * W);
    for (size_t o = 0; o < (size_t)outH * outW; o++) {
        assert(argmax[o] < H * W);
        if (argmax[o] >= 0 && (gate == NULL || gate[o] > 0.0f)) dx[argmax[o]] = dy[o];
    }
}

const ocm_pooling_ops ocm_pooling_scalar = {
    .maxpool_2x2s2 = maxpool_2x2s2_scalar,
    .maxpool_2x2s2_backward = ocm_maxpool_2x2s2_backward_scalar,
};

static void maxpool_plane(const float *x, float *y, int32_t *argmax, int H, int W, int kh,
                          int kw, int sh, int sw, int pt, int pl, int outH, int outW) {
    for (int oh = 0; oh < outH; oh++) {
        int h0 = oh * sh - pt;
        int hs = OCM_MAX(h0, 0), he = OCM_MIN(h0 + kh, H);
        for (int ow = 0; ow < outW; ow++) {
            int w0 = ow * sw - pl;
            int ws = OCM_MAX(w0, 0), we = OCM_MIN(w0 + kw, W);
            float best = 0.0f;
            int32_t index = -1;
            for (int h = hs; h < he; h++) {
                const float *row = x + (size_t)h * W;
                for (int w = ws; w < we; w++) {
                    if (index < 0 || row[w] > best) {
                        best = row[w];
                        index = h * W + w;
                    }
                }
            }
            y[(size_t)oh * outW + ow] = best;
            if (argmax != NULL) argmax[(size_t)oh * outW + ow] = index;
        }
    }
}

/* Max pooling without winners' indices (inference): each output row takes the largest value of
 * its window's input rows column by column (a loop the compiler vectorises), then the largest of
 * each window's columns of that row. `row` is scratch for W floats. The first maximum wins, as in
 * maxpool_plane; a window wholly in the padding gives 0. */
static void maxpool_plane_values(const float *x, float *y, float *row, int H, int W, int kh,
                                 int kw, int sh, int sw, int pt, int pl, int outH, int outW) {
    for (int oh = 0; oh < outH; oh++) {
        int h0 = oh * sh - pt;
        int hs = OCM_MAX(h0, 0), he = OCM_MIN(h0 + kh, H);
        float *yo = y + (size_t)oh * outW;
        if (hs >= he) {
            memset(yo, 0, sizeof(float) * (size_t)outW);
            continue;
        }
        memcpy(row, x + (size_t)hs * W, sizeof(float) * (size_t)W);
        for (int h = hs + 1; h < he; h++) {
            const float *r = x + (size_t)h * W;
            for (int w = 0; w < W; w++) row[w] = r[w] > row[w] ? r[w] : row[w];
        }
        for (int ow = 0; ow < outW; ow++) {
            int w0 = ow * sw - pl;
            int ws = OCM_MAX(w0, 0), we = OCM_MIN(w0 + kw, W);
            float best = ws < we ? row[ws] : 0.0f;
            for (int w = ws + 1; w < we; w++) best = row[w] > best ? row[w] : best;
            yo[ow] = best;
        }
    }
}

/* MARK: - Max pooling */

typedef struct pool_job {
    const float *x;
    float *y;
    int32_t *argmax;
    const int32_t *argmax_in;
    const float *v; /* the gate of ocm_maxpool2x2_backward */
    int H, W, kh, kw, sh, sw, pt, pl, outH, outW, HW;
    bool exclude_padding, accumulate;
    const ocm_pooling_ops *ops;
} pool_job;

static void maxpool_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    size_t in = (size_t)j->H * j->W, out = (size_t)j->outH * j->outW;
    bool fast = j->kh == 2 && j->kw == 2 && j->sh == 2 && j->sw == 2 && j->pt == 0 &&
                j->pl == 0 && 2 * j->outH <= j->H && 2 * j->outW <= j->W;
    /* Without indices, windows other than the 2×2 fast path go row by row through scratch. */
    float *row = !fast && j->argmax == NULL ? malloc(sizeof(float) * (size_t)OCM_MAX(j->W, 1)) : NULL;
    for (size_t p = begin; p < end; p++) {
        const float *x = j->x + p * in;
        float *y = j->y + p * out;
        int32_t *a = j->argmax != NULL ? j->argmax + p * out : NULL;
        if (fast) {
            j->ops->maxpool_2x2s2(x, y, a, j->H, j->W, j->outH, j->outW);
        } else if (row != NULL) {
            maxpool_plane_values(x, y, row, j->H, j->W, j->kh, j->kw, j->sh, j->sw, j->pt, j->pl,
                                 j->outH, j->outW);
        } else {
            maxpool_plane(x, y, a, j->H, j->W, j->kh, j->kw, j->sh, j->sw, j->pt, j->pl, j->outH,
                          j->outW);
        }
    }
    free(row);
}

static void check_window(int planes, int H, int W, int kh, int kw, int sh, int sw, int pt,
                         int pl, int outH, int outW) {
    (void)planes, (void)H, (void)W, (void)kh, (void)kw, (void)sh, (void)sw, (void)pt, (void)pl;
    (void)outH, (void)outW;
    assert(planes >= 0 && H >= 0 && W >= 0 && outH >= 0 && outW >= 0);
    assert(kh >= 1 && kw >= 1 && sh >= 1 && sw >= 1 && pt >= 0 && pl >= 0);
}

void ocm_maxpool2d(const float *x, float *y, int32_t *argmax, int planes, int H, int W, int kh,
                   int kw, int sh, int sw, int pt, int pl, int outH, int outW) {
    check_window(planes, H, W, kh, kw, sh, sw, pt, pl, outH, outW);
    if (planes == 0 || outH == 0 || outW == 0) return;
    assert(x != NULL && y != NULL);
    pool_job job = {.x = x, .y = y, .argmax = argmax, .H = H, .W = W, .kh = kh, .kw = kw,
                    .sh = sh, .sw = sw, .pt = pt, .pl = pl, .outH = outH, .outW = outW,
                    .ops = ocm_kernels()->pooling};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)H * W), maxpool_range, &job);
}

static void maxpool_backward_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    size_t in = (size_t)j->H * j->W, out = (size_t)j->outH * j->outW;
    for (size_t p = begin; p < end; p++) {
        float *dx = j->y + p * in;
        const float *dy = j->x + p * out;
        const int32_t *a = j->argmax_in + p * out;
        if (!j->accumulate) memset(dx, 0, in * sizeof(float));
        for (size_t o = 0; o < out; o++) {
            int32_t index = a[o];
            assert(index < (int32_t)in);
            if (index >= 0) dx[index] += dy[o];
        }
    }
}

void ocm_maxpool2d_backward(const float *dy, const int32_t *argmax, float *dx, int planes, int H,
                            int W, int outH, int outW, bool accumulate) {
    assert(planes >= 0 && H >= 0 && W >= 0 && outH >= 0 && outW >= 0);
    if (planes == 0 || (size_t)H * W == 0) return;
    assert(dx != NULL && (outH * outW == 0 || (dy != NULL && argmax != NULL)));
    pool_job job = {.x = dy, .y = dx, .argmax_in = argmax, .H = H, .W = W, .outH = outH,
                    .outW = outW, .accumulate = accumulate};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)H * W), maxpool_backward_range,
                           &job);
}

static void maxpool2x2_backward_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    size_t in = (size_t)j->H * j->W, out = (size_t)j->outH * j->outW;
    for (size_t p = begin; p < end; p++) {
        const float *gate = j->v != NULL ? j->v + p * out : NULL;
        j->ops->maxpool_2x2s2_backward(j->x + p * out, gate, j->argmax_in + p * out, j->y + p * in,
                                       j->H, j->W, j->outH, j->outW);
    }
}

void ocm_maxpool2x2_backward(const float *dy, const float *gate, const int32_t *argmax, float *dx,
                             int planes, int H, int W, int outH, int outW) {
    assert(planes >= 0 && outH >= 0 && outW >= 0 && 2 * outH <= H && 2 * outW <= W);
    if (planes == 0 || (size_t)H * W == 0) return;
    assert(dx != NULL && (outH * outW == 0 || (dy != NULL && argmax != NULL)));
    pool_job job = {.x = dy, .v = gate, .y = dx, .argmax_in = argmax, .H = H, .W = W, .outH = outH,
                    .outW = outW, .ops = ocm_kernels()->pooling};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)H * W), maxpool2x2_backward_range,
                           &job);
}

/* MARK: - Average pooling */

static inline float window_divisor(const pool_job *j, int hs, int he, int ws, int we) {
    if (j->exclude_padding) return (float)OCM_MAX((he - hs) * (we - ws), 1);
    return (float)(j->kh * j->kw);
}

static void avgpool_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    size_t in = (size_t)j->H * j->W, out = (size_t)j->outH * j->outW;
    for (size_t p = begin; p < end; p++) {
        const float *x = j->x + p * in;
        float *y = j->y + p * out;
        for (int oh = 0; oh < j->outH; oh++) {
            int h0 = oh * j->sh - j->pt;
            int hs = OCM_MAX(h0, 0), he = OCM_MIN(h0 + j->kh, j->H);
            for (int ow = 0; ow < j->outW; ow++) {
                int w0 = ow * j->sw - j->pl;
                int ws = OCM_MAX(w0, 0), we = OCM_MIN(w0 + j->kw, j->W);
                float sum = 0.0f;
                for (int h = hs; h < he; h++) {
                    for (int w = ws; w < we; w++) sum += x[(size_t)h * j->W + w];
                }
                y[(size_t)oh * j->outW + ow] = sum / window_divisor(j, hs, he, ws, we);
            }
        }
    }
}

void ocm_avgpool2d(const float *x, float *y, int planes, int H, int W, int kh, int kw, int sh,
                   int sw, int pt, int pl, int outH, int outW, bool excludePadding) {
    check_window(planes, H, W, kh, kw, sh, sw, pt, pl, outH, outW);
    if (planes == 0 || outH == 0 || outW == 0) return;
    assert(x != NULL && y != NULL);
    pool_job job = {.x = x, .y = y, .H = H, .W = W, .kh = kh, .kw = kw, .sh = sh, .sw = sw,
                    .pt = pt, .pl = pl, .outH = outH, .outW = outW,
                    .exclude_padding = excludePadding};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)H * W), avgpool_range, &job);
}

static void avgpool_backward_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    size_t in = (size_t)j->H * j->W, out = (size_t)j->outH * j->outW;
    for (size_t p = begin; p < end; p++) {
        const float *dy = j->x + p * out;
        float *dx = j->y + p * in;
        if (!j->accumulate) memset(dx, 0, in * sizeof(float));
        for (int oh = 0; oh < j->outH; oh++) {
            int h0 = oh * j->sh - j->pt;
            int hs = OCM_MAX(h0, 0), he = OCM_MIN(h0 + j->kh, j->H);
            for (int ow = 0; ow < j->outW; ow++) {
                int w0 = ow * j->sw - j->pl;
                int ws = OCM_MAX(w0, 0), we = OCM_MIN(w0 + j->kw, j->W);
                float g = dy[(size_t)oh * j->outW + ow] / window_divisor(j, hs, he, ws, we);
                for (int h = hs; h < he; h++) {
                    for (int w = ws; w < we; w++) dx[(size_t)h * j->W + w] += g;
                }
            }
        }
    }
}

void ocm_avgpool2d_backward(const float *dy, float *dx, int planes, int H, int W, int kh, int kw,
                            int sh, int sw, int pt, int pl, int outH, int outW,
                            bool excludePadding, bool accumulate) {
    check_window(planes, H, W, kh, kw, sh, sw, pt, pl, outH, outW);
    if (planes == 0 || (size_t)H * W == 0) return;
    assert(dx != NULL && (outH * outW == 0 || dy != NULL));
    pool_job job = {.x = dy, .y = dx, .H = H, .W = W, .kh = kh, .kw = kw, .sh = sh, .sw = sw,
                    .pt = pt, .pl = pl, .outH = outH, .outW = outW,
                    .exclude_padding = excludePadding, .accumulate = accumulate};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)H * W), avgpool_backward_range,
                           &job);
}

/* MARK: - Global pooling */

static void global_max_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    for (size_t p = begin; p < end; p++) {
        const float *x = j->x + p * (size_t)j->HW;
        float best = x[0];
        int32_t index = 0;
        for (int i = 1; i < j->HW; i++) {
            if (x[i] > best) {
                best = x[i];
                index = i;
            }
        }
        j->y[p] = best;
        if (j->argmax != NULL) j->argmax[p] = index;
    }
}

void ocm_global_maxpool(const float *x, float *y, int32_t *argmax, int planes, int HW) {
    assert(planes >= 0 && HW >= 1);
    if (planes == 0) return;
    assert(x != NULL && y != NULL);
    pool_job job = {.x = x, .y = y, .argmax = argmax, .HW = HW};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)HW), global_max_range, &job);
}

static void global_avg_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    const ocm_elementwise_ops *ops = ocm_kernels()->elementwise;
    for (size_t p = begin; p < end; p++) {
        j->y[p] = ops->sum(j->x + p * (size_t)j->HW, (size_t)j->HW) / (float)j->HW;
    }
}

void ocm_global_avgpool(const float *x, float *y, int planes, int HW) {
    assert(planes >= 0 && HW >= 1);
    if (planes == 0) return;
    assert(x != NULL && y != NULL);
    pool_job job = {.x = x, .y = y, .HW = HW};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)HW), global_avg_range, &job);
}

static void global_avg_backward_range(void *raw, size_t begin, size_t end) {
    const pool_job *j = raw;
    const ocm_elementwise_ops *ops = ocm_kernels()->elementwise;
    for (size_t p = begin; p < end; p++) {
        float g = j->x[p] / (float)j->HW;
        float *dx = j->y + p * (size_t)j->HW;
        if (j->accumulate) ops->add_scalar(dx, (size_t)j->HW, g);
        else ops->fill(dx, (size_t)j->HW, g);
    }
}

void ocm_global_avgpool_backward(const float *dy, float *dx, int planes, int HW,
                                 bool accumulate) {
    assert(planes >= 0 && HW >= 1);
    if (planes == 0) return;
    assert(dy != NULL && dx != NULL);
    pool_job job = {.x = dy, .y = dx, .HW = HW, .accumulate = accumulate};
    ocm_parallel_for_grain((size_t)planes, plane_grain((size_t)HW), global_avg_backward_range,
                           &job);
}
