import CSpeexDSP

/// A ``Resampler`` over speexdsp's resampler: windowed-sinc filters at quality 0–10, cheap enough for every
/// stream in the pipeline.
///
/// Alignment: speexdsp starts with half a filter of zeros in its history, so its raw output lags the input by
/// half the filter (`speex_resampler_get_input_latency` input samples). Creation and every new stream call
/// `speex_resampler_skip_zeros`, which skips exactly that much, so output sample `k` is the signal at
/// `k / outputRate` (measured: 0.000 output samples of delay for 48→16, 16→48, 44100→16000, 22050→16000,
/// 16000→8000 kHz). The last half filter of output is held back until more input arrives; ``flush(into:)``
/// feeds zeros to release exactly what is owed.
///
/// Equal rates copy the input unchanged (no filter). Rates: any pair in ``SampleRates/supported`` (8–48 kHz,
/// 44100 and 22050 included).
///
/// Threading: the C state is owned by this object and used by one thread at a time (the caller's audio thread
/// for ``process(_:into:)`` and ``flush(into:)``); that invariant is why the class is `@unchecked Sendable`.
public final class SpeexResampler: Resampler, @unchecked Sendable {
    /// Settings of a ``SpeexResampler``.
    public struct Configuration: Sendable, Hashable {
        /// The speexdsp quality, 0 (cheapest) to 10 (best). Default 5.
        ///
        /// Measured here (Debian speexdsp 1.2.1, float build, one stream, 10 ms chunks, C at -O2), going
        /// 48 → 16 kHz: worst passband deviation 0–6.4 kHz / gain at 7 kHz / worst alias of a full-scale tone at
        /// 8.5–23.9 kHz / cost per 10 ms:
        ///
        /// | quality | 0–6.4 kHz | 7 kHz | alias | µs |
        /// |---|---|---|---|---|
        /// | 2 | 0.34 dB | −5.1 dB | −66 dB | 1.3 |
        /// | 3 | 0.015 dB | −3.1 dB | −85 dB | 1.8 |
        /// | 4 | 0.001 dB | −0.41 dB | −88 dB | 2.4 |
        /// | 5 | < 0.001 dB | −0.23 dB | −105 dB | 3.0 |
        /// | 6 | < 0.001 dB | 0.00 dB | −106 dB | 3.6 |
        /// | 8 | < 0.001 dB | 0.00 dB | −109 dB | 6.6 |
        /// | 10 | < 0.001 dB | 0.00 dB | −126 dB | 30 |
        ///
        /// Quality 5 is the cheapest setting whose aliases (−105 dB) fall below the quantization noise of
        /// 16-bit audio (about −101 dB for a full-scale sine) while the passband stays within 0.25 dB up to
        /// 7 kHz; it costs 0.6 µs per 10 ms more than quality 4 (−88 dB aliases). Upsampling 16 → 48 kHz at
        /// quality 5: images −106 dB, 7 kHz −0.02 dB, 2.6 µs. Rates sharing no large common factor
        /// (44100 → 16000) use speexdsp's interpolated filter and cost about 6× more (19 µs at quality 5).
        public var quality: Int

        /// The qualities speexdsp offers.
        public static let qualityRange = 0...10

        public init(quality: Int = 5) {
            self.quality = quality
        }
    }

    public let configuration: Configuration
    public var inputRate: Int { stream.inputRate }
    public var outputRate: Int { stream.outputRate }

    /// The speexdsp state, or nil when the rates are equal and the input is copied.
    let state: OpaquePointer?
    var stream: ResamplerStream
    /// Samples per speexdsp call (its lengths are 32-bit), and the most zeros one flush call may feed.
    static let pieceLimit = 1 << 20

    /// Creates a resampler from `inputRate` to `outputRate` Hz. Allocates; not real-time safe.
    ///
    /// The corresponding C functions are `speex_resampler_init` and `speex_resampler_skip_zeros`.
    /// - Throws: ``AudioFrontEndError`` with ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside
    ///   8000...48000 Hz, ``AudioFrontEndError/Code/invalidConfiguration`` for a quality outside 0...10, and
    ///   ``AudioFrontEndError/Code/libraryFailure`` if speexdsp refuses.
    public init(inputRate: Int, outputRate: Int, configuration: Configuration = Configuration()) throws {
        stream = try ResamplerStream(inputRate: inputRate, outputRate: outputRate, component: "SpeexResampler")
        try AudioFrontEndError.check(configuration.quality, in: Configuration.qualityRange, "SpeexResampler quality")
        self.configuration = configuration
        if inputRate == outputRate {
            state = nil
            return
        }
        var error: Int32 = 0
        let created = speex_resampler_init(1, UInt32(inputRate), UInt32(outputRate), Int32(configuration.quality), &error)
        guard let created, error == 0 else {
            if let created { speex_resampler_destroy(created) }
            throw AudioFrontEndError(.libraryFailure,
                                     "speex_resampler_init(\(inputRate) → \(outputRate) Hz, quality \(configuration.quality)) failed: "
                                         + String(cString: speex_resampler_strerror(error)),
                                     libraryStatus: error)
        }
        speex_resampler_skip_zeros(created)
        state = created
    }

