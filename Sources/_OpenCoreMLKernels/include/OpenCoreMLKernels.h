/*
 * OpenCoreMLKernels.h — the C compute kernels of OpenCoreML.
 *
 * Float32 CPU kernels on raw pointers, counts and strides: GEMM, im2col/col2im, pooling,
 * elementwise ops and optimizers, plus a persistent thread pool and run-time instruction-set
 * dispatch (AVX-512 / AVX2+FMA / NEON, each with a portable scalar twin).
 *
 * Conventions
 *  - Matrices are row-major; `ld*` is the distance, in elements, between consecutive rows.
 *  - Images are NCHW; one "plane" is one (n, c) slice of H·W contiguous floats.
 *  - Output pointers may alias input pointers only where a comment says so.
 *  - Misuse (null pointers, negative sizes, too small leading dimensions) is a programmer
 *    error, checked with assert().
 *  - Kernels that take many elements split the work over the thread pool by themselves;
 *    they may be called from any thread (a call made while the pool is busy runs serially).
 */
#ifndef OPENCOREML_KERNELS_H
#define OPENCOREML_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: - Instruction-set dispatch */

/* Instruction-set levels, as used by ocm_isa() / ocm_set_isa(). */
#define OCM_ISA_SCALAR 0 /* portable C */
#define OCM_ISA_AVX2 1   /* x86-64 AVX2 + FMA */
#define OCM_ISA_AVX512 2 /* x86-64 AVX-512F */
#define OCM_ISA_NEON 3   /* AArch64 Advanced SIMD */

/* The level in use. At first use it is the best level the CPU supports, or the one named by
 * the environment variable OPENCOREML_ISA (scalar|avx2|avx512|neon) if the CPU supports it. */
int ocm_isa(void);

/* The name of the level in use: "scalar", "avx2", "avx512" or "neon". */
const char *ocm_isa_name(void);

/* Whether this CPU (and this build) can run `isa`. */
bool ocm_isa_supported(int isa);

/* Switches every kernel to `isa` (for tests and benchmarks). Returns false, changing nothing,
 * if the CPU cannot run it. A kernel call already running keeps the level it started with. */
bool ocm_set_isa(int isa);

/* The multiply-add rate, in GFLOP/s (a multiply-add is two), of the kernel threads together
 * running nothing but independent fused multiply-adds at the level in use, for about `seconds`:
 * the limit that products and training are measured against (`opencoreml bench fma`). */
double ocm_fma_peak_gflops(double seconds);

/* MARK: - Threads */

/* Sets the number of threads kernels use, the caller included; n <= 0 means the default
 * (OPENCOREML_NUM_THREADS if set, else the number of online CPUs). Waits for a parallel kernel
 * running on another thread to finish, then restarts the pool. */
void ocm_set_num_threads(int n);

/* The number of threads kernels use (>= 1). */
int ocm_num_threads(void);

/* A body for ocm_parallel_for: handles indices [begin, end). */
typedef void (*ocm_range_fn)(void *ctx, size_t begin, size_t end);

/* Calls fn over [0, count) split into at most ocm_num_threads() contiguous chunks, one per
 * thread, the calling thread taking the first; returns when all are done. Allocates nothing.
 * A call made from inside a body, or while another thread's call is running, runs serially
 * on the calling thread (as fn(ctx, 0, count)). */
void ocm_parallel_for(size_t count, ocm_range_fn fn, void *ctx);

/* A body for ocm_parallel_dynamic: handles index `index` on thread `thread`. */
typedef void (*ocm_index_fn)(void *ctx, int thread, size_t index);

/* Calls fn once for every index in [0, count), handing the next index to whichever thread is
 * free (the calling thread included), so a thread the OS delays does not hold up the others.
 * `thread` is a slot in [0, min(ocm_num_threads(), count)) that one thread at a time works in,
 * for per-thread scratch. Allocates nothing. Nested calls, or calls while another thread's call
 * runs, run serially in slot 0. */
void ocm_parallel_dynamic(size_t count, ocm_index_fn fn, void *ctx);

/* ocm_parallel_dynamic with at most `slots` (>= 1) threads, so `thread` stays below `slots`
 * even if another thread changes the thread count after the caller sized its scratch. */
void ocm_parallel_dynamic_slots(size_t count, int slots, ocm_index_fn fn, void *ctx);

/* MARK: - Memory */

/* Returns the heap memory freed so far to the system where the C library can (glibc keeps freed
 * blocks in per-thread arenas: malloc_trim); does nothing elsewhere. */
void ocm_trim_heap(void);

