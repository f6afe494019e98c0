/*
 * gemm_x86.c — x86-64 GEMM micro-kernels and packers.
 *
 * AVX-512: 8 rows × 16/32/48 columns (up to 24 zmm accumulators); per depth step, 1–3 vector
 * loads of packed B and 8 broadcasts of packed A feed 8·NV fused multiply-adds (a tile of 1 or
 * up to 4 rows runs only those rows' multiply-adds).
 * AVX2+FMA: 6 rows × 8/16 columns (12 ymm accumulators).
 * Partial tiles: rows beyond m are computed on zero padding and not stored; columns beyond n
 * are masked off. The packers transpose 8×8 blocks in registers.
 */
#include "ocm_internal.h"

#if OCM_X86

#include <immintrin.h>
#include <string.h>

#define OCM_ALWAYS_INLINE inline __attribute__((always_inline))

/* MARK: - Packing (AVX2; used by both instruction sets) */

OCM_TARGET_AVX2 static OCM_ALWAYS_INLINE void transpose8x8(__m256 r[8]) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/* dst[k][c] = src[c·ld + k] for c < 8, k < kc8 (a multiple of 8); dst rows are `stride` apart. */
OCM_TARGET_AVX2 static OCM_ALWAYS_INLINE void transpose_8_rows(const float *src, size_t ld,
                                                               int kc8, float *dst,
                                                               size_t stride) {
    for (int k = 0; k < kc8; k += 8) {
        __m256 r[8];
        for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + (size_t)i * ld + k);
        transpose8x8(r);
        for (int i = 0; i < 8; i++) _mm256_storeu_ps(dst + (size_t)(k + i) * stride, r[i]);
    }
}

OCM_TARGET_AVX2 static void pack_a_x86(bool trans, const float *a, int lda, int m, int kc,
                                       int mr, float *dst) {
    if (mr == 8 && m == 8) {
        if (trans) {
            for (int k = 0; k < kc; k++) {
                _mm256_storeu_ps(dst + (size_t)k * 8, _mm256_loadu_ps(a + (size_t)k * lda));
            }
        } else {
            int kc8 = kc & ~7;
            transpose_8_rows(a, (size_t)lda, kc8, dst, 8);
            for (int r = 0; r < 8; r++) {
                for (int k = kc8; k < kc; k++) dst[(size_t)k * 8 + r] = a[(size_t)r * lda + k];
            }
        }
        return;
    }
    ocm_gemm_pack_a_generic(trans, a, lda, m, kc, mr, dst);
}

OCM_TARGET_AVX2 static void pack_b_x86(bool trans, const float *b, int ldb, int kc, int n, int w,
                                       float *dst) {
    if (trans) {
        int kc8 = kc & ~7;
        int c = 0;
        for (; c + 8 <= n; c += 8) {
            const float *src = b + (size_t)c * ldb;
            transpose_8_rows(src, (size_t)ldb, kc8, dst + c, (size_t)w);
            for (int i = 0; i < 8; i++) {
                for (int k = kc8; k < kc; k++) dst[(size_t)k * w + c + i] = src[(size_t)i * ldb + k];
            }
        }
        for (; c < n; c++) {
            const float *src = b + (size_t)c * ldb;
            for (int k = 0; k < kc; k++) dst[(size_t)k * w + c] = src[k];
        }
        for (; c < w; c++) {
            for (int k = 0; k < kc; k++) dst[(size_t)k * w + c] = 0.0f;
        }
    } else {
        for (int k = 0; k < kc; k++) {
            const float *src = b + (size_t)k * ldb;
            float *d = dst + (size_t)k * w;
            int c = 0;
            for (; c + 8 <= n; c += 8) _mm256_storeu_ps(d + c, _mm256_loadu_ps(src + c));
            for (; c < n; c++) d[c] = src[c];
            for (; c < w; c++) d[c] = 0.0f;
        }
    }
}

/* MARK: - AVX-512 micro-kernel: 8 × (16·NV) */

enum { K512_MR = 8, K512_NR = 48 };

OCM_TARGET_AVX512 static OCM_ALWAYS_INLINE void store512(float *c, __m512 acc, __mmask16 mask,
                                                         __m512 alpha, __m512 beta,
                                                         bool read_c) {
    __m512 r = _mm512_mul_ps(alpha, acc);
    if (read_c) r = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(mask, c), r);
    _mm512_mask_storeu_ps(c, mask, r);
}

