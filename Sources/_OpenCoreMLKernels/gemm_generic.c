/*
 * gemm_generic.c — the portable GEMM pieces: packing routines (also the fallback of the SIMD
 * packers) and the scalar micro-kernel.
 */
#include "ocm_internal.h"

#include <string.h>

void ocm_gemm_pack_a_generic(bool trans, const float *a, int lda, int m, int kc, int mr,
                             float *dst) {
    if (trans) {
        for (int k = 0; k < kc; k++) {
            const float *src = a + (size_t)k * lda;
            float *d = dst + (size_t)k * mr;
            int r = 0;
            for (; r < m; r++) d[r] = src[r];
            for (; r < mr; r++) d[r] = 0.0f;
        }
    } else {
        for (int r = 0; r < m; r++) {
            const float *src = a + (size_t)r * lda;
            for (int k = 0; k < kc; k++) dst[(size_t)k * mr + r] = src[k];
        }
        for (int r = m; r < mr; r++) {
            for (int k = 0; k < kc; k++) dst[(size_t)k * mr + r] = 0.0f;
        }
    }
}

void ocm_gemm_pack_b_generic(bool trans, const float *b, int ldb, int kc, int n, int w,
                             float *dst) {
    if (trans) {
        for (int c = 0; c < n; c++) {
            const float *src = b + (size_t)c * ldb;
            for (int k = 0; k < kc; k++) dst[(size_t)k * w + c] = src[k];
        }
        for (int c = n; c < w; c++) {
            for (int k = 0; k < kc; k++) dst[(size_t)k * w + c] = 0.0f;
        }
    } else {
        for (int k = 0; k < kc; k++) {
            float *d = dst + (size_t)k * w;
            memcpy(d, b + (size_t)k * ldb, sizeof(float) * (size_t)n);
            for (int c = n; c < w; c++) d[c] = 0.0f;
        }
    }
}

enum { SCALAR_MR = 4, SCALAR_NR = 8 };

static void kernel_scalar(int kc, const float *Ap, const float *Bp, float *C, int ldc, int m,
                          int n, float alpha, float beta) {
    float acc[SCALAR_MR][SCALAR_NR] = {{0}};
    for (int k = 0; k < kc; k++) {
        const float *a = Ap + (size_t)k * SCALAR_MR;
        const float *b = Bp + (size_t)k * SCALAR_NR;
        for (int i = 0; i < SCALAR_MR; i++) {
            for (int j = 0; j < SCALAR_NR; j++) acc[i][j] += a[i] * b[j];
        }
    }
    for (int i = 0; i < m; i++) {
        float *c = C + (size_t)i * ldc;
        if (beta == 0.0f) {
            for (int j = 0; j < n; j++) c[j] = alpha * acc[i][j];
        } else {
            for (int j = 0; j < n; j++) c[j] = alpha * acc[i][j] + beta * c[j];
        }
    }
}

const ocm_gemm_arch ocm_gemm_scalar = {
    .mr = SCALAR_MR,
    .nr = SCALAR_NR,
    .vw = SCALAR_NR,
    .kc = 256,
    .nc = 512,
    .kernel = kernel_scalar,
    .pack_a = ocm_gemm_pack_a_generic,
    .pack_b = ocm_gemm_pack_b_generic,
};
