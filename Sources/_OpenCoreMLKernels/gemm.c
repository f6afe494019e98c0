/*
 * gemm.c — the SGEMM driver: threads, cache blocking and packing around the micro-kernel of
 * the instruction set in use.
 *
 * C (M×N) is cut into one rectangle per thread (pm × pn rectangles, chosen so that the
 * slowest thread has the least to do, counting its packing). Inside a rectangle, for each
 * block of nc columns and kc depths, the thread packs op(B) into panels of nr columns
 * ([kc][w] each), then for each micro-panel of mr rows packs op(A) ([kc][mr], kept in L1)
 * and runs the micro-kernel along the packed B block (kept in L2). Packing buffers are
 * per thread and grow only. A·Bᵀ with a short side and long rows (a convolution's weight
 * gradient per image) skips all that for the arch's dot-product kernel.
 */
#include "ocm_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* MARK: - Per-thread packing buffers */

typedef struct pack_buffers {
    float *a;
    size_t a_cap;
    float *b;
    size_t b_cap;
} pack_buffers;

static pthread_key_t buffers_key;
static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;

static void free_buffers(void *raw) {
    pack_buffers *buffers = raw;
    free(buffers->a);
    free(buffers->b);
    free(buffers);
}

static void make_buffers_key(void) {
    if (pthread_key_create(&buffers_key, free_buffers) != 0) {
        fputs("OpenCoreMLKernels: pthread_key_create failed\n", stderr);
        abort();
    }
}

void *ocm_alloc_or_die(size_t bytes, const char *purpose) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p == NULL) {
        fprintf(stderr, "OpenCoreMLKernels: out of memory for %s\n", purpose);
        abort();
    }
    return p;
}

static pack_buffers *thread_buffers(void) {
    pthread_once(&buffers_once, make_buffers_key);
    pack_buffers *buffers = pthread_getspecific(buffers_key);
    if (buffers == NULL) {
        buffers = calloc(1, sizeof *buffers);
        if (buffers == NULL || pthread_setspecific(buffers_key, buffers) != 0) {
            fputs("OpenCoreMLKernels: cannot set up GEMM packing buffers\n", stderr);
            abort();
        }
    }
    return buffers;
}

static float *reserve(float **buffer, size_t *capacity, size_t floats) {
    if (floats > *capacity) {
        free(*buffer);
        *buffer = ocm_alloc_or_die(floats * sizeof(float), "GEMM packing buffers");
        *capacity = floats;
    }
    return *buffer;
}

/* MARK: - One thread's rectangle */

typedef struct gemm_job {
    bool transA, transB;
    int M, N, K;
    float alpha, beta;
    const float *A;
    int lda;
    const float *B;
    int ldb;
    float *C;
    int ldc;
    const ocm_gemm_arch *arch;
    const float *packed_a; /* op(A) packed by ocm_sgemm_pack_a, or NULL */
    const float *packed_b; /* op(B) packed by ocm_sgemm_pack_b, or NULL (then n_unit is nr) */
    ocm_gemm_epilogue epilogue;
    bool has_epilogue;
    int pm, pn;         /* rectangles along M and N */
    int m_unit, n_unit; /* rectangle edges are multiples of these */
} gemm_job;

static inline int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

/* The most floats of A packed once for all column blocks (half of a 1 MB L2 cache). */
enum { A_PACKED_ONCE_MAX = 1 << 17 };

/* Whether the epilogue changes anything. */
static bool has_effect(const ocm_gemm_epilogue *e) {
    return e->row_bias != NULL || e->col_bias != NULL || e->activation != OCM_EPILOGUE_NONE;
}

/* The epilogue on rows [row, row + m) × columns [col, col + n) of C, which start at c. */
static void apply_epilogue(const ocm_gemm_epilogue *e, float *c, int ldc, int row, int col, int m, int n) {
    const ocm_elementwise_ops *o = ocm_kernels()->elementwise;
    for (int i = 0; i < m; i++) {
        float *line = c + (size_t)i * ldc;
        if (e->col_bias) o->add(line, e->col_bias + col, line, (size_t)n);
        const float bias = e->row_bias ? e->row_bias[row + i] : 0.0f;
        switch (e->activation) {
        case OCM_EPILOGUE_NONE:
            if (e->row_bias) o->add_scalar(line, (size_t)n, bias);
            break;
        case OCM_EPILOGUE_RELU:
            if (e->row_bias) o->add_scalar(line, (size_t)n, bias);
            o->relu(line, line, (size_t)n);
            break;
        case OCM_EPILOGUE_CLAMP:
            o->add_scalar_clamp(line, (size_t)n, bias, e->lo, e->hi);
            break;
        case OCM_EPILOGUE_HARDSWISH:
            o->hardswish(line, line, (size_t)n, bias, e->lo, e->alpha, e->beta);
            break;
        }
    }
}

