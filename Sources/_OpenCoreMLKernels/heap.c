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

long long ocm_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long long)info.uordblks;
#else
    return -1;
#endif
}
