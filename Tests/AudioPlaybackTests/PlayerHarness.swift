import AudioFrontEnd
import AudioPlayback
import Foundation

/// Records what a player pushes as reference, in preallocated storage (so the render path stays allocation-free).
final class RecordingReference: EchoReferenceSink, @unchecked Sendable {
    // Touched by the render thread only while rendering; read by the test after.
    let storage: UnsafeMutableBufferPointer<Int16>
    var count = 0
    var playingChanges: [Bool] = []
    /// The reference samples pushed before each of ``playingChanges`` (where in the stream it was said).
    var playingPositions: [Int] = []

    init(capacity: Int) {
        storage = .allocate(capacity: capacity)
        playingChanges.reserveCapacity(64)
        playingPositions.reserveCapacity(64)
    }
    deinit { storage.deallocate() }

    func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        let n = min(samples.count, storage.count - count)
        for i in 0..<n { storage[count + i] = samples[i] }
        count += n
        return PushResult(status: n == samples.count ? .ok : .bufferFull, accepted: n)
    }

    func setPlaying(_ isPlaying: Bool) {
        guard playingChanges.count < 64 else { return }
        playingChanges.append(isPlaying)
        playingPositions.append(count)
    }

    var samples: [Int16] { Array(storage[0..<count]) }
}

/// Collects a player's events (worker thread) for the test thread.
final class EventLog: @unchecked Sendable {
    // NSLock, not Mutex: ThreadSanitizer reports a false race on a contended Mutex (docs/libraries.md).
    private let lock = NSLock()
    private var events: [PlaybackEvent] = []
    func attach(to player: SynthesisPlayer) {
        player.setEventHandler { [self] event in lock.lock(); events.append(event); lock.unlock() }
    }
    var all: [PlaybackEvent] { lock.lock(); defer { lock.unlock() }; return events }

    /// Waits (up to `seconds`) until `predicate` holds for the events.
    @discardableResult
    func wait(seconds: Double = 10, until predicate: ([PlaybackEvent]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if predicate(all) { return true }
            usleep(1000)
        }
        return predicate(all)
    }

    func has(_ match: (PlaybackEvent) -> Bool) -> Bool { all.contains(where: match) }
}

extension PlaybackEvent {
    var isInputEnded: Bool { if case .inputEnded = self { return true }; return false }
    var isDrained: Bool { if case .drained = self { return true }; return false }
    var isStopped: Bool { if case .stopped = self { return true }; return false }
    var isRearmed: Bool { if case .micRearmed = self { return true }; return false }
    var name: String { String(describing: self).prefix { $0 != "(" }.description }
}

enum Bytes {
    static func littleEndian(_ samples: [Int16]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for s in samples { bytes += [UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: s >> 8)] }
        return bytes
    }
}

extension SynthesisPlayer {
    /// Queues one utterance, each piece as one enqueue (as the TTS client does with binary frames).
    func play(_ format: SynthesisAudioFormat, sampleRate: Int, pieces: [[UInt8]], end: Bool = true) throws {
        try begin(format: format, sampleRate: sampleRate)
        for piece in pieces { piece.withUnsafeBytes { _ = enqueue($0) } }
        if end { endInput() }
    }
}

/// Collects a front end's output audio (its worker thread) for the test thread.
final class OutputCollector: FrontEndDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Int16] = []
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        if case .audio(let chunk) = event { lock.lock(); samples += chunk.samples; lock.unlock() }
    }
    var audio: [Int16] { lock.lock(); defer { lock.unlock() }; return samples }
}

extension OutputCollector {
    /// A started front end with a mono reference at `rate`, delivering to a new collector.
    static func startedFrontEnd(rate: Int) throws -> (FrontEnd, OutputCollector) {
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        let collector = OutputCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        return (frontEnd, collector)
    }
}
