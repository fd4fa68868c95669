#ifndef COMMITS_MIRROR_CMALLOC_SHIM_H
#define COMMITS_MIRROR_CMALLOC_SHIM_H

// glibc's mallopt and malloc_trim, which Swift's Glibc module does not export.

#include <malloc.h>

static inline int cmalloc_set_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}

static inline int cmalloc_trim(void) {
    return malloc_trim(0);
}

#endif
