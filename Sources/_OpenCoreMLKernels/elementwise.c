/*
 * elementwise.c — the public elementwise, row/column, softmax and loss kernels: argument
 * checks and thread splitting around the per-instruction-set ops, plus the portable scalar
 * ops themselves (the table ocm_elementwise_scalar).
 */
#include "ocm_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* MARK: - Scalar ops */

static void relu_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static void relu_backward_scalar(const float *x, const float *dy, float *dx, size_t n) {
    for (size_t i = 0; i < n; i++) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

static void leaky_relu_scalar(const float *x, float *y, size_t n, float slope) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : slope * x[i];
}

static void leaky_relu_backward_scalar(const float *x, const float *dy, float *dx, size_t n,
                                       float slope) {
    for (size_t i = 0; i < n; i++) dx[i] = x[i] > 0.0f ? dy[i] : slope * dy[i];
}

static void sigmoid_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
}

static void sigmoid_backward_scalar(const float *y, const float *dy, float *dx, size_t n) {
    for (size_t i = 0; i < n; i++) dx[i] = dy[i] * y[i] * (1.0f - y[i]);
}

static void tanh_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = tanhf(x[i]);
}

static void tanh_backward_scalar(const float *y, const float *dy, float *dx, size_t n) {
    for (size_t i = 0; i < n; i++) dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

static void add_scalar_op(const float *a, const float *b, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

static void mul_scalar(const float *a, const float *b, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = a[i] * b[i];
}

static void axpy_scalar(const float *x, float *y, size_t n, float alpha) {
    for (size_t i = 0; i < n; i++) y[i] += alpha * x[i];
}

static void scale_scalar(const float *x, float *y, size_t n, float alpha) {
    for (size_t i = 0; i < n; i++) y[i] = alpha * x[i];
}

static void fill_scalar(float *y, size_t n, float value) {
    for (size_t i = 0; i < n; i++) y[i] = value;
}

static void add_constant_scalar(float *y, size_t n, float value) {
    for (size_t i = 0; i < n; i++) y[i] += value;
}

static void clamp_scalar(const float *x, float *y, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) y[i] = OCM_CLAMP(x[i], lo, hi);
}

static void clamp_backward_scalar(const float *y, const float *dy, float *dx, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) dx[i] = y[i] > lo && y[i] < hi ? dy[i] : 0.0f;
}

static void add_scalar_clamp_scalar(float *y, size_t n, float value, float lo, float hi) {
    for (size_t i = 0; i < n; i++) y[i] = OCM_CLAMP(y[i] + value, lo, hi);
}

static void hardswish_scalar(const float *x, float *y, size_t n, float value, float threshold, float alpha, float beta) {
    for (size_t i = 0; i < n; i++) {
        const float v = value == 0.0f ? x[i] : x[i] + value, t = v > threshold ? v : 0.0f; /* −0 stays −0 */
        y[i] = t * fminf(fmaxf(alpha * t + beta, 0.0f), 1.0f);
    }
}

static float sum_scalar(const float *x, size_t n) {
    float s[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (int j = 0; j < 4; j++) s[j] += x[i + j];
    }
    for (; i < n; i++) s[0] += x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* GELU's three forms as written in their definitions (the vector versions reshape them). */
static void gelu_erf_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

static void gelu_tanh_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(OCM_GELU_TANH_C * (v + 0.044715f * v * v * v)));
    }
}

static void gelu_sigmoid_scalar(const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + expf(-1.702f * x[i]));
}

static void softmax_scalar(const float *x, float *y, size_t n) {
    float max = -INFINITY;
    for (size_t i = 0; i < n; i++) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        y[i] = expf(x[i] - max);
        sum += y[i];
    }
    float inv = 1.0f / sum;
    for (size_t i = 0; i < n; i++) y[i] *= inv;
}

static void copy_rows_scalar(float *restrict d, size_t ldd, const float *restrict s, size_t lds,
                             int rows, int cols) {
    for (int r = 0; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < cols; c++) d[c] = s[c];
    }
}

static void add_rows_scalar(float *restrict d, size_t ldd, const float *restrict s, size_t lds,
                            int rows, int cols) {
    for (int r = 0; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < cols; c++) d[c] += s[c];
    }
}

static void sgd_scalar(float *w, const float *g, float *v, size_t n, float lr, float momentum) {
    if (momentum == 0.0f) {
        for (size_t i = 0; i < n; i++) w[i] -= lr * g[i];
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float vi = momentum * v[i] + g[i];
        v[i] = vi;
        w[i] -= lr * vi;
    }
}

