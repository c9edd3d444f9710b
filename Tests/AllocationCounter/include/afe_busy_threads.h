// Busy threads for the tests that check what a thread still holds after it was waited for: with every core
// spinning, a thread that is still finishing after the wait is often preempted right there, so a missing join
// shows. Test tooling only.
#ifndef AFE_BUSY_THREADS_H
#define AFE_BUSY_THREADS_H

/// Starts `count` threads (at most 16) that spin until afe_busy_threads_stop. Returns how many started.
int afe_busy_threads_start(int count);
/// Stops the spinning threads and joins them.
void afe_busy_threads_stop(void);
/// Puts the calling thread in the idle scheduling class (Linux SCHED_IDLE): while busy threads spin it runs only in
/// scraps, so another thread's work usually lands between any two of its steps. 0, or -1 where there is none.
int afe_thread_run_last(void);
#endif
