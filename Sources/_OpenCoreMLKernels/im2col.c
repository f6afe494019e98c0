/*
 * im2col.c — unfolding NCHW images into GEMM columns and folding column gradients back.
 * Each (channel, kernel row, kernel column) gives one row of the columns matrix. For it, the
 * output rows and columns that read inside the image are found once; the rest is zero (or
 * dropped, for col2im), and the inside is one 2-D copy (or add) of short runs, done by the
 * instruction set's copy_rows / add_rows when the stride is 1.
 */
#include "ocm_internal.h"

#include <string.h>

typedef struct conv_geometry {
    int C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW;
    int band_begin, band_end; /* the output rows unfolded (im2col; all of them elsewhere) */
} conv_geometry;

/* Output columns ow with 0 <= ow·sw + offset < W form [*lo, *hi). */
static inline void valid_span(int offset, int sw, int W, int outW, int *lo, int *hi) {
    /* first ow with ow·sw + offset >= 0 */
    int first = offset >= 0 ? 0 : (-offset + sw - 1) / sw;
    /* last ow with ow·sw + offset <= W − 1 */
    int last = W - 1 - offset < 0 ? -1 : (W - 1 - offset) / sw;
    *lo = OCM_MIN(first, outW);
    *hi = OCM_MAX(*lo, OCM_MIN(last + 1, outW));
}

static void check_geometry(const conv_geometry *g) {
    (void)g;
    assert(g->C >= 0 && g->H >= 0 && g->W >= 0 && g->outH >= 0 && g->outW >= 0);
    assert(g->kh >= 1 && g->kw >= 1 && g->sh >= 1 && g->sw >= 1 && g->dh >= 1 && g->dw >= 1);
    assert(g->pt >= 0 && g->pl >= 0);
}

/* One image's output rows [band_begin, band_end) into columns whose rows are `ld` floats apart
 * (each holding the band's (band_end − band_begin)·outW positions). */
static void im2col_image(const conv_geometry *g, const ocm_elementwise_ops *ops,
                         const float *image, float *columns, size_t ld) {
    const int H = g->H, W = g->W, outW = g->outW, sh = g->sh, sw = g->sw;
    const int begin = g->band_begin, end = g->band_end;
    const size_t plane = (size_t)H * W;
    for (int c = 0; c < g->C; c++) {
        const float *src = image + (size_t)c * plane;
        for (int i = 0; i < g->kh; i++) {
            const int h_offset = i * g->dh - g->pt;
            int oh_lo, oh_hi; /* output rows of the band whose input row is in the image */
            valid_span(h_offset, sh, H, g->outH, &oh_lo, &oh_hi);
            oh_lo = OCM_MIN(OCM_MAX(oh_lo, begin), end);
            oh_hi = OCM_MIN(OCM_MAX(oh_hi, oh_lo), end);
            for (int j = 0; j < g->kw; j++) {
                float *dst = columns + ((size_t)(c * g->kh + i) * g->kw + j) * ld;
                const int w_offset = j * g->dw - g->pl;
                int lo, hi; /* output columns whose input column is in the image */
                valid_span(w_offset, sw, W, outW, &lo, &hi);
                if (oh_lo > begin) memset(dst, 0, sizeof(float) * (size_t)(oh_lo - begin) * outW);
                if (oh_hi < end) {
                    memset(dst + (size_t)(oh_hi - begin) * outW, 0, sizeof(float) * (size_t)(end - oh_hi) * outW);
                }
                if (lo > 0 || hi < outW) {
                    for (int oh = oh_lo; oh < oh_hi; oh++) {
                        float *d = dst + (size_t)(oh - begin) * outW;
                        for (int ow = 0; ow < lo; ow++) d[ow] = 0.0f;
                        for (int ow = hi; ow < outW; ow++) d[ow] = 0.0f;
                    }
                }
                if (oh_lo >= oh_hi || lo >= hi) continue;
                /* input row of output row oh: src + (oh·sh + h_offset)·W, column ow·sw + w_offset */
                const float *first = src + (size_t)(oh_lo * sh + h_offset) * W + (lo * sw + w_offset);
                float *d = dst + (size_t)(oh_lo - begin) * outW + lo;
                if (sw == 1) {
                    ops->copy_rows(d, (size_t)outW, first, (size_t)sh * W, oh_hi - oh_lo, hi - lo);
                } else {
                    for (int oh = oh_lo; oh < oh_hi; oh++, d += outW, first += (size_t)sh * W) {
                        for (int ow = 0; ow < hi - lo; ow++) d[ow] = first[ow * sw];
                    }
                }
            }
        }
    }
}

