import AudioFrontEnd
import Foundation
import SpeechStreaming
import Threads

/// The session's own event thread: a queue of messages from the front end's drain thread, the streaming
/// client's delivery queue and the control calls, handled one at a time, in arrival order, by `handle`.
/// Wakes at least every `pollInterval` so time-based checks (the mic-silence watchdog) run without messages.
/// `post` never blocks on the handler: the lock guards only the queue, and the handler runs without it, so the
/// handler may post (and call into the session) freely.
final class EventPump: @unchecked Sendable { // the queue and flags are guarded by `condition`
    enum Message: Sendable {
        case frontEnd(FrontEndEvent)
        /// A VAD event a ``DialogOutputTap`` already reported: for the summary's speech segments only.
        case tapped(FrontEndEvent)
        case speech(SpeechEvent)
        case startRequested(at: Duration)
        case finishRequested(at: Duration)
        case forcedCancel
    }

    private let condition = NSCondition()
    private var queue: [Message] = []
    private var stopping = false
    private var thread: JoinableThread?
    private var started = false
    /// Signalled when the thread's loop has ended (``waitUntilEnded(timeout:)`` then joins it).
    private let ended = DispatchSemaphore(value: 0)
    private let pollInterval: TimeInterval

    /// Messages the queue (and the batch it is swapped with) hold without growing: a post allocates only when more
    /// than this many wait at once. A dialog with a tap posts a few a second (telemetry, speech), so a thread held
    /// off by a loaded machine for seconds still finds room; an allocation at a grow would land on the drain thread.
    static let reservedMessages = 64

    init(pollInterval: TimeInterval = 0.05) {
        self.pollInterval = pollInterval
        queue.reserveCapacity(Self.reservedMessages)
    }

    /// Starts the thread; `handle` receives each batch of messages (possibly empty, on a poll) and returns
    /// true when the session has ended (the thread then ends too). Returns false when the system refuses a thread
    /// (nothing runs; ``waitUntilEnded(timeout:)`` returns at once).
    @discardableResult
    func start(name: String, handle: @escaping @Sendable ([Message]) -> Bool) -> Bool {
        // Under the lock: the thread's first step takes it, so ``isPumpThread`` holds before `handle` first runs.
        condition.lock()
        defer { condition.unlock() }
        thread = JoinableThread(name: name) { [self] in
            defer { ended.signal() }
            var batch: [Message] = [] // swapped with `queue`: each keeps its storage, no allocation per batch
            batch.reserveCapacity(Self.reservedMessages)
            while true {
                condition.lock()
                if queue.isEmpty && !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: pollInterval)) }
                swap(&batch, &queue)
                let stop = stopping
                condition.unlock()
                if stop || handle(batch) { break }
                batch.removeAll(keepingCapacity: true)
            }
            self.stop()
        }
        started = thread != nil
        return started
    }

    /// Queues a message. Any thread; never blocks for long (allocates: not for audio threads).
    func post(_ message: Message) {
        condition.withLock {
            guard !stopping else { return }
            queue.append(message)
            condition.signal()
        }
    }

    /// Queues a message while fewer than `limit` wait (one lock, like ``post(_:)``); returns false when it was
    /// dropped because `limit` messages wait (true once the pump stops: nothing is delivered then). Any thread.
    func post(_ message: Message, ifBacklogBelow limit: Int) -> Bool {
        condition.withLock {
            guard !stopping else { return true } // ended: nothing is delivered any more, nothing lost
            guard queue.count < limit else { return false }
            queue.append(message)
            condition.signal()
            return true
        }
    }

    /// Messages queued and not yet taken by the thread. Any thread.
    var backlog: Int { condition.withLock { queue.count } }

    /// Ends the thread after the batch it is handling; messages not yet handled are dropped. Any thread.
    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    /// Waits until the thread has returned (it returns after the session's last event or ``stop()``) and joined
    /// it, so nothing `handle` captured outlives this call on the pump thread; at most `timeout` seconds for the
    /// loop to end. Returns at once on the thread itself or when it never started. Returns false on timeout.
    /// Any other thread.
    @discardableResult
    func waitUntilEnded(timeout: TimeInterval) -> Bool {
        guard condition.withLock({ started }), !isPumpThread else { return true }
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal() // for any other waiter
        condition.withLock { thread }?.join() // the loop has ended: returns as soon as the closure is released
        return true
    }

    /// Whether the caller is the pump thread.
    var isPumpThread: Bool { condition.withLock { thread }?.isCurrent ?? false }
}
