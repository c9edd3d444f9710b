import Dispatch

/// Receives a session's events, in order, on the session's delivery queue.
///
/// Called on a private serial queue, never on the network thread and never while the session holds a
/// lock, so the delegate may call back into the session (start, stop, close). A slow delegate delays
/// later events but never the network.
public protocol SpeechStreamingDelegate: AnyObject, Sendable {
    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent)
}

/// Hands events from the network thread to the delegate and the `AsyncStream`, on a serial queue.
final class EventDelivery: Sendable {
    private let queue = DispatchQueue(label: "SpeechStreaming.events")
    private let continuation: AsyncStream<SpeechEvent>.Continuation
    private let targets = Locked<Targets>(Targets())

    private struct Targets: @unchecked Sendable { // weak references only, guarded by the mutex
        weak var session: SpeechStreamingSession?
        weak var delegate: (any SpeechStreamingDelegate)?
    }

    /// Every event passes it on the delivery queue, before the delegate or the stream sees it.
    private let redactor: Redactor

    init(continuation: AsyncStream<SpeechEvent>.Continuation, redactor: Redactor) {
        self.continuation = continuation
        self.redactor = redactor
    }

    func attach(_ session: SpeechStreamingSession) { targets.withLock { $0.session = session } }

    var delegate: (any SpeechStreamingDelegate)? {
        get { targets.withLock { $0.delegate } }
        set { targets.withLock { $0.delegate = newValue } }
    }

    /// Queues `event` for the delegate and the stream, redacted. Any thread; never blocks on the consumer.
    func deliver(_ event: SpeechEvent) {
        queue.async { [self] in
            let event = redactor.redact(event)
            let (session, delegate) = targets.withLock { ($0.session, $0.delegate) }
            if let session, let delegate { delegate.speechSession(session, didReceive: event) }
            continuation.yield(event)
        }
    }

    /// Ends the stream after the events already queued.
    func finish() { queue.async { [continuation] in continuation.finish() } }
}
