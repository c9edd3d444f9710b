import Dispatch
import Synchronization

/// The delivery queue both cloud sessions share (recognition's ``EventDelivery``, SpeechSynthesis's
/// `SynthesisDelivery`): a serial queue that runs each event's delivery in order, off the network thread and never
/// under a session lock, with a bounded backlog, and the session's bounded ``LazyEventStream``.
///
/// At most ``backlogLimit`` deliveries wait: beyond it (a delegate slower than the server) every event but a
/// task's boundary is refused, and the caller counts it, so memory stays bounded. Any thread; never blocks.
package final class BoundedDelivery<Event: Sendable>: Sendable {
    private let queue: DispatchQueue
    private let backlog = Atomic<Int>(0)
    /// Most deliveries waiting for the delegate.
    package static var backlogLimit: Int { 16_384 }
    /// nil: the session has no stream (its limit is 0); else made on first access.
    package let stream: LazyEventStream<Event>?

    package init(label: String, streamLimit: Int) {
        queue = DispatchQueue(label: label)
        stream = streamLimit > 0 ? LazyEventStream(limit: streamLimit) : nil
    }

    /// The stream, or an empty finished one when the session has none.
    package var events: AsyncStream<Event> { stream?.stream ?? AsyncStream { $0.finish() } }

    /// Runs `deliver(event)` on the queue after everything submitted before. Returns false (nothing queued) when
    /// the backlog is full and the event is not a boundary.
    package func submit(_ event: Event, isBoundary: Bool, _ deliver: @escaping @Sendable (Event) -> Void) -> Bool {
        if !isBoundary, backlog.load(ordering: .relaxed) >= Self.backlogLimit { return false }
        backlog.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { backlog.subtract(1, ordering: .relaxed) }
            deliver(event)
        }
        return true
    }

    /// Runs `body` on the queue after everything submitted before, whatever the backlog.
    package func after(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    /// Ends the stream after the events already queued.
    package func finish() { after { [stream] in stream?.finish() } }
}
