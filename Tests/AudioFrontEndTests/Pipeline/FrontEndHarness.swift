import AudioFrontEnd
import Foundation
import XCTest

/// Runs whole files through a ``FrontEnd`` the way an app would (mic and reference pushed in chunks) and
/// collects what it reports.
final class FrontEndCollector: FrontEndDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [FrontEndEvent] = []
    var events: [FrontEndEvent] { lock.withLock { _events } }
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) { lock.withLock { _events.append(event) } }

    var audio: [Int16] {
        var samples: [Int16] = []
        for case .audio(let chunk) in events { samples += chunk.samples }
        return samples
    }
    /// The output aligned with the mic, as offline tools align it: the reported processing delay's start-up
    /// dropped, and zeros where the last mic samples were still inside the stages at the end (the stream is as
    /// long as the input), so sample `n` belongs to mic sample `n` and the count stays the output's.
    var alignedAudio: [Int16] {
        let audio = self.audio
        let delay = summary?.processingDelay.samples ?? 0
        return Array(audio.dropFirst(delay)) + [Int16](repeating: 0, count: min(delay, audio.count))
    }
    var telemetry: [EchoTelemetry] { events.compactMap { if case .telemetry(let t) = $0 { t } else { nil } } }
    var summary: FrontEndSummary? { events.lazy.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first }
}

enum FrontEndHarness {
    /// A started front end with a collector as its delegate.
    static func started(_ configuration: FrontEndConfiguration) throws -> (FrontEnd, FrontEndCollector) {
        let frontEnd = try FrontEnd(configuration: configuration)
        let collector = FrontEndCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        return (frontEnd, collector)
    }

    /// The default configuration with no stage that changes the audio (echo cancellation, VAD off; noise
    /// suppression is off by default): at equal rates the output is the mono input, sample for sample.
    static func plain(mic: FrontEndConfiguration.InputFormat = .init(sampleRate: 16000)) -> FrontEndConfiguration {
        var configuration = FrontEndConfiguration()
        configuration.mic = mic
        configuration.echoCancellation = .off
        configuration.voiceDetection = nil
        configuration.noiseSuppression = .off
        return configuration
    }

    /// Pushes `mic` and `reference` interleaved in `chunk`-sample pieces (reference first, as a device plays
    /// before it hears), finishes, and returns the collector.
    static func run(_ configuration: FrontEndConfiguration, mic: [Int16], reference: [Int16]?, chunk: Int = 160,
                    referenceChunk: Int? = nil) throws -> FrontEndCollector {
        let frontEnd = try FrontEnd(configuration: configuration)
        let collector = FrontEndCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        let ratio = Double(configuration.reference.sampleRate) / Double(configuration.mic.sampleRate)
        var referenceOffset = 0
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + chunk)
            if let reference {
                let referenceEnd = min(reference.count, Int((Double(end) * ratio).rounded()))
                if referenceEnd > referenceOffset {
                    let r = reference[referenceOffset..<referenceEnd].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
                    XCTAssertEqual(r.status, .ok)
                    referenceOffset = referenceEnd
                }
            }
            var taken = offset
            while taken < end {
                let r = mic[taken..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += r.accepted
                if r.status == .bufferFull { usleep(1000) }
            }
            offset = end
        }
        try frontEnd.finish()
        if let directory = ProcessInfo.processInfo.environment["AFE_DUMP"] {
            // Debug aid for sweeps: the output and the telemetry of the last run, for offline analysis.
            let audio = collector.audio
            try audio.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: directory + "/output.s16"))
            let lines = collector.telemetry.map { "\($0.milliseconds) \($0.delayMilliseconds ?? -1) \($0.alignmentMilliseconds)" }
            try lines.joined(separator: "\n").write(toFile: directory + "/telemetry.txt", atomically: true, encoding: .utf8)
        }
        return collector
    }
}

extension FrontEndHarness {
    /// Pushes `range` of `mic` and `reference` (same rate) in `chunk`-sample pieces, reference first, waiting for
    /// room when the mic ring is full.
    static func push(_ frontEnd: FrontEnd, mic: [Int16], reference: [Int16], _ range: Range<Int>, chunk: Int) {
        for start in stride(from: range.lowerBound, to: range.upperBound, by: chunk) {
            let r = start..<(start + chunk)
            _ = reference[r].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
            var taken = r.lowerBound
            while taken < r.upperBound {
                let pushed = mic[taken..<r.upperBound].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += pushed.accepted
                if pushed.accepted == 0 { usleep(1000) }
            }
        }
    }

    /// ERLE per run of echo: from sample `start` on, the 10 ms frames (16 kHz) where the echo is present (mic
    /// above -40 dBFS, 20 dB over the vectors' -60 dBFS noise floor) are taken in runs of `frames`; each run's mic
    /// power over output power is one figure, with the sample where the run ends. Frames without echo have no
    /// ERLE (their output is the noise floor), so a wall-clock window holding only the first 50 ms of an
    /// utterance would measure the noise, not the canceller.
    static func erlePerEchoRun(mic: [Int16], output: [Int16], start: Int, frames runLength: Int) -> [(end: Int, erle: Double)] {
        var runs: [(Int, Double)] = []
        var micSum = 0.0, outputSum = 0.0, frames = 0
        for frame in (start / 160)..<(min(mic.count, output.count) / 160) {
            let range = (frame * 160)..<((frame + 1) * 160)
            let m = SignalMetrics.power(mic, range)
            guard m > 1e5 else { continue }
            micSum += m
            outputSum += SignalMetrics.power(output, range)
            frames += 1
            if frames == runLength {
                runs.append((range.upperBound, SignalMetrics.decibels(micSum / max(outputSum, 1e-10))))
                (micSum, outputSum, frames) = (0, 0, 0)
            }
        }
        return runs
    }
}