/* MR rows (at most K512_MR; the packed panels are K512_MR wide whatever MR is) × 16·NV columns. */
OCM_TARGET_AVX512 static OCM_ALWAYS_INLINE void kernel512(const int MR, const int NV, int kc,
                                                          const float *restrict Ap,
                                                          const float *restrict Bp, float *C,
                                                          int ldc, int m, int n, float alpha,
                                                          float beta) {
    __m512 c0[K512_MR], c1[K512_MR], c2[K512_MR];
    for (int i = 0; i < K512_MR; i++) {
        c0[i] = _mm512_setzero_ps();
        if (NV > 1) c1[i] = _mm512_setzero_ps();
        if (NV > 2) c2[i] = _mm512_setzero_ps();
    }
    for (int i = 0; i < m; i++) _mm_prefetch((const char *)(C + (size_t)i * ldc), _MM_HINT_T0);
    const int w = 16 * NV;
    for (int k = 0; k < kc; k++) {
        __m512 b0 = _mm512_loadu_ps(Bp);
        __m512 b1 = NV > 1 ? _mm512_loadu_ps(Bp + 16) : b0;
        __m512 b2 = NV > 2 ? _mm512_loadu_ps(Bp + 32) : b0;
        for (int i = 0; i < MR; i++) {
            __m512 a = _mm512_set1_ps(Ap[i]);
            c0[i] = _mm512_fmadd_ps(a, b0, c0[i]);
            if (NV > 1) c1[i] = _mm512_fmadd_ps(a, b1, c1[i]);
            if (NV > 2) c2[i] = _mm512_fmadd_ps(a, b2, c2[i]);
        }
        Ap += K512_MR;
        Bp += w;
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    const bool read_c = beta != 0.0f;
    __mmask16 m0 = n >= 16 ? 0xFFFF : (__mmask16)((1u << n) - 1);
    __mmask16 m1 = n >= 32 ? 0xFFFF : n > 16 ? (__mmask16)((1u << (n - 16)) - 1) : 0;
    __mmask16 m2 = n >= 48 ? 0xFFFF : n > 32 ? (__mmask16)((1u << (n - 32)) - 1) : 0;
    for (int i = 0; i < m; i++) {
        float *c = C + (size_t)i * ldc;
        store512(c, c0[i], m0, va, vb, read_c);
        if (NV > 1) store512(c + 16, c1[i], m1, va, vb, read_c);
        if (NV > 2) store512(c + 32, c2[i], m2, va, vb, read_c);
    }
}

/* Tiles of one row (a batch-1 dense layer) or up to four skip the padding rows' multiply-adds. */
#define KERNEL512_COLUMNS(MR)                                                                     \
    do {                                                                                          \
        if (n > 32) kernel512(MR, 3, kc, Ap, Bp, C, ldc, m, n, alpha, beta);                      \
        else if (n > 16) kernel512(MR, 2, kc, Ap, Bp, C, ldc, m, n, alpha, beta);                 \
        else kernel512(MR, 1, kc, Ap, Bp, C, ldc, m, n, alpha, beta);                             \
    } while (0)

OCM_TARGET_AVX512 static void kernel_avx512(int kc, const float *Ap, const float *Bp, float *C,
                                            int ldc, int m, int n, float alpha, float beta) {
    if (m == 1) KERNEL512_COLUMNS(1);
    else if (m <= 4) KERNEL512_COLUMNS(4);
    else KERNEL512_COLUMNS(K512_MR);
}
#undef KERNEL512_COLUMNS

/* MARK: - A·Bᵀ by dot products (AVX-512): tiles of 4 rows of A × 3 rows of B */

/* One row of A against 8 rows of B at a time (rows of A left over from the 4×3 tiles, e.g. the
 * single row of a batch-1 dense layer), so no multiply-add is spent on repeated rows. */
OCM_TARGET_AVX512 static void dot_nt_row_avx512(int N, int K, float alpha, const float *a,
                                                const float *B, int ldb, float beta, float *c_row) {
    const int k_full = K & ~15;
    const __mmask16 k_tail = (__mmask16)((1u << (K - k_full)) - 1);
    for (int j0 = 0; j0 < N; j0 += 8) {
        const int nj = OCM_MIN(8, N - j0);
        const float *b[8];
        for (int c = 0; c < 8; c++) b[c] = B + (size_t)(j0 + OCM_MIN(c, nj - 1)) * ldb;
        __m512 acc[8];
        for (int c = 0; c < 8; c++) acc[c] = _mm512_setzero_ps();
        for (int k = 0; k < k_full; k += 16) {
            __m512 va = _mm512_loadu_ps(a + k);
            for (int c = 0; c < 8; c++) acc[c] = _mm512_fmadd_ps(va, _mm512_loadu_ps(b[c] + k), acc[c]);
        }
        if (k_tail) {
            __m512 va = _mm512_maskz_loadu_ps(k_tail, a + k_full);
            for (int c = 0; c < 8; c++) {
                acc[c] = _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(k_tail, b[c] + k_full), acc[c]);
            }
        }
        for (int c = 0; c < nj; c++) {
            float v = alpha * _mm512_reduce_add_ps(acc[c]);
            c_row[j0 + c] = beta == 0.0f ? v : v + beta * c_row[j0 + c];
        }
    }
}

