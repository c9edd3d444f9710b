/// Noise suppression by speexdsp's preprocessor (`speex_preprocess_run` with denoise on; AGC, VAD and
/// dereverberation off).
///
/// Works at any rate from 8000 to 48000 Hz with whole 10 ms frames. The output lags the input by one frame
/// (10 ms): the preprocessor's overlap-add window spans two frames.
/// Threading: one thread at a time (the invariant behind `@unchecked Sendable`); create and ``reset()`` off the
/// audio thread, ``process(_:)`` on it.
public final class SpeexNoiseSuppressor: NoiseSuppressor, @unchecked Sendable {
    /// Settings of a ``SpeexNoiseSuppressor``. Every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// The rate in Hz: 8000...48000 with a whole number of samples in 10 ms. Default 16000.
        public var sampleRate: Int = 16000
        /// Maximum noise attenuation, -100...-1 dB (speexdsp's sign). Default -15 (speexdsp's default).
        public var noiseSuppressDecibels: Int = -15

        public init() {}

        public init(sampleRate: Int, noiseSuppressDecibels: Int = -15) {
            self.sampleRate = sampleRate
            self.noiseSuppressDecibels = noiseSuppressDecibels
        }
    }

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// One frame: the preprocessor's overlap-add window spans two frames.
    public var latencySamples: Int { frameLength }
    private let preprocessor: SpeexPreprocessor

    /// Creates the suppressor. Allocates; not real-time safe. The corresponding C functions are
    /// `speex_preprocess_state_init` and `speex_preprocess_ctl`.
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside 8000...48000 Hz or without
    ///   whole 10 ms frames; ``AudioFrontEndError/Code/invalidConfiguration`` for a level outside -100...-1 dB.
    public init(configuration: Configuration = Configuration()) throws {
        let length = try SampleRates.frameLength(configuration.sampleRate, for: "speex noise suppressor")
        try AudioFrontEndError.check(configuration.noiseSuppressDecibels, in: -100 ... -1, "speex noise suppress (dB)")
        let settings = SpeexPreprocessor.Settings(sampleRate: configuration.sampleRate, frameLength: length,
                                                  denoise: true,
                                                  noiseSuppressDecibels: configuration.noiseSuppressDecibels)
        preprocessor = try SpeexPreprocessor(settings: settings, echoState: nil, component: "speex noise suppressor")
        self.configuration = configuration
        frameLength = length
    }

    /// Suppresses noise in `frame` in place. Real-time safe: no allocation, locks or throwing; audio thread.
    /// The corresponding C function is `speex_preprocess_run`.
    /// - Returns: ``StageStatus/ok``, or ``StageStatus/wrongFrameLength`` (frame untouched).
    public func process(_ frame: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard frame.count == frameLength, let base = frame.baseAddress else { return .wrongFrameLength }
        preprocessor.run(base)
        return .ok
    }

    /// Forgets the noise estimate, keeps the configuration. Not real-time safe (re-creates the state).
    public func reset() { preprocessor.reset() }
}
