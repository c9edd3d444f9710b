import Threads

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

/// Hands events from the network thread to the delegate and the `AsyncStream`, on a serial queue
/// (``BoundedDelivery``), redacted.
final class EventDelivery: Sendable {
    private let core: BoundedDelivery<SpeechEvent>
    private let counters: StatisticsCounters
    /// Most events waiting for the delegate: beyond it (a delegate slower than the server), every event but a
    /// task's start and end is dropped and counted (``SessionStatistics/eventsDropped``), so memory stays bounded.
    static var backlogLimit: Int { BoundedDelivery<SpeechEvent>.backlogLimit }
    private let targets = Locked<Targets>(Targets())

    private struct Targets: @unchecked Sendable { // weak references only, guarded by the mutex
        weak var session: SpeechStreamingSession?
        weak var delegate: (any SpeechStreamingDelegate)?
    }

    /// Every event passes it on the delivery queue, before the delegate or the stream sees it.
    private let redactor: Redactor

    /// `streamLimit` 0: only the delegate gets events; else the stream keeps at most that many unread.
    init(streamLimit: Int, counters: StatisticsCounters, redactor: Redactor) {
        core = BoundedDelivery(label: "SpeechStreaming.events", streamLimit: streamLimit)
        self.counters = counters
        self.redactor = redactor
    }

    func attach(_ session: SpeechStreamingSession) { targets.withLock { $0.session = session } }

    var delegate: (any SpeechStreamingDelegate)? {
        get { targets.withLock { $0.delegate } }
        set { targets.withLock { $0.delegate = newValue } }
    }

    /// The session's event stream (made on first access).
    var events: AsyncStream<SpeechEvent> { core.events }

    /// Queues `event` for the delegate and the stream, redacted. Any thread; never blocks on the consumer.
    func deliver(_ event: SpeechEvent) {
        let queued = core.submit(event, isBoundary: event.isTaskBoundary) { [self] event in
            let event = redactor.redact(event)
            let (session, delegate) = targets.withLock { ($0.session, $0.delegate) }
            if let session, let delegate { delegate.speechSession(session, didReceive: event) }
            if core.stream?.yield(event) == false { counters.streamEventsDropped.add(1, ordering: .relaxed) }
        }
        if !queued { counters.eventsDropped.add(1, ordering: .relaxed) }
    }

    /// Ends the stream after the events already queued.
    func finish() { core.finish() }
}
