/*
 * depthwise.c — depthwise convolution (one kernel per channel plane), the inference forward pass
 * of MobileNet's and EfficientNet's depthwise layers: the planes split over the thread pool in
 * contiguous runs, each plane computed by the instruction set's plane kernel (depthwise_plane.h).
 */
#include "ocm_internal.h"

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
    int channels;
    ocm_depthwise_geometry g;
    ocm_depthwise_plane_fn plane;
} depthwise_job;

static void depthwise_range(void *context, size_t begin, size_t end) {
    const depthwise_job *job = context;
    const ocm_depthwise_geometry *g = &job->g;
    for (size_t p = begin; p < end; p++) {
        int c = (int)(p % (size_t)job->channels);
        job->plane(job->x + p * (size_t)g->H * g->W, job->y + p * (size_t)g->outH * g->outW, job->w + (size_t)c * g->kh * g->kw,
                   job->bias ? job->bias[c] : 0.0f, g);
    }
}

void ocm_depthwise_conv2d(const float *x, float *y, const float *w, const float *bias, int planes, int channels,
                          int H, int W, int outH, int outW, int kh, int kw, int sh, int sw, int dh, int dw,
                          int pad_top, int pad_left) {
    depthwise_job job = {x, y, w, bias, channels,
                         {H, W, outH, outW, kh, kw, sh, sw, dh, dw, pad_top, pad_left},
                         ocm_kernels()->depthwise->plane};
    ocm_parallel_for((size_t)planes, depthwise_range, &job);
}
