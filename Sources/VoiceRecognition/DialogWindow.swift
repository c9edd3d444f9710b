import AudioFrontEnd
import Foundation
import SpeechStreaming
import Synchronization

/// The part of a ``RecognitionEngine``'s output stream one dialog takes: from the output position of the mic
/// at its start to the one at its finish (PCM sample-exact; Opus by whole packets, in an Ogg stream of its
/// own, muxed by the client), with the dialog's positions and milliseconds counted from its start. Guarded by the forwarder's mutex.
struct DialogWindow {
    /// First output sample of the dialog (output rate, from the engine's stream start).
    let start: Int
    let outputRate: Int
    /// The output position of the mic at finish, once finish was asked.
    var stop: Int?
    var stopAskedAt: ContinuousClock.Instant?
    /// The audio ended and the client was told to stop.
    var stopped = false
    /// The Ogg header's pre-skip (the encoder's lookahead, 48 kHz).
    var preSkip = 0
    /// End of the last Opus packet sent, 48 kHz.
    var packetEnd48k = 0
    /// Output samples the dialog took.
    var taken = 0
    /// Engine mic bytes at the start and at finish.
    var micBytesAtStart = 0
    var micBytesAtStop: Int?
    /// Engine mic pushes at finish (the mic stopped when they stay so).
    var micPushesAtStop = 0

    init(start: Int, outputRate: Int) {
        self.start = start
        self.outputRate = outputRate
    }

    var startMilliseconds: Int { start * 1000 / outputRate }
    func to48k(_ samples: Int) -> Int { samples * Opus.granuleRate / outputRate }

    /// The part of `chunk` inside the window (and before output sample `limit`), rebased to the dialog's start;
    /// nil when none.
    func clip(_ chunk: AudioChunk, before limit: Int = .max) -> AudioChunk? {
        let end = chunk.position + chunk.samples.count
        let from = max(chunk.position, start), to = min(end, stop ?? .max, limit)
        guard from < to else { return nil }
        var clipped = chunk
        if from != chunk.position || to != end {
            clipped.samples = Array(chunk.samples[(from - chunk.position)..<(to - chunk.position)])
        }
        clipped.position = from - start
        return clipped
    }

    /// `event` with its milliseconds counted from the dialog's start (never below zero).
    func rebased(_ event: FrontEndEvent) -> FrontEndEvent {
        let origin = startMilliseconds
        func ms(_ value: Int) -> Int { max(0, value - origin) }
        switch event {
        case .speechStarted(let value): return .speechStarted(milliseconds: ms(value))
        case .speechEnded(let value): return .speechEnded(milliseconds: ms(value))
        case .level(let value, let input, let output): return .level(milliseconds: ms(value), inputDecibels: input, outputDecibels: output)
        case .telemetry(var telemetry):
            telemetry.milliseconds = ms(telemetry.milliseconds)
            return .telemetry(telemetry)
        default: return event
        }
    }
}

/// The dialog's bounds as the processing thread reads them: atomics the control thread writes (``open`` at the
/// start, ``close`` at finish), so the audio path clips the engine's output to the dialog without a lock.
/// The granule counter is the processing thread's alone.
final class RealTimeWindow: @unchecked Sendable { // atomics; `granule` processing thread only
    private let start = Atomic<Int>(.max)
    private let stop = Atomic<Int>(.max)
    private let start48k = Atomic<Int>(.max)
    private let stop48k = Atomic<Int>(.max)
    private let preSkip = Atomic<Int>(0)
    /// The audio ended (its last part went with the end mark, or the control thread ended it).
    let ended = Atomic<Bool>(false)
    /// End of the output the processing thread sent to the client (PCM, output samples) times two, plus one once
    /// the audio ended. The processing thread publishes a chunk with a compare-exchange that fails once the end
    /// bit is set, so a chunk it clipped before ``end()`` but had not published yet is not sent after it, and the
    /// end the completion waits for (``AudioForwarder/audioPending(handledEnd:)``) cannot grow behind its back.
    private let sent = Atomic<Int>(0)
    /// Granule positions of the dialog's Opus stream so far (processing thread).
    private var granule = 0

    /// End of the output sent to the client (PCM), output samples. Any thread.
    var sentEnd: Int { sent.load(ordering: .acquiring) >> 1 }

    /// Ends the audio from outside the processing thread: nothing more is sent, ``sentEnd`` stays. Any thread.
    func end() {
        sent.bitwiseOr(1, ordering: .acquiringAndReleasing)
        ended.store(true, ordering: .releasing)
    }

    /// Opens the window at output sample `start`. Control thread.
    func open(start: Int, start48k: Int, preSkip: Int) {
        self.preSkip.store(preSkip, ordering: .relaxed)
        self.start48k.store(start48k, ordering: .releasing)
        self.start.store(start, ordering: .releasing)
    }

    /// Closes it at output sample `stop`. Control thread.
    func close(at stop: Int, stop48k: Int) {
        self.stop48k.store(stop48k, ordering: .releasing)
        self.stop.store(stop, ordering: .releasing)
    }

    /// The part `from..<to` of output samples `position..<position + count` inside the window, and whether it
    /// reaches the finish position (then the window ends). Processing thread; real-time safe.
    func clip(position: Int, count: Int) -> (from: Int, to: Int, ends: Bool)? {
        guard !ended.load(ordering: .acquiring) else { return nil }
        let first = start.load(ordering: .acquiring)
        guard first != .max else { return nil }
        let last = stop.load(ordering: .acquiring)
        let from = max(position, first), to = min(position + count, last)
        let ends = last != .max && position + count >= last
        guard from < to || ends else { return nil }
        // The one writer of the value: the exchange fails only when ``end()`` set the end bit since the check.
        let old = sent.load(ordering: .acquiring)
        guard old & 1 == 0, sent.compareExchange(expected: old, desired: max(from, to) << 1 | (ends ? 1 : 0),
                                                 ordering: .acquiringAndReleasing).exchanged else { return nil }
        if ends { ended.store(true, ordering: .releasing) }
        return (from, max(from, to), ends)
    }

    /// Whether a packet starting at `at48k` (engine stream) belongs to the dialog, the granule positions it
    /// advances in the dialog's stream (the last one trimmed to the finish position, RFC 7845 §4.4) and whether it
    /// is the last. Processing thread; real-time safe.
    func admit(packetAt at48k: Int, duration: Int) -> (advance: Int, ends: Bool)? {
        guard !ended.load(ordering: .acquiring) else { return nil }
        let first = start48k.load(ordering: .acquiring)
        guard first != .max, at48k >= first else { return nil }
        let last = stop48k.load(ordering: .acquiring)
        var advance = duration
        let ends = last != .max && at48k + duration >= last
        if ends {
            let target = preSkip.load(ordering: .relaxed) + (last - first)
            advance = max(0, min(duration, target - granule))
            ended.store(true, ordering: .releasing)
        }
        granule += duration
        return (advance, ends)
    }
}
