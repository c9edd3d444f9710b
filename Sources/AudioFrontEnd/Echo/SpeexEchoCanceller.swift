import CSpeexDSP

/// Echo cancellation by speexdsp's multidelay block frequency-domain adaptive filter (MDF), optionally followed
/// by speexdsp's preprocessor for residual-echo suppression and denoising.
///
/// The filter covers ``Configuration/tailMilliseconds`` of echo path starting at the reference as given: speexdsp
/// has no delay input, so the caller shifts the reference by the bulk delay first (``streamDelayMilliseconds`` is
/// ignored). There is no double-talk detector; the filter adapts slowly instead. With the preprocessor on, the
/// output lags the capture by one 10 ms frame.
///
/// Threading: one thread at a time (the invariant behind `@unchecked Sendable`); create and ``reset()`` off the
/// audio thread, ``process(capture:reference:output:)`` on it.
public final class SpeexEchoCanceller: EchoCanceller, @unchecked Sendable {
    /// Settings of a ``SpeexEchoCanceller``. Every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// The rate in Hz: 8000...48000 with a whole number of samples in 10 ms. Default 16000.
        public var sampleRate: Int = 16000
        /// The echo path the adaptive filter covers after the (caller-removed) bulk delay, 20...500 ms.
        /// Default 128 ms, about half the test room's reverberation time (RT60 0.25 s; the room's echo path
        /// holds -38 dB of its energy beyond 128 ms). Longer tails adapt more slowly: through the front end on
        /// the 0 dB SER double-talk vector, with residual suppression, far-end-only echo falls by
        /// 27.3 / 26.8 / 24.8 dB with a 64 / 128 / 256 ms tail. With the residual suppressor, 2 s after the echo
        /// starts, the 128 ms tail reaches 34 dB at 16 kHz and 18.6 dB at 48 kHz (EchoCancellerTests).
        public var tailMilliseconds: Int = 128
        /// Run the preprocessor's residual-echo suppressor after the filter. Default true. It matters after
        /// double talk, which disturbs the filter: on the 0 dB SER test vector it raises far-end-only echo
        /// reduction from 20.5 to 32.8 dB, at a cost to the near end during double talk (magnitude SDR
        /// 17.4 → 11.0 dB, level -0.2 → -1.5 dB) and one frame of latency (``latencySamples``).
        public var residualEchoSuppression: Bool = true
        /// Maximum residual-echo attenuation while only the far end talks, -100...0 dB. Default -40 (speexdsp's).
        public var echoSuppressDecibels: Int = -40
        /// Maximum residual-echo attenuation while the near end talks too, -100...0 dB. Default -15 (speexdsp's).
        public var echoSuppressActiveDecibels: Int = -15
        /// Also denoise in the same preprocessor. Default false (noise suppression is its own stage).
        public var denoise: Bool = false
        /// Maximum noise attenuation when ``denoise`` is on, -100...0 dB. Default -15 (speexdsp's).
        public var noiseSuppressDecibels: Int = -15

        public init() {}

