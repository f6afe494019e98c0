/*
 * elementwise_functions.c — ocm_unary and ocm_binary (the elementwise functions by number), their
 * broadcasting driver, select and per-channel PReLU: the portable functions (the tables
 * ocm_unary_scalar and ocm_binary_scalar), and the public entry points, which take the vector
 * level's function where it has one and split the work over the threads.
 */
#include "ocm_internal.h"

#include <math.h>
#include <string.h>

/* MARK: - Portable one-input functions */

/* The float16 value nearest x (ties to even), as a float: what a cast to fp16 keeps. */
static inline float round_to_half(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    const uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return x;                      /* ±∞, NaN */
    if (a >= 0x477ff000u) return sign ? -INFINITY : INFINITY; /* 65520 and above round past 65504 */
    if (a < 0x38800000u) {                               /* below 2⁻¹⁴: float16 subnormals, steps of 2⁻²⁴ */
        float r = rintf(fabsf(x) * 0x1p24f) * 0x1p-24f;
        return sign ? -r : r;
    }
    const uint32_t odd = (a >> 13) & 1u;                 /* 13 mantissa bits dropped, ties to even */
    uint32_t r = ((a + 0x0fffu + odd) & ~0x1fffu) | sign;
    float y;
    memcpy(&y, &r, sizeof y);
    return y;
}

/* t > bound ? bound : t, so that a NaN t stays NaN. */
static inline float clamp_above(float t, float bound) { return t > bound ? bound : t; }

#define UNARY_SCALAR(name, EXPR)                                                           \
    static void name##_scalar(const float *x, float *y, size_t n, float p, float q) {     \
        (void)p, (void)q;                                                                  \
        for (size_t i = 0; i < n; i++) {                                                   \
            const float v = x[i];                                                          \
            y[i] = (EXPR);                                                                 \
        }                                                                                  \
    }

UNARY_SCALAR(exp, expf(v))
UNARY_SCALAR(log, logf(v + p))
UNARY_SCALAR(sqrt, sqrtf(v))
UNARY_SCALAR(rsqrt, 1.0f / sqrtf(v + p))
UNARY_SCALAR(inverse, 1.0f / (v + p))
UNARY_SCALAR(abs, fabsf(v))
UNARY_SCALAR(square, v * v)
UNARY_SCALAR(power, powf(v, p))
UNARY_SCALAR(threshold, v >= p ? v : p)
UNARY_SCALAR(affine, p * v + q)
UNARY_SCALAR(elu, v > 0.0f ? v : p * (expf(v) - 1.0f))
UNARY_SCALAR(softplus, (v > 0.0f ? v : 0.0f) + log1pf(expf(-fabsf(v))))
UNARY_SCALAR(softsign, v / (1.0f + fabsf(v)))
UNARY_SCALAR(silu, v / (1.0f + expf(-v)))
UNARY_SCALAR(hard_sigmoid, fminf(fmaxf(p * v + q, 0.0f), 1.0f))
UNARY_SCALAR(thresholded_relu, (q != 0.0f ? v >= p : v > p) ? v : 0.0f)
UNARY_SCALAR(scaled_tanh, p * tanhf(q * v))
UNARY_SCALAR(logical_not, v == 0.0f ? 1.0f : 0.0f)
UNARY_SCALAR(round_half, round_to_half(v))
UNARY_SCALAR(trunc, truncf(v))
UNARY_SCALAR(bool, v != 0.0f ? 1.0f : 0.0f)
/* The functions the C library computes, X(OP, name, its float function), written out here and
 * entered in the table below from this one list (round: the default rounding mode, ties to even). */
#define LIBRARY_FUNCTIONS(X)                                                                 \
    X(SIN, sin, sinf) X(COS, cos, cosf) X(TAN, tan, tanf) X(ASIN, asin, asinf)              \
    X(ACOS, acos, acosf) X(ATAN, atan, atanf) X(SINH, sinh, sinhf) X(COSH, cosh, coshf)     \
    X(ATANH, atanh, atanhf) X(ERF, erf, erff) X(EXP2, exp2, exp2f) X(FLOOR, floor, floorf)  \
    X(CEIL, ceil, ceilf) X(ROUND, round, nearbyintf)
#define LIBRARY_SCALAR(OP, name, fn) UNARY_SCALAR(name, fn(v))
LIBRARY_FUNCTIONS(LIBRARY_SCALAR)
#undef LIBRARY_SCALAR
UNARY_SCALAR(sign, v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : v == 0.0f ? 0.0f : v)
UNARY_SCALAR(clamped_relu, clamp_above(v >= 0.0f ? v : p * v, q))