static void adam_scalar(float *w, const float *g, float *m, float *v, size_t n, float beta1,
                        float beta2, float eps, float step_size, float inv_sqrt_bc2) {
    for (size_t i = 0; i < n; i++) {
        float mi = beta1 * m[i] + (1.0f - beta1) * g[i];
        float vi = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
        m[i] = mi;
        v[i] = vi;
        w[i] -= step_size * mi / (sqrtf(vi) * inv_sqrt_bc2 + eps);
    }
}

const ocm_elementwise_ops ocm_elementwise_scalar = {
    .relu = relu_scalar,
    .relu_backward = relu_backward_scalar,
    .leaky_relu = leaky_relu_scalar,
    .leaky_relu_backward = leaky_relu_backward_scalar,
    .sigmoid = sigmoid_scalar,
    .sigmoid_backward = sigmoid_backward_scalar,
    .tanh = tanh_scalar,
    .tanh_backward = tanh_backward_scalar,
    .add = add_scalar_op,
    .mul = mul_scalar,
    .axpy = axpy_scalar,
    .scale = scale_scalar,
    .fill = fill_scalar,
    .add_scalar = add_constant_scalar,
    .clamp = clamp_scalar,
    .clamp_backward = clamp_backward_scalar,
    .add_scalar_clamp = add_scalar_clamp_scalar,
    .hardswish = hardswish_scalar,
    .sum = sum_scalar,
    .gelu_erf = gelu_erf_scalar,
    .gelu_tanh = gelu_tanh_scalar,
    .gelu_sigmoid = gelu_sigmoid_scalar,
    .softmax = softmax_scalar,
    .copy_rows = copy_rows_scalar,
    .add_rows = add_rows_scalar,
    .sgd = sgd_scalar,
    .adam = adam_scalar,
    .unary = ocm_unary_scalar,
    .binary = ocm_binary_scalar,
};

/* MARK: - Thread splitting */

enum {
    GRAIN = 1 << 14,  /* elements per thread at least (memory-bound ops gain little below) */
    ALIGN_UNIT = 64,  /* chunk edges fall on multiples of this many elements */
};

typedef enum { MAP_UNARY, MAP_UNARY_P, MAP_UNARY_PQ, MAP_BINARY, MAP_BINARY_P, MAP_BINARY_PQ, MAP_AXPY, MAP_FILL, MAP_HARDSWISH } map_kind;

typedef struct map_job {
    map_kind kind;
    const float *a, *b;
    float *y;
    float p, q, r;
    size_t n;
    union {
        void (*hardswish)(const float *, float *, size_t, float, float, float, float);
        void (*unary)(const float *, float *, size_t);
        void (*unary_p)(const float *, float *, size_t, float);
        void (*unary_pq)(const float *, float *, size_t, float, float);
        void (*binary_pq)(const float *, const float *, float *, size_t, float, float);
        void (*binary)(const float *, const float *, float *, size_t);
        void (*binary_p)(const float *, const float *, float *, size_t, float);
        void (*axpy)(const float *, float *, size_t, float);
        void (*fill)(float *, size_t, float);
    } fn;
} map_job;

static void map_range(void *raw, size_t begin, size_t end) {
    const map_job *job = raw;
    size_t lo = begin * ALIGN_UNIT, hi = OCM_MIN(end * ALIGN_UNIT, job->n);
    size_t count = hi - lo;
    switch (job->kind) {
    case MAP_UNARY: job->fn.unary(job->a + lo, job->y + lo, count); break;
    case MAP_UNARY_P: job->fn.unary_p(job->a + lo, job->y + lo, count, job->p); break;
    case MAP_UNARY_PQ: job->fn.unary_pq(job->a + lo, job->y + lo, count, job->p, job->q); break;
    case MAP_BINARY_PQ:
        job->fn.binary_pq(job->a + lo, job->b + lo, job->y + lo, count, job->p, job->q);
        break;
    case MAP_BINARY: job->fn.binary(job->a + lo, job->b + lo, job->y + lo, count); break;
    case MAP_BINARY_P:
        job->fn.binary_p(job->a + lo, job->b + lo, job->y + lo, count, job->p);
        break;
    case MAP_AXPY: job->fn.axpy(job->a + lo, job->y + lo, count, job->p); break;
    case MAP_FILL: job->fn.fill(job->y + lo, count, job->p); break;
    case MAP_HARDSWISH: job->fn.hardswish(job->a + lo, job->y + lo, count, 0.0f, job->p, job->q, job->r); break;
    }
}

static void run_map(map_job *job) {
    size_t units = (job->n + ALIGN_UNIT - 1) / ALIGN_UNIT;
    ocm_parallel_for_grain(units, GRAIN / ALIGN_UNIT, map_range, job);
}