        /// A configuration at `sampleRate` with every other field at its default.
        public init(sampleRate: Int, tailMilliseconds: Int = 128) {
            self.sampleRate = sampleRate
            self.tailMilliseconds = tailMilliseconds
        }
    }

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// Ignored: speexdsp takes no delay; align the reference before ``process(capture:reference:output:)``.
    public var streamDelayMilliseconds: Int = 0

    private let echoState: OpaquePointer
    private var preprocessor: SpeexPreprocessor?
    /// The filter's output before the preprocessor, so `output` may alias `capture`.
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Creates the canceller. Allocates; not real-time safe. The corresponding C functions are
    /// `speex_echo_state_init`, `speex_echo_ctl(SPEEX_ECHO_SET_SAMPLING_RATE)` and, for the preprocessor,
    /// `speex_preprocess_state_init` and `speex_preprocess_ctl` (`SPEEX_PREPROCESS_SET_ECHO_STATE`).
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside 8000...48000 Hz or without
    ///   whole 10 ms frames; ``AudioFrontEndError/Code/invalidConfiguration`` for a tail outside 20...500 ms or a
    ///   dB value outside -100...0; ``AudioFrontEndError/Code/libraryFailure`` when speexdsp refuses.
    public init(configuration: Configuration = Configuration()) throws {
        let c = configuration
        let length = try SampleRates.frameLength(c.sampleRate, for: "speex echo canceller")
        try AudioFrontEndError.check(c.tailMilliseconds, in: 20...500, "speex echo canceller tail (ms)")
        try AudioFrontEndError.check(c.echoSuppressDecibels, in: -100...0, "speex echo suppress (dB)")
        try AudioFrontEndError.check(c.echoSuppressActiveDecibels, in: -100...0, "speex echo suppress active (dB)")
        try AudioFrontEndError.check(c.noiseSuppressDecibels, in: -100...0, "speex noise suppress (dB)")
        let filterLength = c.tailMilliseconds * c.sampleRate / 1000
        guard let state = speex_echo_state_init(Int32(length), Int32(filterLength)) else {
            throw AudioFrontEndError(.libraryFailure, "speex_echo_state_init(\(length), \(filterLength)) failed")
        }
        var rate = Int32(c.sampleRate)
        let status = speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        guard status == 0 else {
            speex_echo_state_destroy(state)
            throw AudioFrontEndError(.libraryFailure, "speex echo canceller refused \(c.sampleRate) Hz",
                                     libraryStatus: status)
        }
        if c.residualEchoSuppression || c.denoise {
            let settings = SpeexPreprocessor.Settings(
                sampleRate: c.sampleRate, frameLength: length, denoise: c.denoise,
                noiseSuppressDecibels: c.noiseSuppressDecibels, echoSuppressDecibels: c.echoSuppressDecibels,
                echoSuppressActiveDecibels: c.echoSuppressActiveDecibels)
            do {
                preprocessor = try SpeexPreprocessor(settings: settings,
                                                     echoState: c.residualEchoSuppression ? state : nil,
                                                     component: "speex echo canceller")
            } catch {
                speex_echo_state_destroy(state)
                throw error
            }
        } else {
            preprocessor = nil
        }
        echoState = state
        self.configuration = c
        frameLength = length
        scratch = .zeroed(capacity: length)
    }

    deinit {
        preprocessor = nil // it refers to the echo state, so it goes first
        speex_echo_state_destroy(echoState)
        scratch.deallocate()
    }

    /// Cancels the echo of `reference` in `capture` into `output` (which may be the same memory as `capture`),
    /// then runs the preprocessor when configured. Real-time safe: no allocation, locks or throwing; audio thread.
    /// The corresponding C functions are `speex_echo_cancellation` and `speex_preprocess_run`.
    /// - Returns: ``StageStatus/ok``, or ``StageStatus/wrongFrameLength`` for buffers of another length
    ///   (output then holds capture).
    public func process(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard checkFrame(capture: capture, reference: reference, output: output),
              let mic = capture.baseAddress, let far = reference.baseAddress, let out = output.baseAddress,
              let filtered = scratch.baseAddress else { return .wrongFrameLength }
        speex_echo_cancellation(echoState, mic, far, filtered)
        var sum: Float = 0
        for i in 0..<frameLength {
            let y = Float(mic[i]) - Float(filtered[i])
            sum += y * y
        }
        estimate = LevelMeter.decibels(meanSquare: Double(sum) / Double(frameLength) / (32768.0 * 32768.0))
        preprocessor?.run(filtered)
        out.update(from: filtered, count: frameLength)
        return .ok
    }

    /// One frame with the preprocessor (its overlap-add window spans two frames), else 0 (measured by
    /// `EchoCancellerTests.testNearEndTalkerPassesEveryCanceller`).
    public var latencySamples: Int { preprocessor == nil ? 0 : frameLength }

    /// Level (dBFS) of the MDF filter's echo estimate in the last frame (capture minus the filter's output,
    /// before the preprocessor); the floor before the first frame. Real-time safe; processing thread.
    public var echoEstimateDecibels: Float? { estimate }
    private var estimate = LevelMeter.floorDecibels

    /// speexdsp computes no echo metrics: every field is nil. Real-time safe.
    public func metrics() -> EchoMetrics { EchoMetrics() }

    /// Clears the adaptive filter and the preprocessor's estimates, keeps the configuration. Not real-time safe.
    /// The corresponding C function is `speex_echo_state_reset`.
    public func reset() {
        speex_echo_state_reset(echoState)
        preprocessor?.reset()
        scratch.update(repeating: 0)
        estimate = LevelMeter.floorDecibels
    }
}
