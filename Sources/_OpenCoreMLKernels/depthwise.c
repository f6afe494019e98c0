/*
 * depthwise.c — depthwise convolution (one kernel per channel plane), the inference forward pass
 * of MobileNet's and EfficientNet's depthwise layers: the planes split over the thread pool in
 * contiguous runs, each plane computed by the instruction set's plane kernel (depthwise_plane.h).
 */
#include "ocm_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Each thread's plane scratch, made on its first depthwise call and freed when the thread ends. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void make_scratch_key(void) { (void)pthread_key_create(&scratch_key, free); }

/* This thread's scratch, or NULL when it cannot be had (the row-by-row path needs none). */
static float *thread_scratch(void) {
    (void)pthread_once(&scratch_once, make_scratch_key);
    float *scratch = pthread_getspecific(scratch_key);
    if (scratch == NULL) {
        scratch = calloc(OCM_DEPTHWISE_SCRATCH, sizeof(float));
        if (scratch != NULL && pthread_setspecific(scratch_key, scratch) != 0) {
            free(scratch);
            scratch = NULL;
        }
    }
    return scratch;
}

#define TGT
#define SFX(name) name##_scalar
#include "depthwise_plane.h"
#undef TGT
#undef SFX

const ocm_depthwise_ops ocm_depthwise_scalar = {.plane = depthwise_plane_scalar};

typedef struct depthwise_job {
    const float *x;
    float *y;
    const float *w;
    const float *bias;
    float lo, hi;
    ocm_gemm_epilogue epilogue; /* its HARDSWISH runs on each finished plane; other activations are lo, hi */
    int channels;
    ocm_depthwise_plan plan;
    ocm_depthwise_plane_fn plane;
} depthwise_job;

/* [first, last): the indices i < count with 0 ≤ step·i + offset < size. */
static void inside_range(int count, int step, int offset, int size, int *first, int *last) {
    int f = offset >= 0 ? 0 : (-offset + step - 1) / step;
    int l = size - 1 - offset >= 0 ? (size - 1 - offset) / step + 1 : 0;
    f = OCM_MIN(f, count);
    l = OCM_MIN(l, count);
    *first = f;
    *last = OCM_MAX(l, f);
}

/* The plan of a call: the flattened path's layout when the phases fit the scratch. */
static void make_plan(ocm_depthwise_plan *p) {
    const ocm_depthwise_geometry *g = &p->g;
    p->taps = g->kh * g->kw;
    p->flat = false;
    p->rows = false;
    if (g->outH < 1 || g->outW < 1 || g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->kh < 1 || g->kw < 1) return;
    if (g->sh > OCM_DEPTHWISE_MAX_STRIDE || g->sw > OCM_DEPTHWISE_MAX_STRIDE || p->taps > OCM_DEPTHWISE_TAPS) return;
    const long long rows = g->outH + (long long)(g->kh - 1) * g->dh / g->sh;
    const long long cols = g->outW + (long long)(g->kw - 1) * g->dw / g->sw;
    if (rows * cols * g->sh * g->sw + OCM_DEPTHWISE_TAIL > OCM_DEPTHWISE_FLAT_MAX) return;
    p->Hq = (int)rows;
    p->Wq = (int)cols;
    p->n = (g->outH - 1) * p->Wq + g->outW;
    for (int a = 0; a < g->sh; a++) inside_range(p->Hq, g->sh, a - g->pad_top, g->H, &p->row_first[a], &p->row_last[a]);
    for (int b = 0; b < g->sw; b++) inside_range(p->Wq, g->sw, b - g->pad_left, g->W, &p->col_first[b], &p->col_last[b]);
    const int phase_size = p->Hq * p->Wq;
    for (int ky = 0; ky < g->kh; ky++) {
        for (int kx = 0; kx < g->kw; kx++) {
            const int dy = ky * g->dh, dx = kx * g->dw;
            p->tap_offset[ky * g->kw + kx] = ((dy % g->sh) * g->sw + dx % g->sw) * phase_size + (dy / g->sh) * p->Wq + dx / g->sw;
        }
    }
    p->flat = true;
    /* Rows of 16-column blocks only where they waste few lanes: on the 7-wide planes the
     * flattened sums (rows run together) measured 7 % faster. */
    p->rows = g->outW >= 12 && g->kh == g->kw && (g->kh == 3 || g->kh == 5) && g->sh == g->sw && (g->sh == 1 || g->sh == 2) && g->dh == 1 && g->dw == 1;
}

static void depthwise_range(void *context, size_t begin, size_t end) {
    const depthwise_job *job = context;
    const ocm_depthwise_geometry *g = &job->plan.g;
    float *scratch = thread_scratch();
    if (scratch != NULL && job->plan.flat) {
        /* The phases' padding and the zeros after them, written once for all these planes. */
        const ocm_depthwise_plan *p = &job->plan;
        memset(scratch, 0, sizeof(float) * ((size_t)g->sh * g->sw * p->Hq * p->Wq + OCM_DEPTHWISE_TAIL));
    }
    const ocm_gemm_epilogue *e = &job->epilogue;
    const bool hardswish = e->activation == OCM_EPILOGUE_HARDSWISH;
    const size_t plane_size = (size_t)g->outH * g->outW;
    for (size_t p = begin; p < end; p++) {
        int c = (int)(p % (size_t)job->channels);
        float *y = job->y + p * plane_size;
        job->plane(job->x + p * (size_t)g->H * g->W, y, job->w + (size_t)c * g->kh * g->kw,
                   job->bias ? job->bias[c] : 0.0f, job->lo, job->hi, &job->plan, scratch);
        /* While the plane is in cache. */
        if (hardswish) ocm_kernels()->elementwise->hardswish(y, y, plane_size, 0.0f, e->lo, e->alpha, e->beta);
    }
}

void ocm_depthwise_conv2d(const float *x, float *y, const float *w, int planes, int channels,
                          int H, int W, int outH, int outW, int kh, int kw, int sh, int sw, int dh, int dw,
                          int pad_top, int pad_left, ocm_gemm_epilogue epilogue) {
    /* The plane kernels clamp as they store: a ReLU's bounds are 0 and infinity. */
    float lo = -INFINITY, hi = INFINITY;
    if (epilogue.activation == OCM_EPILOGUE_RELU) lo = 0.0f;
    if (epilogue.activation == OCM_EPILOGUE_CLAMP) {
        lo = epilogue.lo;
        hi = epilogue.hi;
    }
    depthwise_job job = {x, y, w, epilogue.row_bias, lo, hi, epilogue, channels,
                         {.g = {H, W, outH, outW, kh, kw, sh, sw, dh, dw, pad_top, pad_left}},
                         ocm_kernels()->depthwise->plane};
    make_plan(&job.plan);
    ocm_parallel_for((size_t)planes, depthwise_range, &job);
}
