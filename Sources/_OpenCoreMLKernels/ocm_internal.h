/*
 * ocm_internal.h — private declarations shared by the kernel files: the dispatch table of
 * per-instruction-set kernels, target attributes, and the thread pool's part runner.
 */
#ifndef OPENCOREML_KERNELS_INTERNAL_H
#define OPENCOREML_KERNELS_INTERNAL_H

#include "include/OpenCoreMLKernels.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64)
#define OCM_X86 1
/* Functions compiled for AVX2+FMA or AVX-512F; only called when the CPU has them. */
#define OCM_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define OCM_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#endif
#if defined(__aarch64__)
#define OCM_ARM 1
#endif

#define OCM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define OCM_MAX(a, b) ((a) > (b) ? (a) : (b))
/* v limited to [lo, hi]; NaN stays NaN, and infinite bounds leave v as is. */
#define OCM_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

/* √(2/π), the tanh form of GELU's inner factor. */
#define OCM_GELU_TANH_C 0.79788456080286536f

/* MARK: - GEMM building blocks (one set per instruction set) */

/* Packs rows [0, m) (m <= mr) × columns [0, kc) of op(A) into dst[kc][mr], zero-filling rows
 * m ..< mr. `a` points at op(A)[0][0]: element (r, k) is a[r·lda + k], or a[k·lda + r] when
 * trans. */
typedef void (*ocm_pack_a_fn)(bool trans, const float *a, int lda, int m, int kc, int mr,
                              float *dst);
/* Packs rows [0, kc) × columns [0, n) (n <= w) of op(B) into dst[kc][w], zero-filling columns
 * n ..< w. `b` points at op(B)[0][0]: element (k, c) is b[k·ldb + c], or b[c·ldb + k] when
 * trans. */
typedef void (*ocm_pack_b_fn)(bool trans, const float *b, int ldb, int kc, int n, int w,
                              float *dst);
/* The micro-kernel: C[0..<m][0..<n] = alpha·(Ap·Bp) + beta·C (C not read when beta == 0),
 * with Ap packed as [kc][mr] and Bp as [kc][w], w = n rounded up to the arch's vw (at most
 * nr). */
typedef void (*ocm_gemm_kernel_fn)(int kc, const float *Ap, const float *Bp, float *C, int ldc,
                                   int m, int n, float alpha, float beta);

/* C = alpha·A·Bᵀ + beta·C by dot products along contiguous rows of A (M×K, lda) and B (N×K,
 * ldb), without packing: for few, long rows (a convolution's weight gradient per image). */
typedef void (*ocm_gemm_dot_nt_fn)(int M, int N, int K, float alpha, const float *A, int lda,
                                   const float *B, int ldb, float beta, float *C, int ldc);

typedef struct ocm_gemm_arch {
    int mr;   /* rows of a micro-tile */
    int nr;   /* widest micro-tile */
    int vw;   /* packed B panels are n rounded up to a multiple of vw */
    int kc;   /* K block */
    int nc;   /* N block (multiple of nr) */
    ocm_gemm_kernel_fn kernel;
    ocm_pack_a_fn pack_a;
    ocm_pack_b_fn pack_b;
    ocm_gemm_dot_nt_fn dot_nt; /* may be NULL */
} ocm_gemm_arch;

void ocm_gemm_pack_a_generic(bool trans, const float *a, int lda, int m, int kc, int mr,
                             float *dst);
void ocm_gemm_pack_b_generic(bool trans, const float *b, int ldb, int kc, int n, int w,
                             float *dst);

/* MARK: - Elementwise building blocks (serial; the public functions add the threads) */

typedef void (*ocm_unary_fn)(const float *x, float *y, size_t n, float p, float q);
typedef void (*ocm_binary_fn)(const float *a, const float *b, float *y, size_t n);

