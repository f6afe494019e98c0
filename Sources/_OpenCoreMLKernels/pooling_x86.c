/*
 * pooling_x86.c — AVX2 and AVX-512 plane kernels for 2×2 stride-2 max pooling. Each vector of
 * outputs comes from two input rows split into even and odd columns; ties keep the first
 * candidate in the order (0,0), (0,1), (1,0), (1,1), as the scalar kernel does.
 */
#include "ocm_internal.h"

#if OCM_X86

#include <immintrin.h>

/* MARK: - AVX-512: 16 outputs per step */

OCM_TARGET_AVX512 static void maxpool_2x2s2_avx512(const float *x, float *y, int32_t *argmax,
                                                   int H, int W, int outH, int outW) {
    (void)H;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i one = _mm512_set1_epi32(1), row = _mm512_set1_epi32(W);
    for (int oh = 0; oh < outH; oh++) {
        const float *r0 = x + (size_t)(2 * oh) * W, *r1 = r0 + W;
        for (int ow = 0; ow < outW; ow += 16) {
            int count = OCM_MIN(16, outW - ow);
            __mmask16 out_mask = (__mmask16)((1u << count) - 1);
            int in_count = 2 * count; /* inputs 2·ow ..< 2·ow + in_count */
            __mmask16 lo_mask = (__mmask16)(in_count >= 16 ? 0xFFFF : (1u << in_count) - 1);
            __mmask16 hi_mask =
                (__mmask16)(in_count <= 16 ? 0 : in_count >= 32 ? 0xFFFF : (1u << (in_count - 16)) - 1);
            const float *p0 = r0 + 2 * ow, *p1 = r1 + 2 * ow;
            __m512 a0 = _mm512_maskz_loadu_ps(lo_mask, p0), a1 = _mm512_maskz_loadu_ps(hi_mask, p0 + 16);
            __m512 b0 = _mm512_maskz_loadu_ps(lo_mask, p1), b1 = _mm512_maskz_loadu_ps(hi_mask, p1 + 16);
            __m512 v00 = _mm512_permutex2var_ps(a0, even, a1);
            __m512 v01 = _mm512_permutex2var_ps(a0, odd, a1);
            __m512 v10 = _mm512_permutex2var_ps(b0, even, b1);
            __m512 v11 = _mm512_permutex2var_ps(b0, odd, b1);
            __m512 best = v00;
            __m512i index = _mm512_add_epi32(_mm512_set1_epi32(2 * oh * W + 2 * ow), even);
            __mmask16 m = _mm512_cmp_ps_mask(v01, best, _CMP_GT_OQ);
            best = _mm512_mask_blend_ps(m, best, v01);
            __m512i idx = _mm512_mask_blend_epi32(m, index, _mm512_add_epi32(index, one));
            m = _mm512_cmp_ps_mask(v10, best, _CMP_GT_OQ);
            best = _mm512_mask_blend_ps(m, best, v10);
            idx = _mm512_mask_blend_epi32(m, idx, _mm512_add_epi32(index, row));
            m = _mm512_cmp_ps_mask(v11, best, _CMP_GT_OQ);
            best = _mm512_mask_blend_ps(m, best, v11);
            idx = _mm512_mask_blend_epi32(m, idx, _mm512_add_epi32(index, _mm512_add_epi32(row, one)));
            /* A row of one block that is not the last may spill into the next output row,
             * which the next store overwrites (masked stores are slow on some CPUs). */
            if (outW <= 16 && oh + 1 < outH && 16 <= 2 * outW) out_mask = 0xFFFF;
            _mm512_mask_storeu_ps(y + (size_t)oh * outW + ow, out_mask, best);
            if (argmax != NULL) {
                _mm512_mask_storeu_epi32(argmax + (size_t)oh * outW + ow, out_mask, idx);
            }
        }
    }
}

/* Each output row's gradients go to two input rows: a lane's dy to the even or odd column of
 * the top or bottom row, by where its winner lies; the lanes are interleaved back into columns. */
