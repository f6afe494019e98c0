/*
 * depthwise_x86.c — the depthwise plane kernel (depthwise_plane.h) compiled for AVX2+FMA and for
 * AVX-512, picked at run time like the other kernel families.
 */
#include "ocm_internal.h"

#if OCM_X86

#define TGT OCM_TARGET_AVX2
#define SFX(name) name##_avx2
#include "depthwise_plane.h"
#undef TGT
#undef SFX

#define TGT OCM_TARGET_AVX512
#define SFX(name) name##_avx512
#include "depthwise_plane.h"
#undef TGT
#undef SFX

const ocm_depthwise_ops ocm_depthwise_avx2 = {.plane = depthwise_plane_avx2};
const ocm_depthwise_ops ocm_depthwise_avx512 = {.plane = depthwise_plane_avx512};

#endif /* OCM_X86 */