static void gemm_rectangle(const gemm_job *g, int m0, int m1, int n0, int n1) {
    const ocm_gemm_arch *arch = g->arch;
    const int mr = arch->mr, nr = arch->nr, vw = arch->vw;
    const int K = g->K;
    const int kc_max = OCM_MIN(arch->kc, K);
    const int nc_max = OCM_MIN(arch->nc, round_up(n1 - n0, nr));
    pack_buffers *buffers = thread_buffers();
    /* With the whole of K in one block and a small A (a pointwise convolution's weights), A is
     * packed once for every column block rather than again for each. */
    const size_t a_once = (size_t)round_up(m1 - m0, mr) * K;
    const bool pack_a_once = !g->packed_a && K <= kc_max && n1 - n0 > nc_max && a_once <= A_PACKED_ONCE_MAX;
    float *Ap = g->packed_a ? NULL : reserve(&buffers->a, &buffers->a_cap, pack_a_once ? a_once : (size_t)kc_max * mr);
    float *Bp = g->packed_b ? NULL : reserve(&buffers->b, &buffers->b_cap, (size_t)kc_max * nc_max);
    if (pack_a_once) {
        for (int ir = m0; ir < m1; ir += mr) {
            const float *a = g->transA ? g->A + ir : g->A + (size_t)ir * g->lda;
            arch->pack_a(g->transA, a, g->lda, OCM_MIN(mr, m1 - ir), K, mr, Ap + (size_t)(ir - m0) * K);
        }
    }

    for (int jc = n0; jc < n1; jc += nc_max) {
        const int nc = OCM_MIN(nc_max, n1 - jc);
        for (int pc = 0; pc < K; pc += kc_max) {
            const int kc = OCM_MIN(kc_max, K - pc);
            const float beta = pc == 0 ? g->beta : 1.0f;
            /* This block's panels: packed now, or (packed once) where ocm_sgemm_pack_b put them. */
            const float *block = g->packed_b ? g->packed_b + (size_t)pc * round_up(g->N, nr) + (size_t)jc * kc : Bp;
            for (int jr = 0; jr < nc && !g->packed_b; jr += nr) {
                const int n = OCM_MIN(nr, nc - jr);
                const float *b = g->transB ? g->B + (size_t)(jc + jr) * g->ldb + pc
                                           : g->B + (size_t)pc * g->ldb + jc + jr;
                arch->pack_b(g->transB, b, g->ldb, kc, n, round_up(n, vw), Bp + (size_t)jr * kc);
            }
            for (int ir = m0; ir < m1; ir += mr) {
                const int m = OCM_MIN(mr, m1 - ir);
                const float *panel = Ap + (size_t)(ir - m0) * K;
                if (g->packed_a) {
                    panel = g->packed_a + (size_t)pc * round_up(g->M, mr) + (size_t)ir * kc;
                } else if (!pack_a_once) {
                    const float *a = g->transA ? g->A + (size_t)pc * g->lda + ir
                                               : g->A + (size_t)ir * g->lda + pc;
                    arch->pack_a(g->transA, a, g->lda, m, kc, mr, Ap);
                    panel = Ap;
                }
                float *c = g->C + (size_t)ir * g->ldc + jc;
                for (int jr = 0; jr < nc; jr += nr) {
                    arch->kernel(kc, panel, block + (size_t)jr * kc, c + jr, g->ldc, m,
                                 OCM_MIN(nr, nc - jr), g->alpha, beta);
                }
                if (g->has_epilogue && pc + kc == K) apply_epilogue(&g->epilogue, c, g->ldc, ir, jc, m, nc);
            }
        }
    }
}

/* [begin, end) of piece `index` when `total` is cut into `pieces` runs of whole units. */
static inline void split(int total, int unit, int pieces, int index, int *begin, int *end) {
    int units = (total + unit - 1) / unit;
    int lo = (int)((long)units * index / pieces), hi = (int)((long)units * (index + 1) / pieces);
    *begin = OCM_MIN(lo * unit, total);
    *end = OCM_MIN(hi * unit, total);
}

