import CSampleRate

/// A ``Resampler`` over libsamplerate's band-limited sinc converters: the high-quality option, 10–60× the cost of
/// ``SpeexResampler``.
///
/// Alignment: libsamplerate's sinc converter starts with half a filter of zeros before the first input and
/// centres each output on its input position, holding back input until the right half of the filter is there.
/// Its output therefore has no delay to discard (derived from the converter and measured: 0.000 output samples
/// for 48→16, 16→48, 44100→16000, 22050→16000, 16000→8000 kHz at all three qualities), and the held-back
/// output is released by ``flush(into:)``, which feeds zeros until exactly the owed count has come out.
/// The linear and zero-order-hold converters are not offered: they do not filter aliases.
///
/// Equal rates copy the input unchanged. Rates: any pair in ``SampleRates/supported`` (8–48 kHz).
///
/// Threading: the C state and the scratch buffers are owned by this object and used by one thread at a time
/// (the caller's audio thread for processing and flushing); that invariant is why the class is
/// `@unchecked Sendable`.
public final class SampleRateConverter: Resampler, @unchecked Sendable {
    /// Settings of a ``SampleRateConverter``.
    public struct Configuration: Sendable, Hashable {
        /// libsamplerate's sinc converters. Upstream: 97 dB SNR at 97 / 90 / 80 % of the bandwidth.
        ///
        /// Measured here going 48 → 16 kHz (one stream, 10 ms chunks): worst passband deviation 0–6.4 kHz,
        /// gain at 7 kHz, worst alias of a full-scale tone at 8.5–23.9 kHz, cost per 10 ms:
        /// best < 0.001 dB, 0.00 dB, −144 dB, 148 µs; medium < 0.001 dB, −0.28 dB, −116 dB, 49 µs;
        /// fastest 2.8 dB (−0.5 dB at 6 kHz, flat to 5 kHz), −13.8 dB, −96 dB, 21 µs.
        public enum Quality: Sendable, Hashable, CaseIterable {
            /// `SRC_SINC_BEST_QUALITY`.
            case best
            /// `SRC_SINC_MEDIUM_QUALITY`.
            case medium
            /// `SRC_SINC_FASTEST`: flat to about 62 % of the lower Nyquist frequency (5 kHz at 16 kHz).
            case fastest
        }

        /// The converter. Default ``Quality/medium``: flat to 7 kHz within 0.3 dB with aliases below −110 dB,
        /// a third of the cost of ``Quality/best``.
        public var quality: Quality
        /// The most int16 input samples the int16 path converts in one piece (larger chunks are processed in
        /// pieces); sizes its float scratch buffers at creation. 1...1_048_576, default 4800 (100 ms at 48 kHz).
        public var int16ChunkCapacity: Int

        /// The range ``int16ChunkCapacity`` must lie in.
        public static let int16ChunkCapacityRange = 1...(1 << 20)

        public init(quality: Quality = .medium, int16ChunkCapacity: Int = 4800) {
            self.quality = quality
            self.int16ChunkCapacity = int16ChunkCapacity
        }
    }

    public let configuration: Configuration
    public var inputRate: Int { stream.inputRate }
    public var outputRate: Int { stream.outputRate }

    /// The libsamplerate state, or nil when the rates are equal and the input is copied.
    private let state: OpaquePointer?
    var stream: ResamplerStream
    private let ratio: Double
    /// Zeros fed by a flush.
    private let zeros: UnsafeMutableBufferPointer<Float>
    /// Scratch of the int16 path: one piece of input and its output, as floats.
    let floatInput: UnsafeMutableBufferPointer<Float>
    let floatOutput: UnsafeMutableBufferPointer<Float>

    /// Creates a converter from `inputRate` to `outputRate` Hz. Allocates; not real-time safe.
    ///
    /// The corresponding C function is `src_new`.
    /// - Throws: ``AudioFrontEndError`` with ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside
    ///   8000...48000 Hz, ``AudioFrontEndError/Code/invalidConfiguration`` for an int16 chunk capacity out of
    ///   range, and ``AudioFrontEndError/Code/libraryFailure`` if libsamplerate refuses.
    public init(inputRate: Int, outputRate: Int, configuration: Configuration = Configuration()) throws {
        let stream = try ResamplerStream(inputRate: inputRate, outputRate: outputRate, component: "SampleRateConverter")
        try AudioFrontEndError.check(configuration.int16ChunkCapacity, in: Configuration.int16ChunkCapacityRange,
                                     "SampleRateConverter int16ChunkCapacity")
        self.stream = stream
        self.configuration = configuration
        ratio = Double(outputRate) / Double(inputRate)
        if inputRate == outputRate {
            state = nil
        } else {
            var error: Int32 = 0
            let created = src_new(Self.converterType(configuration.quality), 1, &error)
            guard let created, error == 0 else {
                if let created { src_delete(created) }
                throw AudioFrontEndError(.libraryFailure,
                                         "src_new(\(configuration.quality)) for \(inputRate) → \(outputRate) Hz failed: "
                                             + String(cString: src_strerror(error)),
                                         libraryStatus: error)
            }
            state = created
        }
        zeros = .zeroed(capacity: state == nil ? 0 : 2048)
        floatInput = .zeroed(capacity: configuration.int16ChunkCapacity)
        floatOutput = .zeroed(capacity: stream.maximumOutput(forInput: configuration.int16ChunkCapacity))
    }