/* The bytes of heap memory the program holds now (glibc's mallinfo2 uordblks: allocated and not
 * freed), for tests and profiles that measure what a structure keeps; -1 where the C library
 * cannot say. */
long long ocm_heap_in_use(void);

/* MARK: - Tree training histograms */

/* Adds, for each row r = rows[i] (i < count) and each feature f = features[k] (k < nfeatures),
 * the row's `width` values values[r·width ..< r·width + width] to the histogram's bin
 * offsets[f] + bins[r·stride + f], whose sums are hist[bin·width ..< bin·width + width].
 * `bins` is the binned matrix (one byte per cell, row-major, `stride` >= every f + 1). Serial:
 * callers split rows into blocks over threads, one histogram per block, and add the blocks. */
void ocm_histogram_accumulate(const uint8_t *bins, size_t stride, const uint32_t *rows, size_t count,
                              const float *values, int width, const int32_t *features, int nfeatures,
                              const uint32_t *offsets, double *hist);

/* dst[i] += src[i] for i < n. */
void ocm_histogram_add(double *dst, const double *src, size_t n);

/* dst[i] = parent[i] − child[i] for i < n: a sibling's histogram from its parent's. */
void ocm_histogram_subtract(double *dst, const double *parent, const double *child, size_t n);

/* Reorders rows[0..<count] stably so that the rows r whose bin b = bins[r·stride + feature] has
 * goes_left[b] come first; returns their number. `scratch` holds count entries. */
size_t ocm_partition_rows(uint32_t *rows, size_t count, const uint8_t *bins, size_t stride, int feature,
                          const bool *goes_left, uint32_t *scratch);

/* Bins count finite-or-NaN values: out[i·out_stride] = the number of cuts <= x[i], or missing_bin
 * for NaN. `cuts` holds 255 ascending entries, +infinity past the real ones. */
void ocm_bin_numeric(const double *x, size_t count, const double *cuts, uint8_t missing_bin, uint8_t *out,
                     size_t out_stride);

/* Sorts `count` doubles (no NaN) ascending into `out`, stably as a stable sort by `<` would: equal
 * values, and −0 and +0, keep their input order. An LSD radix sort over the bytes of order-keeping
 * keys, skipping the bytes every key shares. `scratch` holds count entries. */
void ocm_sort_doubles(const double *values, size_t count, double *out, uint64_t *scratch);

/* A split of one numeric feature found by ocm_best_numeric_split. */
typedef struct {
    double gain;
    /* Left = the value bins below `bin`. */
    int32_t bin;
    /* Whether missing values go left. */
    int32_t missing_left;
    double left_g, left_h, right_g, right_h;
} ocm_split_result;

/* Boosting's split search over one numeric feature of a gradient–hessian histogram: `hist` holds
 * the feature's `value_bins` value bins then its missing bin, (gradient, hessian) each. Every cut
 * between value bins with missing values right (ascending), then — when the missing bin's sums
 * differ from zero by `epsilon` — with missing values left (descending); a side needs a hessian
 * sum >= min_child_weight and > 0; gain = G_L²/(H_L+λ) + G_R²/(H_R+λ) − parent_score. Writes the
 * first candidate of largest gain above 0 to `out` and returns 1, or returns 0 when none has gain
 * above 0. */
int ocm_best_numeric_split(const double *hist, int value_bins, double total_g, double total_h, double lambda,
                           double min_child_weight, double parent_score, double epsilon, ocm_split_result *out);

/* ocm_histogram_accumulate for width 2 (a gradient and a hessian per row) from the binned matrix
 * feature-major: feature f's bin of row r is columns[f·column_rows + r]. The rows are rows[0..<count],
 * or, when `rows` is NULL, first_row ..< first_row + count. The same sums, added in the same
 * order, as ocm_histogram_accumulate on the row-major matrix. */
void ocm_histogram_accumulate_columns(const uint8_t *columns, size_t column_rows, const uint32_t *rows, size_t first_row,
                                      size_t count, const float *values, const int32_t *features, int nfeatures,
                                      const uint32_t *offsets, double *hist);

/* MARK: - GEMM */

/* C = alpha·op(A)·op(B) + beta·C, row-major, op(X) = X or Xᵀ.
 * op(A) is M×K (A is M×K with lda >= K, or K×M with lda >= M when transA),
 * op(B) is K×N (B is K×N with ldb >= N, or N×K with ldb >= K when transB),
 * C is M×N with ldc >= N. With beta == 0, C is not read (it may hold NaN).
 * Threaded over blocks of M and N. */