const ocm_unary_fn ocm_unary_scalar[OCM_UNARY_COUNT] = {
    [OCM_UNARY_EXP] = exp_scalar,
    [OCM_UNARY_LOG] = log_scalar,
    [OCM_UNARY_SQRT] = sqrt_scalar,
    [OCM_UNARY_RSQRT] = rsqrt_scalar,
    [OCM_UNARY_INVERSE] = inverse_scalar,
    [OCM_UNARY_ABS] = abs_scalar,
    [OCM_UNARY_SQUARE] = square_scalar,
    [OCM_UNARY_POWER] = power_scalar,
    [OCM_UNARY_THRESHOLD] = threshold_scalar,
    [OCM_UNARY_AFFINE] = affine_scalar,
    [OCM_UNARY_ELU] = elu_scalar,
    [OCM_UNARY_SOFTPLUS] = softplus_scalar,
    [OCM_UNARY_SOFTSIGN] = softsign_scalar,
    [OCM_UNARY_SILU] = silu_scalar,
    [OCM_UNARY_HARD_SIGMOID] = hard_sigmoid_scalar,
    [OCM_UNARY_THRESHOLDED_RELU] = thresholded_relu_scalar,
    [OCM_UNARY_SCALED_TANH] = scaled_tanh_scalar,
    [OCM_UNARY_LOGICAL_NOT] = logical_not_scalar,
    [OCM_UNARY_ROUND_HALF] = round_half_scalar,
    [OCM_UNARY_TRUNC] = trunc_scalar,
    [OCM_UNARY_BOOL] = bool_scalar,
#define LIBRARY_ENTRY(OP, name, fn) [OCM_UNARY_##OP] = name##_scalar,
    LIBRARY_FUNCTIONS(LIBRARY_ENTRY)
#undef LIBRARY_ENTRY
    [OCM_UNARY_SIGN] = sign_scalar,
    [OCM_UNARY_CLAMPED_RELU] = clamped_relu_scalar,
};
#undef LIBRARY_FUNCTIONS

/* MARK: - Portable two-input functions, in their three forms */

/* Floored division and its remainder, the pair Python and NumPy define: the remainder takes the
 * divisor's sign (fmod's result moved by one divisor when the signs differ), and the quotient is
 * (a − remainder)/b, which is an integer up to rounding, rounded to the nearest one. A zero
 * divisor gives a/b (±∞ or NaN) and fmod's NaN. */
static inline float floored_remainder(float a, float b) {
    float r = fmodf(a, b);
    if (r != 0.0f && (r < 0.0f) != (b < 0.0f)) r += b;
    return r;
}

static inline float floored_quotient(float a, float b) {
    if (b == 0.0f) return a / b;
    float r = fmodf(a, b), q = (a - r) / b;
    if (r != 0.0f && (r < 0.0f) != (b < 0.0f)) q -= 1.0f;
    float f = floorf(q);
    return q - f > 0.5f ? f + 1.0f : f;
}

#define BINARY_SCALAR(name, EXPR)                                                          \
    static void name##_vv(const float *a, const float *b, float *y, size_t n) {            \
        for (size_t i = 0; i < n; i++) {                                                   \
            const float u = a[i], v = b[i];                                                \
            y[i] = (EXPR);                                                                 \
        }                                                                                  \
    }                                                                                      \
    static void name##_vs(const float *a, const float *b, float *y, size_t n) {            \
        const float v = b[0];                                                              \
        for (size_t i = 0; i < n; i++) {                                                   \
            const float u = a[i];                                                          \
            y[i] = (EXPR);                                                                 \
        }                                                                                  \
    }                                                                                      \
    static void name##_sv(const float *a, const float *b, float *y, size_t n) {            \
        const float u = a[0];                                                              \
        for (size_t i = 0; i < n; i++) {                                                   \
            const float v = b[i];                                                          \
            y[i] = (EXPR);                                                                 \
        }                                                                                  \
    }

