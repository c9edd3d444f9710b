// Counts lock and wait calls made by the calling thread, for the real-time-safety tests: no lock on the
// push path after warm-up.
// The test executable defines pthread_mutex_lock, pthread_mutex_trylock, pthread_rwlock_{rd,wr,tryrd,trywr}lock
// sem_wait and sem_timedwait; each forwards to glibc's (internal entry point, or the next definition) and, while counting is on for the calling thread,
// counts one. The definitions replace the names for the whole process, so calls from shared libraries (e.g.
// webrtc-audio-processing's rtc::CriticalSection) are counted too. Not counted: locks taken with futexes directly
// (Swift's Synchronization.Mutex on Linux, DispatchSemaphore), condition variables. Under a sanitizer (which intercepts these
// itself) or off glibc nothing is replaced and afe_lock_counter_available is 0.
#ifndef AFE_LOCK_COUNTER_H
#define AFE_LOCK_COUNTER_H
#include <stdint.h>

typedef struct {
    int64_t mutex_locks;      // pthread_mutex_lock
    int64_t mutex_trylocks;   // pthread_mutex_trylock
    int64_t rwlocks;          // pthread_rwlock_{rd,wr,tryrd,trywr}lock
    int64_t semaphore_waits;  // sem_wait, sem_timedwait
} afe_lock_counts;

/// 1 when locks can be counted in this build, else 0.
int afe_lock_counter_available(void);
/// Starts counting on the calling thread from zero.
void afe_lock_counter_start(void);
/// Stops counting on the calling thread and returns the counts since start.
afe_lock_counts afe_lock_counter_stop(void);
/// Starts counting allocations and locks on the calling thread (both counters above).
void afe_thread_counters_start(void);
/// Stops both on the calling thread; returns the allocations and stores every lock and wait call in `*locks`.
int64_t afe_thread_counters_stop(int64_t *locks);
#endif