void ocm_sgemm(bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* `batch` products ocm_sgemm(transA, transB, M, N, K, alpha, A + i·strideA, lda, B + i·strideB, ldb,
 * beta, C + i·strideC, ldc) for i in [0, batch) (a stride of 0 repeats one operand: broadcasting).
 * Products too small to split over the threads run side by side, one per thread; larger ones one
 * after another, each split. The C matrices must not overlap. */
void ocm_sgemm_batched(int batch, bool transA, bool transB, int M, int N, int K, float alpha,
                       const float *A, size_t strideA, int lda, const float *B, size_t strideB, int ldb,
                       float beta, float *C, size_t strideC, int ldc);

/* What ocm_sgemm_epilogue applies to each finished block of C while it is in cache: a bias per row
 * of C (row_bias[i], or none when NULL) and one per column (col_bias[j], or none when NULL: a dense
 * layer's, x·Wᵀ + b), then an activation. */
typedef enum { OCM_EPILOGUE_NONE, OCM_EPILOGUE_RELU, OCM_EPILOGUE_CLAMP, OCM_EPILOGUE_HARDSWISH } ocm_epilogue_activation;
typedef struct ocm_gemm_epilogue {
    const float *row_bias;
    /* RELU: x > 0 ? x : 0 (as ocm_relu); CLAMP: as ocm_clamp; HARDSWISH: as ocm_hardswish with
     * threshold lo and alpha, beta. */
    ocm_epilogue_activation activation;
    float lo, hi; /* CLAMP's bounds; HARDSWISH's threshold in lo */
    const float *col_bias;
    float alpha, beta; /* HARDSWISH's gate */
} ocm_gemm_epilogue;

/* ocm_sgemm, then C[i][j] = activation(C[i][j] + col_bias[j] + row_bias[i]) in the same parallel
 * parts (a convolution's bias and fused ReLU or clip): no second pass over C, no second thread
 * dispatch. */
void ocm_sgemm_epilogue(bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
                        int lda, const float *B, int ldb, float beta, float *C, int ldc,
                        ocm_gemm_epilogue epilogue);

/* A left operand packed once, for products that use it many times with the same values (a
 * convolution's weights at inference): the layout the current instruction set's kernel reads.
 * ocm_sgemm_packed_a_floats gives the floats to hold it; ocm_sgemm_pack_a packs the M×K matrix
 * op(A) and returns the instruction set it packed for; ocm_sgemm_prepacked is ocm_sgemm_epilogue
 * with that A (not transposed in the product: op(A) was taken when packing), computed with the
 * kernel of the instruction set it was packed for even if ocm_set_isa has changed it since (pack
 * again to follow the change). */
size_t ocm_sgemm_packed_a_floats(int M, int K);
int ocm_sgemm_pack_a(bool transA, int M, int K, const float *A, int lda, float *packed);
void ocm_sgemm_prepacked(int packed_isa, const float *packed, bool transB, int M, int N, int K, float alpha,
                         const float *B, int ldb, float beta, float *C, int ldc, ocm_gemm_epilogue epilogue);

/* The same for a right operand used many times with the same values (a dense layer's weights at
 * inference: y = x·Wᵀ, op(B) = Wᵀ): ocm_sgemm_packed_b_floats gives the floats to hold it;
 * ocm_sgemm_pack_b packs the K×N matrix op(B) and returns the instruction set it packed for;
 * ocm_sgemm_prepacked_b is ocm_sgemm_epilogue with that B, computed with the kernel of the
 * instruction set it was packed for. */
size_t ocm_sgemm_packed_b_floats(int K, int N);
int ocm_sgemm_pack_b(bool transB, int K, int N, const float *B, int ldb, float *packed);
void ocm_sgemm_prepacked_b(int packed_isa, const float *packed, bool transA, int M, int N, int K, float alpha,
                           const float *A, int lda, float beta, float *C, int ldc, ocm_gemm_epilogue epilogue);

/* MARK: - Winograd 3×3 convolution */

/* 3×3 convolutions with stride 1 and dilation 1 by Winograd's F(2×2, 3×3): 16 products over 4×4
 * input tiles, 2.25× fewer multiply-adds than im2col and a GEMM (for inference).
 * ocm_winograd3x3_weights transforms outC×inC×3×3 weights into u: 16 row-major outC×inC matrices,
 * one per tile position, once per layer. ocm_winograd3x3_conv convolves one inC×H×W image into
 * y (outC×outH×outW) with top/left zero padding pt/pl (bottom/right enter through outH/outW),
 * adds bias (outC values, or none when NULL) and clamps to [lo, hi] (NaN stays NaN; −INFINITY,
 * INFINITY for none). Its products use `packed` (the 16 matrices of u packed one after another
 * by ocm_sgemm_pack_a, ocm_sgemm_packed_a_floats(outC, inC) floats apart, for packed_isa) when
 * not NULL, else u itself. scratch holds ocm_winograd3x3_scratch_floats floats. Threaded over
 * channels and tile positions. */
void ocm_winograd3x3_weights(const float *w, int outC, int inC, float *u);
size_t ocm_winograd3x3_scratch_floats(int inC, int outC, int outH, int outW);
void ocm_winograd3x3_conv(const float *u, int packed_isa, const float *packed, const float *x, float *y,
                          int inC, int outC, int H, int W, int pt, int pl, int outH, int outW,
                          const float *bias, float lo, float hi, float *scratch);

/* MARK: - im2col / col2im */

/* Unfolds one C×H×W image into columns[C·kh·kw][outH·outW] (row-major, contiguous): row
 * (c·kh + i)·kw + j, column oh·outW + ow holds image[c][oh·sh + i·dh − pt][ow·sw + j·dw − pl],
 * or 0 where that falls in the padding. Usually outH = (H + pt + pb − dh·(kh−1) − 1)/sh + 1
 * (bottom/right padding only enter through outH/outW). Large images are split over the thread
 * pool by channels. */
void ocm_im2col(const float *image, int C, int H, int W, int kh, int kw, int sh, int sw, int dh,
                int dw, int pt, int pl, int outH, int outW, float *columns);
/* ocm_im2col for output rows [row_begin, row_end) only: columns[C·kh·kw][(row_end − row_begin)·outW]
 * (a band of the product that stays in cache while a GEMM reads it). */
void ocm_im2col_rows(const float *image, int C, int H, int W, int kh, int kw, int sh, int sw, int dh,
                     int dw, int pt, int pl, int outH, int outW, int row_begin, int row_end,
                     float *columns);

/* The adjoint of ocm_im2col: adds every entry of columns[C·kh·kw][outH·outW] into the image
 * position it was read from (padding positions are dropped). Accumulates into `image`. */
void ocm_col2im(const float *columns, int C, int H, int W, int kh, int kw, int sh, int sw,
                int dh, int dw, int pt, int pl, int outH, int outW, float *image);

/* ocm_im2col over a batch: images is N×C×H×W; columns is [C·kh·kw][N·outH·outW], image n
 * filling columns n·outH·outW ..< (n+1)·outH·outW of every row. Threaded over images. */
void ocm_im2col_batch(const float *images, int N, int C, int H, int W, int kh, int kw, int sh,
                      int sw, int dh, int dw, int pt, int pl, int outH, int outW,
                      float *columns);

/* The adjoint of ocm_im2col_batch; accumulates into images (N×C×H×W). Threaded over images. */
void ocm_col2im_batch(const float *columns, int N, int C, int H, int W, int kh, int kw, int sh,
                      int sw, int dh, int dw, int pt, int pl, int outH, int outW,
                      float *images);

/* MARK: - Pooling (NCHW, `planes` = N·C planes of H×W in, outH×outW out; threaded over planes) */

/* Depthwise convolution, inference: `planes` planes (images × channels) of H×W from x into y
 * (outH×outW each), plane p convolved with kernel w[p mod channels] (kh×kw each) plus
 * epilogue.row_bias[p mod channels] (may be NULL); stride sh×sw, dilation dh×dw, zero padding
 * starting at pad_top / pad_left; then the epilogue's activation on each plane as it is finished
 * (a ReLU and a clamp limit the stored values to [0, ∞) and [lo, hi]; col_bias is not read). The
 * planes are split over the thread pool. */
void ocm_depthwise_conv2d(const float *x, float *y, const float *w, int planes, int channels,
                          int H, int W, int outH, int outW, int kh, int kw, int sh, int sw, int dh, int dw,
                          int pad_top, int pad_left, ocm_gemm_epilogue epilogue);

/* Max pooling with window kh×kw, stride sh×sw, top/left padding pt/pl (padding never wins).
 * y is planes×outH×outW. argmax (same shape, may be NULL) receives the winner's index
 * h·W + w inside its input plane, or −1 (with y = 0) for a window wholly in the padding. */
void ocm_maxpool2d(const float *x, float *y, int32_t *argmax, int planes, int H, int W, int kh,
                   int kw, int sh, int sw, int pt, int pl, int outH, int outW);

/* Max-pooling backward: dx[p][argmax[p][o]] += dy[p][o] for every output o of every plane p
 * (entries with argmax −1 are skipped). dx is planes×H×W; with accumulate == false it is
 * zeroed first, else added into. */
void ocm_maxpool2d_backward(const float *dy, const int32_t *argmax, float *dx, int planes, int H,
                            int W, int outH, int outW, bool accumulate);

/* Max-pooling backward for a 2×2 window with stride 2 and no padding (argmax from ocm_maxpool2d
 * with that window; needs 2·outH <= H and 2·outW <= W), overwriting dx (planes×H×W): each input
 * gets its window's dy where it won, else 0. Windows with argmax −1 pass nothing. With `gate`
 * (planes×outH×outW, may be NULL), dy passes only where gate > 0: a ReLU before the pooling,
 * gate being the pooled output. */
void ocm_maxpool2x2_backward(const float *dy, const float *gate, const int32_t *argmax, float *dx,
                             int planes, int H, int W, int outH, int outW);

/* Average pooling (window, strides, padding as in ocm_maxpool2d). Each output is the sum of
 * its window's in-image inputs divided by the number of those inputs (excludePadding) or by
 * kh·kw (padding counted as zeros). */
void ocm_avgpool2d(const float *x, float *y, int planes, int H, int W, int kh, int kw, int sh,
                   int sw, int pt, int pl, int outH, int outW, bool excludePadding);

/* Average-pooling backward: spreads each dy over its window with the forward's divisor.
 * dx is planes×H×W; with accumulate == false it is zeroed first, else added into. */
void ocm_avgpool2d_backward(const float *dy, float *dx, int planes, int H, int W, int kh, int kw,
                            int sh, int sw, int pt, int pl, int outH, int outW,
                            bool excludePadding, bool accumulate);

/* Global max pooling: y[p] = max of plane p (HW = H·W elements); argmax (may be NULL) gets the
 * winner's index in the plane. Backward: ocm_maxpool2d_backward with outH = outW = 1. */
void ocm_global_maxpool(const float *x, float *y, int32_t *argmax, int planes, int HW);

/* Global average pooling: y[p] = mean of plane p (HW elements). */
void ocm_global_avgpool(const float *x, float *y, int planes, int HW);

/* Global average-pooling backward: dx[p][i] (+)= dy[p] / HW. */
void ocm_global_avgpool_backward(const float *dy, float *dx, int planes, int HW,
                                 bool accumulate);

/* MARK: - Elementwise (n elements, contiguous; outputs may alias inputs exactly) */

/* y = max(x, 0). */
void ocm_relu(const float *x, float *y, size_t n);
/* dx = dy where x > 0, else 0. `x` may be relu's input or its output (same sign test). */
void ocm_relu_backward(const float *x, const float *dy, float *dx, size_t n);
/* y = min(max(x, lo), hi) (NaN stays NaN; an infinite bound is none): Core ML's clip, and ReLU6. */
void ocm_clamp(const float *x, float *y, size_t n, float lo, float hi);
/* y = the float32 value of each float16 bit pattern in x (exact: subnormals, infinities and NaN
 * included). */
void ocm_half_to_float(const uint16_t *x, float *y, size_t n);
/* Hardswish as converters spell it, in one pass: t = x > threshold ? x : 0 (NaN to 0), then
 * y = t·min(max(alpha·t + beta, 0), 1) (MobileNetV3's x·relu6(x + 3)/6 is threshold −3, alpha 1/6,
 * beta 1/2). y may be x. */
void ocm_hardswish(const float *x, float *y, size_t n, float threshold, float alpha, float beta);
/* dx = dy where lo < y < hi, else 0, with y the clamp's output (the gradient of a clamp fused into
 * the layer before it, whose input is gone). */
void ocm_clamp_backward(const float *y, const float *dy, float *dx, size_t n, float lo, float hi);
/* y = x > 0 ? x : slope·x. */
void ocm_leaky_relu(const float *x, float *y, size_t n, float slope);
/* dx = x > 0 ? dy : slope·dy, with x the forward input (or output, when slope > 0). */
void ocm_leaky_relu_backward(const float *x, const float *dy, float *dx, size_t n, float slope);
/* y = 1 / (1 + exp(−x)). */
void ocm_sigmoid(const float *x, float *y, size_t n);
/* dx = dy·y·(1 − y), with y the forward output. */
void ocm_sigmoid_backward(const float *y, const float *dy, float *dx, size_t n);
/* y = tanh(x). */
void ocm_tanh(const float *x, float *y, size_t n);
/* dx = dy·(1 − y²), with y the forward output. */
void ocm_tanh_backward(const float *y, const float *dy, float *dx, size_t n);
/* GELU's forms (MIL's gelu modes): EXACT y = x/2·(1 + erf(x/√2)); TANH y = x/2·(1 + tanh(√(2/π)·
 * (x + 0.044715·x³))); SIGMOID y = x·sigmoid(1.702·x). The vector levels use polynomials (erf's
 * absolute error below 2·10⁻⁷). */
#define OCM_GELU_EXACT 0
#define OCM_GELU_TANH 1
#define OCM_GELU_SIGMOID 2
void ocm_gelu(const float *x, float *y, size_t n, int mode);
/* y = a + b. */
void ocm_add(const float *a, const float *b, float *y, size_t n);
/* y = a·b (elementwise). */
void ocm_mul(const float *a, const float *b, float *y, size_t n);
/* y += alpha·x. */
void ocm_axpy(const float *x, float *y, size_t n, float alpha);
/* y = alpha·x. */
void ocm_scale(const float *x, float *y, size_t n, float alpha);
/* y[i] = value. */
void ocm_fill(float *y, size_t n, float value);

/* The elementwise functions of one input and up to two constant parameters p, q, by number
 * (ocm_unary): the activations and math functions both interpreters share. NaN in, NaN out unless
 * a line says otherwise. The vector levels compute exp by polynomial (about 1 ulp). */
typedef enum {
    OCM_UNARY_EXP,              /* e^x */
    OCM_UNARY_LOG,              /* log(x + p) */
    OCM_UNARY_SQRT,             /* √x */
    OCM_UNARY_RSQRT,            /* 1/√(x + p) */
    OCM_UNARY_INVERSE,          /* 1/(x + p) */
    OCM_UNARY_ABS,              /* |x| */
    OCM_UNARY_SQUARE,           /* x² */
    OCM_UNARY_POWER,            /* x^p */
    OCM_UNARY_THRESHOLD,        /* x >= p ? x : p (a NaN x gives p) */
    OCM_UNARY_AFFINE,           /* p·x + q */
    OCM_UNARY_ELU,              /* x > 0 ? x : p·(e^x − 1) */
    OCM_UNARY_SOFTPLUS,         /* log(1 + e^x), as max(x, 0) + log1p(e^−|x|) */
    OCM_UNARY_SOFTSIGN,         /* x / (1 + |x|) */
    OCM_UNARY_SILU,             /* x / (1 + e^−x) */
    OCM_UNARY_HARD_SIGMOID,     /* min(max(p·x + q, 0), 1) */
    OCM_UNARY_THRESHOLDED_RELU, /* x > p ? x : 0, or x >= p ? x : 0 when q != 0 */
    OCM_UNARY_SCALED_TANH,      /* p·tanh(q·x) */
    OCM_UNARY_LOGICAL_NOT,      /* x == 0 ? 1 : 0 */
    OCM_UNARY_ROUND_HALF,       /* x rounded to the nearest float16 value (ties to even; overflow to ±∞) */
    OCM_UNARY_TRUNC,            /* x rounded toward zero */
    OCM_UNARY_BOOL,             /* x != 0 ? 1 : 0 (NaN gives 1) */
    OCM_UNARY_SIN, OCM_UNARY_COS, OCM_UNARY_TAN, /* the C library's, as every function up to ERF */
    OCM_UNARY_ASIN, OCM_UNARY_ACOS, OCM_UNARY_ATAN,
    OCM_UNARY_SINH, OCM_UNARY_COSH, OCM_UNARY_ATANH,
    OCM_UNARY_ERF,              /* the vector levels by polynomial (error below 2·10⁻⁷) */
    OCM_UNARY_EXP2,             /* 2^x */
    OCM_UNARY_FLOOR,            /* the integer at or below x */
    OCM_UNARY_CEIL,             /* the integer at or above x */
    OCM_UNARY_ROUND,            /* the nearest integer, ties to even (NumPy's round) */
    OCM_UNARY_SIGN,             /* 1, −1 or 0 by x's sign */
    OCM_UNARY_CLAMPED_RELU,     /* min(x >= 0 ? x : p·x, q) */
    OCM_UNARY_COUNT
} ocm_unary_op;
void ocm_unary(ocm_unary_op op, const float *x, float *y, size_t n, float p, float q);

/* The elementwise functions of two inputs, by number. Comparisons and logical operations give 1
 * or 0 (a non-zero input is true; a comparison with NaN is false except NOT_EQUAL). MAX and MIN
 * give the first input when either is NaN or both are equal: max(a, b) = b >= a ? b : a. */
typedef enum {
    OCM_BINARY_ADD, OCM_BINARY_SUB, OCM_BINARY_MUL, OCM_BINARY_DIV, OCM_BINARY_MAX, OCM_BINARY_MIN,
    OCM_BINARY_POW,
    OCM_BINARY_EQUAL, OCM_BINARY_NOT_EQUAL, OCM_BINARY_GREATER, OCM_BINARY_GREATER_EQUAL,
    OCM_BINARY_LESS, OCM_BINARY_LESS_EQUAL,
    OCM_BINARY_AND, OCM_BINARY_OR, OCM_BINARY_XOR,
    OCM_BINARY_RIGHT, /* y = b (a broadcast copy) */
    OCM_BINARY_FLOOR_DIV, /* ⌊a/b⌋ (Python's and NumPy's: a/b computed as (a − mod)/b, exact for integers) */
    OCM_BINARY_MOD,       /* a − b·⌊a/b⌋, the sign of b (Python's and NumPy's; fmod(a, b) when b is 0: NaN) */
    OCM_BINARY_COUNT
} ocm_binary_op;
/* y = a op b over n elements of one shape; y may alias a or b exactly. */
void ocm_binary(ocm_binary_op op, const float *a, const float *b, float *y, size_t n);

/* y = a op b with broadcasting: y is row-major over `rank` axes of sizes shape[0..<rank], and
 * position (i₀, …) reads a[Σ iₐ·stride_a[d]] and b[Σ i_d·stride_b[d]] (a stride of 0 repeats the
 * operand along that axis). Axes are merged where they can be, and each run along the last axis
 * goes to the vector function for that form (two runs, or a run and a repeated value). Threaded
 * over runs. y may alias an operand only where that operand's strides are y's own. */
void ocm_broadcast_binary(ocm_binary_op op, int rank, const size_t *shape, const ptrdiff_t *stride_a,
                          const ptrdiff_t *stride_b, const float *a, const float *b, float *y);
/* y = cond != 0 ? a : b with broadcasting, strides as in ocm_broadcast_binary (MIL's select). */
void ocm_broadcast_select(int rank, const size_t *shape, const ptrdiff_t *stride_cond, const ptrdiff_t *stride_a,
                          const ptrdiff_t *stride_b, const float *cond, const float *a, const float *b, float *y);

/* PReLU over n elements whose channel changes every `plane` elements and repeats every `channels`
 * channels: y = x > 0 ? x : slopes[(i / plane) mod channels]·x (leaky ReLU per channel; one slope
 * shared when channels is 1). Threaded; y may alias x. */
void ocm_prelu(const float *x, float *y, size_t n, const float *slopes, size_t channels, size_t plane);
/* dx = x > 0 ? dy : slope·dy, channels as in ocm_prelu. */
void ocm_prelu_backward(const float *x, const float *dy, float *dx, size_t n, const float *slopes,
                        size_t channels, size_t plane);

/* MARK: - Permutation */

/* The most axes ocm_permute takes. */
#define OCM_PERMUTE_MAX_RANK 8

/* y = x (row-major, `rank` axes of sizes shape[0..<rank]) with its axes reordered: y's axis d is
 * x's axis perm[d] (MIL's transpose). Contiguous runs are copied whole, and a moved last axis is
 * transposed in tiles; threaded over runs or tiles. y must not overlap x. */
void ocm_permute(const float *x, float *y, int rank, const int *shape, const int *perm);

/* MARK: - Rows and columns of a matrix ([M, N] row-major with leading dimension ld >= N) */

/* y[j] (+)= Σ_i x[i][j]: the bias gradient of a dense layer ([M,N] → [N]).
 * With accumulate == false y is overwritten (not read). */
void ocm_sum_rows(const float *x, float *y, int M, int N, int ldx, bool accumulate);
/* y[i] (+)= Σ_j x[i][j] ([M,N] → [M]; e.g. the bias gradient of a convolution, one channel
 * per row). With accumulate == false y is overwritten. */
void ocm_sum_cols(const float *x, float *y, int M, int N, int ldx, bool accumulate);
/* x[i][j] += row[j] for every row i (dense-layer bias add, in place). */
void ocm_add_row_vector(float *x, const float *row, int M, int N, int ldx);
/* x[i][j] += col[i] for every column j (per-channel bias add on [C, H·W], in place). */
void ocm_add_col_vector(float *x, const float *col, int M, int N, int ldx);

/* y[i][:] = (x[i][:] − mean) / √(variance + epsilon) · gamma + beta for each of the M rows of N
 * (population variance; gamma, beta of N values, either may be NULL for 1 and 0): layer
 * normalization over the last axis. Threaded over rows; y may alias x when ldy == ldx. */
void ocm_layer_norm_rows(const float *x, float *y, const float *gamma, const float *beta, int M, int N,
                         int ldx, int ldy, float epsilon);

/* y[i][:] = softmax(x[i][:]) for each of the M rows of N, computed stably (max subtracted).
 * y may alias x when ldy == ldx. */
void ocm_softmax_rows(const float *x, float *y, int M, int N, int ldx, int ldy);

/* Fused softmax + cross-entropy backward: given probs (softmax output, [M,N], ld) and class
 * indices labels[M] in [0, N), writes dx = (probs − onehot(labels)) / M ([M,N], ld; may alias
 * probs) and returns the mean loss −(1/M)·Σ_i log(probs[i][labels[i]]) (probabilities are
 * clamped to >= FLT_MIN inside the log). */
float ocm_softmax_cross_entropy_backward(const float *probs, const int32_t *labels, float *dx,
                                         int M, int N, int ld);

/* MARK: - Optimizers (flat arrays of n parameters, updated in place) */

/* SGD with momentum, PyTorch's rule: v = momentum·v + g; w −= lr·v.
 * With momentum == 0 this is w −= lr·g and velocity is not touched (it may be NULL). */
void ocm_sgd_update(float *w, const float *g, float *velocity, size_t n, float lr,
                    float momentum);

/* Adam, PyTorch's rule for step t >= 1: m = β1·m + (1−β1)·g; v = β2·v + (1−β2)·g²;
 * m̂ = m/(1−β1ᵗ); v̂ = v/(1−β2ᵗ); w −= lr·m̂/(√v̂ + eps). m and v start at 0. */
void ocm_adam_update(float *w, const float *g, float *m, float *v, size_t n, float lr,
                     float beta1, float beta2, float eps, long step);

/* MARK: - Nearest neighbours */

/* out[i·ldo + j] = Σ_d (queries[i·ldq + d] − samples[j·lds + d])² for i < Q, j < N: exact
 * differences, so equal rows are at distance 0 and a pair gets the same value whatever the
 * batch. Threaded over samples. */
void ocm_squared_distances(const float *queries, int Q, int ldq, const float *samples, int N,
                           int lds, int D, float *out, int ldo);

/* The k nearest samples to each of Q queries (rows of D floats, contiguous), exactly as
 * ocm_squared_distances followed by ocm_k_smallest give them: the same indices, the same
 * distances, ties to the lower index. Candidates come from a GEMM (‖q‖² + ‖s‖² − 2·q·s, within a
 * rounding-error bound of the k-th best), then their exact distances decide; a query whose
 * candidates would not fit a small list falls back to the exact scan. For batches of queries
 * against many samples. indices and distances receive Q rows of k entries, ascending; 0 < k <= N;
 * values finite. Returns false if memory ran out (the outputs are then undefined). */
bool ocm_k_nearest_batch(const float *queries, int Q, const float *samples, int N, int D, int k,
                         int32_t *indices, float *distances);

/* ocm_k_nearest_batch with the samples' squared norms given (sample_norms[j] =
 * ocm_squared_norms of sample j, e.g. kept with an index that does not change between batches),
 * or computed here when NULL. */
bool ocm_k_nearest_batch_normed(const float *queries, int Q, const float *samples, const float *sample_norms, int N,
                                int D, int k, int32_t *indices, float *distances);

/* out[i] = Σ_d rows[i·D + d]², summed in double and rounded once to float (the sample norms
 * ocm_k_nearest_batch_normed expects). Threaded over rows. */
void ocm_squared_norms(const float *rows, int N, int D, float *out);

/* The k smallest of values[0..<n] in ascending order (ties: lower index first), as indices
 * (i + index_offset) and values; returns min(k, n). `indices` and `selected` hold k entries.
 * Values must not be NaN. */
int ocm_k_smallest(const float *values, int n, int k, int32_t index_offset, int32_t *indices,
                   float *selected);

/* A bounded max-heap of (value, index) pairs, ordered by value then index, for k-nearest
 * searches that visit candidates in pieces (kd-tree leaves): offers one pair to a heap of
 * `size` entries holding at most k, returning the new size. heap_values[0] is the worst kept. */
int ocm_heap_offer(float *heap_values, int32_t *heap_indices, int size, int k, float value,
                   int32_t index);

/* Sorts a heap made by ocm_heap_offer into ascending (value, index) order, in place. */
void ocm_heap_sort_ascending(float *heap_values, int32_t *heap_indices, int size);

#ifdef __cplusplus
}
#endif

#endif /* OPENCOREML_KERNELS_H */
