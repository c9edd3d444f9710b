import CAudioShims

/// Tells ThreadSanitizer about a lock it cannot see. `Synchronization.Mutex` on Linux takes a contended lock in
/// the Swift runtime's uninstrumented slow path (a priority-inheriting futex), so the sanitizer misses that
/// acquire and reports the accesses the mutex guards as data races when two threads meet at the lock. Call
/// ``acquire(_:)`` first thing inside `withLock` and ``release(_:)`` last (`defer`), with one object per mutex
/// (its owner). Outside a `-sanitize=thread` build both are a test of a null weak symbol. Any thread; real-time
/// safe (no allocation, no lock, no Foundation).
package enum SanitizerSync {
    @inline(__always)
    package static func acquire(_ owner: AnyObject) { afe_tsan_acquire(Unmanaged.passUnretained(owner).toOpaque()) }

    @inline(__always)
    package static func release(_ owner: AnyObject) { afe_tsan_release(Unmanaged.passUnretained(owner).toOpaque()) }
}

extension SanitizerSync {
    /// Runs `body` between ``acquire(_:)`` and ``release(_:)`` of `owner`: call it first thing inside a
    /// `Mutex.withLock` whose guarded state threads meet at (`mutex.withLock { v in SanitizerSync.held(by: self)
    /// { ... } }`). Any thread; real-time safe.
    @inline(__always)
    package static func held<Result>(by owner: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        acquire(owner)
        defer { release(owner) }
        return try body()
    }
}
