#include "afe_allocation_counter.h"
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define AFE_NO_HOOKS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AFE_NO_HOOKS 1
#endif

#ifndef AFE_NO_HOOKS
#include <errno.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static __thread int counting;
static __thread int64_t thread_count;
static atomic_int global_counting;
static atomic_llong global_count;

static inline void count_one(void) {
    if (counting) thread_count += 1;
    if (atomic_load_explicit(&global_counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&global_count, 1, memory_order_relaxed);
}

void *malloc(size_t size) { count_one(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count_one(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count_one(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count_one(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count_one(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count_one();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (p == NULL && size != 0) return ENOMEM;
    *out = p;
    return 0;
}

int afe_allocation_counter_available(void) { return 1; }
void afe_allocation_counter_start(void) { thread_count = 0; counting = 1; }
int64_t afe_allocation_counter_stop(void) { counting = 0; return thread_count; }
void afe_allocation_counter_start_global(void) {
    atomic_store(&global_count, 0);
    atomic_store(&global_counting, 1);
}
int64_t afe_allocation_counter_stop_global(void) {
    atomic_store(&global_counting, 0);
    return atomic_load(&global_count);
}
#else
int afe_allocation_counter_available(void) { return 0; }
void afe_allocation_counter_start(void) {}
int64_t afe_allocation_counter_stop(void) { return 0; }
void afe_allocation_counter_start_global(void) {}
int64_t afe_allocation_counter_stop_global(void) { return 0; }
#endif
