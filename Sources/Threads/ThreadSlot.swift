import Synchronization

/// The one thread an owner starts and later stops (a player's sink thread, a pull thread, a file writer): start and
/// stop take the slot under one lock, so a stop that races a start joins the thread that start made, and only one
/// caller joins it. Not real-time safe.
package final class ThreadSlot: Sendable {
    private struct State {
        var thread: JoinableThread?
        var closed = false
    }

    /// A `Locked` (NSLock), not a `Mutex`: ThreadSanitizer reports false races on a contended `Mutex` here
    /// (libraries.md), and a stop racing a start contends it.
    private let state = Locked(State())
    /// The key (``currentThreadKey()``) of the thread while its body runs, else 0.
    private let running = Atomic<UInt>(0)

    package init() {}

    /// Starts `body` on a new thread named `name` unless the slot holds one already or was closed. Any thread.
    /// - Returns: false when a thread is held already, the slot was closed, or the system refused a thread (then
    ///   nothing is held).
    @discardableResult
    package func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.thread == nil, !state.closed else { return false }
            state.thread = JoinableThread(name: name) { [self] in
                let key = currentThreadKey()
                running.store(key, ordering: .releasing)
                body()
                _ = running.compareExchange(expected: key, desired: 0, ordering: .acquiringAndReleasing)
            }
            return state.thread != nil
        }
    }

    /// Whether the caller is the slot's thread, inside its body. Any thread.
    package var isCurrent: Bool { running.load(ordering: .acquiring) == currentThreadKey() }

    /// Takes the thread out of the slot and waits until it has returned, everything its body captured released;
    /// from the thread itself it detaches the thread instead. Tell the body to return first. Any thread.
    /// - Parameter closing: true: no later ``start(name:_:)`` starts a thread (an owner stopped before it started
    ///   stays stopped); false: a later start may start another.
    /// - Returns: whether a thread was held (false: none was started, or another call took it).
    @discardableResult
    package func join(closing: Bool = false) -> Bool {
        let taken = state.withLock { state in
            defer {
                state.thread = nil
                state.closed = state.closed || closing
            }
            return state.thread
        }
        taken?.join()
        return taken != nil
    }
}
