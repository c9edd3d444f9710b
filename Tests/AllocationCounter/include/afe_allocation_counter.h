// Counts heap allocations made by the calling thread, for the real-time-safety tests.
// The test executable defines malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign; each
// forwards to glibc's __libc_* entry point and, while counting is on for the calling thread, counts one.
// Under a sanitizer (which replaces malloc itself) nothing is replaced and afe_allocation_counter_available is 0.
#ifndef AFE_ALLOCATION_COUNTER_H
#define AFE_ALLOCATION_COUNTER_H
#include <stdint.h>

/// 1 when allocations can be counted in this build, else 0.
int afe_allocation_counter_available(void);
/// Starts counting on the calling thread from zero.
void afe_allocation_counter_start(void);
/// Stops counting on the calling thread and returns the number of allocations since start.
int64_t afe_allocation_counter_stop(void);
/// Starts counting allocations from every thread (process-wide) from zero.
void afe_allocation_counter_start_global(void);
/// Stops process-wide counting and returns the count.
int64_t afe_allocation_counter_stop_global(void);
#endif
