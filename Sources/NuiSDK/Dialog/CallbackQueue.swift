import Foundation
import Synchronization

/// The SDK's callback thread: a serial queue that runs delegate calls one at a time, in the order they were
/// posted, never on the caller's thread and never while NeoNui holds its lock. A callback may call back into
/// NeoNui (even `nui_release`): posting never waits for the queue.
package final class CallbackQueue: @unchecked Sendable { // immutable
    private let queue = DispatchQueue(label: "NeoNui.callbacks")
    private let key = DispatchSpecificKey<Bool>()
    private let pending = Atomic<Int>(0)
    /// Most callbacks waiting before ``isFull`` holds: NeoNui then drops service results (counted in the dialog
    /// summary's `drops.eventsDropped`) so an app slower than the server cannot grow memory without limit.
    static let backlogLimit = 16_384

    package init() { queue.setSpecific(key: key, value: true) }

    /// Runs `body` on the callback thread after everything posted before. Any thread; returns at once.
    package func post(_ body: @escaping @Sendable () -> Void) {
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            body()
            pending.subtract(1, ordering: .relaxed)
        }
    }

    /// Whether ``backlogLimit`` callbacks wait. Any thread.
    package var isFull: Bool { pending.load(ordering: .relaxed) >= Self.backlogLimit }

    /// Holds back the callbacks not yet started until ``resume()`` (one resume per suspend). A callback already
    /// running finishes. Any thread.
    func suspend() { queue.suspend() }

    func resume() { queue.resume() }

    /// Whether the caller runs on the callback thread (inside a callback).
    package var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Waits until everything posted so far has run. Not from the callback thread (returns at once there).
    package func drain(timeout: TimeInterval = 5) {
        guard !isCurrent else { return }
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }
}
