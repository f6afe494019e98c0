/*
 * distance_x86.c — AVX2+FMA and AVX-512 tiles of squared Euclidean distances (see distance.c):
 * four query rows against a few sample rows at once, so each loaded vector is used several times.
 */
#include "ocm_internal.h"

#if OCM_X86

#include <immintrin.h>

/* MARK: - AVX-512 (16 lanes): 4 queries × 4 samples */

OCM_TARGET_AVX512 void ocm_distance_tile_avx512(const float *q, int nq, int ldq, const float *s,
                                                int ns, int lds, int D, float *out, int ldo) {
    const int full = D & ~15;
    const __mmask16 tail = (__mmask16)((1u << (D - full)) - 1u);
    for (int i0 = 0; i0 < nq; i0 += 4) {
        const int mi = OCM_MIN(4, nq - i0);
        const float *qa[4];
        for (int i = 0; i < 4; i++) qa[i] = q + (size_t)(i0 + OCM_MIN(i, mi - 1)) * ldq;
        for (int j0 = 0; j0 < ns; j0 += 4) {
            const int mj = OCM_MIN(4, ns - j0);
            const float *sb[4];
            for (int j = 0; j < 4; j++) sb[j] = s + (size_t)(j0 + OCM_MIN(j, mj - 1)) * lds;
            __m512 acc[4][4];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) acc[i][j] = _mm512_setzero_ps();
            for (int d = 0; d <= full; d += 16) {
                __m512 vq[4], vs[4];
                if (d < full) {
                    for (int i = 0; i < 4; i++) vq[i] = _mm512_loadu_ps(qa[i] + d);
                    for (int j = 0; j < 4; j++) vs[j] = _mm512_loadu_ps(sb[j] + d);
                } else {
                    if (tail == 0) break;
                    for (int i = 0; i < 4; i++) vq[i] = _mm512_maskz_loadu_ps(tail, qa[i] + d);
                    for (int j = 0; j < 4; j++) vs[j] = _mm512_maskz_loadu_ps(tail, sb[j] + d);
                }
                for (int i = 0; i < 4; i++) {
                    for (int j = 0; j < 4; j++) {
                        __m512 t = _mm512_sub_ps(vq[i], vs[j]);
                        acc[i][j] = _mm512_fmadd_ps(t, t, acc[i][j]);
                    }
                }
            }
            for (int i = 0; i < mi; i++) {
                for (int j = 0; j < mj; j++) {
                    out[(size_t)(i0 + i) * ldo + j0 + j] = _mm512_reduce_add_ps(acc[i][j]);
                }
            }
        }
    }
}

/* MARK: - AVX2 + FMA (8 lanes): 4 queries × 2 samples */

OCM_TARGET_AVX2 static inline float hsum8(__m256 v) {
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

OCM_TARGET_AVX2 void ocm_distance_tile_avx2(const float *q, int nq, int ldq, const float *s,
                                            int ns, int lds, int D, float *out, int ldo) {
    const int full = D & ~7;
    const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(D - full),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int i0 = 0; i0 < nq; i0 += 4) {
        const int mi = OCM_MIN(4, nq - i0);
        const float *qa[4];
        for (int i = 0; i < 4; i++) qa[i] = q + (size_t)(i0 + OCM_MIN(i, mi - 1)) * ldq;
        for (int j0 = 0; j0 < ns; j0 += 2) {
            const int mj = OCM_MIN(2, ns - j0);
            const float *sb[2];
            for (int j = 0; j < 2; j++) sb[j] = s + (size_t)(j0 + OCM_MIN(j, mj - 1)) * lds;
            __m256 acc[4][2];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 2; j++) acc[i][j] = _mm256_setzero_ps();
            for (int d = 0; d <= full; d += 8) {
                __m256 vq[4], vs[2];
                if (d < full) {
                    for (int i = 0; i < 4; i++) vq[i] = _mm256_loadu_ps(qa[i] + d);
                    for (int j = 0; j < 2; j++) vs[j] = _mm256_loadu_ps(sb[j] + d);
                } else {
                    if (D == full) break;
                    for (int i = 0; i < 4; i++) vq[i] = _mm256_maskload_ps(qa[i] + d, tail);
                    for (int j = 0; j < 2; j++) vs[j] = _mm256_maskload_ps(sb[j] + d, tail);
                }
                for (int i = 0; i < 4; i++) {
                    for (int j = 0; j < 2; j++) {
                        __m256 t = _mm256_sub_ps(vq[i], vs[j]);
                        acc[i][j] = _mm256_fmadd_ps(t, t, acc[i][j]);
                    }
                }
            }
            for (int i = 0; i < mi; i++) {
                for (int j = 0; j < mj; j++) out[(size_t)(i0 + i) * ldo + j0 + j] = hsum8(acc[i][j]);
            }
        }
    }
}

#endif
