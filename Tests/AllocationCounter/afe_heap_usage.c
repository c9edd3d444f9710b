#include "afe_heap_usage.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

int afe_heap_usage_available(void) { return 1; }

afe_heap_usage afe_heap_usage_now(void) {
    struct mallinfo2 info = mallinfo2();
    afe_heap_usage usage = {
        .in_use = (int64_t)(info.uordblks + info.hblkhd),
        .arena_bytes = (int64_t)info.arena,
        .free_bytes = (int64_t)info.fordblks,
        .mmapped = (int64_t)info.hblkhd,
    };
    return usage;
}
#else
int afe_heap_usage_available(void) { return 0; }
afe_heap_usage afe_heap_usage_now(void) { afe_heap_usage usage = {0, 0, 0, 0}; return usage; }
#endif
