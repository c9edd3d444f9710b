import AudioFrontEnd

/// One synthesis stream from its bytes to mono 16-bit PCM at the playback rate: a ``SynthesisStreamDecoder``
/// for the format, then a ``SpeexResampler`` (created when the stream's rate is known) to ``outputRate``.
///
/// Over a whole stream the output count is exact: after ``finish(output:)``,
/// `floor(decoded × outputRate / sourceRate)` samples have come out (the resampler's contract), time-aligned with
/// the decoded audio. This is also the fuzzing entry point: any bytes, split anywhere, either decode or throw a
/// ``PlaybackDecodeError``; nothing traps.
///
/// Lifecycle: create (allocates) → ``decode(_:output:)`` per piece → ``finish(output:)``. One thread at a time;
/// the steady state allocates nothing (the resampler is created, once, when the header is read).
public final class PlaybackDecoder {
    public let format: SynthesisAudioFormat
    /// The playback rate, Hz.
    public let outputRate: Int
    /// The format's decoder (its rate and counts).
    public let decoder: any SynthesisStreamDecoder
    /// Samples handed out at ``outputRate`` so far.
    public private(set) var samplesOut = 0

    private let quality: Int
    private var resampler: SpeexResampler?
    private let resampled: UnsafeMutableBufferPointer<Int16>
    private var finished = false

    /// Input samples per resampler call; its output (at most 48/8 × this + 2) fits ``resampled``.
    private static let resampleChunk = 1024

    /// - Parameters:
    ///   - format: the task's `format`.
    ///   - sampleRate: the task's `sample_rate` (the rate of pcm; a preference for opus; the others carry their own).
    ///   - outputRate: the playback rate, 8000...48000 Hz.
    ///   - resamplerQuality: speexdsp quality 0...10, default 5 (see ``SpeexResampler/Configuration/quality``).
    /// - Throws: ``PlaybackDecodeError/Code/unsupportedFormat`` for a rate outside 8000...48000 Hz or a quality
    ///   outside 0...10.
    public init(format: SynthesisAudioFormat, sampleRate: Int, outputRate: Int, resamplerQuality: Int = 5) throws(PlaybackDecodeError) {
        guard SampleRates.supported.contains(outputRate), SpeexResampler.Configuration.qualityRange.contains(resamplerQuality) else {
            throw PlaybackDecodeError(.unsupportedFormat,
                                      "playback takes 8000...48000 Hz and resampler quality 0...10, not \(outputRate) Hz, quality \(resamplerQuality)")
        }
        self.format = format
        self.outputRate = outputRate
        self.quality = resamplerQuality
        decoder = try format.makeDecoder(sampleRate: format == .opus ? outputRate : sampleRate)
        resampled = .allocate(capacity: Self.resampleChunk * 6 + 64)
    }

    deinit { resampled.deallocate() }

    /// Decodes the next piece of the stream and calls `output` with each run of samples at ``outputRate``
    /// (valid during the call only).
    /// - Throws: ``PlaybackDecodeError`` for what ends the stream; afterwards only ``finish(output:)`` may be called.
    public func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !finished else { throw PlaybackDecodeError(.invalidState, "the \(format) stream already finished") }
        try decoder.decode(bytes) { samples in resample(samples, output: output) }
    }

    /// Ends the stream: the decoder's last samples, then the resampler's held-back tail.
    /// - Throws: what the decoder's `finish` throws (``PlaybackDecodeError/Code/truncated``), after the tail was
    ///   handed out.
    public func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !finished else { throw PlaybackDecodeError(.invalidState, "the \(format) stream already finished") }
        finished = true
        var thrown: PlaybackDecodeError?
        do throws(PlaybackDecodeError) {
            try decoder.finish { samples in resample(samples, output: output) }
        } catch {
            thrown = error
        }
        if let resampler {
            while true {
                let written = resampler.flush(into: resampled)
                if written > 0 { emit(written, output) }
                if written < resampled.count { break }
            }
        }
        if let thrown { throw thrown }
    }

    private func resample(_ samples: UnsafeBufferPointer<Int16>, output: (UnsafeBufferPointer<Int16>) -> Void) {
        guard let rate = decoder.sampleRate else { return }
        if rate == outputRate {
            samplesOut += samples.count
            output(samples)
            return
        }
        if resampler == nil {
            resampler = try? SpeexResampler(inputRate: rate, outputRate: outputRate,
                                            configuration: SpeexResampler.Configuration(quality: quality))
        }
        guard let resampler else { return }
        var offset = 0
        while offset < samples.count {
            let end = min(samples.count, offset + Self.resampleChunk)
            let moved = resampler.process(UnsafeBufferPointer(rebasing: samples[offset..<end]), into: resampled)
            if moved.produced > 0 { emit(moved.produced, output) }
            if moved.consumed == 0 && moved.produced == 0 { break }
            offset += moved.consumed
        }
    }

    private func emit(_ count: Int, _ output: (UnsafeBufferPointer<Int16>) -> Void) {
        samplesOut += count
        output(UnsafeBufferPointer(rebasing: resampled[0..<count]))
    }
}
