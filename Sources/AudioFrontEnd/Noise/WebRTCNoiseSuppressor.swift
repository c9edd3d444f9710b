import CAudioShims

/// Noise suppression by webrtc-audio-processing 0.3's `NoiseSuppression`, through its own APM instance with
/// only NS enabled (C shim `afe_apm_*`). In a `FrontEnd` whose echo canceller is WebRTC's, NS runs inside the
/// canceller's instance instead (same level; the noise is analysed before the canceller, as the library orders it).
///
/// Works at 8, 16, 32 or 48 kHz. The suppressor learns the noise during the first second or so and then tracks
/// it; it removes stationary noise (fans, hum, road) and little of non-stationary noise (babble, clicks).
/// Threading: one thread at a time (the invariant behind `@unchecked Sendable`); create and ``reset()`` off the
/// audio thread, ``process(_:)`` on it.
public final class WebRTCNoiseSuppressor: NoiseSuppressor, @unchecked Sendable {
    /// Settings of a ``WebRTCNoiseSuppressor``. Every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// How hard the suppressor attenuates: higher removes more noise and colours speech more.
        public enum Level: Int32, Sendable, Equatable, CaseIterable {
            case low = 0, moderate = 1, high = 2, veryHigh = 3
        }

        /// The rate in Hz: 8000, 16000, 32000 or 48000. Default 16000.
        public var sampleRate: Int = 16000
        /// Default ``Level/moderate`` (the library's default). Measured on the pink + babble test vectors at
        /// 5 dB SNR: the noise floor drops about 6 / 10 / 13 / 15 dB (low / moderate / high / very high) while
        /// speech loses about 1.6 / 1.0 / 1.7 / 2.4 dB against the clean talker; moderate leaves the output
        /// spectrally closest to the clean talker.
        public var level: Level = .moderate

        public init() {}

        public init(sampleRate: Int, level: Level = .moderate) {
            self.sampleRate = sampleRate
            self.level = level
        }
    }

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// The library's buffering delay at this rate (measured by
    /// `EchoCancellerContractTests.testDeclaredLatencyIsMeasured`).
    public var latencySamples: Int { WebRTCAudioProcessor.latencySamples(sampleRate: sampleRate, echo: false) }
    private let processor: WebRTCAudioProcessor

    /// Creates the suppressor. Allocates; not real-time safe. The corresponding C function is `afe_apm_create`.
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate other than 8, 16, 32 or 48 kHz;
    ///   ``AudioFrontEndError/Code/libraryFailure`` when the library refuses.
    public init(configuration: Configuration = Configuration()) throws {
        var config = WebRTCAudioProcessor.defaultConfiguration(sampleRate: configuration.sampleRate)
        config.echo_mode = Int32(AFE_APM_ECHO_OFF)
        config.extended_filter = 0
        config.metrics = 0
        config.noise_suppression = configuration.level.rawValue
        processor = try WebRTCAudioProcessor(configuration: config, component: "WebRTC noise suppressor")
        self.configuration = configuration
        frameLength = processor.frameLength
    }

    /// Suppresses noise in `frame` in place. Real-time safe: no allocation, locks or throwing; audio thread.
    /// The corresponding C function is `afe_apm_process_capture` (`ProcessStream`).
    /// - Returns: ``StageStatus/ok``, ``StageStatus/wrongFrameLength`` (frame untouched), or the library's
    ///   status when it fails.
    public func process(_ frame: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard frame.count == frameLength, frame.baseAddress != nil else { return .wrongFrameLength }
        let status = processor.processCapture(frame, streamDelayMilliseconds: 0)
        return status == 0 ? .ok : StageStatus(code: status)
    }

    /// The suppressor's speech probability for the last frame, 0...1. Real-time safe.
    /// The corresponding C function is `afe_apm_speech_probability`.
    public var speechProbability: Float { processor.speechProbability }

    /// Forgets the noise estimate, keeps the configuration. Not real-time safe.
    /// The corresponding C function is `afe_apm_reset` (`Initialize`).
    public func reset() { processor.reset() }
}
