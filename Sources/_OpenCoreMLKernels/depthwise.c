/*
 * depthwise.c — depthwise convolution (one kernel per channel plane), the inference forward pass
 * of MobileNet's and EfficientNet's depthwise layers: the planes split over the thread pool in
 * contiguous runs, each plane computed by the instruction set's plane kernel (depthwise_plane.h).
 */
#include "ocm_internal.h"

#include <pthread.h>
#include <stdlib.h>

/* Each thread's plane scratch, made on its first depthwise call and freed when the thread ends. */
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void make_scratch_key(void) { (void)pthread_key_create(&scratch_key, free); }

/* This thread's scratch, or NULL when it cannot be had (the row-by-row path needs none). */
static float *thread_scratch(void) {
    (void)pthread_once(&scratch_once, make_scratch_key);
    float *scratch = pthread_getspecific(scratch_key);
    if (scratch == NULL) {
        scratch = malloc(sizeof(float) * OCM_DEPTHWISE_SCRATCH);
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
    int channels;
    ocm_depthwise_geometry g;
    ocm_depthwise_plane_fn plane;
} depthwise_job;

static void depthwise_range(void *context, size_t begin, size_t end) {
    const depthwise_job *job = context;
    const ocm_depthwise_geometry *g = &job->g;
    float *scratch = thread_scratch();
    for (size_t p = begin; p < end; p++) {
        int c = (int)(p % (size_t)job->channels);
        job->plane(job->x + p * (size_t)g->H * g->W, job->y + p * (size_t)g->outH * g->outW, job->w + (size_t)c * g->kh * g->kw,
                   job->bias ? job->bias[c] : 0.0f, job->lo, job->hi, g, scratch);
    }
}

void ocm_depthwise_conv2d(const float *x, float *y, const float *w, const float *bias, int planes, int channels,
                          int H, int W, int outH, int outW, int kh, int kw, int sh, int sw, int dh, int dw,
                          int pad_top, int pad_left, float lo, float hi) {
    depthwise_job job = {x, y, w, bias, lo, hi, channels,
                         {H, W, outH, outW, kh, kw, sh, sw, dh, dw, pad_top, pad_left},
                         ocm_kernels()->depthwise->plane};
    ocm_parallel_for((size_t)planes, depthwise_range, &job);
}
