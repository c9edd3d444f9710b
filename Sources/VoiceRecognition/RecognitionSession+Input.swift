import AudioFrontEnd
import Foundation

/// Audio input that is not a real-time mic callback: an `AsyncSequence` of buffers, or a file. Like
/// `SpeechAnalyzer.analyzeSequence(_:)` and its file input. Not real-time safe (allocates, suspends): for a task,
/// never an audio thread. The reference (what the device plays) still goes through ``RecognitionSession/pushReference(samples:)``.
extension RecognitionSession {
    /// Pushes every buffer of `input` as mic samples (in ``RecognitionCore/micFormat``: its rate, its channels
    /// interleaved), in order, until the
    /// sequence ends; a push the front end refuses (its consumer fell behind) waits and is pushed again.
    /// The session keeps running: call ``finish()`` after, or use ``analyzeSequence(_:)``.
    /// - Throws: ``RecognitionError/invalidState(_:)`` when the session stops taking audio (it ended or was
    ///   cancelled) before the sequence did; what the sequence itself throws; `CancellationError`.
    public func pushMic<Input: AsyncSequence>(contentsOf input: Input) async throws where Input.Element == [Int16] {
        for try await buffer in input { try await pushMic(buffer) }
    }

    /// Pushes every buffer of `input` as mic samples in −1…1 (converted to 16 bits, clipped), as
    /// ``pushMic(contentsOf:)-([Int16])``.
    public func pushMic<Input: AsyncSequence>(contentsOf input: Input) async throws where Input.Element == [Float] {
        for try await buffer in input { try await pushMic(SampleConversion.int16(from: buffer)) }
    }

    /// Starts the session when it has not started, pushes all of `input` as mic audio, then finishes it.
    /// - Returns: the summary, after the final result.
    /// - Throws: as ``start()``, ``pushMic(contentsOf:)-([Int16])`` and ``finish()``.
    public func analyzeSequence<Input: AsyncSequence>(_ input: Input) async throws -> RecognitionSummary
        where Input.Element == [Int16] {
        try await startIfNeeded()
        try await pushMic(contentsOf: input)
        return try await finish()
    }

    /// ``analyzeSequence(_:)-([Int16])`` for buffers of samples in −1…1.
    public func analyzeSequence<Input: AsyncSequence>(_ input: Input) async throws -> RecognitionSummary
        where Input.Element == [Float] {
        try await startIfNeeded()
        try await pushMic(contentsOf: input)
        return try await finish()
    }

    /// Recognizes a file (WAV, FLAC, Ogg: what ``AudioFrontEnd/AudioFile`` reads): its channels mixed to mono,
    /// resampled to the front end's mic rate when it differs, pushed in 10 ms buffers at `pacing`, then finished.
    /// Starts the session when it has not started.
    /// - Returns: the summary, after the final result.
    /// Samples beyond full scale (a float file's) are clipped.
    /// - Throws: ``RecognitionError/invalidConfiguration(_:)`` when the file cannot be read or holds samples that
    ///   are not numbers (naming it), else
    ///   as ``analyzeSequence(_:)-([Int16])``.
    public func analyzeFile(atPath path: String, pacing: InputPacing = .realTime) async throws -> RecognitionSummary {
        let samples: [Int16]
        do {
            let file = try AudioFile(contentsOf: path)
            guard file.nonFiniteSamples == 0 else {
                throw RecognitionError.invalidConfiguration("\(path) holds \(file.nonFiniteSamples) samples that are not numbers (NaN or infinite)")
            }
            let rate = core.micFormat.sampleRate
            guard core.micFormat.channelCount == 1 else {
                throw RecognitionError.invalidConfiguration("file input needs a mono mic format, not \(core.micFormat.channelCount) channels")
            }
            var mono = file.downmixed()
            if file.sampleRate != rate {
                mono = try SampleRateConverter(inputRate: file.sampleRate, outputRate: rate).resample(mono)
            }
            samples = SampleConversion.int16(from: mono)
        } catch let error as RecognitionError {
            throw error
        } catch {
            throw RecognitionError.invalidConfiguration("\(path): \(error)")
        }
        return try await analyzeSequence(TenMillisecondBuffers(samples: samples, rate: core.micFormat.sampleRate, pacing: pacing))
    }

    private func startIfNeeded() async throws {
        if !core.hasStarted { try await start() }
    }

    /// Pushes all of `buffer`, waiting while the front end refuses it.
    private func pushMic(_ buffer: [Int16]) async throws {
        var taken = 0
        while taken < buffer.count {
            let result = buffer[taken...].withUnsafeBufferPointer { core.pushMic(samples: $0) }
            taken += result.accepted
            switch result.status {
            case .ok: break
            case .notRunning: throw RecognitionError.invalidState("the session no longer takes audio")
            case .bufferFull: try await Task.sleep(for: Self.refusedPushRetry)
            case .concurrentPush:
                throw RecognitionError.invalidState("another thread pushes mic audio to this session at the same time")
            }
        }
    }

    /// How long a refused push waits before it is pushed again (the front end has no wake-up for room).
    static let refusedPushRetry = Duration.milliseconds(2)
}

/// A file's samples as 10 ms buffers, at real-time pace or at once.
struct TenMillisecondBuffers: AsyncSequence, Sendable {
    let samples: [Int16]
    let rate: Int
    let pacing: InputPacing

    struct AsyncIterator: AsyncIteratorProtocol {
        let buffers: TenMillisecondBuffers
        var offset = 0
        let begin = ContinuousClock.now

        mutating func next() async throws -> [Int16]? {
            let step = Swift.max(1, buffers.rate / 100)
            guard offset < buffers.samples.count else { return nil }
            if buffers.pacing == .realTime {
                try await Task.sleep(until: begin + .milliseconds(offset * 1000 / Swift.max(1, buffers.rate)), clock: .continuous)
            }
            let end = Swift.min(buffers.samples.count, offset + step)
            defer { offset = end }
            return Array(buffers.samples[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffers: self) }
}
