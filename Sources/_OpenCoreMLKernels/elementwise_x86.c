/*
 * elementwise_x86.c — AVX2+FMA and AVX-512 elementwise ops: elementwise_simd.h instantiated
 * once per instruction set.
 */
#include "ocm_internal.h"

#if OCM_X86

#include <immintrin.h>
#include <math.h>
#include <string.h>

/* MARK: - AVX2 + FMA (8 lanes) */

OCM_TARGET_AVX2 static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

OCM_TARGET_AVX2 static inline float hmax256(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

OCM_TARGET_AVX2 static inline __m256 pow2_256(__m256 n) {
    __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
}

/* Lanes [0, n) of 8 (n in 0...8). */
OCM_TARGET_AVX2 static inline __m256i lanes256(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Whether copy_rows may finish every row but the last with a whole vector of w lanes: the
 * destination rows touch (ldd == cols), so the lanes past a row land in the next row before
 * that is written, and they read no further than the next source row's run. Masked stores are
 * slow on some CPUs (AMD's), and short rows (im2col of small images) are mostly tail. */
static inline bool tails_spill_into_next_row(size_t ldd, size_t lds, int cols, int w) {
    int spill = w - (cols % w);
    return spill < w && ldd == (size_t)cols && (size_t)spill <= lds && spill <= cols;
}

OCM_TARGET_AVX2 static void copy_rows_avx2(float *d, size_t ldd, const float *s, size_t lds,
                                           int rows, int cols) {
    const int full = cols & ~7;
    const __m256i tail = lanes256(cols - full);
    int r = 0;
    if (tails_spill_into_next_row(ldd, lds, cols, 8)) {
        for (; r + 1 < rows; r++, d += ldd, s += lds) {
            for (int c = 0; c <= full; c += 8) _mm256_storeu_ps(d + c, _mm256_loadu_ps(s + c));
        }
    }
    for (; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < full; c += 8) _mm256_storeu_ps(d + c, _mm256_loadu_ps(s + c));
        if (full < cols) _mm256_maskstore_ps(d + full, tail, _mm256_maskload_ps(s + full, tail));
    }
}

/* d[0..<n] += s[0..<n] for n < 8, without masked loads: those cannot take their data from
 * a store still in flight, and col2im re-reads rows it has just written. */
OCM_TARGET_AVX2 static inline void add_short(float *d, const float *s, int n) {
    if (n >= 4) {
        _mm_storeu_ps(d, _mm_add_ps(_mm_loadu_ps(d), _mm_loadu_ps(s)));
        d += 4, s += 4, n -= 4;
    }
    for (int c = 0; c < n; c++) d[c] += s[c];
}

OCM_TARGET_AVX2 static void add_rows_avx2(float *d, size_t ldd, const float *s, size_t lds,
                                          int rows, int cols) {
    const int full = cols & ~7;
    for (int r = 0; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < full; c += 8) {
            _mm256_storeu_ps(d + c, _mm256_add_ps(_mm256_loadu_ps(d + c), _mm256_loadu_ps(s + c)));
        }
        add_short(d + full, s + full, cols - full);
    }
}

#define VT __m256
#define W 8
#define TGT OCM_TARGET_AVX2
#define SFX(name) name##_avx2
#define V_LOAD(p) _mm256_loadu_ps(p)
#define V_STORE(p, v) _mm256_storeu_ps((p), (v))
#define V_SET1(s) _mm256_set1_ps(s)
#define V_ADD(a, b) _mm256_add_ps((a), (b))
#define V_SUB(a, b) _mm256_sub_ps((a), (b))
#define V_MUL(a, b) _mm256_mul_ps((a), (b))
#define V_DIV(a, b) _mm256_div_ps((a), (b))
#define V_MAX(a, b) _mm256_max_ps((a), (b))
#define V_MIN(a, b) _mm256_min_ps((a), (b))
#define V_FMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define V_SQRT(v) _mm256_sqrt_ps(v)
#define V_ABS(v) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (v))
#define V_ROUND(v) _mm256_round_ps((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_FLOOR(v) _mm256_round_ps((v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define V_CEIL(v) _mm256_round_ps((v), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define V_POW2(n) pow2_256(n)
#define V_SELECT_GT(x, t, a, b) _mm256_blendv_ps((b), (a), _mm256_cmp_ps((x), (t), _CMP_GT_OQ))
#define V_HSUM(v) hsum256(v)
#define V_HMAX(v) hmax256(v)

#include "elementwise_simd.h"

const ocm_elementwise_ops ocm_elementwise_avx2 = SIMD_ELEMENTWISE_TABLE;

#undef VT
#undef W
#undef TGT
#undef SFX
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_ADD
#undef V_SUB
#undef V_MUL
#undef V_DIV
#undef V_MAX
#undef V_MIN
#undef V_FMA
#undef V_SQRT
#undef V_ABS
#undef V_ROUND
#undef V_FLOOR
#undef V_CEIL
#undef V_POW2
#undef V_SELECT_GT
#undef V_HSUM
#undef V_HMAX
#undef SIMD_MAP1
#undef SIMD_MAP2
#undef SIMD_ELEMENTWISE_TABLE

/* MARK: - AVX-512 (16 lanes) */

OCM_TARGET_AVX512 static inline __m512 pow2_512(__m512 n) {
    __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
}

OCM_TARGET_AVX512 static inline __m512 abs512(__m512 v) {
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)));
}