/* Adds columns (rows `ld` floats apart) back into one image. */
static void col2im_image(const conv_geometry *g, const ocm_elementwise_ops *ops,
                         const float *columns, size_t ld, float *image) {
    const int H = g->H, W = g->W, outH = g->outH, outW = g->outW, sh = g->sh, sw = g->sw;
    const size_t plane = (size_t)H * W;
    /* Kernel columns j outermost: the adds of j and j + 1 hit the same image rows one float
     * apart, and keeping them far apart in time spares the loads a stall on the stores. */
    for (int j = 0; j < g->kw; j++) {
        const int w_offset = j * g->dw - g->pl;
        int lo, hi;
        valid_span(w_offset, sw, W, outW, &lo, &hi);
        for (int c = 0; c < g->C; c++) {
            float *dst = image + (size_t)c * plane;
            for (int i = 0; i < g->kh; i++) {
                const float *src = columns + ((size_t)(c * g->kh + i) * g->kw + j) * ld;
                const int h_offset = i * g->dh - g->pt;
                int oh_lo, oh_hi;
                valid_span(h_offset, sh, H, outH, &oh_lo, &oh_hi);
                if (oh_lo >= oh_hi || lo >= hi) continue;
                float *first = dst + (size_t)(oh_lo * sh + h_offset) * W + (lo * sw + w_offset);
                const float *s = src + (size_t)oh_lo * outW + lo;
                if (sw == 1) {
                    ops->add_rows(first, (size_t)sh * W, s, (size_t)outW, oh_hi - oh_lo, hi - lo);
                } else {
                    for (int oh = oh_lo; oh < oh_hi; oh++, s += outW, first += (size_t)sh * W) {
                        for (int ow = 0; ow < hi - lo; ow++) first[ow * sw] += s[ow];
                    }
                }
            }
        }
    }
}

enum { COLUMN_GRAIN = 1 << 14 }; /* column entries per thread at least */

typedef struct channels_job {
    conv_geometry g;
    const ocm_elementwise_ops *ops;
    const float *image;
    float *columns;
} channels_job;

/* Channels [begin, end) of one image: their rows of the columns are independent of the rest. */
static void im2col_channels_range(void *raw, size_t begin, size_t end) {
    const channels_job *job = raw;
    conv_geometry g = job->g;
    g.C = (int)(end - begin);
    const size_t ld = (size_t)(g.band_end - g.band_begin) * g.outW;
    im2col_image(&g, job->ops, job->image + begin * (size_t)g.H * g.W,
                 job->columns + begin * (size_t)g.kh * g.kw * ld, ld);
}

void ocm_im2col(const float *image, int C, int H, int W, int kh, int kw, int sh, int sw, int dh,
                int dw, int pt, int pl, int outH, int outW, float *columns) {
    channels_job job = {{C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW, 0, outH},
                        ocm_kernels()->elementwise, image, columns};
    check_geometry(&job.g);
    if ((size_t)C * outH * outW == 0) return;
    assert(image != NULL && columns != NULL);
    const size_t per_channel = (size_t)kh * kw * outH * outW;
    ocm_parallel_for_grain((size_t)C, OCM_MAX((size_t)1, COLUMN_GRAIN / per_channel),
                           im2col_channels_range, &job);
}