BINARY_SCALAR(add, u + v)
BINARY_SCALAR(sub, u - v)
BINARY_SCALAR(mul, u * v)
BINARY_SCALAR(div, u / v)
BINARY_SCALAR(max, v >= u ? v : u)
BINARY_SCALAR(min, v < u ? v : u)
BINARY_SCALAR(pow, powf(u, v))
BINARY_SCALAR(equal, u == v ? 1.0f : 0.0f)
BINARY_SCALAR(not_equal, u != v ? 1.0f : 0.0f)
BINARY_SCALAR(greater, u > v ? 1.0f : 0.0f)
BINARY_SCALAR(greater_equal, u >= v ? 1.0f : 0.0f)
BINARY_SCALAR(less, u < v ? 1.0f : 0.0f)
BINARY_SCALAR(less_equal, u <= v ? 1.0f : 0.0f)
BINARY_SCALAR(and, u != 0.0f && v != 0.0f ? 1.0f : 0.0f)
BINARY_SCALAR(or, u != 0.0f || v != 0.0f ? 1.0f : 0.0f)
BINARY_SCALAR(xor, (u != 0.0f) != (v != 0.0f) ? 1.0f : 0.0f)
BINARY_SCALAR(right, ((void)u, v))
BINARY_SCALAR(floor_div, floored_quotient(u, v))
BINARY_SCALAR(mod, floored_remainder(u, v))

#define FORMS(name) {name##_vv, name##_vs, name##_sv}

const ocm_binary_fn ocm_binary_scalar[OCM_BINARY_COUNT][3] = {
    [OCM_BINARY_ADD] = FORMS(add),
    [OCM_BINARY_SUB] = FORMS(sub),
    [OCM_BINARY_MUL] = FORMS(mul),
    [OCM_BINARY_DIV] = FORMS(div),
    [OCM_BINARY_MAX] = FORMS(max),
    [OCM_BINARY_MIN] = FORMS(min),
    [OCM_BINARY_POW] = FORMS(pow),
    [OCM_BINARY_EQUAL] = FORMS(equal),
    [OCM_BINARY_NOT_EQUAL] = FORMS(not_equal),
    [OCM_BINARY_GREATER] = FORMS(greater),
    [OCM_BINARY_GREATER_EQUAL] = FORMS(greater_equal),
    [OCM_BINARY_LESS] = FORMS(less),
    [OCM_BINARY_LESS_EQUAL] = FORMS(less_equal),
    [OCM_BINARY_AND] = FORMS(and),
    [OCM_BINARY_OR] = FORMS(or),
    [OCM_BINARY_XOR] = FORMS(xor),
    [OCM_BINARY_RIGHT] = FORMS(right),
    [OCM_BINARY_FLOOR_DIV] = FORMS(floor_div),
    [OCM_BINARY_MOD] = FORMS(mod),
};

/* MARK: - Choosing a level's function */

static inline ocm_unary_fn unary_fn(ocm_unary_op op) {
    assert(op >= 0 && op < OCM_UNARY_COUNT);
    ocm_unary_fn fn = ocm_kernels()->elementwise->unary[op];
    return fn != NULL ? fn : ocm_unary_scalar[op];
}

static inline ocm_binary_fn binary_fn(ocm_binary_op op, int form) {
    assert(op >= 0 && op < OCM_BINARY_COUNT);
    ocm_binary_fn fn = ocm_kernels()->elementwise->binary[op][form];
    return fn != NULL ? fn : ocm_binary_scalar[op][form];
}

enum {
    GRAIN = 1 << 14, /* elements per thread at least, as in elementwise.c */
    UNIT = 64,       /* chunk edges fall on multiples of this many elements */
};

/* MARK: - Same-shape entry points */

typedef struct flat_job {
    ocm_unary_fn unary;
    ocm_binary_fn binary;
    const float *a, *b;
    float *y;
    size_t n;
    float p, q;
} flat_job;

static void flat_range(void *raw, size_t begin, size_t end) {
    const flat_job *job = raw;
    size_t lo = begin * UNIT, hi = OCM_MIN(end * UNIT, job->n);
    if (job->unary != NULL) {
        job->unary(job->a + lo, job->y + lo, hi - lo, job->p, job->q);
    } else {
        job->binary(job->a + lo, job->b + lo, job->y + lo, hi - lo);
    }
}

static void run_flat(flat_job *job) {
    ocm_parallel_for_grain((job->n + UNIT - 1) / UNIT, GRAIN / UNIT, flat_range, job);
}

void ocm_unary(ocm_unary_op op, const float *x, float *y, size_t n, float p, float q) {
    assert((x != NULL && y != NULL) || n == 0);
    flat_job job = {.unary = unary_fn(op), .a = x, .y = y, .n = n, .p = p, .q = q};
    run_flat(&job);
}

void ocm_binary(ocm_binary_op op, const float *a, const float *b, float *y, size_t n) {
    assert((a != NULL && b != NULL && y != NULL) || n == 0);
    flat_job job = {.binary = binary_fn(op, 0), .a = a, .b = b, .y = y, .n = n};
    run_flat(&job);
}

/* MARK: - Broadcasting */

enum { MAX_RANK = 16 };