static void gemm_part(void *raw, int part, int nparts) {
    (void)nparts;
    const gemm_job *g = raw;
    int m0, m1, n0, n1;
    split(g->M, g->m_unit, g->pm, part / g->pn, &m0, &m1);
    split(g->N, g->n_unit, g->pn, part % g->pn, &n0, &n1);
    if (m0 < m1 && n0 < n1) gemm_rectangle(g, m0, m1, n0, n1);
}

/* MARK: - Thread split */

static const double PACK_COST = 16.0;               /* one packed float ≈ this many multiply-adds */
/* Multiply-adds per thread at least (about 10 µs of one core); smaller products run on the
 * calling thread: waking a sleeping worker costs more than it saves (batch-1 inference). */
static const double MIN_WORK_PER_THREAD = 1048576.0;

/* Large products are cut into up to this many rectangles per thread: threads claim them as
 * they come free, so a thread the OS delays holds up only a small piece. */
static const int PARTS_PER_THREAD = 2;
static const double MIN_WORK_PER_PART = 8388608.0; /* multiply-adds, for more than one part a thread */

/* Picks pm × pn parts (at most threads, or PARTS_PER_THREAD × threads for large products)
 * minimising the largest rectangle's cost (multiply-adds plus packing). */
static void choose_split(gemm_job *g, int threads) {
    const ocm_gemm_arch *arch = g->arch;
    /* Fewer rows than a tile (a batch-1 dense layer) use each weight once or a few times: such a
     * product is bound by reading the weights, and costs about what a full tile's rows would.
     * Counted so, a 1000×1024 layer's weights are read by every thread instead of by one. */
    double work = (double)OCM_MAX(g->M, arch->mr) * g->N * g->K;
    int usable = (int)OCM_MIN((double)threads, OCM_MAX(1.0, work / MIN_WORK_PER_THREAD));
    if (usable > 1) {
        usable = (int)OCM_MIN((double)(usable * PARTS_PER_THREAD), OCM_MAX((double)usable, work / MIN_WORK_PER_PART));
    }
    g->pm = 1;
    g->pn = 1;
    g->m_unit = arch->mr;
    /* Packed-once B panels are nr columns wide: a rectangle must start on one. */
    g->n_unit = g->packed_b ? arch->nr : arch->vw;
    double best = INFINITY;
    for (int pm = 1; pm <= usable; pm++) {
        int pn = usable / pm;
        int mt = round_up((g->M + pm - 1) / pm, arch->mr);
        int nt = round_up((g->N + pn - 1) / pn, g->n_unit);
        double blocks_n = ceil((double)nt / arch->nc);
        double cost = (double)mt * nt * g->K +
                      PACK_COST * (double)g->K * ((double)nt + (double)mt * blocks_n);
        if (cost < best * 0.999) {
            best = cost;
            g->pm = pm;
            g->pn = pn;
        }
    }
}

/* MARK: - Entry point */

/* A·Bᵀ with few rows on one side and long ones: dot products beat packing (which would
 * copy all of A and B to use each element only a few times) and narrow, mostly empty tiles. */
static bool use_dot_products(int M, int N, int K) {
    return OCM_MIN(M, N) <= 12 && K >= 128 && (double)M * N <= 4096.0;
}

static void scale_c(int M, int N, float beta, float *C, int ldc) {
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        if (beta == 0.0f) {
            for (int j = 0; j < N; j++) c[j] = 0.0f;
        } else if (beta != 1.0f) {
            for (int j = 0; j < N; j++) c[j] *= beta;
        }
    }
}

/* With no product to add (K == 0 or alpha == 0), C = beta·C and the epilogue; true if so. */
static bool nothing_to_multiply(int M, int N, int K, float alpha, float beta, float *C, int ldc,
                                const ocm_gemm_epilogue *epilogue, bool has_epilogue) {
    if (K != 0 && alpha != 0.0f) return false;
    scale_c(M, N, beta, C, ldc);
    if (has_epilogue) apply_epilogue(epilogue, C, ldc, 0, 0, M, N);
    return true;
}

/* Splits the product over the threads (or not) and runs it. */
static void run_gemm(gemm_job *job) {
    /* Inside a pool job (e.g. one GEMM per image of a batch) the pool is taken: stay whole. */
    choose_split(job, ocm_inside_parallel_job() ? 1 : ocm_num_threads());
    int parts = job->pm * job->pn;
    if (parts == 1) {
        gemm_rectangle(job, 0, job->M, 0, job->N);
    } else {
        ocm_run_parts(parts, gemm_part, job);
    }
}


/* `size` rounded up to the panel edge (mr, or nr for `columns`) of whichever level makes it largest:
 * packed buffers sized with it fit every level's layout, so that a level switched between sizing
 * and packing (from another thread) cannot overrun them. */