OCM_TARGET_AVX512 static void dot_nt_avx512(int M, int N, int K, float alpha, const float *A,
                                            int lda, const float *B, int ldb, float beta,
                                            float *C, int ldc) {
    const int k_full = K & ~15;
    const __mmask16 k_tail = (__mmask16)((1u << (K - k_full)) - 1);
    const int m4 = M & ~3;
    for (int i = m4; i < M; i++) {
        dot_nt_row_avx512(N, K, alpha, A + (size_t)i * lda, B, ldb, beta, C + (size_t)i * ldc);
    }
    for (int i0 = 0; i0 < m4; i0 += 4) {
        const int mi = OCM_MIN(4, M - i0);
        const float *a[4];
        for (int r = 0; r < 4; r++) a[r] = A + (size_t)(i0 + OCM_MIN(r, mi - 1)) * lda;
        for (int j0 = 0; j0 < N; j0 += 3) {
            const int nj = OCM_MIN(3, N - j0);
            const float *b[3];
            for (int c = 0; c < 3; c++) b[c] = B + (size_t)(j0 + OCM_MIN(c, nj - 1)) * ldb;
            __m512 acc[4][3];
            for (int r = 0; r < 4; r++) {
                for (int c = 0; c < 3; c++) acc[r][c] = _mm512_setzero_ps();
            }
            for (int k = 0; k < k_full; k += 16) {
                __m512 vb[3];
                for (int c = 0; c < 3; c++) vb[c] = _mm512_loadu_ps(b[c] + k);
                for (int r = 0; r < 4; r++) {
                    __m512 va = _mm512_loadu_ps(a[r] + k);
                    for (int c = 0; c < 3; c++) acc[r][c] = _mm512_fmadd_ps(va, vb[c], acc[r][c]);
                }
            }
            if (k_tail) {
                __m512 vb[3];
                for (int c = 0; c < 3; c++) vb[c] = _mm512_maskz_loadu_ps(k_tail, b[c] + k_full);
                for (int r = 0; r < 4; r++) {
                    __m512 va = _mm512_maskz_loadu_ps(k_tail, a[r] + k_full);
                    for (int c = 0; c < 3; c++) acc[r][c] = _mm512_fmadd_ps(va, vb[c], acc[r][c]);
                }
            }
            for (int r = 0; r < mi; r++) {
                float *c_row = C + (size_t)(i0 + r) * ldc + j0;
                for (int c = 0; c < nj; c++) {
                    float v = alpha * _mm512_reduce_add_ps(acc[r][c]);
                    c_row[c] = beta == 0.0f ? v : v + beta * c_row[c];
                }
            }
        }
    }
}

const ocm_gemm_arch ocm_gemm_avx512 = {
    .mr = K512_MR,
    .nr = K512_NR,
    .vw = 16,
    .kc = 256,
    .nc = 480,
    .kernel = kernel_avx512,
    .pack_a = pack_a_x86,
    .pack_b = pack_b_x86,
    .dot_nt = dot_nt_avx512,
};

/* MARK: - AVX2 micro-kernel: 6 × (8·NV) */

enum { K256_MR = 6, K256_NR = 16 };

OCM_TARGET_AVX2 static OCM_ALWAYS_INLINE __m256i mask256(int n) {
    /* lanes < n set */
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
}

OCM_TARGET_AVX2 static OCM_ALWAYS_INLINE void store256(float *c, __m256 acc, int n, __m256i mask,
                                                       __m256 alpha, __m256 beta, bool read_c) {
    __m256 r = _mm256_mul_ps(alpha, acc);
    if (n >= 8) {
        if (read_c) r = _mm256_fmadd_ps(beta, _mm256_loadu_ps(c), r);
        _mm256_storeu_ps(c, r);
    } else if (n > 0) {
        if (read_c) r = _mm256_fmadd_ps(beta, _mm256_maskload_ps(c, mask), r);
        _mm256_maskstore_ps(c, mask, r);
    }
}