/* A broadcast of up to three operands over y, its axes merged: `rank` axes (the last the run). */
typedef struct broadcast_job {
    int rank, operands;
    size_t shape[MAX_RANK];
    ptrdiff_t strides[3][MAX_RANK];
    const float *in[3];
    float *y;
    size_t run;      /* shape[rank − 1] */
    ocm_binary_fn fn; /* binary: the form the last axis's strides call for; NULL for select */
    int form;
} broadcast_job;

/* Axes of size 1 dropped, and neighbours merged where every operand steps through them as one
 * axis. Returns the merged rank (at least 1). */
static int merge_axes(int rank, const size_t *shape, const ptrdiff_t *const *strides, int operands,
                      size_t *merged_shape, ptrdiff_t merged[3][MAX_RANK]) {
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        bool joins = r > 0;
        for (int o = 0; o < operands && joins; o++) {
            joins = merged[o][r - 1] == strides[o][d] * (ptrdiff_t)shape[d];
        }
        if (joins) {
            merged_shape[r - 1] *= shape[d];
            for (int o = 0; o < operands; o++) merged[o][r - 1] = strides[o][d];
        } else {
            assert(r < MAX_RANK);
            merged_shape[r] = shape[d];
            for (int o = 0; o < operands; o++) merged[o][r] = strides[o][d];
            r++;
        }
    }
    if (r == 0) {
        merged_shape[0] = 1;
        for (int o = 0; o < operands; o++) merged[o][0] = 0;
        r = 1;
    }
    return r;
}

/* One select run: y = cond ? a : b, each operand a run (stride 1) or one repeated value (0). */
static void select_run(const float *c, ptrdiff_t sc, const float *a, ptrdiff_t sa, const float *b,
                       ptrdiff_t sb, float *y, size_t n) {
    if (sc == 1 && sa == 1 && sb == 1) {
        for (size_t i = 0; i < n; i++) y[i] = c[i] != 0.0f ? a[i] : b[i];
        return;
    }
    for (size_t i = 0; i < n; i++) y[i] = c[i * sc] != 0.0f ? a[i * sa] : b[i * sb];
}

/* Runs [begin, end) of the merged broadcast. */
static void broadcast_range(void *raw, size_t begin, size_t end) {
    const broadcast_job *job = raw;
    const int outer = job->rank - 1;
    size_t index[MAX_RANK] = {0};
    ptrdiff_t offset[3] = {0, 0, 0};
    size_t rest = begin;
    for (int d = outer - 1; d >= 0; d--) {
        index[d] = rest % job->shape[d];
        rest /= job->shape[d];
        for (int o = 0; o < job->operands; o++) offset[o] += (ptrdiff_t)index[d] * job->strides[o][d];
    }
    const size_t n = job->run;
    for (size_t r = begin; r < end; r++) {
        float *y = job->y + r * n;
        const float *a = job->in[0] + offset[0], *b = job->in[1] + offset[1];
        if (job->fn != NULL) {
            job->fn(a, b, y, n);
        } else {
            select_run(a, job->strides[0][outer], b, job->strides[1][outer], job->in[2] + offset[2], job->strides[2][outer], y, n);
        }
        for (int d = outer - 1; d >= 0; d--) { /* the odometer: the last outer axis turns first */
            for (int o = 0; o < job->operands; o++) offset[o] += job->strides[o][d];
            if (++index[d] < job->shape[d]) break;
            for (int o = 0; o < job->operands; o++) offset[o] -= (ptrdiff_t)job->shape[d] * job->strides[o][d];
            index[d] = 0;
        }
    }
}

/* Merges the axes of `job` (its `operands` inputs set) and runs it: for a binary (binary_op >= 0),
 * with that op's function of the form the last axis calls for, or element by element when a run's
 * strides are not 0 and 1; for select (binary_op < 0) with select_run. */
static void run_broadcast(broadcast_job *job, int rank, const size_t *shape, const ptrdiff_t *const *strides,
                          int binary_op) {
    size_t total = 1;
    for (int d = 0; d < rank; d++) total *= shape[d];
    if (total == 0) return;
    job->rank = merge_axes(rank, shape, strides, job->operands, job->shape, job->strides);
    int last = job->rank - 1;
    if (binary_op >= 0) {
        ptrdiff_t sa = job->strides[0][last], sb = job->strides[1][last];
        if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1) || (sa == 0 && sb == 0)) {
            /* Not a run the vector functions take: every element its own run of one. */
            assert(job->rank < MAX_RANK);
            job->shape[job->rank] = 1;
            for (int o = 0; o < job->operands; o++) job->strides[o][job->rank] = 0;
            job->rank++;
            last++;
            sa = sb = 0;
            job->form = 2;
            job->fn = binary_fn((ocm_binary_op)binary_op, 2); /* a run of one: any form does */
        } else {
            job->form = sb == 0 ? 1 : sa == 0 ? 2 : 0;
            job->fn = binary_fn((ocm_binary_op)binary_op, job->form);
        }
    }
    job->run = job->shape[last];
    const size_t runs = total / job->run;
    ocm_parallel_for_grain(runs, OCM_MAX((size_t)1, (size_t)GRAIN / job->run), broadcast_range, job);
}

