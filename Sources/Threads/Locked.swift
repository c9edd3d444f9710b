import Foundation

/// A value guarded by a lock, for control state off the audio path (every module's; never taken on a real-time thread).
///
/// NSLock rather than `Synchronization.Mutex`: ThreadSanitizer reports false races on a contended Mutex
/// on this platform (libraries.md), and these locks are never taken on the audio thread.
package final class Locked<Value>: @unchecked Sendable { // every access holds `lock`
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked {
    /// The queued items, leaving the queue empty (one lock).
    package func takeAll<Element>() -> [Element] where Value == [Element] {
        withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}