    deinit {
        if let state { src_delete(state) }
        zeros.deallocate()
        floatInput.deallocate()
        floatOutput.deallocate()
    }

    private static func converterType(_ quality: Configuration.Quality) -> Int32 {
        switch quality {
        case .best: Int32(SRC_SINC_BEST_QUALITY)
        case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
        case .fastest: Int32(SRC_SINC_FASTEST)
        }
    }

    /// Resamples `input` into `output`; see ``Resampler/process(_:into:)``. Real-time safe: no allocation, no
    /// locks. Consumes all of `input` when `output` holds ``maximumOutputCount(forInputCount:)`` samples; with
    /// less room it hands libsamplerate only the input whose output surely fits, so nothing is buffered beyond
    /// the filter's own look-ahead. Caller's thread, one at a time.
    ///
    /// The corresponding C function is `src_process`.
    public func process(_ input: UnsafeBufferPointer<Float>,
                        into output: UnsafeMutableBufferPointer<Float>) -> (consumed: Int, produced: Int) {
        guard let state else { return stream.passThrough(input, into: output) }
        guard let source = input.baseAddress, let destination = output.baseAddress else { return (0, 0) }
        var consumed = 0, produced = 0
        while consumed < input.count {
            let piece = min(input.count - consumed, stream.maximumInput(forOutputRoom: output.count - produced))
            guard piece > 0 else { break }
            let step = convert(state, source + consumed, piece, destination + produced, output.count - produced)
            consumed += step.consumed
            produced += step.produced
            if step.consumed == 0 && step.produced == 0 { break }
        }
        stream.record((consumed, produced))
        return (consumed, produced)
    }

    /// Ends the stream: feeds zeros until the samples still owed (``remainingOutputCount``) have come out, writing
    /// as many as fit in `output`. When all are written the converter starts a new stream (as ``reset()`` does);
    /// otherwise call again for the rest. Real-time safe. Caller's thread, one at a time.
    ///
    /// The corresponding C function is `src_process` over zeros.
    /// - Returns: the samples written.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        let count = min(stream.owed, output.count)
        var written = 0
        if count > 0, let state, let destination = output.baseAddress, let silence = zeros.baseAddress {
            // Half a filter of zeros (under 1000 input samples at best quality, 48 → 8 kHz) releases everything
            // owed; the bound only stops a misbehaving library.
            var calls = 0
            while written < count, calls < 64 {
                let step = convert(state, silence, zeros.count, destination + written, count - written)
                written += step.produced
                calls += 1
                if step.consumed == 0 && step.produced == 0 { break }
            }
            stream.record((0, written))
        }
        if stream.owed == 0 { reset() }
        return written
    }

    /// The most samples one ``process(_:into:)`` call produces for `inputCount` samples:
    /// `floor(inputCount × outputRate / inputRate) + 2` (`inputCount` when copying). Real-time safe.
    public func maximumOutputCount(forInputCount inputCount: Int) -> Int {
        stream.maximumOutput(forInput: inputCount)
    }

    /// Samples owed for the input consumed so far: what ``flush(into:)`` would write now. Real-time safe.
    public var remainingOutputCount: Int { stream.owed }

    /// Clears the filter history and the counts; the next sample starts a new, aligned stream. Does not allocate;
    /// it clears libsamplerate's whole input buffer, which is larger than the filter.
    ///
    /// The corresponding C function is `src_reset`.
    public func reset() {
        if let state { src_reset(state) }
        stream.restart()
    }

    /// One `src_process` call; nothing moves if libsamplerate reports an error.
    @inline(__always)
    private func convert(_ state: OpaquePointer, _ input: UnsafePointer<Float>, _ inputCount: Int,
                         _ output: UnsafeMutablePointer<Float>, _ outputCount: Int) -> (consumed: Int, produced: Int) {
        var data = SRC_DATA(data_in: input, data_out: output, input_frames: inputCount, output_frames: outputCount,
                            input_frames_used: 0, output_frames_gen: 0, end_of_input: 0, src_ratio: ratio)
        guard src_process(state, &data) == 0 else { return (0, 0) }
        return (data.input_frames_used, data.output_frames_gen)
    }
}