typedef struct ocm_elementwise_ops {
    void (*relu)(const float *x, float *y, size_t n);
    void (*relu_backward)(const float *x, const float *dy, float *dx, size_t n);
    void (*leaky_relu)(const float *x, float *y, size_t n, float slope);
    void (*leaky_relu_backward)(const float *x, const float *dy, float *dx, size_t n,
                                float slope);
    void (*sigmoid)(const float *x, float *y, size_t n);
    void (*sigmoid_backward)(const float *y, const float *dy, float *dx, size_t n);
    void (*tanh)(const float *x, float *y, size_t n);
    void (*tanh_backward)(const float *y, const float *dy, float *dx, size_t n);
    void (*add)(const float *a, const float *b, float *y, size_t n);
    void (*mul)(const float *a, const float *b, float *y, size_t n);
    void (*axpy)(const float *x, float *y, size_t n, float alpha);
    void (*scale)(const float *x, float *y, size_t n, float alpha);
    void (*fill)(float *y, size_t n, float value);
    void (*add_scalar)(float *y, size_t n, float value); /* y[i] += value */
    /* y = OCM_CLAMP(x, lo, hi); its backward dx = lo < y < hi ? dy : 0 (y the output); and
     * y[i] = OCM_CLAMP(y[i] + value, lo, hi). */
    void (*clamp)(const float *x, float *y, size_t n, float lo, float hi);
    void (*clamp_backward)(const float *y, const float *dy, float *dx, size_t n, float lo, float hi);
    void (*add_scalar_clamp)(float *y, size_t n, float value, float lo, float hi);
    /* y = ocm_hardswish's function of x + value (y may be x). */
    void (*hardswish)(const float *x, float *y, size_t n, float value, float threshold, float alpha, float beta);
    float (*sum)(const float *x, size_t n);
    /* GELU by erf (y = x·Φ(x)), by tanh and by sigmoid (ocm_gelu's modes). */
    void (*gelu_erf)(const float *x, float *y, size_t n);
    void (*gelu_tanh)(const float *x, float *y, size_t n);
    void (*gelu_sigmoid)(const float *x, float *y, size_t n);
    /* One softmax row: y = exp(x − max) / Σ exp(x − max). */
    void (*softmax)(const float *x, float *y, size_t n);
    /* 2-D copy and add of `rows` runs of `cols` floats (short runs: convolution rows):
     * d[r·ldd + c] = s[r·lds + c], resp. d[r·ldd + c] += s[r·lds + c]. No overlap. A copy may
     * read up to a vector past a run that a later run follows within lds. */
    void (*copy_rows)(float *d, size_t ldd, const float *s, size_t lds, int rows, int cols);
    void (*add_rows)(float *d, size_t ldd, const float *s, size_t lds, int rows, int cols);
    void (*sgd)(float *w, const float *g, float *v, size_t n, float lr, float momentum);
    /* Adam with the bias corrections folded in: step_size = lr/(1−β1ᵗ),
     * inv_sqrt_bc2 = 1/√(1−β2ᵗ); w −= step_size·m/(√v·inv_sqrt_bc2 + eps). */
    void (*adam)(float *w, const float *g, float *m, float *v, size_t n, float beta1,
                 float beta2, float eps, float step_size, float inv_sqrt_bc2);
    /* ocm_unary's functions, OCM_UNARY_COUNT of them (NULL where a vector level has none: the
     * scalar one is used). */
    const ocm_unary_fn *unary;
    /* ocm_binary's functions, OCM_BINARY_COUNT rows of three forms: [0] two runs, [1] a run and
     * b[0] repeated, [2] a[0] repeated and a run (NULL where a vector level has none). */
    const ocm_binary_fn (*binary)[3];
} ocm_elementwise_ops;

/* The portable ocm_unary and ocm_binary functions (elementwise_functions.c). */
extern const ocm_unary_fn ocm_unary_scalar[OCM_UNARY_COUNT];
extern const ocm_binary_fn ocm_binary_scalar[OCM_BINARY_COUNT][3];

/* MARK: - Pooling building blocks */

typedef struct ocm_pooling_ops {
    /* 2×2 window, stride 2, no padding, one plane: y[oh][ow] = max of x[2oh..][2ow..], argmax
     * (may be NULL) the index in the plane. Needs 2·outH <= H and 2·outW <= W. */
    void (*maxpool_2x2s2)(const float *x, float *y, int32_t *argmax, int H, int W, int outH,
                          int outW);
    /* Its backward for one plane, overwriting dx (H×W): each window's winner (argmax, as
     * maxpool_2x2s2 wrote it, or −1 for none) gets the window's dy — 0 where gate != NULL and
     * gate[o] <= 0 — and every other input 0. */
    void (*maxpool_2x2s2_backward)(const float *dy, const float *gate, const int32_t *argmax,
                                   float *dx, int H, int W, int outH, int outW);
} ocm_pooling_ops;

/* MARK: - Depthwise convolution */

/* One plane's geometry: input H×W, output outH×outW, kernel kh×kw, stride, dilation, padding. */
typedef struct ocm_depthwise_geometry {
    int H, W, outH, outW, kh, kw, sh, sw, dh, dw, pad_top, pad_left;
} ocm_depthwise_geometry;

/* Scratch floats a plane kernel may use: twice the largest (phase-split) padded plane it flattens. */
#define OCM_DEPTHWISE_FLAT_MAX 16384
#define OCM_DEPTHWISE_SCRATCH (2 * OCM_DEPTHWISE_FLAT_MAX)
/* The most kernel taps (kh·kw), and the largest stride, the flattened path takes. */
#define OCM_DEPTHWISE_TAPS 64
#define OCM_DEPTHWISE_MAX_STRIDE 4
/* The flattened path computes outputs in runs of this many (a multiple of every vector width). */
#define OCM_DEPTHWISE_TAIL 16

/* What every plane of one call shares, worked out once per call (depthwise.c): the geometry and,
 * when the flattened path applies (depthwise_plane.h), its layout. Phase (a, b) is an Hq × Wq
 * plane; its rows [row_first[a], row_last[a]) and columns [col_first[b], col_last[b]) hold input
 * row sh·r + a − pad_top and column sw·c + b − pad_left, everything else zero. Tap t reads the
 * phases from tap_offset[t] on, and the sums cover n outputs of the flattened Wq-wide layout. */