static void map_unary(void (*fn)(const float *, float *, size_t), const float *x, float *y,
                      size_t n) {
    assert((x != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_UNARY, .a = x, .y = y, .n = n, .fn.unary = fn};
    run_map(&job);
}

static void map_unary_p(void (*fn)(const float *, float *, size_t, float), const float *x,
                        float *y, size_t n, float p) {
    assert((x != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_UNARY_P, .a = x, .y = y, .p = p, .n = n, .fn.unary_p = fn};
    run_map(&job);
}

static void map_binary(void (*fn)(const float *, const float *, float *, size_t),
                       const float *a, const float *b, float *y, size_t n) {
    assert((a != NULL && b != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_BINARY, .a = a, .b = b, .y = y, .n = n, .fn.binary = fn};
    run_map(&job);
}

static void map_binary_p(void (*fn)(const float *, const float *, float *, size_t, float),
                         const float *a, const float *b, float *y, size_t n, float p) {
    assert((a != NULL && b != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_BINARY_P, .a = a, .b = b, .y = y, .p = p, .n = n,
                   .fn.binary_p = fn};
    run_map(&job);
}

/* MARK: - Public elementwise entry points */

static inline const ocm_elementwise_ops *ops(void) { return ocm_kernels()->elementwise; }

void ocm_relu(const float *x, float *y, size_t n) { map_unary(ops()->relu, x, y, n); }

void ocm_relu_backward(const float *x, const float *dy, float *dx, size_t n) {
    map_binary(ops()->relu_backward, x, dy, dx, n);
}

void ocm_clamp(const float *x, float *y, size_t n, float lo, float hi) {
    assert((x != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_UNARY_PQ, .a = x, .y = y, .p = lo, .q = hi, .n = n, .fn.unary_pq = ops()->clamp};
    run_map(&job);
}

void ocm_hardswish(const float *x, float *y, size_t n, float threshold, float alpha, float beta) {
    assert((x != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_HARDSWISH, .a = x, .y = y, .p = threshold, .q = alpha, .r = beta, .n = n,
                   .fn.hardswish = ops()->hardswish};
    run_map(&job);
}

void ocm_clamp_backward(const float *y, const float *dy, float *dx, size_t n, float lo, float hi) {
    assert((y != NULL && dy != NULL && dx != NULL) || n == 0);
    map_job job = {.kind = MAP_BINARY_PQ, .a = y, .b = dy, .y = dx, .p = lo, .q = hi, .n = n,
                   .fn.binary_pq = ops()->clamp_backward};
    run_map(&job);
}

void ocm_leaky_relu(const float *x, float *y, size_t n, float slope) {
    map_unary_p(ops()->leaky_relu, x, y, n, slope);
}

void ocm_leaky_relu_backward(const float *x, const float *dy, float *dx, size_t n,
                             float slope) {
    map_binary_p(ops()->leaky_relu_backward, x, dy, dx, n, slope);
}

void ocm_sigmoid(const float *x, float *y, size_t n) { map_unary(ops()->sigmoid, x, y, n); }

void ocm_sigmoid_backward(const float *y, const float *dy, float *dx, size_t n) {
    map_binary(ops()->sigmoid_backward, y, dy, dx, n);
}

void ocm_tanh(const float *x, float *y, size_t n) { map_unary(ops()->tanh, x, y, n); }

void ocm_tanh_backward(const float *y, const float *dy, float *dx, size_t n) {
    map_binary(ops()->tanh_backward, y, dy, dx, n);
}

void ocm_gelu(const float *x, float *y, size_t n, int mode) {
    assert(mode == OCM_GELU_EXACT || mode == OCM_GELU_TANH || mode == OCM_GELU_SIGMOID);
    const ocm_elementwise_ops *o = ops();
    map_unary(mode == OCM_GELU_EXACT ? o->gelu_erf : mode == OCM_GELU_TANH ? o->gelu_tanh : o->gelu_sigmoid, x, y, n);
}

void ocm_add(const float *a, const float *b, float *y, size_t n) {
    map_binary(ops()->add, a, b, y, n);
}

void ocm_mul(const float *a, const float *b, float *y, size_t n) {
    map_binary(ops()->mul, a, b, y, n);
}

void ocm_axpy(const float *x, float *y, size_t n, float alpha) {
    assert((x != NULL && y != NULL) || n == 0);
    map_job job = {.kind = MAP_AXPY, .a = x, .y = y, .p = alpha, .n = n, .fn.axpy = ops()->axpy};
    run_map(&job);
}

void ocm_scale(const float *x, float *y, size_t n, float alpha) {
    map_unary_p(ops()->scale, x, y, n, alpha);
}

void ocm_fill(float *y, size_t n, float value) {
    assert(y != NULL || n == 0);
    map_job job = {.kind = MAP_FILL, .y = y, .p = value, .n = n, .fn.fill = ops()->fill};
    run_map(&job);
}

/* MARK: - Rows and columns */

typedef struct matrix_job {
    const float *x;
    float *y;
    const float *v;
    int M, N, ldx, ldy;
    bool accumulate;
} matrix_job;

static void sum_rows_range(void *raw, size_t begin, size_t end) {
    /* columns [begin, end) in units of ALIGN_UNIT */
    const matrix_job *job = raw;
    const ocm_elementwise_ops *o = ops();
    size_t lo = begin * ALIGN_UNIT, hi = OCM_MIN(end * ALIGN_UNIT, (size_t)job->N);
    size_t count = hi - lo;
    float *y = job->y + lo;
    if (!job->accumulate) {
        if (job->M == 0) {
            o->fill(y, count, 0.0f);
            return;
        }
        memcpy(y, job->x + lo, count * sizeof(float));
    } else if (job->M > 0) {
        o->add(y, job->x + lo, y, count);
    }
    for (int i = 1; i < job->M; i++) o->add(y, job->x + (size_t)i * job->ldx + lo, y, count);
}

void ocm_sum_rows(const float *x, float *y, int M, int N, int ldx, bool accumulate) {
    assert(M >= 0 && N >= 0 && ldx >= N);
    assert((x != NULL || M == 0) && (y != NULL || N == 0));
    matrix_job job = {.x = x, .y = y, .M = M, .N = N, .ldx = ldx, .accumulate = accumulate};
    size_t units = ((size_t)N + ALIGN_UNIT - 1) / ALIGN_UNIT;
    size_t grain_units = OCM_MAX((size_t)1, (size_t)GRAIN / ((size_t)OCM_MAX(M, 1) * ALIGN_UNIT));
    ocm_parallel_for_grain(units, grain_units, sum_rows_range, &job);
}

static void sum_cols_range(void *raw, size_t begin, size_t end) {
    const matrix_job *job = raw;
    const ocm_elementwise_ops *o = ops();
    for (size_t i = begin; i < end; i++) {
        float s = o->sum(job->x + i * (size_t)job->ldx, (size_t)job->N);
        job->y[i] = job->accumulate ? job->y[i] + s : s;
    }
}

void ocm_sum_cols(const float *x, float *y, int M, int N, int ldx, bool accumulate) {
    assert(M >= 0 && N >= 0 && ldx >= N);
    assert((x != NULL || M == 0) && (y != NULL || M == 0));
    matrix_job job = {.x = x, .y = y, .M = M, .N = N, .ldx = ldx, .accumulate = accumulate};
    ocm_parallel_for_grain((size_t)M, OCM_MAX((size_t)1, GRAIN / OCM_MAX((size_t)N, 1)),
                           sum_cols_range, &job);
}

static void add_row_range(void *raw, size_t begin, size_t end) {
    const matrix_job *job = raw;
    const ocm_elementwise_ops *o = ops();
    for (size_t i = begin; i < end; i++) {
        float *row = job->y + i * (size_t)job->ldy;
        o->add(row, job->v, row, (size_t)job->N);
    }
}

void ocm_add_row_vector(float *x, const float *row, int M, int N, int ldx) {
    assert(M >= 0 && N >= 0 && ldx >= N);
    assert((x != NULL && row != NULL) || M == 0 || N == 0);
    matrix_job job = {.y = x, .v = row, .M = M, .N = N, .ldy = ldx};
    ocm_parallel_for_grain((size_t)M, OCM_MAX((size_t)1, GRAIN / OCM_MAX((size_t)N, 1)),
                           add_row_range, &job);
}

static void add_col_range(void *raw, size_t begin, size_t end) {
    const matrix_job *job = raw;
    const ocm_elementwise_ops *o = ops();
    for (size_t i = begin; i < end; i++) {
        o->add_scalar(job->y + i * (size_t)job->ldy, (size_t)job->N, job->v[i]);
    }
}

void ocm_add_col_vector(float *x, const float *col, int M, int N, int ldx) {
    assert(M >= 0 && N >= 0 && ldx >= N);
    assert((x != NULL && col != NULL) || M == 0 || N == 0);
    matrix_job job = {.y = x, .v = col, .M = M, .N = N, .ldy = ldx};
    ocm_parallel_for_grain((size_t)M, OCM_MAX((size_t)1, GRAIN / OCM_MAX((size_t)N, 1)),
                           add_col_range, &job);
}

/* MARK: - Softmax and cross-entropy */

static void softmax_range(void *raw, size_t begin, size_t end) {
    const matrix_job *job = raw;
    const ocm_elementwise_ops *o = ops();
    for (size_t i = begin; i < end; i++) {
        o->softmax(job->x + i * (size_t)job->ldx, job->y + i * (size_t)job->ldy,
                   (size_t)job->N);
    }
}

void ocm_softmax_rows(const float *x, float *y, int M, int N, int ldx, int ldy) {
    assert(M >= 0 && N >= 0 && ldx >= N && ldy >= N);
    assert((x != NULL && y != NULL) || M == 0 || N == 0);
    if (N == 0) return;
    matrix_job job = {.x = x, .y = y, .M = M, .N = N, .ldx = ldx, .ldy = ldy};
    ocm_parallel_for_grain((size_t)M, OCM_MAX((size_t)1, (GRAIN / 4) / (size_t)N),
                           softmax_range, &job);
}

float ocm_softmax_cross_entropy_backward(const float *probs, const int32_t *labels, float *dx,
                                         int M, int N, int ld) {
    assert(M >= 0 && N >= 0 && ld >= N);
    if (M == 0) return 0.0f;
    assert(probs != NULL && labels != NULL && dx != NULL && N > 0);
    const ocm_elementwise_ops *o = ops();
    const float inv_m = 1.0f / (float)M;
    double loss = 0.0;
    for (int i = 0; i < M; i++) {
        const float *p = probs + (size_t)i * ld;
        float *d = dx + (size_t)i * ld;
        int label = labels[i];
        assert(label >= 0 && label < N);
        float p_label = p[label];
        loss -= log(p_label > FLT_MIN ? (double)p_label : (double)FLT_MIN);
        o->scale(p, d, (size_t)N, inv_m);
        d[label] = (p_label - 1.0f) * inv_m;
    }
    return (float)(loss / M);
}

/* MARK: - Optimizers */

typedef struct optimizer_job {
    float *w;
    const float *g;
    float *m, *v;
    size_t n;
    float lr, momentum, beta1, beta2, eps, step_size, inv_sqrt_bc2;
} optimizer_job;

static void sgd_range(void *raw, size_t begin, size_t end) {
    const optimizer_job *job = raw;
    size_t lo = begin * ALIGN_UNIT, hi = OCM_MIN(end * ALIGN_UNIT, job->n);
    ops()->sgd(job->w + lo, job->g + lo, job->v != NULL ? job->v + lo : NULL, hi - lo, job->lr,
               job->momentum);
}

void ocm_sgd_update(float *w, const float *g, float *velocity, size_t n, float lr,
                    float momentum) {
    assert((w != NULL && g != NULL && (velocity != NULL || momentum == 0.0f)) || n == 0);
    optimizer_job job = {.w = w, .g = g, .v = velocity, .n = n, .lr = lr, .momentum = momentum};
    ocm_parallel_for_grain((n + ALIGN_UNIT - 1) / ALIGN_UNIT, GRAIN / ALIGN_UNIT, sgd_range,
                           &job);
}

static void adam_range(void *raw, size_t begin, size_t end) {
    const optimizer_job *job = raw;
    size_t lo = begin * ALIGN_UNIT, hi = OCM_MIN(end * ALIGN_UNIT, job->n);
    ops()->adam(job->w + lo, job->g + lo, job->m + lo, job->v + lo, hi - lo, job->beta1,
                job->beta2, job->eps, job->step_size, job->inv_sqrt_bc2);
}

void ocm_adam_update(float *w, const float *g, float *m, float *v, size_t n, float lr,
                     float beta1, float beta2, float eps, long step) {
    assert((w != NULL && g != NULL && m != NULL && v != NULL) || n == 0);
    assert(step >= 1);
    double bc1 = 1.0 - pow((double)beta1, (double)step);
    double bc2 = 1.0 - pow((double)beta2, (double)step);
    optimizer_job job = {
        .w = w, .g = g, .m = m, .v = v, .n = n,
        .beta1 = beta1, .beta2 = beta2, .eps = eps,
        .step_size = (float)(lr / bc1),
        .inv_sqrt_bc2 = (float)(1.0 / sqrt(bc2)),
    };
    ocm_parallel_for_grain((n + ALIGN_UNIT - 1) / ALIGN_UNIT, GRAIN / ALIGN_UNIT, adam_range,
                           &job);
}
