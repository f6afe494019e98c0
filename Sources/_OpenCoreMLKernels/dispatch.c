/*
 * dispatch.c — picks the kernels of the best instruction set the CPU has, once, and lets tests
 * switch to a lower one.
 */
#include "ocm_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const ocm_kernel_table table_scalar = {
    OCM_ISA_SCALAR, "scalar", &ocm_gemm_scalar, &ocm_elementwise_scalar, &ocm_pooling_scalar, &ocm_depthwise_scalar,
};
#if OCM_X86
static const ocm_kernel_table table_avx2 = {
    OCM_ISA_AVX2, "avx2", &ocm_gemm_avx2, &ocm_elementwise_avx2, &ocm_pooling_avx2, &ocm_depthwise_avx2,
};
static const ocm_kernel_table table_avx512 = {
    OCM_ISA_AVX512, "avx512", &ocm_gemm_avx512, &ocm_elementwise_avx512, &ocm_pooling_avx512, &ocm_depthwise_avx512,
};
#endif
#if OCM_ARM
static const ocm_kernel_table table_neon = {
    OCM_ISA_NEON, "neon", &ocm_gemm_neon, &ocm_elementwise_scalar, &ocm_pooling_scalar, &ocm_depthwise_scalar,
};
#endif

static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;
static _Atomic(const ocm_kernel_table *) current_table;

static const ocm_kernel_table *table_for(int isa) {
    switch (isa) {
#if OCM_X86
    case OCM_ISA_AVX2: return &table_avx2;
    case OCM_ISA_AVX512: return &table_avx512;
#endif
#if OCM_ARM
    case OCM_ISA_NEON: return &table_neon;
#endif
    default: return &table_scalar;
    }
}

bool ocm_isa_supported(int isa) {
    switch (isa) {
    case OCM_ISA_SCALAR: return true;
#if OCM_X86
    case OCM_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case OCM_ISA_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
#endif
#if OCM_ARM
    case OCM_ISA_NEON: return true;
#endif
    default: return false;
    }
}

static int best_isa(void) {
    static const int order[] = {OCM_ISA_AVX512, OCM_ISA_AVX2, OCM_ISA_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (ocm_isa_supported(order[i])) return order[i];
    }
    return OCM_ISA_SCALAR;
}

static int isa_from_name(const char *name) {
    static const char *const names[] = {"scalar", "avx2", "avx512", "neon"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) == 0) return i;
    }
    return -1;
}

static void dispatch_init(void) {
    int isa = best_isa();
    const char *forced = getenv("OPENCOREML_ISA");
    if (forced != NULL) {
        int wanted = isa_from_name(forced);
        if (wanted >= 0 && ocm_isa_supported(wanted)) isa = wanted;
    }
    atomic_store_explicit(&current_table, table_for(isa), memory_order_release);
}

const ocm_kernel_table *ocm_kernels_for(int isa) { return table_for(isa); }

const ocm_kernel_table *ocm_kernels(void) {
    const ocm_kernel_table *t = atomic_load_explicit(&current_table, memory_order_acquire);
    if (t != NULL) return t;
    pthread_once(&dispatch_once, dispatch_init);
    return atomic_load_explicit(&current_table, memory_order_acquire);
}

int ocm_isa(void) { return ocm_kernels()->isa; }

const char *ocm_isa_name(void) { return ocm_kernels()->name; }

bool ocm_set_isa(int isa) {
    if (!ocm_isa_supported(isa)) return false;
    (void)ocm_kernels();
    atomic_store_explicit(&current_table, table_for(isa), memory_order_release);
    return true;
}
