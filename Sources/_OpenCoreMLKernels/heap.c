/*
 * heap.c — handing freed heap memory back to the system.
 */
#include "ocm_internal.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void ocm_trim_heap(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
