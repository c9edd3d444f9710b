import Dispatch
import Foundation
import Synchronization
import Threads

/// The drain thread: reads event records and their payloads from the ``EventChannel`` and delivers each as a
/// ``FrontEndEvent`` to the delegate and to the async sequence, in order; after each round, processes the mic
/// frames a push left behind (``FrontEnd/processMicLeftBehind()``). Never runs on an audio thread; calls the
/// delegate without holding any lock.
final class EventDrain: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `sinks` is guarded by its Mutex; everything else is touched by the
    // drain thread only, after start.
    private struct Sinks {
        weak var delegate: (any FrontEndDelegate)?
        /// The delegate again when it takes the audio without an ``AudioChunk`` (cast once, when set).
        weak var rawAudio: (any FrontEndRawAudioDelegate)?
        var continuation: AsyncStream<FrontEndEvent>.Continuation?
        var stream: AsyncStream<FrontEndEvent>?
        var finished = false
        var bargeInHandler: (@Sendable (BargeInDecision) -> Void)?
    }

    private let channel: EventChannel
    private let sinks = Mutex(Sinks())
    private let stopRequested = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// The drain's own thread (none for a hosted drain); started and joined off the audio path.
    private let thread = ThreadSlot()
    /// Signalled once the thread has delivered its last event ; ``waitUntilFinished()`` waits on it.
    private let finishedSignal = DispatchSemaphore(value: 0)
    private var lastDrops = DropCounts()
    /// The end of the audio delivered or reported dropped so far (output position). Drain thread only.
    private var audioEnd = 0
    /// Where the drain reads an audio record for ``FrontEndRawAudioDelegate`` (drain thread only; grows only
    /// for a record larger than any before, i.e. during warm-up).
    private var scratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
    /// Events the async sequence dropped because its reader was ``FrontEndEvents/bufferLimit`` behind.
    let sequenceDrops = Atomic<Int>(0)

    /// The host whose thread runs this drain's rounds (``FrontEndDrainHost``); nil: the drain's own thread.
    private var host: FrontEndDrainHost? { channel.host }
    /// Set once a hosted drain has delivered its end (host thread writes; any thread reads).
    private let hostedEnded = Atomic<Bool>(false)

    init(events: EventChannel) { channel = events }

    deinit { scratch.deallocate() }

    var delegate: (any FrontEndDelegate)? {
        get { sinks.withLock { $0.delegate } }
        set {
            sinks.withLock {
                $0.delegate = newValue
                $0.rawAudio = newValue as? any FrontEndRawAudioDelegate
            }
        }
    }

    /// Called with each barge-in decision before the delegate and the sequence (``FrontEnd/setBargeInHandler(_:)``).
    var bargeInHandler: (@Sendable (BargeInDecision) -> Void)? {
        get { sinks.withLock { $0.bargeInHandler } }
        set { sinks.withLock { $0.bargeInHandler = newValue } }
    }

    /// The one async sequence of events (created on first use).
    func sequence(owner: FrontEnd) -> FrontEndEvents {
        sinks.withLock { sinks in
            if let stream = sinks.stream { return FrontEndEvents(stream: stream) }
            let (stream, continuation) = AsyncStream<FrontEndEvent>.makeStream(
                bufferingPolicy: .bufferingNewest(FrontEndEvents.bufferLimit))
            sinks.stream = stream
            if sinks.finished { continuation.finish() } else { sinks.continuation = continuation }
            return FrontEndEvents(stream: stream)
        }
    }

    func start(owner: FrontEnd) {
        started.store(true, ordering: .releasing)
        if let host { return host.attach(owner, drain: self) } // no thread: the host's runs the rounds
        guard thread.start(name: "AudioFrontEnd.drain", { [weak owner, self] in self.run { owner } }) else {
            // No thread to be had: the sequence ends, finish() does not wait.
            endSequence()
            markDone()
            return
        }
    }

    /// Whether the caller is the drain thread (a delegate callback).
    var isDrainThread: Bool {
        if let host { return host.isHostThread }
        return thread.isCurrent
    }

    /// Whether the drain is hosted (``FrontEndDrainHost``). Any thread.
    var isHosted: Bool { host != nil }

    /// One round of a hosted drain, as one pass of the own thread's loop: delivers the queued records, ends
    /// after the finished event or a stop, else processes the mic frames a push left behind. Returns true once
    /// the drain has ended (the host detaches it). Host thread only.
    func hostedRound(owner: FrontEnd) -> Bool {
        if hostedEnded.load(ordering: .relaxed) { return true }
        guard round(owner: owner) else { return false }
        endHosted()
        return true
    }

    /// One round, on the drain's own thread or the host's: delivers the queued records; returns true after the
    /// finished event or a stop (what was queued delivered), else reports a dropped tail and processes the mic
    /// frames a push left behind (room was made; it signals what it emits).
    private func round(owner: FrontEnd) -> Bool {
        if deliverQueued(owner: owner) { return true }
        reportDroppedAudio(owner: owner)
        if stopRequested.load(ordering: .acquiring) {
            _ = deliverQueued(owner: owner)
            return true
        }
        owner.processMicLeftBehind()
        return false
    }

    /// Ends a hosted drain: the sequence ends and ``waitUntilFinished()`` returns. Host thread.
    func endHosted() {
        guard !hostedEnded.exchange(true, ordering: .acquiringAndReleasing) else { return }
        endSequence()
        markDone()
    }

    /// Whether a hosted drain has ended. Any thread.
    var hostedDone: Bool { hostedEnded.load(ordering: .acquiring) }

    /// Blocks until the finished event has been delivered (returns at once on the drain thread itself, or on
    /// the host's thread for a hosted drain: a round there cannot wait for the next).
    func waitUntilFinished() {
        guard !isDrainThread, started.load(ordering: .acquiring) else { return }
        finishedSignal.wait()
        finishedSignal.signal() // for any other waiter
    }

    /// Stops the thread and waits until it has returned (the owner's deinit; from the drain thread itself it is
    /// detached instead). Nothing the thread held outlives this call.
    func join() {
        stop()
        thread.join()
    }

    private func markDone() { finishedSignal.signal() }

    /// Delivers what is already queued, then ends the sequence and the thread.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        channel.signal()
        if !started.load(ordering: .acquiring) { endSequence() }
    }

    /// The thread's loop. `owner` is the weakly held front end, taken strongly only for one round of delivery:
    /// held across the wait it kept a front end the app let go (without finish or cancel) alive for good.
    private func run(owner: () -> FrontEnd?) {
        while true {
            // A safety net, not a poll: every write, the finish and the stop signal the channel.
            channel.wait(milliseconds: 1000)
            guard let owner = owner(), !round(owner: owner) else { break }
        }
        endSequence()
        markDone()
    }

    private func endSequence() {
        let continuation = sinks.withLock { sinks -> AsyncStream<FrontEndEvent>.Continuation? in
            sinks.finished = true
            defer { sinks.continuation = nil }
            return sinks.continuation
        }
        continuation?.finish()
    }

    /// Delivers every queued record; returns true after delivering the finished event.
    private func deliverQueued(owner: FrontEnd) -> Bool {
        while let record = channel.records.read() {
            // The barge-in handler is read only for its decisions: a closure returned through the generic
            // `withLock` is reabstracted, an allocation per record (on NeoNui's callback thread, which drains now).
            let (delegate, raw, continuation) = sinks.withLock {
                ($0.delegate, $0.stream == nil ? $0.rawAudio : nil, $0.continuation)
            }
            if record.kind == .audio { audioEnd = record.position + record.payloadCount }
            if record.kind == .audio, let raw { // no [Int16]: the samples from the drain's own buffer
                raw.frontEnd(owner, didProduceAudio: readAudio(record), position: record.position)
                continue
            }
            let event = makeEvent(record, owner: owner)
            if case .bargeIn(let decision) = event { sinks.withLock { $0.bargeInHandler }?(decision) }
            delegate?.frontEnd(owner, didProduce: event)
            if case .dropped = continuation?.yield(event) { sequenceDrops.add(1, ordering: .relaxed) }
            if case .finished = event { return true }
        }
        return false
    }

    /// Tells the raw-audio delegate where the audio the processing thread dropped ends
    /// (``FrontEndRawAudioDelegate/frontEnd(_:didDropAudioUpTo:)``) once every record written before that drop
    /// was read: the end is loaded first, then the ring found empty, so no chunk before it is still queued.
    /// Drain thread.
    private func reportDroppedAudio(owner: FrontEnd) {
        let end = channel.droppedAudioEnd.load(ordering: .acquiring)
        guard end > audioEnd, channel.records.count == 0 else { return }
        audioEnd = end
        sinks.withLock { $0.rawAudio }?.frontEnd(owner, didDropAudioUpTo: end)
    }

    /// An audio record's samples, read into ``scratch`` (valid until the next read). Drain thread.
    private func readAudio(_ record: RawEvent) -> UnsafeBufferPointer<Int16> {
        if record.payloadCount > scratch.count {
            scratch.deallocate()
            scratch = .allocate(capacity: record.payloadCount)
        }
        let read = channel.samples.read(into: UnsafeMutableBufferPointer(rebasing: scratch[0..<record.payloadCount]))
        return UnsafeBufferPointer(rebasing: scratch[0..<read])
    }

    private func makeEvent(_ record: RawEvent, owner: FrontEnd) -> FrontEndEvent {
        func optional(_ value: Double) -> Double? { value.isNaN ? nil : value }
        switch record.kind {
        case .audio:
            var samples = [Int16](repeating: 0, count: record.payloadCount)
            samples.withUnsafeMutableBufferPointer { _ = channel.samples.read(into: $0) }
            return .audio(AudioChunk(position: record.position, sampleRate: owner.configuration.effectiveOutputRate,
                                     samples: samples))
        case .opusPacket, .oggPage:
            var bytes = [UInt8](repeating: 0, count: record.payloadCount)
            bytes.withUnsafeMutableBufferPointer { _ = channel.bytes.read(into: $0) }
            if record.kind == .oggPage { return .oggPage(bytes) }
            return .opusPacket(OpusPacket(bytes: bytes, sequence: record.position, durationSamples48k: record.counts.0))
        case .speechStart:
            return .speechStarted(milliseconds: record.position)
        case .speechEnd:
            return .speechEnded(milliseconds: record.position)
        case .level:
            return .level(milliseconds: record.position, inputDecibels: Float(record.values.0),
                          outputDecibels: Float(record.values.1))
        case .telemetry:
            return .telemetry(EchoTelemetry(milliseconds: record.position, delayMilliseconds: optional(record.values.0),
                                            alignmentMilliseconds: record.values.1, erleDecibels: optional(record.values.2),
                                            isDoubleTalk: record.flag, driftPartsPerMillion: optional(record.values.3),
                                            processingDelayMilliseconds: record.values.4))
        case .bargeIn:
            return .bargeIn(BargeInDecision(milliseconds: record.position, speechStartMilliseconds: record.counts.0,
                                            sequence: record.counts.1, isSuspicion: record.flag))
        case .drops:
            var drops = DropCounts()
            (drops.micRefusedBytes, drops.referenceDroppedSamples, drops.referenceMissingSamples, drops.eventOverruns,
             drops.referenceRefusedBytes)
                = record.counts
            lastDrops = drops
            return .drops(drops)
        case .finished:
            return .finished(FrontEndSummary(micSamplesPushed: record.counts.0, referenceSamplesPushed: record.counts.1,
                                             framesProcessed: record.counts.2, outputSamples: record.counts.3,
                                             drops: lastDrops,
                                             processingDelay: ProcessingDelay(samples: record.counts.4,
                                                                              sampleRate: Int(record.values.0)),
                                             bargeIns: record.position))
        }
    }
}

/// A ``FrontEnd``'s events as an `AsyncSequence`: single consumer, in order, ending after
/// ``FrontEndEvent/finished(_:)`` (or on cancel). At most ``bufferLimit`` unread events wait (the newest, so the
/// finished event is never lost); the others are dropped and counted (``FrontEnd/sequenceEventsDropped``). The
/// delegate always gets every event: use it where every sample counts and the reader may fall behind.
public struct FrontEndEvents: AsyncSequence, Sendable {
    public typealias Element = FrontEndEvent
    let stream: AsyncStream<FrontEndEvent>
    /// Most unread events kept: about 10-20 s of a 10 ms frame's level, audio and packet events.
    public static let bufferLimit = 4096

    public func makeAsyncIterator() -> AsyncStream<FrontEndEvent>.Iterator { stream.makeAsyncIterator() }
}