typedef struct ocm_depthwise_plan {
    ocm_depthwise_geometry g;
    bool flat;
    /* The flattened path's register-blocked rows apply: kh = kw = 3 or 5, sh = sw = 1 or 2, no
     * dilation, outW >= 12 (depthwise.c's make_plan; depthwise_plane.h). */
    bool rows;
    int Hq, Wq, n, taps;
    int tap_offset[OCM_DEPTHWISE_TAPS];
    int row_first[OCM_DEPTHWISE_MAX_STRIDE], row_last[OCM_DEPTHWISE_MAX_STRIDE];
    int col_first[OCM_DEPTHWISE_MAX_STRIDE], col_last[OCM_DEPTHWISE_MAX_STRIDE];
} ocm_depthwise_plan;

/* 16 floats as one value of the compiler's vector extension (the depthwise sums), and the same at
 * any float alignment and allowed to alias float arrays, for loads and stores. */
typedef float ocm_v16 __attribute__((vector_size(64)));
typedef float ocm_v16u __attribute__((vector_size(64), aligned(4), may_alias));

/* One channel plane: y (outH×outW) = clamp(bias + the kh×kw kernel w over x (H×W), lo, hi), zero
 * padding. scratch holds OCM_DEPTHWISE_SCRATCH floats, or is NULL (then the row-by-row path runs). */
typedef void (*ocm_depthwise_plane_fn)(const float *x, float *y, const float *w, float bias, float lo, float hi,
                                       const ocm_depthwise_plan *plan, float *scratch);

typedef struct ocm_depthwise_ops {
    ocm_depthwise_plane_fn plane;
} ocm_depthwise_ops;

/* MARK: - The dispatch table */

typedef struct ocm_kernel_table {
    int isa;
    const char *name;
    const ocm_gemm_arch *gemm;
    const ocm_elementwise_ops *elementwise;
    const ocm_pooling_ops *pooling;
    const ocm_depthwise_ops *depthwise;
} ocm_kernel_table;

/* The table of the instruction set in use (initialised on first call). */
const ocm_kernel_table *ocm_kernels(void);
/* The table of instruction set `isa` (the scalar one for a level this build lacks), whichever is in
 * use: for data laid out for one level, such as a packed matrix, used after the level changed. */
const ocm_kernel_table *ocm_kernels_for(int isa);

/* The scalar 2×2 max-pooling backward, also the AVX2 table's. */
void ocm_maxpool_2x2s2_backward_scalar(const float *dy, const float *gate, const int32_t *argmax,
                                       float *dx, int H, int W, int outH, int outW);

extern const ocm_gemm_arch ocm_gemm_scalar;
extern const ocm_elementwise_ops ocm_elementwise_scalar;
extern const ocm_pooling_ops ocm_pooling_scalar;
extern const ocm_depthwise_ops ocm_depthwise_scalar;
#if OCM_X86
extern const ocm_gemm_arch ocm_gemm_avx2;
extern const ocm_gemm_arch ocm_gemm_avx512;
extern const ocm_elementwise_ops ocm_elementwise_avx2;
extern const ocm_elementwise_ops ocm_elementwise_avx512;
extern const ocm_pooling_ops ocm_pooling_avx2;
extern const ocm_pooling_ops ocm_pooling_avx512;
extern const ocm_depthwise_ops ocm_depthwise_avx2;
extern const ocm_depthwise_ops ocm_depthwise_avx512;
#endif
#if OCM_ARM
/* NEON: the GEMM micro-kernel; the other families use the scalar code, which the compiler
 * vectorises for AArch64 (Advanced SIMD is part of its baseline). */
extern const ocm_gemm_arch ocm_gemm_neon;
#endif

/* MARK: - Distances */

/* out[i·ldo + j] = Σ_d (q[i·ldq + d] − s[j·lds + d])² for i < nq, j < ns, for this processor's
 * instruction set; a pair's value does not depend on the tile it is computed in. */
typedef void (*ocm_distance_tile_fn)(const float *q, int nq, int ldq, const float *s, int ns,
                                     int lds, int D, float *out, int ldo);
ocm_distance_tile_fn ocm_distance_tile(void);

/* MARK: - Threads */

/* A body run once per part: part in [0, nparts). */
typedef void (*ocm_part_fn)(void *ctx, int part, int nparts);

/* Runs fn for every part in [0, nparts) over the pool (each part claimed by whichever thread,
 * the caller included, is free first; nparts <= 65535), or serially on the caller when nested
 * or when the pool is busy. Each part runs on one thread. */
void ocm_run_parts(int nparts, ocm_part_fn fn, void *ctx);

/* Whether the calling thread is running a part of a pool job (nested calls run serially). */
bool ocm_inside_parallel_job(void);

/* 64-byte-aligned memory for a kernel's scratch (`purpose` names it), or an abort saying so:
 * kernels have no error path for a few kilobytes that cannot be had. */
void *ocm_alloc_or_die(size_t bytes, const char *purpose);

/* ocm_parallel_for, using at most count/grain chunks (so each has >= grain indices). */
void ocm_parallel_for_grain(size_t count, size_t grain, ocm_range_fn fn, void *ctx);

#endif /* OPENCOREML_KERNELS_INTERNAL_H */
