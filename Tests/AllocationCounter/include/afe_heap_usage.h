// The glibc heap's own figures (mallinfo2, summed over every arena), for the soaks: bytes the program holds
// in malloc'd blocks, against what the allocator keeps from the system. Resident memory that grows while the
// bytes in use stay flat is the allocator's (fragmentation, arenas), not memory the program still reaches.
#ifndef AFE_HEAP_USAGE_H
#define AFE_HEAP_USAGE_H
#include <stdint.h>

typedef struct {
    int64_t in_use;      // bytes in allocated blocks: arenas (uordblks) + mmapped chunks (hblkhd)
    int64_t arena_bytes; // bytes the arenas hold from the system, not counting mmapped chunks (arena)
    int64_t free_bytes;  // free bytes inside the arenas (fordblks)
    int64_t mmapped;     // bytes in mmapped chunks (hblkhd)
} afe_heap_usage;

/// 1 when the figures are available (glibc 2.33 or later), else 0 (then every figure is 0).
int afe_heap_usage_available(void);
/// The heap's figures now. Takes every arena's lock in turn: not for a real-time thread.
afe_heap_usage afe_heap_usage_now(void);
#endif
