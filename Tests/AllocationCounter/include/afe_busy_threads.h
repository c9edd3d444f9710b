// Busy threads for the tests that check what a thread still holds after it was waited for: with every core
// spinning, a thread that is still finishing after the wait is often preempted right there, so a missing join
// shows. Test tooling only.
#ifndef AFE_BUSY_THREADS_H
#define AFE_BUSY_THREADS_H

/// Starts `count` threads (at most 16) that spin until afe_busy_threads_stop. Returns how many started.
int afe_busy_threads_start(int count);
/// Stops the spinning threads and joins them.
void afe_busy_threads_stop(void);
#endif
