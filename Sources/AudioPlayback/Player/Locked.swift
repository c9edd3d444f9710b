import Foundation

/// A value behind an `NSLock`, for state the worker and control threads share (never the render thread).
/// `NSLock` rather than `Synchronization.Mutex`: ThreadSanitizer reports a false race on a contended `Mutex`
/// here (docs/libraries.md), and these locks are off the audio path.
final class Locked<Value>: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