OCM_TARGET_AVX512 static void maxpool_2x2s2_backward_avx512(const float *dy, const float *gate,
                                                            const int32_t *argmax, float *dx,
                                                            int H, int W, int outH, int outW) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i low = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i high = _mm512_add_epi32(low, _mm512_set1_epi32(8));
    const __m512i one = _mm512_set1_epi32(1), row = _mm512_set1_epi32(W);
    const __m512i row_one = _mm512_add_epi32(row, one);
    const __m512 zero = _mm512_setzero_ps();
    for (int oh = 0; oh < outH; oh++) {
        float *r0 = dx + (size_t)(2 * oh) * W, *r1 = r0 + W;
        for (int ow = 0; ow < outW; ow += 16) {
            int count = OCM_MIN(16, outW - ow);
            __mmask16 m = (__mmask16)((1u << count) - 1);
            size_t o = (size_t)oh * outW + ow;
            __m512 g = _mm512_maskz_loadu_ps(m, dy + o);
            if (gate != NULL) {
                __mmask16 open = _mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(m, gate + o), zero, _CMP_GT_OQ);
                g = _mm512_maskz_mov_ps(open, g);
            }
            __m512i base = _mm512_add_epi32(_mm512_set1_epi32(2 * oh * W + 2 * ow), even);
            __m512i offset = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, argmax + o), base);
            __m512 e0 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(offset, _mm512_setzero_si512()), g);
            __m512 o0 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(offset, one), g);
            __m512 e1 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(offset, row), g);
            __m512 o1 = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(offset, row_one), g);
            int in_count = 2 * count;
            __mmask16 lo_mask = (__mmask16)(in_count >= 16 ? 0xFFFF : (1u << in_count) - 1);
            __mmask16 hi_mask =
                (__mmask16)(in_count <= 16 ? 0 : in_count >= 32 ? 0xFFFF : (1u << (in_count - 16)) - 1);
            /* Lanes past the outputs hold zeros. When a row is one block and this is not the
             * last pair of rows, whole vectors may spill them into the next row, which the
             * stores after overwrite (masked stores are slow on some CPUs). */
            int stored = in_count > 16 ? 32 : 16;
            if (outW <= 16 && oh + 1 < outH && stored <= 2 * W) {
                lo_mask = 0xFFFF;
                if (hi_mask) hi_mask = 0xFFFF;
            }
            _mm512_mask_storeu_ps(r0 + 2 * ow, lo_mask, _mm512_permutex2var_ps(e0, low, o0));
            if (hi_mask) _mm512_mask_storeu_ps(r0 + 2 * ow + 16, hi_mask, _mm512_permutex2var_ps(e0, high, o0));
            _mm512_mask_storeu_ps(r1 + 2 * ow, lo_mask, _mm512_permutex2var_ps(e1, low, o1));
            if (hi_mask) _mm512_mask_storeu_ps(r1 + 2 * ow + 16, hi_mask, _mm512_permutex2var_ps(e1, high, o1));
        }
        for (int w = 2 * outW; w < W; w++) r0[w] = r1[w] = 0.0f;
    }
    for (int h = 2 * outH; h < H; h++) {
        for (int w = 0; w < W; w++) dx[(size_t)h * W + w] = 0.0f;
    }
}

const ocm_pooling_ops ocm_pooling_avx512 = {
    .maxpool_2x2s2 = maxpool_2x2s2_avx512,
    .maxpool_2x2s2_backward = maxpool_2x2s2_backward_avx512,
};

/* MARK: - AVX2: 8 outputs per step */

/* Even and odd columns of the 16 floats at p. */
OCM_TARGET_AVX2 static inline void split_even_odd(const float *p, __m256 *even, __m256 *odd) {
    __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
    __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    __m256 o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    *even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
    *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
}

OCM_TARGET_AVX2 static inline void take_if_greater(__m256 v, __m256i v_index, __m256 *best,
                                                   __m256i *index) {
    __m256 m = _mm256_cmp_ps(v, *best, _CMP_GT_OQ);
    *best = _mm256_blendv_ps(*best, v, m);
    *index = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(*index), _mm256_castsi256_ps(v_index), m));
}

OCM_TARGET_AVX2 static void maxpool_2x2s2_avx2(const float *x, float *y, int32_t *argmax, int H,
                                               int W, int outH, int outW) {
    const __m256i lanes2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i one = _mm256_set1_epi32(1), row = _mm256_set1_epi32(W);
    int vector_end = outW & ~7;
    for (int oh = 0; oh < outH; oh++) {
        const float *r0 = x + (size_t)(2 * oh) * W, *r1 = r0 + W;
        for (int ow = 0; ow < vector_end; ow += 8) {
            __m256 v00, v01, v10, v11;
            split_even_odd(r0 + 2 * ow, &v00, &v01);
            split_even_odd(r1 + 2 * ow, &v10, &v11);
            __m256i base = _mm256_add_epi32(_mm256_set1_epi32(2 * oh * W + 2 * ow), lanes2);
            __m256 best = v00;
            __m256i idx = base;
            take_if_greater(v01, _mm256_add_epi32(base, one), &best, &idx);
            take_if_greater(v10, _mm256_add_epi32(base, row), &best, &idx);
            take_if_greater(v11, _mm256_add_epi32(base, _mm256_add_epi32(row, one)), &best, &idx);
            _mm256_storeu_ps(y + (size_t)oh * outW + ow, best);
            if (argmax != NULL) {
                _mm256_storeu_si256((__m256i *)(argmax + (size_t)oh * outW + ow), idx);
            }
        }
    }
    if (vector_end < outW) {
        /* The last outW − vector_end columns of every output row, one at a time. */
        for (int oh = 0; oh < outH; oh++) {
            for (int ow = vector_end; ow < outW; ow++) {
                const float *r0 = x + (size_t)(2 * oh) * W + 2 * ow, *r1 = r0 + W;
                float best = r0[0];
                int32_t index = 2 * oh * W + 2 * ow;
                if (r0[1] > best) { best = r0[1]; index = 2 * oh * W + 2 * ow + 1; }
                if (r1[0] > best) { best = r1[0]; index = (2 * oh + 1) * W + 2 * ow; }
                if (r1[1] > best) { best = r1[1]; index = (2 * oh + 1) * W + 2 * ow + 1; }
                y[(size_t)oh * outW + ow] = best;
                if (argmax != NULL) argmax[(size_t)oh * outW + ow] = index;
            }
        }
    }
    (void)H;
}

const ocm_pooling_ops ocm_pooling_avx2 = {
    .maxpool_2x2s2 = maxpool_2x2s2_avx2,
    .maxpool_2x2s2_backward = ocm_maxpool_2x2s2_backward_scalar,
};

#endif /* OCM_X86 */
