/*
 * half.c — float16 to float32, the input of an fp16 program: F16C's conversion 8 values at a time
 * where the AVX2 level (whose processors all have F16C) is in use, the bits rearranged otherwise.
 * Every float16 value, subnormals, infinities and NaN included, has an exact float32 equal.
 */
#include "ocm_internal.h"

#include <string.h>

#if OCM_X86
#include <immintrin.h>

__attribute__((target("avx2,f16c"))) static size_t half_to_float_f16c(const uint16_t *x, float *y, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(x + i));
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
    }
    return i;
}
#endif

static float half_to_float_scalar(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    uint32_t bits;
    if (exponent == 0) {
        /* Zero or subnormal: mantissa · 2⁻²⁴, exact in float32. */
        float magnitude = (float)mantissa * 0x1p-24f;
        memcpy(&bits, &magnitude, sizeof bits);
        bits |= sign;
    } else if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

void ocm_half_to_float(const uint16_t *x, float *y, size_t n) {
    size_t i = 0;
#if OCM_X86
    const int isa = ocm_kernels()->isa;
    if (isa == OCM_ISA_AVX2 || isa == OCM_ISA_AVX512) i = half_to_float_f16c(x, y, n);
#endif
    for (; i < n; i++) y[i] = half_to_float_scalar(x[i]);
}
