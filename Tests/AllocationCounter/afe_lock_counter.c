#define _GNU_SOURCE
#include "afe_lock_counter.h"
#include "afe_allocation_counter.h"
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define AFE_NO_LOCK_HOOKS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AFE_NO_LOCK_HOOKS 1
#endif
#if !defined(__GLIBC__)
#define AFE_NO_LOCK_HOOKS 1
#endif

#ifndef AFE_NO_LOCK_HOOKS
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

// The definitions below replace the public names for the whole process (the test executable's symbols come
// first), count, and forward to the next definition (glibc's), looked up with dlsym on first use: glibc's
// internal aliases exist only as compat symbols, which cannot be linked against. dlsym itself locks with
// glibc's internal lock, not through these names.
typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*rwlock_fn)(pthread_rwlock_t *);
typedef int (*sem_fn)(sem_t *);
typedef int (*sem_timed_fn)(sem_t *, const struct timespec *);
#define NEXT(name, type)                                                     \
    static type next_##name;                                                 \
    static inline type resolve_##name(void) {                                \
        if (!next_##name) next_##name = (type)dlsym(RTLD_NEXT, #name);       \
        return next_##name;                                                  \
    }
NEXT(pthread_mutex_lock, mutex_fn)
NEXT(pthread_mutex_trylock, mutex_fn)
NEXT(pthread_rwlock_rdlock, rwlock_fn)
NEXT(pthread_rwlock_wrlock, rwlock_fn)
NEXT(pthread_rwlock_tryrdlock, rwlock_fn)
NEXT(pthread_rwlock_trywrlock, rwlock_fn)
NEXT(sem_wait, sem_fn)
NEXT(sem_timedwait, sem_timed_fn)
__attribute__((constructor)) static void resolve_all(void) {
    resolve_pthread_mutex_lock();
    resolve_pthread_mutex_trylock();
    resolve_pthread_rwlock_rdlock();
    resolve_pthread_rwlock_wrlock();
    resolve_pthread_rwlock_tryrdlock();
    resolve_pthread_rwlock_trywrlock();
    resolve_sem_wait();
    resolve_sem_timedwait();
}

static __thread int counting;
static __thread afe_lock_counts counts;

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (counting) counts.mutex_locks += 1;
    return resolve_pthread_mutex_lock()(m);
}
int pthread_mutex_trylock(pthread_mutex_t *m) {
    if (counting) counts.mutex_trylocks += 1;
    return resolve_pthread_mutex_trylock()(m);
}
int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    if (counting) counts.rwlocks += 1;
    return resolve_pthread_rwlock_rdlock()(l);
}
int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    if (counting) counts.rwlocks += 1;
    return resolve_pthread_rwlock_wrlock()(l);
}
int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) {
    if (counting) counts.rwlocks += 1;
    return resolve_pthread_rwlock_tryrdlock()(l);
}
int pthread_rwlock_trywrlock(pthread_rwlock_t *l) {
    if (counting) counts.rwlocks += 1;
    return resolve_pthread_rwlock_trywrlock()(l);
}
int sem_wait(sem_t *s) {
    if (counting) counts.semaphore_waits += 1;
    return resolve_sem_wait()(s);
}
int sem_timedwait(sem_t *s, const struct timespec *deadline) {
    if (counting) counts.semaphore_waits += 1;
    return resolve_sem_timedwait()(s, deadline);
}

int afe_lock_counter_available(void) { return 1; }
void afe_lock_counter_start(void) {
    afe_lock_counts zero = {0};
    counts = zero;
    counting = 1;
}
afe_lock_counts afe_lock_counter_stop(void) {
    counting = 0;
    return counts;
}
#else
int afe_lock_counter_available(void) { return 0; }
void afe_lock_counter_start(void) {}
afe_lock_counts afe_lock_counter_stop(void) {
    afe_lock_counts zero = {0};
    return zero;
}
#endif

void afe_thread_counters_start(void) {
    afe_allocation_counter_start();
    afe_lock_counter_start();
}
int64_t afe_thread_counters_stop(int64_t *locks) {
    afe_lock_counts counts = afe_lock_counter_stop();
    if (locks) *locks = counts.mutex_locks + counts.mutex_trylocks + counts.rwlocks + counts.semaphore_waits;
    return afe_allocation_counter_stop();
}
