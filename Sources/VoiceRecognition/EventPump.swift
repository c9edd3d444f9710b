import AudioFrontEnd
import Dispatch
import Foundation
import SpeechStreaming
import Synchronization

/// The session's own event thread: a queue of messages from the front end's drain thread, the streaming
/// client's delivery queue and the control calls, handled one at a time, in arrival order, by `handle`.
///
/// No poll: the thread sleeps until a message, a ``wake()`` or the deadline its handler returned
/// (``Outcome/wake(at:)``: the mic-silence watchdog's, a ``BoundedWait``'s), whichever comes first; with no
/// deadline it sleeps until the next message. `post` never blocks on the handler: the lock guards only the
/// queue, and the handler runs without it, so the handler may post (and call into the session) freely.
final class EventPump: @unchecked Sendable { // the queue and flags are in `state`
    enum Message: Sendable {
        case frontEnd(FrontEndEvent)
        case speech(SpeechEvent)
        case startRequested(at: Duration)
        case finishRequested(at: Duration)
        case forcedCancel
    }

    /// What the handler asks for after a batch.
    enum Outcome: Sendable, Equatable {
        /// The session has ended: the thread ends too.
        case ended
        /// Handle the next message, or run again (with an empty batch) at `at` if it comes first; nil: no deadline.
        case wake(at: ContinuousClock.Instant?)
    }

    private struct State {
        var queue: [Message] = []
        var stopping = false
        var started = false
        var threadId: pthread_t?
        /// The thread waits on `wakeUp` (a post or wake must signal it).
        var sleeping = false
        /// A ``wake()`` came while the thread was not sleeping: it runs a round before it sleeps again.
        var wakeRequested = false
    }

    private let state = Mutex(State())
    /// Wakes the sleeping thread (signalled only when it sleeps, so it does not pile up one count per post).
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Signalled when the thread has returned (``waitUntilEnded(timeout:)``).
    private let ended = DispatchSemaphore(value: 0)

    init() {}

    /// Starts the thread; `handle` receives each batch of messages (empty when it runs for its deadline or a
    /// ``wake()``) and returns what to wait for next.
    func start(name: String, handle: @escaping @Sendable ([Message]) -> Outcome) {
        state.withLock { $0.started = true }
        let thread = Thread { [self] in
            defer { ended.signal() } // after `handle` and what it held are gone
            state.withLock { $0.threadId = pthread_self() }
            var deadline: ContinuousClock.Instant?
            while true {
                let (batch, stop) = next(before: deadline)
                if stop { break }
                guard case .wake(let at) = handle(batch) else { break }
                deadline = at
            }
            self.stop()
        }
        thread.name = name
        thread.start()
    }

    /// The next batch: what is queued, waiting for it (or a wake, or `deadline`) when nothing is. Pump thread.
    private func next(before deadline: ContinuousClock.Instant?) -> (batch: [Message], stop: Bool) {
        let mustWait = state.withLock { state -> Bool in
            let idle = state.queue.isEmpty && !state.stopping && !state.wakeRequested
            state.wakeRequested = false
            state.sleeping = idle
            return idle
        }
        if mustWait {
            if let deadline {
                let remaining = deadline - .now
                if remaining > .zero { _ = wakeUp.wait(timeout: .now() + Self.dispatchInterval(remaining)) }
            } else {
                wakeUp.wait()
            }
        }
        return state.withLock { state in
            state.sleeping = false
            state.wakeRequested = false
            defer { state.queue.removeAll(keepingCapacity: true) }
            return (state.queue, state.stopping)
        }
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, nanoseconds.partialValue < Int64(Int.max / 2) else { return .seconds(86_400) }
        return .nanoseconds(Int(nanoseconds.partialValue + attoseconds / 1_000_000_000) + 1)
    }

    /// Signals the thread if it sleeps; called with the flags updated. Any thread.
    private func signalIfSleeping(_ sleeping: Bool) {
        if sleeping { wakeUp.signal() }
    }

    /// Queues a message. Any thread; never blocks for long (allocates: not for audio threads).
    func post(_ message: Message) {
        let sleeping = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append(message)
            defer { state.sleeping = false }
            return state.sleeping
        }
        signalIfSleeping(sleeping)
    }

    /// Makes the thread run its handler again soon (with an empty batch) even without a message: something a
    /// deadline depends on changed (a finish asked, a test clock moved, audio taken after the stop). Any thread.
    func wake() {
        let sleeping = state.withLock { state -> Bool in
            defer { state.sleeping = false }
            if !state.sleeping { state.wakeRequested = true }
            return state.sleeping
        }
        signalIfSleeping(sleeping)
    }

    /// Messages queued and not yet taken by the thread. Any thread.
    var backlog: Int { state.withLock { $0.queue.count } }

    /// Ends the thread after the batch it is handling; messages not yet handled are dropped. Any thread.
    func stop() {
        let sleeping = state.withLock { state -> Bool in
            state.stopping = true
            defer { state.sleeping = false }
            return state.sleeping
        }
        signalIfSleeping(sleeping)
    }

    /// Waits until the thread has returned (it returns after the session's last event or ``stop()``), at most
    /// `timeout` seconds; returns at once on the thread itself or when it never started. Returns false on timeout.
    /// Any other thread.
    @discardableResult
    func waitUntilEnded(timeout: Double) -> Bool {
        guard state.withLock({ $0.started }), !isPumpThread else { return true }
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal() // for any other waiter
        return true
    }

    /// Whether the caller is the pump thread.
    var isPumpThread: Bool {
        state.withLock { $0.threadId.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
}
