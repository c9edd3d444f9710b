import SpeechStreaming
import Synchronization
import Threads

/// Receives a synthesis session's events, in order, on the session's delivery queue.
///
/// Called on a private serial queue, never on the network thread and never while the session holds a lock, so
/// the delegate may call back into the session. A slow delegate delays later events but never the network.
public protocol SpeechSynthesisDelegate: AnyObject, Sendable {
    func synthesisSession(_ session: SpeechSynthesisSession, didReceive event: SynthesisEvent)
}

/// Hands events from the network thread to the delegate, the `AsyncStream` and the async waiters, redacted, on a
/// serial queue (SpeechStreaming's `BoundedDelivery`, shared with the recognition session). At most
/// ``backlogLimit`` events wait for the delegate: beyond it every event but a task's start and end is dropped and
/// counted (audio bytes too), so a stuck consumer costs bounded memory.
final class SynthesisDelivery: @unchecked Sendable { // the core is thread safe; the rest under locks or atomic
    private let core: BoundedDelivery<SynthesisEvent>
    private let redactor: Redactor
    /// The task whose events may be delivered: an event of another (a cancelled task's, still in flight) is dropped,
    /// even when it was already queued.
    private let current = Atomic<UInt64>(0)
    static var backlogLimit: Int { BoundedDelivery<SynthesisEvent>.backlogLimit }
    let statistics = Locked(SynthesisStatistics())
    private let targets = Locked<Targets>(Targets())
    private let waiters = Locked<[Waiter]>([])

    private struct Targets: @unchecked Sendable { // weak references only, under the lock
        weak var session: SpeechSynthesisSession?
        weak var delegate: (any SpeechSynthesisDelegate)?
    }

    enum Waiter {
        case started(CheckedContinuation<SynthesisStarted, any Error>)
        case completed(CheckedContinuation<SynthesisCompleted, any Error>)
    }

    /// `streamLimit` 0: no stream; else it keeps at most that many unread events (made on first access).
    init(streamLimit: Int, redactor: Redactor) {
        core = BoundedDelivery(label: "SpeechSynthesis.events", streamLimit: streamLimit)
        self.redactor = redactor
    }

    func attach(_ session: SpeechSynthesisSession) { targets.withLock { $0.session = session } }

    var delegate: (any SpeechSynthesisDelegate)? {
        get { targets.withLock { $0.delegate } }
        set { targets.withLock { $0.delegate = newValue } }
    }

    /// The session's event stream (made on first access).
    var events: AsyncStream<SynthesisEvent> { core.events }

    func wait(_ waiter: Waiter) { waiters.withLock { $0.append(waiter) } }

    /// Starts a new task generation (a start, a cancel or the close): events of earlier ones are dropped from now on.
    func nextGeneration() -> UInt64 { current.add(1, ordering: .sequentiallyConsistent).newValue }

    /// Queues `event` of task `generation`. Any thread; never blocks on the consumer.
    func deliver(_ event: SynthesisEvent, generation: UInt64) {
        let queued = core.submit(event, isBoundary: event.isTaskBoundary) { [self] event in
            guard generation == current.load(ordering: .sequentiallyConsistent) else { return }
            let event = redact(event)
            let (session, delegate) = targets.withLock { ($0.session, $0.delegate) }
            if let session, let delegate { delegate.synthesisSession(session, didReceive: event) }
            if core.stream?.yield(event) == false { statistics.withLock { $0.streamEventsDropped += 1 } }
            resumeWaiters(event)
        }
        if !queued {
            statistics.withLock {
                $0.eventsDropped += 1
                if case .audio(let audio) = event { $0.audioBytesDropped += audio.bytes.count }
            }
        }
    }

    private func resumeWaiters(_ event: SynthesisEvent) {
        guard event.isTaskBoundary else { return }
        let ready: [Waiter] = waiters.withLock { list in
            let (now, later) = list.reduce(into: ([Waiter](), [Waiter]())) { result, waiter in
                switch (waiter, event) {
                case (.started, .started), (.completed, .completed), (_, .error): result.0.append(waiter)
                default: result.1.append(waiter)
                }
            }
            list = later
            return now
        }
        for waiter in ready {
            switch (waiter, event) {
            case (.started(let c), .started(let e)): c.resume(returning: e)
            case (.completed(let c), .completed(let e)): c.resume(returning: e)
            case (.started(let c), .error(let e)): c.resume(throwing: e)
            case (.completed(let c), .error(let e)): c.resume(throwing: e)
            default: break
            }
        }
    }

    /// Fails every waiter (the session closed or the task was cancelled), after the events already queued.
    func failWaiters(_ error: SpeechStreamingError) {
        core.after { [self] in resumeWaiters(.error(error)) }
    }

    private func redact(_ event: SynthesisEvent) -> SynthesisEvent {
        switch event {
        case .started(var e): e.rawJSON = redactor.redact(e.rawJSON); return .started(e)
        case .sentenceBegin(let e): return .sentenceBegin(redact(e))
        case .sentenceSynthesis(let e): return .sentenceSynthesis(redact(e))
        case .sentenceEnd(let e): return .sentenceEnd(redact(e))
        case .audio: return event
        case .completed(var e): e.rawJSON = redactor.redact(e.rawJSON); return .completed(e)
        case .error(let e): return .error(redactor.redact(e))
        }
    }

    private func redact(_ sentence: SynthesisSentence) -> SynthesisSentence {
        var copy = sentence
        copy.rawJSON = redactor.redact(sentence.rawJSON)
        copy.originalText = sentence.originalText.map { redactor.redact($0) }
        return copy
    }

    /// Ends the stream after the events already queued.
    func finish() { core.finish() }
}