void ocm_broadcast_binary(ocm_binary_op op, int rank, const size_t *shape, const ptrdiff_t *stride_a,
                          const ptrdiff_t *stride_b, const float *a, const float *b, float *y) {
    assert(rank >= 0 && rank <= MAX_RANK);
    broadcast_job job = {.operands = 2, .in = {a, b, NULL}, .y = y};
    const ptrdiff_t *const strides[3] = {stride_a, stride_b, NULL};
    run_broadcast(&job, rank, shape, strides, (int)op);
}

void ocm_broadcast_select(int rank, const size_t *shape, const ptrdiff_t *stride_cond, const ptrdiff_t *stride_a,
                          const ptrdiff_t *stride_b, const float *cond, const float *a, const float *b, float *y) {
    assert(rank >= 0 && rank <= MAX_RANK);
    broadcast_job job = {.operands = 3, .in = {cond, a, b}, .y = y};
    const ptrdiff_t *const strides[3] = {stride_cond, stride_a, stride_b};
    run_broadcast(&job, rank, shape, strides, -1);
}

/* MARK: - PReLU */

typedef struct prelu_job {
    const float *x, *dy;
    float *y;
    size_t n, channels, plane;
    const float *slopes;
} prelu_job;

/* Elements [begin, end)·UNIT, one call of the leaky ReLU (or its backward) per channel piece. */
static void prelu_range(void *raw, size_t begin, size_t end) {
    const prelu_job *job = raw;
    const ocm_elementwise_ops *o = ocm_kernels()->elementwise;
    size_t i = begin * UNIT, hi = OCM_MIN(end * UNIT, job->n);
    if (i >= hi) return;
    if (job->channels == 1) {
        /* One slope for every element: one call over the whole range. */
        if (job->dy != NULL) {
            o->leaky_relu_backward(job->x + i, job->dy + i, job->y + i, hi - i, job->slopes[0]);
        } else {
            o->leaky_relu(job->x + i, job->y + i, hi - i, job->slopes[0]);
        }
        return;
    }
    if (job->plane < 16) {
        /* Slopes change every few elements (along the last axes): a plain loop, with the leaky
           ReLU's own rule (x > 0 passes, else the slope multiplies). */
        for (; i < hi; i++) {
            const float slope = job->slopes[(i / job->plane) % job->channels];
            if (job->dy != NULL) {
                job->y[i] = job->x[i] > 0.0f ? job->dy[i] : slope * job->dy[i];
            } else {
                job->y[i] = job->x[i] > 0.0f ? job->x[i] : slope * job->x[i];
            }
        }
        return;
    }
    while (i < hi) {
        const size_t plane_index = i / job->plane;
        const size_t piece = OCM_MIN(hi, (plane_index + 1) * job->plane) - i;
        const float slope = job->slopes[plane_index % job->channels];
        if (job->dy != NULL) {
            o->leaky_relu_backward(job->x + i, job->dy + i, job->y + i, piece, slope);
        } else {
            o->leaky_relu(job->x + i, job->y + i, piece, slope);
        }
        i += piece;
    }
}

static void run_prelu(prelu_job *job) {
    assert((job->x != NULL && job->y != NULL && job->slopes != NULL) || job->n == 0);
    assert(job->channels >= 1 && job->plane >= 1);
    ocm_parallel_for_grain((job->n + UNIT - 1) / UNIT, GRAIN / UNIT, prelu_range, job);
}

void ocm_prelu(const float *x, float *y, size_t n, const float *slopes, size_t channels, size_t plane) {
    prelu_job job = {.x = x, .y = y, .n = n, .channels = channels, .plane = plane, .slopes = slopes};
    run_prelu(&job);
}

void ocm_prelu_backward(const float *x, const float *dy, float *dx, size_t n, const float *slopes,
                        size_t channels, size_t plane) {
    assert(dy != NULL || n == 0);
    prelu_job job = {.x = x, .dy = dy, .y = dx, .n = n, .channels = channels, .plane = plane, .slopes = slopes};
    run_prelu(&job);
}