OCM_TARGET_AVX512 static void copy_rows_avx512(float *d, size_t ldd, const float *s, size_t lds,
                                               int rows, int cols) {
    const int full = cols & ~15;
    const __mmask16 tail = (__mmask16)((1u << (cols - full)) - 1);
    int r = 0;
    if (tails_spill_into_next_row(ldd, lds, cols, 16)) {
        for (; r + 1 < rows; r++, d += ldd, s += lds) {
            for (int c = 0; c <= full; c += 16) _mm512_storeu_ps(d + c, _mm512_loadu_ps(s + c));
        }
    }
    for (; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < full; c += 16) _mm512_storeu_ps(d + c, _mm512_loadu_ps(s + c));
        if (tail) _mm512_mask_storeu_ps(d + full, tail, _mm512_maskz_loadu_ps(tail, s + full));
    }
}

OCM_TARGET_AVX512 static void add_rows_avx512(float *d, size_t ldd, const float *s, size_t lds,
                                              int rows, int cols) {
    const int full = cols & ~15;
    const int half = (cols - full) & 8; /* one more block of 8 */
    for (int r = 0; r < rows; r++, d += ldd, s += lds) {
        for (int c = 0; c < full; c += 16) {
            _mm512_storeu_ps(d + c, _mm512_add_ps(_mm512_loadu_ps(d + c), _mm512_loadu_ps(s + c)));
        }
        if (half) {
            _mm256_storeu_ps(d + full,
                             _mm256_add_ps(_mm256_loadu_ps(d + full), _mm256_loadu_ps(s + full)));
        }
        add_short(d + full + half, s + full + half, cols - full - half);
    }
}

#define VT __m512
#define W 16
#define TGT OCM_TARGET_AVX512
#define SFX(name) name##_avx512
#define V_LOAD(p) _mm512_loadu_ps(p)
#define V_STORE(p, v) _mm512_storeu_ps((p), (v))
#define V_SET1(s) _mm512_set1_ps(s)
#define V_ADD(a, b) _mm512_add_ps((a), (b))
#define V_SUB(a, b) _mm512_sub_ps((a), (b))
#define V_MUL(a, b) _mm512_mul_ps((a), (b))
#define V_DIV(a, b) _mm512_div_ps((a), (b))
#define V_MAX(a, b) _mm512_max_ps((a), (b))
#define V_MIN(a, b) _mm512_min_ps((a), (b))
#define V_FMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define V_SQRT(v) _mm512_sqrt_ps(v)
#define V_ABS(v) abs512(v)
#define V_ROUND(v) _mm512_roundscale_ps((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_FLOOR(v) _mm512_roundscale_ps((v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define V_CEIL(v) _mm512_roundscale_ps((v), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
#define V_POW2(n) pow2_512(n)
#define V_SELECT_GT(x, t, a, b)                                                              \
    _mm512_mask_blend_ps(_mm512_cmp_ps_mask((x), (t), _CMP_GT_OQ), (b), (a))
#define V_HSUM(v) _mm512_reduce_add_ps(v)
#define V_HMAX(v) _mm512_reduce_max_ps(v)

#include "elementwise_simd.h"

const ocm_elementwise_ops ocm_elementwise_avx512 = SIMD_ELEMENTWISE_TABLE;

#endif /* OCM_X86 */
