#define _GNU_SOURCE
#include "afe_busy_threads.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int spinning;
static pthread_t threads[16];
static int started;

static void *spin(void *unused) {
    (void)unused;
    while (atomic_load_explicit(&spinning, memory_order_relaxed)) {}
    return 0;
}

int afe_busy_threads_start(int count) {
    if (count > 16) count = 16;
    atomic_store(&spinning, 1);
    started = 0;
    for (int k = 0; k < count; k++) {
        if (pthread_create(&threads[started], 0, spin, 0) == 0) started++;
    }
    return started;
}

void afe_busy_threads_stop(void) {
    atomic_store(&spinning, 0);
    for (int k = 0; k < started; k++) pthread_join(threads[k], 0);
    started = 0;
}

int afe_thread_run_last(void) {
#ifdef SCHED_IDLE
    struct sched_param parameter = {0};
    return pthread_setschedparam(pthread_self(), SCHED_IDLE, &parameter) == 0 ? 0 : -1;
#else
    return -1;
#endif
}