OCM_TARGET_AVX2 static OCM_ALWAYS_INLINE void kernel256(const int NV, int kc,
                                                        const float *restrict Ap,
                                                        const float *restrict Bp, float *C,
                                                        int ldc, int m, int n, float alpha,
                                                        float beta) {
    __m256 c0[K256_MR], c1[K256_MR];
    for (int i = 0; i < K256_MR; i++) {
        c0[i] = _mm256_setzero_ps();
        if (NV > 1) c1[i] = _mm256_setzero_ps();
    }
    for (int i = 0; i < m; i++) _mm_prefetch((const char *)(C + (size_t)i * ldc), _MM_HINT_T0);
    const int w = 8 * NV;
    for (int k = 0; k < kc; k++) {
        __m256 b0 = _mm256_loadu_ps(Bp);
        __m256 b1 = NV > 1 ? _mm256_loadu_ps(Bp + 8) : b0;
        for (int i = 0; i < K256_MR; i++) {
            __m256 a = _mm256_broadcast_ss(Ap + i);
            c0[i] = _mm256_fmadd_ps(a, b0, c0[i]);
            if (NV > 1) c1[i] = _mm256_fmadd_ps(a, b1, c1[i]);
        }
        Ap += K256_MR;
        Bp += w;
    }
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    const bool read_c = beta != 0.0f;
    const __m256i mk0 = mask256(n), mk1 = mask256(n - 8);
    for (int i = 0; i < m; i++) {
        float *c = C + (size_t)i * ldc;
        store256(c, c0[i], n, mk0, va, vb, read_c);
        if (NV > 1) store256(c + 8, c1[i], n - 8, mk1, va, vb, read_c);
    }
}

OCM_TARGET_AVX2 static void kernel_avx2(int kc, const float *Ap, const float *Bp, float *C,
                                        int ldc, int m, int n, float alpha, float beta) {
    if (n > 8) kernel256(2, kc, Ap, Bp, C, ldc, m, n, alpha, beta);
    else kernel256(1, kc, Ap, Bp, C, ldc, m, n, alpha, beta);
}

/* MARK: - A·Bᵀ by dot products (AVX2): tiles of 4 rows of A × 3 rows of B */

OCM_TARGET_AVX2 static inline float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

OCM_TARGET_AVX2 static void dot_nt_avx2(int M, int N, int K, float alpha, const float *A, int lda,
                                        const float *B, int ldb, float beta, float *C, int ldc) {
    const int k_full = K & ~7;
    const __m256i k_tail = mask256(K - k_full);
    for (int i0 = 0; i0 < M; i0 += 4) {
        const int mi = OCM_MIN(4, M - i0);
        const float *a[4];
        for (int r = 0; r < 4; r++) a[r] = A + (size_t)(i0 + OCM_MIN(r, mi - 1)) * lda;
        for (int j0 = 0; j0 < N; j0 += 3) {
            const int nj = OCM_MIN(3, N - j0);
            const float *b[3];
            for (int c = 0; c < 3; c++) b[c] = B + (size_t)(j0 + OCM_MIN(c, nj - 1)) * ldb;
            __m256 acc[4][3];
            for (int r = 0; r < 4; r++) {
                for (int c = 0; c < 3; c++) acc[r][c] = _mm256_setzero_ps();
            }
            for (int k = 0; k < k_full; k += 8) {
                __m256 vb[3];
                for (int c = 0; c < 3; c++) vb[c] = _mm256_loadu_ps(b[c] + k);
                for (int r = 0; r < 4; r++) {
                    __m256 va = _mm256_loadu_ps(a[r] + k);
                    for (int c = 0; c < 3; c++) acc[r][c] = _mm256_fmadd_ps(va, vb[c], acc[r][c]);
                }
            }
            if (k_full < K) {
                __m256 vb[3];
                for (int c = 0; c < 3; c++) vb[c] = _mm256_maskload_ps(b[c] + k_full, k_tail);
                for (int r = 0; r < 4; r++) {
                    __m256 va = _mm256_maskload_ps(a[r] + k_full, k_tail);
                    for (int c = 0; c < 3; c++) acc[r][c] = _mm256_fmadd_ps(va, vb[c], acc[r][c]);
                }
            }
            for (int r = 0; r < mi; r++) {
                float *c_row = C + (size_t)(i0 + r) * ldc + j0;
                for (int c = 0; c < nj; c++) {
                    float v = alpha * hsum8(acc[r][c]);
                    c_row[c] = beta == 0.0f ? v : v + beta * c_row[c];
                }
            }
        }
    }
}

const ocm_gemm_arch ocm_gemm_avx2 = {
    .mr = K256_MR,
    .nr = K256_NR,
    .vw = 8,
    .kc = 256,
    .nc = 512,
    .kernel = kernel_avx2,
    .pack_a = pack_a_x86,
    .pack_b = pack_b_x86,
    .dot_nt = dot_nt_avx2,
};

#endif /* OCM_X86 */
