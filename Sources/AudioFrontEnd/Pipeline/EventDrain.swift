import Foundation
import Synchronization

/// The drain thread: reads event records and their payloads from the ``EventChannel`` and delivers each as a
/// ``FrontEndEvent`` to the delegate and to the async sequence, in order. Never runs on an audio thread; calls
/// the delegate without holding any lock.
final class EventDrain: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `sinks` is guarded by its Mutex; everything else is touched by the
    // drain thread only, after start.
    private struct Sinks {
        weak var delegate: (any FrontEndDelegate)?
        var continuation: AsyncStream<FrontEndEvent>.Continuation?
        var stream: AsyncStream<FrontEndEvent>?
        var finished = false
    }

    private let channel: EventChannel
    private let sinks = Mutex(Sinks())
    private let stopRequested = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// pthread_self() of the drain thread once it runs.
    private let drainThread = Atomic<UInt>(0)
    private var lastDrops = DropCounts()

    init(events: EventChannel) { channel = events }

    var delegate: (any FrontEndDelegate)? {
        get { sinks.withLock { $0.delegate } }
        set { sinks.withLock { $0.delegate = newValue } }
    }

    /// The one async sequence of events (created on first use).
    func sequence(owner: FrontEnd) -> FrontEndEvents {
        sinks.withLock { sinks in
            if let stream = sinks.stream { return FrontEndEvents(stream: stream) }
            let (stream, continuation) = AsyncStream<FrontEndEvent>.makeStream(bufferingPolicy: .unbounded)
            sinks.stream = stream
            if sinks.finished { continuation.finish() } else { sinks.continuation = continuation }
            return FrontEndEvents(stream: stream)
        }
    }

    func start(owner: FrontEnd) {
        let thread = Thread { [weak owner, self] in
            self.drainThread.store(currentThreadKey(), ordering: .releasing)
            self.run(owner: owner)
        }
        thread.name = "AudioFrontEnd.drain"
        thread.qualityOfService = .userInitiated
        started.store(true, ordering: .releasing)
        thread.start()
    }

    /// Whether the caller is the drain thread (a delegate callback).
    var isDrainThread: Bool { drainThread.load(ordering: .acquiring) == currentThreadKey() }

    /// Blocks until the finished event has been delivered (returns at once on the drain thread itself).
    func waitUntilFinished() {
        guard !isDrainThread, started.load(ordering: .acquiring) else { return }
        while !done.load(ordering: .acquiring) { usleep(500) }
    }

    /// Delivers what is already queued, then ends the sequence and the thread.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        channel.signal()
        if !started.load(ordering: .acquiring) { endSequence() }
    }

    private func run(owner: FrontEnd?) {
        while true {
            channel.wait(milliseconds: 50)
            guard let owner else { break }
            if deliverQueued(owner: owner) { break }
            if stopRequested.load(ordering: .acquiring) {
                _ = deliverQueued(owner: owner)
                break
            }
        }
        endSequence()
        done.store(true, ordering: .releasing)
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
            let event = makeEvent(record, owner: owner)
            let (delegate, continuation) = sinks.withLock { ($0.delegate, $0.continuation) }
            delegate?.frontEnd(owner, didProduce: event)
            continuation?.yield(event)
            if case .finished = event { return true }
        }
        return false
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
                                                                              sampleRate: Int(record.values.0))))
        }
    }
}

/// A ``FrontEnd``'s events as an `AsyncSequence`: single consumer, in order, ending after
/// ``FrontEndEvent/finished(_:)`` (or on cancel). Events wait in an unbounded buffer until consumed.
public struct FrontEndEvents: AsyncSequence, Sendable {
    public typealias Element = FrontEndEvent
    let stream: AsyncStream<FrontEndEvent>

    public func makeAsyncIterator() -> AsyncStream<FrontEndEvent>.Iterator { stream.makeAsyncIterator() }
}