static size_t padded_for_every_level(int size, bool columns) {
    const int levels[] = {OCM_ISA_SCALAR, OCM_ISA_AVX2, OCM_ISA_AVX512, OCM_ISA_NEON};
    size_t most = 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const ocm_gemm_arch *arch = ocm_kernels_for(levels[i])->gemm;
        most = OCM_MAX(most, (size_t)round_up(size, columns ? arch->nr : arch->mr));
    }
    return most;
}

/* The packed layout (gemm_rectangle reads it): K blocks of the arch's kc, each holding the rows
 * in mr-row panels of that block's depth, so panel (pc, ir) starts at pc·round_up(M, mr) + ir·kc. */
size_t ocm_sgemm_packed_a_floats(int M, int K) {
    assert(M >= 0 && K >= 0);
    return padded_for_every_level(M, false) * (size_t)K;
}

int ocm_sgemm_pack_a(bool transA, int M, int K, const float *A, int lda, float *packed) {
    assert(M >= 0 && K >= 0 && lda >= OCM_MAX(transA ? M : K, 1));
    const ocm_kernel_table *table = ocm_kernels(); /* read once: the level may change meanwhile */
    const ocm_gemm_arch *arch = table->gemm;
    const int isa = table->isa;
    const int mr = arch->mr, kc_max = OCM_MIN(arch->kc, K), rows = round_up(M, mr);
    for (int pc = 0; pc < K; pc += kc_max) {
        const int kc = OCM_MIN(kc_max, K - pc);
        for (int ir = 0; ir < M; ir += mr) {
            const float *a = transA ? A + (size_t)pc * lda + ir : A + (size_t)ir * lda + pc;
            arch->pack_a(transA, a, lda, OCM_MIN(mr, M - ir), kc, mr, packed + (size_t)pc * rows + (size_t)ir * kc);
        }
    }
    return isa;
}

/* MARK: - Batches */

typedef struct batched_job {
    bool transA, transB;
    int M, N, K;
    float alpha, beta;
    const float *A, *B;
    float *C;
    size_t strideA, strideB, strideC;
    int lda, ldb, ldc;
} batched_job;

static void batched_product(void *raw, int thread, size_t index) {
    (void)thread;
    const batched_job *j = raw;
    /* Inside a pool job: this product stays on this thread. */
    ocm_sgemm(j->transA, j->transB, j->M, j->N, j->K, j->alpha, j->A + index * j->strideA, j->lda,
              j->B + index * j->strideB, j->ldb, j->beta, j->C + index * j->strideC, j->ldc);
}

void ocm_sgemm_batched(int batch, bool transA, bool transB, int M, int N, int K, float alpha,
                       const float *A, size_t strideA, int lda, const float *B, size_t strideB, int ldb,
                       float beta, float *C, size_t strideC, int ldc) {
    assert(batch >= 0);
    batched_job job = {
        .transA = transA, .transB = transB, .M = M, .N = N, .K = K, .alpha = alpha, .beta = beta,
        .A = A, .B = B, .C = C, .strideA = strideA, .strideB = strideB, .strideC = strideC,
        .lda = lda, .ldb = ldb, .ldc = ldc,
    };
    const int threads = ocm_inside_parallel_job() ? 1 : ocm_num_threads();
    /* Products too small to split over the threads (attention heads) run side by side instead. */
    if (batch > 1 && threads > 1 && (double)M * N * K < MIN_WORK_PER_THREAD * threads) {
        ocm_parallel_dynamic((size_t)batch, batched_product, &job);
        return;
    }
    for (int i = 0; i < batch; i++) batched_product(&job, 0, (size_t)i);
}

/* The packed layout of op(B) (gemm_rectangle reads it): K blocks of the arch's kc, each holding the
 * columns in nr-column panels of that block's depth ([kc][w], w the panel's width rounded up to vw),
 * so panel (pc, jr) starts at pc·round_up(N, nr) + jr·kc. */
size_t ocm_sgemm_packed_b_floats(int K, int N) {
    assert(K >= 0 && N >= 0);
    return padded_for_every_level(N, true) * (size_t)K;
}