void ocm_im2col_rows(const float *image, int C, int H, int W, int kh, int kw, int sh, int sw, int dh,
                     int dw, int pt, int pl, int outH, int outW, int row_begin, int row_end,
                     float *columns) {
    channels_job job = {{C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW, row_begin, row_end},
                        ocm_kernels()->elementwise, image, columns};
    check_geometry(&job.g);
    assert(0 <= row_begin && row_begin <= row_end && row_end <= outH);
    const size_t per_channel = (size_t)kh * kw * (size_t)(row_end - row_begin) * outW;
    if ((size_t)C * per_channel == 0) return;
    assert(image != NULL && columns != NULL);
    ocm_parallel_for_grain((size_t)C, OCM_MAX((size_t)1, COLUMN_GRAIN / per_channel),
                           im2col_channels_range, &job);
}

void ocm_col2im(const float *columns, int C, int H, int W, int kh, int kw, int sh, int sw,
                int dh, int dw, int pt, int pl, int outH, int outW, float *image) {
    conv_geometry g = {C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW, 0, outH};
    check_geometry(&g);
    if ((size_t)C * outH * outW == 0) return;
    assert(image != NULL && columns != NULL);
    col2im_image(&g, ocm_kernels()->elementwise, columns, (size_t)outH * outW, image);
}

/* MARK: - Batches */

typedef struct batch_job {
    conv_geometry g;
    size_t batch; /* N */
    const ocm_elementwise_ops *ops;
    const float *in;
    float *out;
} batch_job;

/* Image n of the batch occupies columns n·outH·outW ..< (n+1)·outH·outW of each row. */
static void im2col_batch_range(void *raw, size_t begin, size_t end) {
    const batch_job *job = raw;
    const conv_geometry *g = &job->g;
    size_t spatial = (size_t)g->outH * g->outW, image = (size_t)g->C * g->H * g->W;
    for (size_t n = begin; n < end; n++) {
        im2col_image(g, job->ops, job->in + n * image, job->out + n * spatial, job->batch * spatial);
    }
}

static void col2im_batch_range(void *raw, size_t begin, size_t end) {
    const batch_job *job = raw;
    const conv_geometry *g = &job->g;
    size_t spatial = (size_t)g->outH * g->outW, image = (size_t)g->C * g->H * g->W;
    for (size_t n = begin; n < end; n++) {
        col2im_image(g, job->ops, job->in + n * spatial, job->batch * spatial, job->out + n * image);
    }
}

static size_t images_per_thread(const conv_geometry *g) {
    size_t per_image = (size_t)g->C * g->kh * g->kw * g->outH * g->outW;
    return OCM_MAX((size_t)1, COLUMN_GRAIN / OCM_MAX(per_image, (size_t)1));
}

void ocm_im2col_batch(const float *images, int N, int C, int H, int W, int kh, int kw, int sh,
                      int sw, int dh, int dw, int pt, int pl, int outH, int outW,
                      float *columns) {
    batch_job job = {{C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW, 0, outH}, (size_t)N,
                     ocm_kernels()->elementwise, images, columns};
    check_geometry(&job.g);
    assert(N >= 0);
    if ((size_t)N * C * outH * outW == 0) return;
    assert(images != NULL && columns != NULL);
    ocm_parallel_for_grain((size_t)N, images_per_thread(&job.g), im2col_batch_range, &job);
}

void ocm_col2im_batch(const float *columns, int N, int C, int H, int W, int kh, int kw, int sh,
                      int sw, int dh, int dw, int pt, int pl, int outH, int outW,
                      float *images) {
    batch_job job = {{C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, outH, outW, 0, outH}, (size_t)N,
                     ocm_kernels()->elementwise, columns, images};
    check_geometry(&job.g);
    assert(N >= 0);
    if ((size_t)N * C * outH * outW == 0) return;
    assert(images != NULL && columns != NULL);
    ocm_parallel_for_grain((size_t)N, images_per_thread(&job.g), col2im_batch_range, &job);
}