    deinit {
        if let state { speex_resampler_destroy(state) }
    }

    /// Resamples `input` into `output`; see ``Resampler/process(_:into:)``. Real-time safe: no allocation, no
    /// locks. Consumes all of `input` when `output` holds ``maximumOutputCount(forInputCount:)`` samples; with
    /// less room it stops when `output` is full and reports what it consumed. Caller's thread, one at a time.
    ///
    /// The corresponding C function is `speex_resampler_process_float`.
    public func process(_ input: UnsafeBufferPointer<Float>,
                        into output: UnsafeMutableBufferPointer<Float>) -> (consumed: Int, produced: Int) {
        resample(input, into: output) { speex_resampler_process_float($0, 0, $1, &$2, $3, &$4) }
    }

    /// Ends the stream: feeds zeros until the samples still owed (``remainingOutputCount``) have come out, writing
    /// as many as fit in `output`. When all are written the resampler starts a new stream (as ``reset()`` does);
    /// otherwise call again for the rest. Real-time safe. Caller's thread, one at a time.
    ///
    /// The corresponding C function is `speex_resampler_process_float` with no input (zeros).
    /// - Returns: the samples written.
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        drain(into: output) { speex_resampler_process_float($0, 0, $1, &$2, $3, &$4) }
    }

    /// The most samples one ``process(_:into:)`` call produces for `inputCount` samples:
    /// `floor(inputCount × outputRate / inputRate) + 2` (`inputCount` when copying). Real-time safe.
    public func maximumOutputCount(forInputCount inputCount: Int) -> Int {
        stream.maximumOutput(forInput: inputCount)
    }

    /// Samples owed for the input consumed so far: what ``flush(into:)`` would write now. Real-time safe.
    public var remainingOutputCount: Int { stream.owed }

    /// Clears the filter history and the counts; the next sample starts a new, aligned stream. Does not allocate.
    ///
    /// The corresponding C functions are `speex_resampler_reset_mem` and `speex_resampler_skip_zeros`.
    public func reset() {
        if let state {
            speex_resampler_reset_mem(state)
            speex_resampler_skip_zeros(state)
        }
        stream.restart()
    }

    /// One speexdsp process call: state, input (nil for zeros), input length, output, output length; the lengths
    /// come back as the samples consumed and produced.
    typealias Call<Sample> = (OpaquePointer, UnsafePointer<Sample>?, inout UInt32,
                              UnsafeMutablePointer<Sample>, inout UInt32) -> Int32

    /// The process shared by the Float and Int16 paths: copies when the rates are equal, else runs `call`.
    @inline(__always)
    func resample<Sample>(_ input: UnsafeBufferPointer<Sample>, into output: UnsafeMutableBufferPointer<Sample>,
                          _ call: Call<Sample>) -> (consumed: Int, produced: Int) {
        guard let state else { return stream.passThrough(input, into: output) }
        guard let source = input.baseAddress, let destination = output.baseAddress else { return (0, 0) }
        let moved = pump(input.count, output.count) { inputOffset, inputLength, outputOffset, outputLength in
            call(state, source + inputOffset, &inputLength, destination + outputOffset, &outputLength)
        }
        stream.record(moved)
        return moved
    }

    /// The flush shared by the Float and Int16 paths: `call` resamples zeros (no input) until
    /// `min(owed, output.count)` samples came out; then a new stream starts if nothing more is owed.
    @inline(__always)
    func drain<Sample>(into output: UnsafeMutableBufferPointer<Sample>, _ call: Call<Sample>) -> Int {
        let count = min(stream.owed, output.count)
        var written = 0
        if count > 0, let state, let destination = output.baseAddress {
            // Half a filter of zeros releases everything owed; the bound only stops a misbehaving library.
            written = pump(4 * Self.pieceLimit, count) { _, inputLength, outputOffset, outputLength in
                call(state, nil, &inputLength, destination + outputOffset, &outputLength)
            }.produced
            stream.record((0, written))
        }
        if stream.owed == 0 { reset() }
        return written
    }

    /// Runs one speexdsp call at a time over the next pieces of input and output until the input is used up,
    /// the output is full, or a call moves nothing.
    @inline(__always)
    private func pump(_ inputCount: Int, _ outputCount: Int,
                      _ step: (_ inputOffset: Int, _ inputLength: inout UInt32,
                               _ outputOffset: Int, _ outputLength: inout UInt32) -> Int32) -> (consumed: Int, produced: Int) {
        var consumed = 0, produced = 0
        while consumed < inputCount, produced < outputCount {
            var inputLength = UInt32(min(inputCount - consumed, Self.pieceLimit))
            var outputLength = UInt32(min(outputCount - produced, Self.pieceLimit))
            let status = step(consumed, &inputLength, produced, &outputLength)
            consumed += Int(inputLength)
            produced += Int(outputLength)
            if status != 0 || (inputLength == 0 && outputLength == 0) { break }
        }
        return (consumed, produced)
    }
}