int ocm_sgemm_pack_b(bool transB, int K, int N, const float *B, int ldb, float *packed) {
    assert(K >= 0 && N >= 0 && ldb >= OCM_MAX(transB ? K : N, 1));
    const ocm_kernel_table *table = ocm_kernels(); /* read once: the level may change meanwhile */
    const ocm_gemm_arch *arch = table->gemm;
    const int nr = arch->nr, kc_max = OCM_MIN(arch->kc, K), columns = round_up(N, nr);
    for (int pc = 0; pc < K; pc += kc_max) {
        const int kc = OCM_MIN(kc_max, K - pc);
        for (int jr = 0; jr < N; jr += nr) {
            const int n = OCM_MIN(nr, N - jr);
            const float *b = transB ? B + (size_t)jr * ldb + pc : B + (size_t)pc * ldb + jr;
            arch->pack_b(transB, b, ldb, kc, n, round_up(n, arch->vw), packed + (size_t)pc * columns + (size_t)jr * kc);
        }
    }
    return table->isa;
}

void ocm_sgemm(bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    ocm_sgemm_epilogue(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                       (ocm_gemm_epilogue){.row_bias = NULL, .activation = OCM_EPILOGUE_NONE});
}

void ocm_sgemm_epilogue(bool transA, bool transB, int M, int N, int K, float alpha, const float *A,
                        int lda, const float *B, int ldb, float beta, float *C, int ldc,
                        ocm_gemm_epilogue epilogue) {
    assert(M >= 0 && N >= 0 && K >= 0);
    assert(ldc >= OCM_MAX(N, 1));
    assert(lda >= OCM_MAX(transA ? M : K, 1));
    assert(ldb >= OCM_MAX(transB ? K : N, 1));
    if (M == 0 || N == 0) return;
    assert(C != NULL);
    const bool has_epilogue = has_effect(&epilogue);
    if (nothing_to_multiply(M, N, K, alpha, beta, C, ldc, &epilogue, has_epilogue)) return;
    assert(A != NULL && B != NULL);

    const ocm_gemm_arch *arch = ocm_kernels()->gemm;
    if (!transA && transB && arch->dot_nt != NULL && use_dot_products(M, N, K)) {
        arch->dot_nt(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        if (has_epilogue) apply_epilogue(&epilogue, C, ldc, 0, 0, M, N);
        return;
    }
    gemm_job job = {
        .transA = transA, .transB = transB, .M = M, .N = N, .K = K,
        .alpha = alpha, .beta = beta,
        .A = A, .lda = lda, .B = B, .ldb = ldb, .C = C, .ldc = ldc,
        .arch = arch, .epilogue = epilogue, .has_epilogue = has_epilogue,
    };
    run_gemm(&job);
}

/* A product with one operand packed once (job->packed_a or job->packed_b), by the kernel of the
 * level it was packed for even if another thread switched levels since: checks, the cases with no
 * product to add, then the threads. */
static void run_prepacked(gemm_job *job, int packed_isa) {
    assert(job->M >= 0 && job->N >= 0 && job->K >= 0);
    assert(job->ldc >= OCM_MAX(job->N, 1));
    assert(job->lda >= OCM_MAX(job->transA ? job->M : job->K, 1) && job->ldb >= OCM_MAX(job->transB ? job->K : job->N, 1));
    if (job->M == 0 || job->N == 0) return;
    job->has_epilogue = has_effect(&job->epilogue);
    if (nothing_to_multiply(job->M, job->N, job->K, job->alpha, job->beta, job->C, job->ldc, &job->epilogue, job->has_epilogue)) return;
    assert((job->packed_a || job->A) && (job->packed_b || job->B) && job->C != NULL);
    job->arch = ocm_kernels_for(packed_isa)->gemm;
    run_gemm(job);
}

void ocm_sgemm_prepacked(int packed_isa, const float *packed, bool transB, int M, int N, int K, float alpha,
                         const float *B, int ldb, float beta, float *C, int ldc, ocm_gemm_epilogue epilogue) {
    gemm_job job = {
        .transA = false, .transB = transB, .M = M, .N = N, .K = K, .alpha = alpha, .beta = beta,
        .packed_a = packed, .lda = OCM_MAX(K, 1), .B = B, .ldb = ldb, .C = C, .ldc = ldc, .epilogue = epilogue,
    };
    run_prepacked(&job, packed_isa);
}

void ocm_sgemm_prepacked_b(int packed_isa, const float *packed, bool transA, int M, int N, int K, float alpha,
                           const float *A, int lda, float beta, float *C, int ldc, ocm_gemm_epilogue epilogue) {
    gemm_job job = {
        .transA = transA, .transB = false, .M = M, .N = N, .K = K, .alpha = alpha, .beta = beta,
        .A = A, .lda = lda, .packed_b = packed, .ldb = OCM_MAX(N, 1), .C = C, .ldc = ldc, .epilogue = epilogue,
    };
    run_prepacked(&job, packed_isa);
}
