/*
 * gemm_arm.c — the AArch64 NEON GEMM micro-kernel: 8 rows × 4/8/12 columns (up to 24 q
 * accumulators); per depth step, 2 loads of packed A and 1–3 loads of packed B feed 8·NV
 * lane-indexed fused multiply-adds. Partial column vectors go through a small stack tile.
 */
#include "ocm_internal.h"

#if OCM_ARM

#include <arm_neon.h>

enum { NEON_MR = 8, NEON_NR = 12 };

static inline __attribute__((always_inline)) float32x4_t update4(float32x4_t acc, const float *c,
                                                                 float alpha, float beta,
                                                                 bool read_c) {
    float32x4_t r = vmulq_n_f32(acc, alpha);
    if (read_c) r = vfmaq_n_f32(r, vld1q_f32(c), beta);
    return r;
}

static inline __attribute__((always_inline)) void store4(float *c, float32x4_t acc, int n,
                                                         float alpha, float beta, bool read_c) {
    if (n >= 4) {
        vst1q_f32(c, update4(acc, c, alpha, beta, read_c));
    } else if (n > 0) {
        float tile[4] = {0, 0, 0, 0};
        for (int j = 0; j < n; j++) tile[j] = c[j];
        vst1q_f32(tile, update4(acc, tile, alpha, beta, read_c));
        for (int j = 0; j < n; j++) c[j] = tile[j];
    }
}

static inline __attribute__((always_inline)) void kernel_neon_nv(const int NV, int kc,
                                                                 const float *restrict Ap,
                                                                 const float *restrict Bp,
                                                                 float *C, int ldc, int m, int n,
                                                                 float alpha, float beta) {
    float32x4_t c0[NEON_MR], c1[NEON_MR], c2[NEON_MR];
    for (int i = 0; i < NEON_MR; i++) {
        c0[i] = vdupq_n_f32(0.0f);
        if (NV > 1) c1[i] = vdupq_n_f32(0.0f);
        if (NV > 2) c2[i] = vdupq_n_f32(0.0f);
    }
    const int w = 4 * NV;
    for (int k = 0; k < kc; k++) {
        float32x4_t a_lo = vld1q_f32(Ap), a_hi = vld1q_f32(Ap + 4);
        float32x4_t b0 = vld1q_f32(Bp);
        float32x4_t b1 = NV > 1 ? vld1q_f32(Bp + 4) : b0;
        float32x4_t b2 = NV > 2 ? vld1q_f32(Bp + 8) : b0;
#define OCM_NEON_ROW(i, a, lane)                                                             \
    c0[i] = vfmaq_laneq_f32(c0[i], b0, a, lane);                                             \
    if (NV > 1) c1[i] = vfmaq_laneq_f32(c1[i], b1, a, lane);                                 \
    if (NV > 2) c2[i] = vfmaq_laneq_f32(c2[i], b2, a, lane);
        OCM_NEON_ROW(0, a_lo, 0)
        OCM_NEON_ROW(1, a_lo, 1)
        OCM_NEON_ROW(2, a_lo, 2)
        OCM_NEON_ROW(3, a_lo, 3)
        OCM_NEON_ROW(4, a_hi, 0)
        OCM_NEON_ROW(5, a_hi, 1)
        OCM_NEON_ROW(6, a_hi, 2)
        OCM_NEON_ROW(7, a_hi, 3)
#undef OCM_NEON_ROW
        Ap += NEON_MR;
        Bp += w;
    }
    const bool read_c = beta != 0.0f;
    for (int i = 0; i < m; i++) {
        float *c = C + (size_t)i * ldc;
        store4(c, c0[i], n, alpha, beta, read_c);
        if (NV > 1) store4(c + 4, c1[i], n - 4, alpha, beta, read_c);
        if (NV > 2) store4(c + 8, c2[i], n - 8, alpha, beta, read_c);
    }
}

static void kernel_neon(int kc, const float *Ap, const float *Bp, float *C, int ldc, int m, int n,
                        float alpha, float beta) {
    if (n > 8) kernel_neon_nv(3, kc, Ap, Bp, C, ldc, m, n, alpha, beta);
    else if (n > 4) kernel_neon_nv(2, kc, Ap, Bp, C, ldc, m, n, alpha, beta);
    else kernel_neon_nv(1, kc, Ap, Bp, C, ldc, m, n, alpha, beta);
}

const ocm_gemm_arch ocm_gemm_neon = {
    .mr = NEON_MR,
    .nr = NEON_NR,
    .vw = 4,
    .kc = 256,
    .nc = 480,
    .kernel = kernel_neon,
    .pack_a = ocm_gemm_pack_a_generic,
    .pack_b = ocm_gemm_pack_b_generic,
};

#endif /* OCM_ARM */
