import Dispatch
import Synchronization

/// Receives a session's events, in order, on the session's delivery queue.
///
/// Called on a private serial queue, never on the network thread and never while the session holds a
/// lock, so the delegate may call back into the session (start, stop, close). A slow delegate delays
/// later events but never the network.
public protocol SpeechStreamingDelegate: AnyObject, Sendable {
    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent)
}

extension SpeechEvent {
    /// The task's start, end or reconnection: never dropped by a bounded queue.
    public var isTaskBoundary: Bool {
        switch self {
        case .started, .completed, .error, .reconnecting: true
        default: false
        }
    }
}

/// Hands events from the network thread to the delegate and the `AsyncStream`, on a serial queue.
final class EventDelivery: Sendable {
    private let queue = DispatchQueue(label: "SpeechStreaming.events")
    private let continuation: AsyncStream<SpeechEvent>.Continuation?
    private let counters: StatisticsCounters
    /// Events queued for the delegate and not yet handed to it.
    private let backlog = Atomic<Int>(0)
    /// Most events waiting for the delegate: beyond it (a delegate slower than the server), every event but a
    /// task's start and end is dropped and counted (``SessionStatistics/eventsDropped``), so memory stays bounded.
    static let backlogLimit = 16_384
    private let targets = Locked<Targets>(Targets())

    private struct Targets: @unchecked Sendable { // weak references only, guarded by the mutex
        weak var session: SpeechStreamingSession?
        weak var delegate: (any SpeechStreamingDelegate)?
    }

    /// Every event passes it on the delivery queue, before the delegate or the stream sees it.
    private let redactor: Redactor

    /// `continuation` nil: only the delegate gets events. `dropped` counts what the bounded stream dropped.
    init(continuation: AsyncStream<SpeechEvent>.Continuation?, counters: StatisticsCounters, redactor: Redactor) {
        self.continuation = continuation
        self.counters = counters
        self.redactor = redactor
    }

    func attach(_ session: SpeechStreamingSession) { targets.withLock { $0.session = session } }

    var delegate: (any SpeechStreamingDelegate)? {
        get { targets.withLock { $0.delegate } }
        set { targets.withLock { $0.delegate = newValue } }
    }

    /// Queues `event` for the delegate and the stream, redacted. Any thread; never blocks on the consumer.
    func deliver(_ event: SpeechEvent) {
        if !event.isTaskBoundary, backlog.load(ordering: .relaxed) >= Self.backlogLimit {
            counters.eventsDropped.add(1, ordering: .relaxed)
            return
        }
        backlog.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { backlog.subtract(1, ordering: .relaxed) }
            let event = redactor.redact(event)
            let (session, delegate) = targets.withLock { ($0.session, $0.delegate) }
            if let session, let delegate { delegate.speechSession(session, didReceive: event) }
            if case .dropped = continuation?.yield(event) { counters.streamEventsDropped.add(1, ordering: .relaxed) }
        }
    }

    /// Ends the stream after the events already queued.
    func finish() { queue.async { [continuation] in continuation?.finish() } }
}
